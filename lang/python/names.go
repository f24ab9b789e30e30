package python

// A Python client keeps the book's names: book.引当.hold(注文="o-1", …)
// is written as the book says, but for three ways in which Python would
// read a name otherwise; the client writes each name as Python reads it:
//
//   - A keyword cannot be a name: `class` is written class_, as PEP 8 asks.
//   - Python reads every identifier in its NFKC form, so a full-width
//     ｑｔｙ in the client is qty to Python whatever the file says. The
//     client writes the NFKC form, so that what a reader sees is what
//     getattr and **kwargs find. Where that form would be a keyword, not
//     an identifier, or the name of another thing of the same scope, the
//     book is refused (E062): no spelling would be the book's.
//   - A name that starts with two underscores is Python's own (__init__)
//     or, inside a class, renamed to that class's private one, so the
//     book is refused there too.
//
// Made names (the classes of transfer kinds, ReserveStock and
// AsyncReserveStock) come from the NFKC form the same way TypeScript's
// types do, and, like a member that would meet one of the book value's
// own (balance, expire), one that meets a name the file declares gets _2.

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/chobo-lang/chobo/chobo/client/model"
)

// The constructors, one pair per target: the blocking book and the
// asyncio one.
const (
	PostgresConstructor         = "postgres"
	PostgresAsyncConstructor    = "postgres_async"
	TigerBeetleConstructor      = "tigerbeetle"
	TigerBeetleAsyncConstructor = "tigerbeetle_async"
)

// Fixed names of the generated file: the book value's classes and those
// of its balance readers, the union of reasons, and the members every
// book value has.
const (
	BookClass          = "Book"
	AsyncBookClass     = "AsyncBook"
	BalancesClass      = "Balances"
	AsyncBalancesClass = "AsyncBalances"
	ReasonType         = "Reason"
	ResultType         = "Result" // the runtime's
	Balance            = "balance"
	Expire             = "expire"
	// Bulk is the book's method that sends many calls at once; each
	// method of a transfer has a twin, its name and CallSuffix, that makes
	// one call of it without sending it.
	Bulk       = "bulk"
	CallSuffix = "_call"
	// asyncPrefix starts the name of each class of the asyncio book.
	asyncPrefix = "Async"
)

// The history reads: the book value's members that read statements,
// balances at a time and open holds, each with a method per account kind
// as balance has, their classes in the blocking book (the asyncio ones
// are Async and the same), and the methods of every transfer kind's
// class that read its calls' entries and, for a kind that holds, its
// open holds.
const (
	StatementMember     = "statement"
	BalanceAtMember     = "balance_at"
	OpenHoldsMember     = "open_holds"
	StatementsClass     = "Statements"
	BalancesAtClass     = "BalancesAt"
	OpenHoldsClass      = "OpenHolds"
	EntriesMethod       = "entries"
	TransferHoldsMethod = OpenHoldsMember
	queryParam, atParam = "_query", "_at"
	historyFunction     = "_history"
)

// private are the attributes the generated classes keep for themselves;
// a book name never takes them.
var private = []string{"_backend", "_tenant"}

// annotated are the names the methods of the balance readers' class
// write in their annotations. Python and mypy look an annotation up in
// the class's namespace before the module's, so an account method of one
// of these names would stand for the type in every later signature.
var annotated = []string{"str", "Balance", "Statement", "StatementQuery", "OpenHold", "datetime", "list"}

// functions are the module-level functions the generated part declares
// beside the constructors.
var functions = []string{"_post_amounts", "_post_values", "_definition", historyFunction}

// Unknown is the parameter of every generated method that gathers the
// keyword arguments it does not take, to refuse them.
const Unknown = "_unknown"

// bodyNames are the module-level names the generated methods read. A
// keyword argument of the same name would hide them inside the method,
// so parameters never take these, nor self, nor Unknown.
var bodyNames = []string{"self", Unknown, "check_text", "check_amount", "check_keywords", "_post_amounts", "_post_values",
	queryParam, atParam, historyFunction}

