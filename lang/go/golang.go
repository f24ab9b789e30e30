// Package golang writes Go clients of a book: a package with a typed
// method per operation, over the runtime packages under runtime/go. It
// reads the book's client model only (chobo/client/model); the Go text
// comes from the templates under templates/<backend>/.
//
// It is Go's folder, lang/go, but go is a keyword and cannot name a
// package, so the package is golang. The runtime the clients import stays
// in runtime/go: the compiler itself imports it (the TigerBeetle backend,
// chobo show, chobo migrate, the conformance harness), and users'
// programs import it by that path.
package golang

import (
	"bytes"
	"embed"
	"fmt"
	"go/format"
	"strconv"
	"strings"
	"text/template"

	"github.com/chobo-lang/chobo/chobo/client/lit"
	"github.com/chobo-lang/chobo/chobo/client/model"
)

// RuntimeVersion is the version of runtime/go/chobo the generated code
// asks for (chobo.SupportPackageIsVersionN). It moves with the runtime.
const RuntimeVersion = 1

//go:embed templates
var templateFiles embed.FS

var templates = map[string]*template.Template{
	model.Postgres:    template.Must(template.New("book.go.tmpl").Funcs(funcs).ParseFS(templateFiles, "templates/common.tmpl", "templates/postgres/*.tmpl")),
	model.TigerBeetle: template.Must(template.New("book.go.tmpl").Funcs(funcs).ParseFS(templateFiles, "templates/common.tmpl", "templates/tigerbeetle/*.tmpl")),
}

var funcs = template.FuncMap{"checks": newChecks}

// checksView is what the template "checks" reads: the checks that open a
// method before it sends anything. Zero is what the method returns with
// an error, Var the variable whose Fields are checked.
type checksView struct {
	Zero, Var string
	Fields    []fieldView
}

func newChecks(zero, v string, fields []fieldView) checksView {
	return checksView{Zero: zero, Var: v, Fields: fields}
}

// view is what the template of book.go reads: the model with its Go
// names, and every statement written as a Go string literal.
type view struct {
	Header         []string
	Package        string
	BookName       string
	RuntimeVersion int
	Expire         string
	History        historyView // PostgreSQL: the history statements, as Go literals
	Def            string      // TigerBeetle: the chain definition, a Go expression
	MaxEvents      int         // TigerBeetle: the events one request carries
	Transfers      []transferView
	Accounts       []accountView
}

type historyView struct {
	Statement, Call, OpenHolds, BalanceAt string
}

type transferView struct {
	TransferNames
	Name, Description            string
	Index                        int // in the book's declaration order
	Pending                      bool
	ArgList, KeyList, AmountList []fieldView
	Statements                   map[string]string // by operation
}

type accountView struct {
	AccountNames
	Name      string
	Index     int
	FieldList []fieldView
	Statement string
}

type fieldView struct {
	Name, Field, Type string // the book's name, the Go field and its type
	Amount            bool
}

// Generate returns the formatted source of book.go for the model, in
// package pkg, starting with header as comment lines.
func Generate(m *model.Model, pkg string, header []string) ([]byte, error) {
	tmpl, ok := templates[m.Backend]
	if !ok {
		return nil, fmt.Errorf("no Go client for the backend %q", m.Backend)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, newView(m, pkg, header)); err != nil {
		return nil, err
	}
	out, err := format.Source(buf.Bytes())
	if err != nil {
		// The template wrote Go that does not parse: a bug here, shown
		// with the text so it can be found.
		return nil, fmt.Errorf("generated Go does not parse: %v\n%s", err, buf.Bytes())
	}
	return out, nil
}

func newView(m *model.Model, pkg string, header []string) view {
	names := Naming(m)
	v := view{Header: header, Package: pkg, BookName: m.Book.Name, RuntimeVersion: RuntimeVersion,
		Expire: goString(m.Expire)}
	if h := m.History; h != nil {
		v.History = historyView{Statement: goString(h.Statement), Call: goString(h.Call),
			OpenHolds: goString(h.OpenHolds), BalanceAt: goString(h.BalanceAt)}
	}
	if m.Def != nil {
		v.Def = lit.Write(m.Def, defSyntax)
		v.MaxEvents = m.MaxEvents
	}
	for i, t := range m.Transfers {
		tn := names.Transfers[t.Name]
		tv := transferView{TransferNames: tn, Name: t.Name, Description: t.Description, Pending: t.Pending, Index: i,
			ArgList: fields(t.Args, tn.ArgFields), KeyList: fields(t.Key, tn.KeyFields),
			AmountList: fields(t.Amounts, tn.AmountFields), Statements: map[string]string{}}
		for _, op := range t.Operations {
			tv.Statements[op.Name] = goString(op.Statement)
		}
		v.Transfers = append(v.Transfers, tv)
	}
	for i, a := range m.Accounts {
		an := names.Accounts[a.Name]
		v.Accounts = append(v.Accounts, accountView{AccountNames: an, Name: a.Name, Index: i,
			FieldList: fields(a.Params, an.Fields), Statement: goString(a.Statement)})
	}
	return v
}

func fields(ps []model.Param, names []string) []fieldView {
	var out []fieldView
	for i, p := range ps {
		out = append(out, fieldView{Name: p.Name, Field: names[i], Type: FieldType(p), Amount: p.Amount})
	}
	return out
}

// goString writes s as a Go string literal: raw when it can be, so the
// SQL reads as SQL in the generated code.
func goString(s string) string {
	if strings.ContainsAny(s, "`\r") {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}
