package typescript_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	tsdriver "github.com/chobo-lang/chobo/lang/typescript/driver"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// A TypeScript client never drops an argument: an object with a property
// its operation does not take (an amount given in a post's key, say) fails
// to compile, even when it is a variable rather than a fresh literal, and
// one that gets past the compiler is refused at run time before anything
// is sent. These tests hold the generated clients of stock_reservation_ja
// (Japanese names, a post with amounts) of both backends to that.

// tsArgsBooks are, per target, how the programs below make the book:
// over a stand-in for pg or for TigerBeetle's client that counts what it
// is asked to send.
var tsArgsBooks = map[string]string{
	"postgres-typescript": `import { postgres } from "./在庫.ts";
export let sent = 0;
const db = {
  async query() {
    sent++;
    return { rows: [] };
  },
};
export const make = (options: { tenant: string }) => postgres(db, options);
export const book = make({ tenant: "" });
`,
	"tigerbeetle-typescript": `import { tigerbeetle } from "./在庫.ts";
export let sent = 0;
const nothing = async (): Promise<never[]> => {
  sent++;
  return [];
};
const client = { createAccounts: nothing, createTransfers: nothing, lookupAccounts: nothing, lookupTransfers: nothing };
export const make = (options: { tenant: string }) => tigerbeetle(client, options);
export const book = make({ tenant: "" });
`,
}

// tsArgsOK are ordinary calls, which must compile under every flag a
// client passes.
const tsArgsOK = `import type { 入荷Args, 引当Amounts, 引当Key } from "./在庫.ts";
import { book } from "./book.ts";

export async function ordinary(): Promise<void> {
  // As the design writes it: the key, then the amounts.
  await book.引当.post({ 注文: "o-1", sku: "A-1" }, { 数: 2n });
  await book.引当.post({ 注文: "o-1", sku: "A-1" });
  const key: 引当Key = { 注文: "o-1", sku: "A-1" };
  const amounts: 引当Amounts = { 数: 2n };
  await book.引当.post(key, amounts);
  await book.引当.void(key);
  await book.引当.status(key);
  const args: 入荷Args = { 納品書: "d-1", sku: "A-1", 数: 5n };
  await book.入荷.do(args);
  const order = { 注文: "o-2", sku: "A-1", 数: 1n };
  await book.引当.hold(order);
  const fixed = { 注文: "o-2", sku: "A-1" } as const;
  await book.引当.post(fixed);
  await book.balance.在庫({ sku: "A-1" });
  await book.balance.客();
  await book.bulk([book.引当.holdCall(order), book.引当.postCall(key, amounts), book.引当.voidCall({ 注文: "o-3", sku: "A-1" }), book.入荷.doCall(args)]);
}
`

// tsArgsBad has one call per line marked "refused" that tsc must reject,
// and nothing else it may.
const tsArgsBad = `import { book } from "./book.ts";

export async function mistaken(): Promise<void> {
  const capture = { 注文: "H", sku: "A-1", 数: 4n };
  await book.引当.post(capture); // refused
  book.引当.postCall(capture); // refused
  await book.引当.void(capture); // refused
  await book.引当.status(capture); // refused
  book.引当.statusCall(capture); // refused
  await book.引当.post({ 注文: "H", sku: "A-1", 数: 4n }); // refused
  const amounts = { 数: 1n, sku: "A-1" };
  await book.引当.post({ 注文: "H", sku: "A-1" }, amounts); // refused
  const order = { 注文: "H", sku: "A-1", 数: 4n, 期限: "30m" };
  await book.引当.hold(order); // refused
  book.引当.holdCall(order); // refused
  const delivery = { 納品書: "d", sku: "A", 数: 1n, 備考: "" };
  await book.入荷.do(delivery); // refused
  book.入荷.doCall(delivery); // refused
  const shelf = { sku: "A", 数: 1n };
  await book.balance.在庫(shelf); // refused
  await book.引当.post({ 注文: "H", sku: "A-1" }, { 数: 1n }, 3); // refused
}
`