// builtins are Python's built-in names that start with a capital, up to
// Python 3.13, as a class of the book could be named. A module-level
// class of that name would hide the built-in from the runtime's code in
// the same file (class ChoboError(Exception) would subclass the book's),
// so the book's classes never take them.
var builtins = strings.Fields(`ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup
	BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError
	ConnectionError ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError Ellipsis
	EncodingWarning EnvironmentError Exception ExceptionGroup FileExistsError FileNotFoundError
	FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError
	IndexError InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError
	ModuleNotFoundError NameError NotADirectoryError NotImplemented NotImplementedError OSError
	OverflowError PendingDeprecationWarning PermissionError ProcessLookupError PythonFinalizationError
	RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration
	StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError
	UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError
	UnicodeWarning UserWarning ValueError Warning ZeroDivisionError`)

// keywords are Python's hard keywords, which no name may be. The soft
// ones (match, case, type, _) are names everywhere but in their own
// statements, so a book name may be one.
var keywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`False None True and as assert async await break class continue def del
		elif else except finally for from global if import in is lambda nonlocal not or pass raise return
		try while with yield`) {
		keywords[k] = true
	}
}

// Keyword reports whether s is a Python keyword.
func Keyword(s string) bool { return keywords[s] }

// NFKC is s as Python reads it in an identifier.
func NFKC(s string) string { return norm.NFKC.String(s) }

// Name is how the client writes a name of the book: its NFKC form, with
// _ after it when that is a keyword.
func Name(s string) string {
	n := NFKC(s)
	if Keyword(n) {
		n += "_"
	}
	return n
}

// Identifier reports whether s may be written as a Python identifier as
// Python defines one: a letter, a letter number, _ or one of the
// characters Unicode keeps as identifier starts, then those, marks,
// digits and connectors, as far as Go's Unicode tables know them.
func Identifier(s string) bool {
	for i, r := range s {
		if i == 0 && !idStart(r) || i > 0 && !idPart(r) {
			return false
		}
	}
	return s != ""
}

func idStart(r rune) bool {
	return r == '_' || unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start)
}

