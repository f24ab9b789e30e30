// Package python writes Python clients of a book: one file, <book>.py,
// with a member per transfer kind and its operations taking keyword
// arguments, over chobo's Python runtime (lang/python/runtime), which the file
// carries. Each client holds two books over the same backend: one that
// blocks and one for asyncio, written from one template so that they
// never drift apart. It reads the book's client model only
// (chobo/client/model); the Python text comes from the templates under
// templates/<backend>/.
package python

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/client/lit"
	"github.com/chobo-lang/chobo/chobo/client/model"
)

//go:embed templates
var templateFiles embed.FS

var templates = map[string]*template.Template{
	model.Postgres:    template.Must(template.New("book.py.tmpl").Funcs(funcs).ParseFS(templateFiles, "templates/common.tmpl", "templates/postgres/*.tmpl")),
	model.TigerBeetle: template.Must(template.New("book.py.tmpl").Funcs(funcs).ParseFS(templateFiles, "templates/common.tmpl", "templates/tigerbeetle/*.tmpl")),
}

var funcs = template.FuncMap{
	"runtimeMarker": func() string { return RuntimeMarker },
	"str":           String,
	"doc":           Doc,
	"where":         func(parts ...string) string { return String(strings.Join(parts, ".")) },
	"indent":        func(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") },
	"modes":         modes,
	"checks":        checks,
	"pairs":         pairs,
	"signature":     signature,
	"refuse":        refuse,
	"readSignature": readSignature,
	"pair":          func(a, b any) []any { return []any{a, b} },
	"values":        values,
}

// values writes the checked values of a history read as a list, an
// argument of a call at a depth of 3: [] when there are none.
func values(where string, args []argView) string {
	if len(args) == 0 {
		return "[]"
	}
	return "[" + checks(where, 4, args) + "\n            ]"
}

// readSignature writes the parameters of a history read after self: first,
// a positional-only parameter (the query of a statement, the time of a
// balance at a time) or none, then those of signature. Positional, so that
// no name of the book's can meet it: an account may have a parameter named
// limit or at.
func readSignature(first string, args []argView) string {
	sig := signature(args, nil)
	if first == "" {
		return sig
	}
	return "self, " + first + ", /" + strings.TrimPrefix(sig, "self")
}

// checks writes the checked values of a call, one a line at the given
// depth of indentation, each ending with a comma: the runtime's checks
// of a string or an amount, naming the call where and the parameter as
// the book does.
func checks(where string, depth int, args []argView) string {
	var b strings.Builder
	for _, a := range args {
		check := "check_text"
		if a.Amount {
			check = "check_amount"
		}
		fmt.Fprintf(&b, "\n%s%s(%s, %s, %s),", strings.Repeat("    ", depth), check, where, a.Name, a.Keyword)
	}
	return b.String()
}

// pairs writes the amounts of a post as _post_amounts takes them: the
// parameter's name in the book and the keyword argument's value.
func pairs(args []argView) string {
	var parts []string
	for _, a := range args {
		parts = append(parts, "("+a.Name+", "+a.Keyword+")")
	}
	return strings.Join(parts, ", ")
}

// signature writes the parameters of a method after self: keyword-only,
// the optional ones (the amounts of a post) last and None by default,
// then Unknown, which gathers any other keyword so that the method
// refuses it with chobo's error; typed Never, it is also a mistake a type
// checker names.
func signature(args, optional []argView) string {
	var b strings.Builder
	b.WriteString("self")
	if len(args)+len(optional) > 0 {
		b.WriteString(", *")
	}
	for _, a := range args {
		b.WriteString(", " + a.Keyword + ": " + a.Type)
	}
	for _, a := range optional {
		b.WriteString(", " + a.Keyword + ": " + a.Type + " | None = None")
	}
	b.WriteString(", **" + Unknown + ": Never")
	return b.String()
}

// refuse is the first statement of every method: the check of the
// keywords Unknown gathered, naming the call where (a string literal).
func refuse(where string) string {
	return "check_keywords(" + where + ", " + Unknown + ")"
}

// view is what the templates read: the model with its Python names.
type view struct {
	Header      []string
	Imports     []string
	BookName    string
	Description string
	Reasons     []string // as string literals
	Runtime     []runtimeFile
	Definition  string // TigerBeetle: the chain definition, a Python expression
	Expire      string // PostgreSQL: the statement, a string literal
	// PartialPosts: some transfer kind posts amounts of its own, so the
	// file declares the functions that check them.
	PartialPosts bool
	Example      string // a call of the first operation, for the header
	Transfers    []transferView
	Accounts     []accountView
	// History is PostgreSQL's statements of the history reads and, for
	// each transfer kind, the names of what its calls are given: the body
	// of the function that makes the runtime's PgHistory.
	History  string
	backends [2]string // the runtime's classes the two books call
}

type transferView struct {
	TransferNames
	Name, Description     string
	Index                 int // in the book's declaration order
	Pending               bool
	Args, Key, AmountArgs []argView
	Statements            map[string]string // PostgreSQL: by operation, as string literals
	// Target names the kind to the runtime's history reads, and
	// HoldsTarget the holds of the kind (any account): PostgreSQL's
	// history and the kind's name, TigerBeetle's index.
	Target, HoldsTarget string
}

// ClassIn is the transfer kind's class in the blocking book or the
// asyncio one.
func (t transferView) ClassIn(async bool) string {
	if async {
		return t.AsyncClass
	}
	return t.Class
}

type accountView struct {
	AccountNames
	Name, Description string
	Index             int
	Args              []argView
	Statement         string
	Target            string // as transferView's
}

type argView struct {
	Name    string // as the book writes it, a string literal
	Keyword string
	Type    string // str or int
	Amount  bool
}

// mode is one of the two books a file holds, as the templates write its
// classes: the view, and the words that make a method blocking or
// asyncio.
type mode struct {
	*view
	Async          bool
	Def            string // "def" or "async def"
	Await          string // "" or "await "
	Backend        string // the runtime's class the book calls
	Book, Balances string // the book's classes
	// The classes of the history reads.
	Statements, BalancesAt, OpenHolds string
}

// modes are the blocking book and then the asyncio one.
func modes(v *view) []mode {
	return []mode{
		{view: v, Def: "def", Backend: v.backends[0], Book: BookClass, Balances: BalancesClass,
			Statements: StatementsClass, BalancesAt: BalancesAtClass, OpenHolds: OpenHoldsClass},
		{view: v, Async: true, Def: "async def", Await: "await ", Backend: v.backends[1], Book: AsyncBookClass, Balances: AsyncBalancesClass,
			Statements: asyncPrefix + StatementsClass, BalancesAt: asyncPrefix + BalancesAtClass, OpenHolds: asyncPrefix + OpenHoldsClass},
	}
}

// backends are the runtime's classes each book calls, blocking first.
var backends = map[string][2]string{
	model.Postgres:    {"PostgresBook", "AsyncPostgresBook"},
	model.TigerBeetle: {"TigerBeetleBook", "AsyncTigerBeetleBook"},
}

// Generate returns the source of <book>.py for the model, starting with
// header as comment lines.
func Generate(m *model.Model, header []string) ([]byte, error) {
	tmpl, ok := templates[m.Backend]
	if !ok {
		return nil, fmt.Errorf("no Python client for the backend %q", m.Backend)
	}
	rt, err := runtimeOf(m.Backend)
	if err != nil {
		return nil, err
	}
	names := ClientNames(m)
	v := &view{Header: header, Imports: rt.imports.lines(), BookName: m.Book.Name, Description: m.Book.Description,
		Runtime: rt.files, backends: backends[m.Backend]}
	for _, r := range m.Reasons {
		v.Reasons = append(v.Reasons, String(r))
	}
	if m.Def != nil {
		v.Definition = lit.Write(m.Def, defSyntax)
	} else {
		stmt, err := Placeholders(m.Expire)
		if err != nil {
			return nil, err
		}
		v.Expire = String(stmt)
		if v.History, err = history(m); err != nil {
			return nil, err
		}
	}
	// PostgreSQL's reads name the kind and the history; TigerBeetle's
	// runtime knows kinds by their index.
	target := func(name string, i int) string {
		if m.Def != nil {
			return fmt.Sprint(i)
		}
		return historyFunction + "(),\n            " + String(name)
	}
	if err := v.addTransfers(m, names, target); err != nil {
		return nil, err
	}
	for i, a := range m.Accounts {
		n := names.Accounts[a.Name]
		av := accountView{AccountNames: n, Name: a.Name, Description: a.Description, Index: i, Args: args(a.Params, n.Keywords),
			Target: target(a.Name, i)}
		if a.Statement != "" {
			stmt, err := Placeholders(a.Statement)
			if err != nil {
				return nil, err
			}
			av.Statement = String(stmt)
		}
		v.Accounts = append(v.Accounts, av)
	}
	if len(v.Transfers) > 0 {
		v.Example = example(v.Transfers[0])
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// addTransfers adds the view of every transfer kind of the model;
// target writes what a read of one names.
func (v *view) addTransfers(m *model.Model, names Names, target func(name string, i int) string) error {
	for i, t := range m.Transfers {
		n := names.Transfers[t.Name]
		tv := transferView{TransferNames: n, Name: t.Name, Description: t.Description, Index: i, Pending: t.Pending,
			Args: args(t.Args, n.Keywords), Key: args(t.Key, n.Keywords), AmountArgs: args(t.Amounts, n.Keywords),
			Statements: map[string]string{}, Target: target(t.Name, i)}
		tv.HoldsTarget = "None, None, " + tv.Target
		if m.Def == nil {
			tv.HoldsTarget = historyFunction + "(), None, None, " + String(t.Name)
		}
		if t.Pending && len(t.Amounts) > 0 {
			v.PartialPosts = true
		}
		for _, op := range t.Operations {
			if op.Statement == "" {
				continue
			}
			stmt, err := Placeholders(op.Statement)
			if err != nil {
				return err
			}
			tv.Statements[op.Name] = String(stmt)
		}
		v.Transfers = append(v.Transfers, tv)
	}
	return nil
}

// history writes the body of the function that makes the PgHistory of a
// PostgreSQL client: the statements of the reads, and the names of the
// values each transfer kind's calls are given, by which the runtime names
// the values of a history row.
func history(m *model.Model) (string, error) {
	h := m.History
	if h == nil {
		return "", fmt.Errorf("the client model of %s has no history statements", m.Book.Name)
	}
	var b strings.Builder
	b.WriteString("PgHistory(")
	for _, s := range []struct{ field, stmt string }{
		{"statement", h.Statement}, {"call", h.Call}, {"open_holds", h.OpenHolds}, {"balance_at", h.BalanceAt}} {
		stmt, err := Placeholders(s.stmt)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n        %s=%s,", s.field, String(stmt))
	}
	b.WriteString("\n        transfers={")
	names := func(ps []model.Param) string {
		var out []string
		for _, p := range ps {
			out = append(out, String(p.Name))
		}
		if len(out) == 1 {
			return "(" + out[0] + ",)"
		}
		return "(" + strings.Join(out, ", ") + ")"
	}
	for _, t := range m.Transfers {
		fmt.Fprintf(&b, "\n            %s: PgCallNames(\n                args=%s,\n                key=%s,\n                amounts=%s,\n            ),",
			String(t.Name), names(t.Args), names(t.Key), names(t.Amounts))
	}
	b.WriteString("\n        },\n    )")
	return b.String(), nil
}

func args(ps []model.Param, keywords map[string]string) []argView {
	var out []argView
	for _, p := range ps {
		out = append(out, argView{Name: String(p.Name), Keyword: keywords[p.Name], Type: ArgType(p), Amount: p.Amount})
	}
	return out
}

// example is the first call of a transfer kind, with made-up values, for
// the comment at the head of the file.
func example(t transferView) string {
	op := "do"
	if t.Pending {
		op = "hold"
	}
	var vals []string
	for _, a := range t.Args {
		v := `"…"`
		if a.Amount {
			v = "1"
		}
		vals = append(vals, a.Keyword+"="+v)
	}
	return "book." + t.Member + "." + op + "(" + strings.Join(vals, ", ") + ")"
}

// ArgType is the Python type of a parameter's keyword argument.
func ArgType(p model.Param) string {
	if p.Amount {
		return "int"
	}
	return "str"
}

// String writes s as a Python string literal: between double quotes, or
// single ones when s holds a double quote and no single one, so that SQL
// with quoted names reads as SQL. Characters that would end the literal
// or the line are escaped, as are the other control characters and
// Unicode's line separators, which some editors break lines at; every
// other character is written as it is.
func String(s string) string {
	q := byte('"')
	if strings.Contains(s, `"`) && !strings.Contains(s, "'") {
		q = '\''
	}
	var b strings.Builder
	b.WriteByte(q)
	writeEscaped(&b, s, q)
	b.WriteByte(q)
	return b.String()
}

// Doc makes text safe inside a docstring between """: a backslash or a
// quote can neither end it nor start an escape, and no character breaks
// its line.
func Doc(s string) string {
	var b strings.Builder
	writeEscaped(&b, s, '"')
	return b.String()
}

func writeEscaped(b *strings.Builder, s string, quote byte) {
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || r == utf8.RuneError:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
}

// defSyntax writes the chain definition as a Python expression of the
// runtime's Def: keyword arguments named as the dataclasses' fields, and
// tuples for its sequences, as the frozen dataclasses declare them.
// Python's ints have no width, so a 64-bit one needs no suffix.
var defSyntax = lit.Syntax{
	Indent:    "    ",
	Struct:    func(typ string, _, _ bool) string { return typ + "(" },
	Close:     ")",
	List:      func(string) string { return "(" },
	ListClose: ")",
	Lone:      ",",
	Field:     fieldName,
	Bind:      "=",
	String:    String,
	True:      "True",
	False:     "False",
	Null:      "None",
}

// fieldName is the runtime's name of a field of the Go runtime's types:
// snake case, and from_ for From, which is a keyword.
func fieldName(goName string) string {
	var b strings.Builder
	for i, r := range goName {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return Name(b.String())
}
