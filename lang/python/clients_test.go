package python_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/lang/python"
	pydriver "github.com/chobo-lang/chobo/lang/python/driver"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// The generated clients as Python reads them: every case's, type-checked,
// compiled and imported, and what they refuse before anything is sent.
// The interpreter and mypy are those of the runtime's virtual environment
// (setup.sh makes it in runtime/.venv), which the Python driver kit finds;
// without it the tests skip with a SKIP line, and under CI they must run.

// venvPython is the virtual environment's interpreter.
func venvPython(t *testing.T) string {
	t.Helper()
	return langtest.Use(t, pydriver.Kit{}).(*pydriver.Venv).Python
}

// hostileBook is a book whose every text and name is one a Python client
// must write with care: descriptions that would end a docstring or start
// an escape, keywords and soft keywords, a name NFKC changes, names the
// file keeps for itself or writes in its annotations, built-in names,
// Japanese. Its clients are type-checked beside
// the cases'.
const hostileBook = `book hostile v1
description "ends \"\"\" or ''' and \\ or \\N{BULLET} or {x} %s $1 */ \"\"\"\""
unit pcs
account 在庫(ｓｋｕ: string, match: string) : pcs
  description "a backslash at the end \\"
  at least 0 refused as 在庫切れ
account balance : pcs outside
transfer import(class: string, ｓｋｕ: string, match: string, type: pcs, self: pcs)
  description "\"\"\"; import os; \"\"\""
  key class
  move type from balance to 在庫(ｓｋｕ, match)
  move self from balance to 在庫(ｓｋｕ, match)
transfer none(check_text: string, ｓｋｕ: string, match: string, n: pcs)
  key check_text
  pending expires after 1 minute
  move n from 在庫(ｓｋｕ, match) to balance
transfer expire(_backend: string, ｓｋｕ: string, match: string)
  key _backend
  pending expires after 1 minute
  move 1 from 在庫(ｓｋｕ, match) to balance
account Balance : pcs outside
account str : pcs outside
transfer exception(r: string, int: pcs, str: pcs)
  key r
  pending expires after 1 minute
  move int from Balance to str
  move str from Balance to str
transfer Balances(r: string, _unknown: string, check_keywords: string)
  key r, _unknown, check_keywords
  move 1 from Balance to str
transfer str(r: string)
  key r
  move 1 from Balance to str
`

// TestClientsTypeCheck holds the Python clients of every case, both
// targets, as the build writes them (langtest.Clients), and those of hostileBook to mypy --strict, compiles them
// with py_compile and imports each, which runs what a client declares at
// its top level (the runtime's too) and, on TigerBeetle, builds the
// book's definition. mypy, psycopg and the tigerbeetle package come from
// the Python runtime's virtual environment (tests/setup.sh); without it
// the test skips with a SKIP line, and under CI it must be there.
func TestClientsTypeCheck(t *testing.T) {
	venv := filepath.Dir(venvPython(t))
	// Clients of one book share a module name, so each is copied under
	// a name of its own: its case's and its target's.
	dir := t.TempDir()
	var modules []string
	add := func(module string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, module+".py"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		modules = append(modules, module)
	}
	for _, tg := range langtest.Targets(python.Language.Name) {
		for _, c := range langtest.Clients(t, tg) {
			add(c.Case+"__"+strings.ReplaceAll(tg, "-", "_"), c.Data)
		}
	}
	if len(modules) < 20 {
		t.Fatalf("found only %d Python clients", len(modules))
	}
	res := check.Check("hostile.book", []byte(hostileBook))
	if res.Book == nil {
		t.Fatalf("the hostile book does not check: %v", res.Diags)
	}
	for _, tg := range langtest.Targets(python.Language.Name) {
		g, _ := target.Lookup(tg)
		files, ds, err := g.Build(res.Book, gen.NewSource("hostile.book", []byte(hostileBook)), gen.Options{})
		if err != nil || len(ds) > 0 || len(files) != 1 {
			t.Fatalf("%s of the hostile book: %v %v", tg, err, ds)
		}
		add("hostile__"+strings.ReplaceAll(tg, "-", "_"), files[0].Data)
	}
	var paths []string
	for _, m := range modules {
		paths = append(paths, filepath.Join(dir, m+".py"))
	}
	env := append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH="+dir)
	run := func(what string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(venv, name), args...)
		cmd.Dir, cmd.Env = dir, env
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s over %d Python clients: %v\n%s", what, len(modules), err, b)
		}
		return strings.TrimSpace(string(b))
	}
	t.Logf("mypy --strict: %s", run("mypy --strict", "mypy", append([]string{"--strict", "--cache-dir", t.TempDir()}, paths...)...))
	run("py_compile", "python", append([]string{"-m", "py_compile"}, paths...)...)
	script := `import importlib, sys
for name in sys.argv[1:]:
    m = importlib.import_module(name)
    if hasattr(m, "_definition"):
        m._definition()
`
	run("importing", "python", append([]string{"-B", "-c", script}, modules...)...)
	t.Logf("%d Python clients type-check, compile and import", len(modules))
}