// tsArgsRun gets objects with a property too many past the compiler, as
// a program can (a value of a wider type, annotated with the narrower),
// and prints what each call threw, or, for the *Call twins, what bulk
// answered, and how many requests went.
const tsArgsRun = `import type { 入荷Args, 引当Amounts, 引当Args, 引当Key, 在庫Account } from "./在庫.ts";
import { book, make, sent } from "./book.ts";

const capture: 引当Key = Object.assign({ 注文: "H", sku: "A-1" }, { 数: 4n });
const key: 引当Key = { 注文: "H", sku: "A-1" };
const amounts: 引当Amounts = Object.assign({ 数: 1n }, { sku: "A-1" });
const delivery: 入荷Args = Object.assign({ 納品書: "d", sku: "A", 数: 1n }, { 備考: "" });
const shelf: 在庫Account = Object.assign({ sku: "A" }, { 数: 1n });
const order: 引当Args = Object.assign({ 注文: "H", sku: "A-1", 数: 4n }, { 期限: "30m" });
type Loose = (...args: unknown[]) => Promise<unknown>;
const cases: [string, () => Promise<unknown>][] = [
  ["post", () => book.引当.post(capture)],
  ["post amounts", () => book.引当.post(key, amounts)],
  ["void", () => book.引当.void(capture)],
  ["status", () => book.引当.status(capture)],
  ["do", () => book.入荷.do(delivery)],
  ["balance", () => book.balance.在庫(shelf)],
  ["post, 3 arguments", () => (book.引当.post as unknown as Loose)(key, { 数: 1n }, 3)],
  ["void, 2 arguments", () => (book.引当.void as unknown as Loose)(key, { 数: 1n })],
  ["balance, 1 argument", () => (book.balance.客 as unknown as Loose)({ sku: "A" })],
];
for (const [name, f] of cases) {
  try {
    await f();
    console.log(name + ": no error");
  } catch (e) {
    console.log(name + ": " + (e as { code?: string }).code + " " + (e as Error).message);
  }
}
const answers = await book.bulk([
  book.引当.postCall(capture),
  book.引当.holdCall(order),
  (book.引当.postCall as unknown as (...args: unknown[]) => ReturnType<typeof book.引当.postCall>)(key, { 数: 1n }, 3),
]);
for (const a of answers) {
  console.log("bulk: " + (a instanceof Error ? (a as { code?: string }).code + " " + a.message : JSON.stringify(a)));
}
console.log("sent: " + sent);
try {
  make({ tenant: "", typo: 0 } as { tenant: string });
  console.log("options: no error");
} catch (e) {
  console.log("options: " + (e as { code?: string }).code + " " + (e as Error).message);
}
`

const tsArgsWant = `post: CHOBO_BAD_ARGUMENT chobo: 引当.post: the key has 数, which is not part of 引当's key; give amounts as the second argument: post(key, { 数 })
post amounts: CHOBO_BAD_ARGUMENT chobo: 引当.post: the amounts have sku, which is not an amount of 引当; sku is part of the key, the first argument: post({ sku }, amounts)
void: CHOBO_BAD_ARGUMENT chobo: 引当.void: the key has 数, which is not part of 引当's key
status: CHOBO_BAD_ARGUMENT chobo: 引当.status: the key has 数, which is not part of 引当's key
do: CHOBO_BAD_ARGUMENT chobo: 入荷.do: the arguments have 備考, which 入荷.do does not take
balance: CHOBO_BAD_ARGUMENT chobo: balance.在庫: the account has 数, which is not a parameter of the account 在庫
post, 3 arguments: CHOBO_BAD_ARGUMENT chobo: 引当.post: got 3 arguments; post(key, amounts?) takes at most 2
void, 2 arguments: CHOBO_BAD_ARGUMENT chobo: 引当.void: got 2 arguments; void(key) takes at most 1
balance, 1 argument: CHOBO_BAD_ARGUMENT chobo: balance.客: got 1 arguments; 客() takes none
bulk: CHOBO_BAD_ARGUMENT chobo: 引当.post: the key has 数, which is not part of 引当's key; give amounts as the second argument: post(key, { 数 })
bulk: CHOBO_BAD_ARGUMENT chobo: 引当.hold: the arguments have 期限, which 引当.hold does not take
bulk: CHOBO_BAD_ARGUMENT chobo: 引当.postCall: got 3 arguments; postCall(key, amounts?) takes at most 2
sent: 0
options: CHOBO_BAD_ARGUMENT chobo: BACKEND: the options have typo, which BACKEND does not take; it takes tenant, OTHER
`