func idPart(r rune) bool {
	return idStart(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

// unreadable says why Python cannot read the book's name s as the
// client would write it, in English and Japanese, or "" when it can.
func unreadable(s string) (why, whyJa string) {
	n := NFKC(s)
	switch {
	case !Identifier(n):
		if n == s {
			return fmt.Sprintf("`%s` is not a Python identifier", s), fmt.Sprintf("`%s` は Python の識別子ではありません", s)
		}
		return fmt.Sprintf("Python reads a name in its NFKC form, where `%s` is `%s`, which is not an identifier", s, n),
			fmt.Sprintf("Python は名前を NFKC に直して読み、`%s` は識別子でない `%s` になります", s, n)
	case n != s && Keyword(n):
		return fmt.Sprintf("Python reads a name in its NFKC form, where `%s` is the keyword `%s`", s, n),
			fmt.Sprintf("Python は名前を NFKC に直して読み、`%s` はキーワード `%s` になります", s, n)
	case strings.HasPrefix(n, "__"):
		return fmt.Sprintf("Python keeps the names that start with two underscores, `%s` among them, for its own and, inside a class, for the class's private ones", n),
			fmt.Sprintf("Python は二つの下線で始まる名前(`%s` も)を自分のものと、クラスの中ではそのクラスだけのものにします", n)
	}
	return "", ""
}

// unimportable says why a client written to s.py cannot be imported by
// an import statement that names s, in English and Japanese, or "" when
// it can: Python finds a module by the NFKC form of the name, so the file
// must be named by that form; a keyword cannot follow import; a name
// like __main__ is Python's own; and a file named as a module the client
// itself imports would be loaded in that module's place.
func unimportable(s string) (why, whyJa string) {
	n := NFKC(s)
	switch {
	case n != s || !Identifier(n):
		if why, ja := unreadable(s); why != "" {
			return why, ja
		}
		return fmt.Sprintf("Python reads a name in its NFKC form, where `%s` is `%s`, so `import %s` looks for %s.py, not %s.py", s, n, s, n, s),
			fmt.Sprintf("Python は名前を NFKC に直して読み、`%s` は `%s` になるので、`import %s` は %s.py ではなく %s.py を探します", s, n, s, s, n)
	case Keyword(n):
		return fmt.Sprintf("`%s` is a keyword of Python's, so no import statement can name %s.py", n, n),
			fmt.Sprintf("`%s` は Python のキーワードなので、%s.py を import 文で読み込めません", n, n)
	case strings.HasPrefix(n, "__") && strings.HasSuffix(n, "__"):
		return fmt.Sprintf("Python keeps the names that start and end with two underscores, `%s` among them, for its own", n),
			fmt.Sprintf("Python は前後に二つの下線がある名前(`%s` も)を自分のものにしています", n)
	}
	for _, backend := range []string{model.Postgres, model.TigerBeetle} {
		if p, err := runtimeOf(backend); err == nil && slices.Contains(p.imports.modules(), n) {
			return fmt.Sprintf("the client imports the module `%s` itself, and %s.py beside a program would be imported in its place", n, n),
				fmt.Sprintf("クライアント自身がモジュール `%s` を読み込むので、プログラムのそばの %s.py がその代わりに読み込まれてしまいます", n, n)
		}
	}
	return "", ""
}

// Pascal is the start of the class names of a book name, made from its
// NFKC form: reserve_stock -> ReserveStock, 引当 -> 引当. Only ASCII letters
// are raised; a name that would not start as an identifier gets T in
// front, and one that would be a keyword (None) gets _ after it.
func Pascal(name string) string {
	s := model.Joined(NFKC(name))
	if r, _ := utf8.DecodeRuneInString(s); s == "" || !idStart(r) {
		s = "T" + s
	}
	if Keyword(s) {
		s += "_"
	}
	return s
}

// Names are the Python names a client gives a book's transfers, accounts
// and parameters, by their names in the book. The driver of the
// conformance tests and `chobo api` read them here.
type Names struct {
	Transfers map[string]TransferNames
	Accounts  map[string]AccountNames
}

// TransferNames are the names of one transfer kind: its member of the
// book value, the classes of that member in the blocking book and the
// asyncio one, and the keyword of each parameter, by its name in the
// book.
type TransferNames struct {
	Member, Class, AsyncClass string
	Keywords                  map[string]string
}

// AccountNames are the names of one account kind: its method of
// book.balance and the keyword of each parameter.
type AccountNames struct {
	Member   string
	Keywords map[string]string
}

// scope hands out the names of one namespace of the file. A name that
// meets one the file declares itself moves to _2, whatever else the book
// holds, so its place never depends on the book's order; two of the
// book's own things taking one name could only be told apart by their
// order, and are recorded as a collision (E062) for the target to refuse.
type scope struct {
	reserved map[string]bool
	claims   model.Claims
	taken    map[string]bool
}

func newScope(reserved []string) *scope {
	s := &scope{reserved: map[string]bool{}, claims: model.Claims{Language: "Python"}, taken: map[string]bool{}}
	for _, r := range reserved {
		s.reserved[r] = true
	}
	return s
}

// give returns the name o gets when it would be called name.
func (s *scope) give(name string, o model.Owner) string {
	name = suffixed(name, func(n string) bool { return s.reserved[n] })
	s.claims.Claim(name, o)
	// Only a book that collides gets past here with a name already given;
	// it is refused, and the suffix only keeps `chobo api` saying
	// something of it.
	name = suffixed(name, func(n string) bool { return s.taken[n] })
	s.taken[name] = true
	return name
}

// suffixed is base, or base with the first of _2, _3 … that busy does
// not hold.
func suffixed(base string, busy func(string) bool) string {
	name := base
	for n := 2; busy(name); n++ {
		name = fmt.Sprintf("%s_%d", base, n)
	}
	return name
}

// naming works out every name of a client and the collisions among
// them; reserved are the module-level names of the runtime and of the
// imports, which the classes of the book never take.
func naming(m *model.Model, reserved []string) (Names, []model.Collision) {
	n := Names{Transfers: map[string]TransferNames{}, Accounts: map[string]AccountNames{}}
	var alone []model.Collision
	check := func(name string, o model.Owner) {
		if why, ja := unreadable(name); why != "" {
			alone = append(alone, model.Collision{Language: "Python", Name: NFKC(name), First: o, Why: why, WhyJa: ja})
		}
	}
	// The client is the file <book>.py, imported by the book's name.
	if m.Book != nil {
		if why, ja := unimportable(m.Book.Name); why != "" {
			alone = append(alone, model.Collision{Language: "Python", Name: m.Book.Name,
				First: model.Owner{Kind: "book", Name: m.Book.Name, What: "module", WhatJa: "モジュール"}, Why: why, WhyJa: ja})
		}
	}
	top := newScope(append(append([]string{BookClass, AsyncBookClass, BalancesClass, AsyncBalancesClass, ReasonType,
		StatementsClass, asyncPrefix + StatementsClass, BalancesAtClass, asyncPrefix + BalancesAtClass,
		OpenHoldsClass, asyncPrefix + OpenHoldsClass,
		PostgresConstructor, PostgresAsyncConstructor, TigerBeetleConstructor, TigerBeetleAsyncConstructor}, functions...),
		slices.Concat(reserved, builtins)...))
	members := newScope(append([]string{Balance, Expire, Bulk, StatementMember, BalanceAtMember, OpenHoldsMember}, private...))
	accounts := newScope(slices.Concat(private, annotated))
	var scopes []*scope
	keywordsOf := func(of, kind string, ps []model.Param) map[string]string {
		args := newScope(bodyNames)
		scopes = append(scopes, args)
		out := map[string]string{}
		for _, p := range ps {
			o := model.Owner{Kind: "parameter", Name: p.Name, Of: of, What: "keyword argument", WhatJa: "キーワード引数"}
			check(p.Name, o)
			out[p.Name] = args.give(Name(p.Name), o)
		}
		return out
	}
	for _, t := range m.Transfers {
		owner := func(what, ja string) model.Owner {
			return model.Owner{Kind: "transfer", Name: t.Name, What: what, WhatJa: ja}
		}
		check(t.Name, owner("member", "メンバー"))
		tn := TransferNames{Member: members.give(Name(t.Name), owner("member", "メンバー"))}
		// The two classes move together, so that the asyncio one is
		// always Async and the other's name.
		stem := suffixed(Pascal(t.Name), func(n string) bool { return top.reserved[n] || top.reserved[asyncPrefix+n] })
		tn.Class = top.give(stem, owner("class", "クラス"))
		tn.AsyncClass = top.give(asyncPrefix+stem, owner("asyncio class", "asyncio のクラス"))
		tn.Keywords = keywordsOf(t.Name, "transfer", t.Args)
		n.Transfers[t.Name] = tn
	}
	for _, a := range m.Accounts {
		o := model.Owner{Kind: "account", Name: a.Name, What: "balance member", WhatJa: "balance のメンバー"}
		check(a.Name, o)
		n.Accounts[a.Name] = AccountNames{Member: accounts.give(Name(a.Name), o), Keywords: keywordsOf(a.Name, "account", a.Params)}
	}
	out := alone
	for _, s := range append([]*scope{top, members, accounts}, scopes...) {
		for _, c := range s.claims.Collisions {
			// Names spelled alike in the book are the plain case; where
			// NFKC made them alike, say so, since no order or rename of
			// the generated names could keep them apart.
			for _, o := range []model.Owner{c.First, c.Second} {
				switch n := NFKC(o.Name); {
				case c.Why != "":
				case n != o.Name:
					c.Why = fmt.Sprintf("Python reads a name in its NFKC form, where `%s` is `%s`", o.Name, n)
					c.WhyJa = fmt.Sprintf("Python は名前を NFKC に直して読み、`%s` は `%s` になります", o.Name, n)
				case Keyword(n):
					c.Why = fmt.Sprintf("`%s` is a keyword of Python's, which the client writes as `%s`", n, n+"_")
					c.WhyJa = fmt.Sprintf("`%s` は Python のキーワードなので、クライアントでは `%s` と書きます", n, n+"_")
				}
			}
			out = append(out, c)
		}
	}
	return n, out
}

// Naming gives every name of a client; reserved are the module-level
// names the runtime declares or imports.
func Naming(m *model.Model, reserved []string) Names {
	n, _ := naming(m, reserved)
	return n
}

// ClientNames are the names Generate gives the model's transfers,
// accounts and parameters. The classes avoid the runtime's names on
// every backend, so that a book's names are the same on both.
func ClientNames(m *model.Model) Names { return Naming(m, allRuntimeNames()) }

// Collisions lists the names two things of a book would both take in its
// Python client, and the names Python cannot read as the book writes
// them (E062).
func Collisions(m *model.Model) []model.Collision {
	_, c := naming(m, allRuntimeNames())
	return c
}

// allRuntimeNames are the module-level names of the runtime on every
// backend, each once, sorted. A backend whose runtime cannot be read
// (a module missing from the compiled-in sources) adds none: Generate
// fails on it with the reason, and checking a book stays possible.
func allRuntimeNames() []string {
	var all []string
	for _, backend := range []string{model.Postgres, model.TigerBeetle} {
		if p, err := runtimeOf(backend); err == nil {
			all = append(all, p.names...)
		}
	}
	slices.Sort(all)
	return slices.Compact(all)
}