// unknownKeywordScript calls every method of the four books of a
// postgres-python and a tigerbeetle-python client (argv: their modules)
// with the keywords it takes and one more, over connections and clients
// that record any use: each must raise ChoboError CHOBO_BAD_ARGUMENT
// naming the extra keyword, and nothing may reach the driver. A method
// whose arguments are keyword-only must still refuse a positional one.
const unknownKeywordScript = `import asyncio, importlib, inspect, sys
pg, tbm = importlib.import_module(sys.argv[1]), importlib.import_module(sys.argv[2])
used = []

class Conn:
    def cursor(self):
        used.append("cursor")
        raise AssertionError("a cursor was asked for")

class AsyncCur:
    async def execute(self, q, p):
        used.append(q)

class AsyncConn:
    def cursor(self):
        used.append("cursor")
        return AsyncCur()

class Client:
    def __init__(self):
        for n in ("create_accounts", "create_transfers", "lookup_accounts", "lookup_transfers"):
            setattr(self, n, lambda *a, n=n: used.append(n))

class AsyncClient:
    async def create_accounts(self, *a): used.append("create_accounts")
    async def create_transfers(self, *a): used.append("create_transfers")
    async def lookup_accounts(self, *a): used.append("lookup_accounts")
    async def lookup_transfers(self, *a): used.append("lookup_transfers")

books = [(pg, pg.postgres(Conn())), (pg, pg.postgres_async(AsyncConn())),
         (tbm, tbm.tigerbeetle(Client())), (tbm, tbm.tigerbeetle_async(AsyncClient()))]

def value(annotation):
    return {"str": "x", "int": 1}.get(str(annotation), None)

def methods(book):
    yield book
    for name, member in vars(book).items():
        if not name.startswith("_"):
            yield member

checked = positional = 0
for module, book in books:
    for obj in methods(book):
        for name in dir(type(obj)):
            if name.startswith("_"):
                continue
            m = getattr(obj, name)
            params = list(inspect.signature(m).parameters.values())
            # A history read takes its query or time positionally.
            pos = [value(p.annotation) for p in params if p.kind == p.POSITIONAL_ONLY and p.default is p.empty]
            given = {p.name: value(p.annotation) for p in params
                     if p.kind not in (p.VAR_KEYWORD, p.POSITIONAL_ONLY) and p.default is p.empty}
            if "calls" in given:
                given["calls"] = []
            try:
                r = m(*pos, **given, wrong_keyword=1)
                if inspect.isawaitable(r):
                    asyncio.run(r)
            except module.ChoboError as e:
                assert e.code == "CHOBO_BAD_ARGUMENT", (name, e.code, e)
                assert "'wrong_keyword'" in str(e), (name, str(e))
            else:
                raise AssertionError(f"{type(obj).__name__}.{name} took wrong_keyword")
            checked += 1
            if any(p.kind == p.KEYWORD_ONLY for p in params):
                try:
                    m(*pos, *given.values())
                except TypeError:
                    positional += 1
                else:
                    raise AssertionError(f"{type(obj).__name__}.{name} took positional arguments")
assert not used, used
print(checked, positional)
`