// tsArgsDir lays out the programs with the case's client of target.
func tsArgsDir(t *testing.T, target string, files map[string]string) string {
	t.Helper()
	client := langtest.CaseClient(t, "stock_reservation_ja", target).Data
	dir := t.TempDir()
	modules := tools(t).Node.Modules
	all := map[string]string{"在庫.ts": string(client), "book.ts": tsArgsBooks[target], "package.json": `{"type": "module"}` + "\n"}
	for name, text := range files {
		all[name] = text
	}
	for name, text := range all {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tsArgsTsc runs tsc over files of dir with the flags of every client and
// those of the strictest projects.
func tsArgsTsc(tsc, dir string, emit bool, files ...string) (string, error) {
	modules := filepath.Join(dir, "node_modules")
	args := append(append([]string{}, tsdriver.ClientFlags...), strictest...)
	args = append(args, "--target", "es2022", "--module", "nodenext", "--types", "node",
		"--typeRoots", filepath.Join(modules, "@types"), "--allowImportingTsExtensions", "--pretty", "false")
	if emit {
		args = append(args, "--rewriteRelativeImportExtensions", "--outDir", filepath.Join(dir, "dist"))
	} else {
		args = append(args, "--noEmit")
	}
	for _, f := range files {
		args = append(args, filepath.Join(dir, f))
	}
	cmd := exec.Command(tsc, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// TestArgumentsCompile compiles ordinary calls, which must
// pass, and calls with a property too many, each of which tsc must
// reject, with a message that names the property.
func TestArgumentsCompile(t *testing.T) {
	tsc := tools(t).TSC
	for _, target := range []string{"postgres-typescript", "tigerbeetle-typescript"} {
		t.Run(target, func(t *testing.T) {
			dir := tsArgsDir(t, target, map[string]string{"ok.ts": tsArgsOK, "bad.ts": tsArgsBad})
			if out, err := tsArgsTsc(tsc, dir, false, "ok.ts", "book.ts", "在庫.ts"); err != nil {
				t.Fatalf("tsc over ordinary calls: %v\n%s", err, out)
			}
			out, err := tsArgsTsc(tsc, dir, false, "bad.ts", "book.ts", "在庫.ts")
			if err == nil {
				t.Fatalf("tsc accepted calls with a property too many:\n%s", tsArgsBad)
			}
			var want []int
			for i, l := range strings.Split(tsArgsBad, "\n") {
				if strings.HasSuffix(l, "// refused") {
					want = append(want, i+1)
				}
			}
			errLine := regexp.MustCompile(`(?m)^(\S+)\((\d+),\d+\): error TS\d+`)
			seen := map[int]bool{}
			for _, m := range errLine.FindAllStringSubmatch(out, -1) {
				if filepath.Base(m[1]) != "bad.ts" {
					t.Errorf("tsc complains of %s, not of the calls:\n%s", m[1], out)
					continue
				}
				n, _ := strconv.Atoi(m[2])
				seen[n] = true
			}
			var got []int
			for n := range seen {
				got = append(got, n)
			}
			sort.Ints(got)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("tsc rejected lines %v of bad.ts; it should reject exactly %v:\n%s", got, want, out)
			}
			// The first error, of the key with an amount in it, says which
			// property is wrong, in words a reader can follow.
			for _, part := range []string{
				"bad.ts(5,",
				"Types of property '数' are incompatible.",
				"Type 'bigint' is not assignable to type 'never'.",
				"NoExtra<",
			} {
				if !strings.Contains(out, part) {
					t.Errorf("tsc's errors do not say %q:\n%s", part, out)
				}
			}
			t.Logf("tsc rejects %d calls; the first:\n%s", len(want), firstError(out))
		})
	}
}

// firstError is tsc's first error with the lines that explain it.
func firstError(out string) string {
	lines := strings.Split(out, "\n")
	var keep []string
	for i, l := range lines {
		if i > 0 && !strings.HasPrefix(l, " ") {
			break
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// TestArgumentsRefused runs calls whose objects got past the
// compiler with a property too many, or with an argument too many: each
// is refused with CHOBO_BAD_ARGUMENT saying what is wrong, and nothing
// is sent.
func TestArgumentsRefused(t *testing.T) {
	ts := tools(t)
	node, tsc := ts.Node.Program, ts.TSC
	for _, target := range []string{"postgres-typescript", "tigerbeetle-typescript"} {
		t.Run(target, func(t *testing.T) {
			dir := tsArgsDir(t, target, map[string]string{"run.ts": tsArgsRun})
			if out, err := tsArgsTsc(tsc, dir, true, "run.ts", "book.ts", "在庫.ts"); err != nil {
				t.Fatalf("tsc: %v\n%s", err, out)
			}
			cmd := exec.Command(node, filepath.Join(dir, "dist", "run.js"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("node: %v\n%s", err, stderr.String())
			}
			backend, other := "postgres", "resendMs"
			if target == "tigerbeetle-typescript" {
				backend, other = "tigerbeetle", "timeoutMs, requestEvents"
			}
			want := strings.NewReplacer("BACKEND", backend, "OTHER", other).Replace(tsArgsWant)
			if got := stdout.String(); got != want {
				t.Errorf("the calls answered\n%s\nwant\n%s", got, want)
			}
		})
	}
}