// unknownKeywordCaller is a program that calls a postgres-python and a
// tigerbeetle-python client with a keyword the operation does not take,
// sync and async, a method and a *_call twin; mypy --strict must name
// each.
const unknownKeywordCaller = `from datetime import datetime, timezone

import psycopg
import tigerbeetle as tb
from pgbook import Balance, Entry, OpenHold, Statement, StatementQuery, postgres, postgres_async
from tbbook import tigerbeetle


def sync(conn: psycopg.Connection) -> None:
    book = postgres(conn)
    book.receive.do(delivery="d", sku="s", qty=1, qtty=2)
    book.reserve.hold_call(order="o", sku="s", qty=1, orders="o")
    book.balance.stock(sku="s", skus="s")
    book.expire(max=1, limit=2)


async def asynchronous(conn: psycopg.AsyncConnection) -> None:
    book = postgres_async(conn)
    await book.reserve.post(order="o", sku="s", amount=1)


def beetle(client: tb.ClientSync) -> None:
    book = tigerbeetle(client)
    book.reserve.void(order="o", sku="s", tenant="t")


def reads(conn: psycopg.Connection, beetle: tb.ClientSync) -> None:
    book = postgres(conn)
    page: Statement = book.statement.stock(StatementQuery(newest=True, limit=3), sku="s")
    more: bool = page.more
    changed: int = page.entries[0].posted
    when: datetime = page.entries[0].at
    then: Balance = book.balance_at.stock(datetime.now(timezone.utc), sku="s")
    held: list[OpenHold] = book.open_holds.stock(sku="s")
    calls: list[Entry] = book.reserve.entries(order="o", sku="s")
    kinds: list[OpenHold] = book.reserve.open_holds()
    later: int = len(tigerbeetle(beetle).statement.customers().entries)
    book.balance_at.stock(sku="s", at=when)


async def reads_async(conn: psycopg.AsyncConnection) -> None:
    book = postgres_async(conn)
    page: Statement = await book.statement.customers()
    first: Entry = (await book.receive.entries(delivery="d", sku="s"))[0]
`

// TestUnknownKeywords holds every method of the Python clients,
// both backends, sync and async, and each *_call twin, to refusing a
// keyword the operation does not take with ChoboError CHOBO_BAD_ARGUMENT
// before anything is sent, and mypy --strict to naming that keyword in a
// caller that passes it.
func TestUnknownKeywords(t *testing.T) {
	venv := filepath.Dir(venvPython(t))
	dir := t.TempDir()
	for module, tg := range map[string]string{"pgbook": "postgres-python", "tbbook": "tigerbeetle-python"} {
		data := langtest.CaseClient(t, "inventory", tg).Data
		if err := os.WriteFile(filepath.Join(dir, module+".py"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "caller.py"), []byte(unknownKeywordCaller), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH="+dir)
	cmd := exec.Command(filepath.Join(venv, "python"), "-c", unknownKeywordScript, "pgbook", "tbbook")
	cmd.Dir, cmd.Env = dir, env
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("calls with a keyword the operation does not take: %v\n%s", err, b)
	}
	var checked, positional int
	if _, err := fmt.Sscan(string(b), &checked, &positional); err != nil || checked < 40 || positional < 30 {
		t.Fatalf("the script checked too few methods (%v): %s", err, b)
	}
	t.Logf("%d methods refuse an unknown keyword, %d of them a positional argument", checked, positional)

	cmd = exec.Command(filepath.Join(venv, "mypy"), "--strict", "--cache-dir", t.TempDir(), "caller.py")
	cmd.Dir, cmd.Env = dir, env
	b, err = cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("mypy --strict took a caller that passes keywords the operations do not take:\n%s", b)
	}
	out := string(b)
	for _, want := range []string{
		`caller.py:11: error: Argument "qtty" to "do" of "Receive"`,
		`caller.py:12: error: Argument "orders" to "hold_call" of "Reserve"`,
		`caller.py:13: error: Argument "skus" to "stock" of "Balances"`,
		`caller.py:14: error: Argument "limit" to "expire" of "Book"`,
		`caller.py:19: error: Argument "amount" to "post" of "AsyncReserve"`,
		`caller.py:24: error: Argument "tenant" to "void" of "Reserve"`,
		// The reads type-check as they are meant to be called; a time
		// given by keyword is one mistake.
		`caller.py:38: error: Too few arguments for "stock" of "BalancesAt"`,
		`caller.py:38: error: Argument "at" to "stock" of "BalancesAt" has incompatible type "datetime"; expected "Never"`,
		"Found 8 errors",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("mypy --strict does not say %q:\n%s", want, out)
		}
	}
}

// tigerBeetleReadsScript calls every history read of the history case's
// tigerbeetle-python client, both books, over a client that has the four
// methods calls use but not get_account_transfers and query_transfers,
// and prints how many raised CHOBO_UNSUPPORTED naming what is missing
// before any request, and how many made one: the entries of a call are
// read by their ids, which such a client can look up.
const tigerBeetleReadsScript = `
import asyncio, datetime, sys
import card

class Calls:
    def create_accounts(self, *a): raise AssertionError("a request")
    def create_transfers(self, *a): raise AssertionError("a request")
    def lookup_accounts(self, *a): raise AssertionError("a request")
    def lookup_transfers(self, *a): raise AssertionError("a request")

class AsyncCalls:
    async def create_accounts(self, *a): raise AssertionError("a request")
    async def create_transfers(self, *a): raise AssertionError("a request")
    async def lookup_accounts(self, *a): raise AssertionError("a request")
    async def lookup_transfers(self, *a): raise AssertionError("a request")

now = datetime.datetime.now(datetime.timezone.utc)
unsupported = requests = 0
for book, is_async in ((card.tigerbeetle(Calls()), False), (card.tigerbeetle_async(AsyncCalls()), True)):
    reads = [
        lambda: book.statement.wallet(card.StatementQuery(limit=3), card="c-1"),
        lambda: book.statement.bank(),
        lambda: book.balance_at.wallet(now, card="c-1"),
        lambda: book.open_holds.wallet(card="c-1"),
        lambda: book.top_up.entries(top_up_id="t-1"),
        lambda: book.payment.entries(payment_id="p-1"),
        lambda: book.payment.open_holds(),
    ]
    for read in reads:
        try:
            r = read()
            if is_async:
                asyncio.run(r)
        except card.ChoboError as e:
            assert e.code == "CHOBO_UNSUPPORTED", e.code
            assert "get_account_transfers" in str(e), str(e)
            unsupported += 1
        except AssertionError as e:
            assert str(e) == "a request", e
            requests += 1
        else:
            raise AssertionError("a read answered")
print(unsupported, requests)
`

// TestTigerBeetleReadsNeedTheReadsOfTransfers holds the history
// reads of a tigerbeetle-python client over a client that cannot read an
// account's transfers to raising CHOBO_UNSUPPORTED, in both books,
// without a request, but for the entries of a call, which only look up
// ids.
func TestTigerBeetleReadsNeedTheReadsOfTransfers(t *testing.T) {
	venv := filepath.Dir(venvPython(t))
	dir := t.TempDir()
	data := langtest.CaseClient(t, "history", "tigerbeetle-python").Data
	if err := os.WriteFile(filepath.Join(dir, "card.py"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(venv, "python"), "-c", tigerBeetleReadsScript)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH="+dir)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if got := strings.TrimSpace(string(b)); got != "10 4" {
		t.Fatalf("%s reads raised CHOBO_UNSUPPORTED and made a request, want 10 and 4", got)
	}
}
