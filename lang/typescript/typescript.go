// Package typescript writes TypeScript clients of a book: one file,
// <book>.ts, with a typed member per transfer kind and its operations,
// over chobo's TypeScript runtime (lang/typescript/runtime), which the file
// carries. It reads the book's client model only (chobo/client/model);
// the TypeScript text comes from the templates under templates/<backend>/.
package typescript

import (
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"text/template"

	"github.com/chobo-lang/chobo/chobo/client/lit"
	"github.com/chobo-lang/chobo/chobo/client/model"
	tsruntime "github.com/chobo-lang/chobo/lang/typescript/runtime"
)

//go:embed templates
var templateFiles embed.FS

var templates = map[string]*template.Template{
	model.Postgres:    template.Must(template.New("book.ts.tmpl").Funcs(funcs).ParseFS(templateFiles, "templates/common.tmpl", "templates/postgres/*.tmpl")),
	model.TigerBeetle: template.Must(template.New("book.ts.tmpl").Funcs(funcs).ParseFS(templateFiles, "templates/common.tmpl", "templates/tigerbeetle/*.tmpl")),
}

// RuntimeMarker starts the line above each of the runtime's files in a
// client. What comes after it is chobo's own text, compiled by chobo's
// tests, so a reader of what a book made of a client may stop there.
const RuntimeMarker = "// ---- chobo's TypeScript runtime:"

var funcs = template.FuncMap{
	"runtimeMarker": func() string { return RuntimeMarker },
	"str":           String,
	"prop":          Property,
	"doc":           doc,
	"values":        newValues,
}

// valuesView is what the template "values" reads: the checks that read
// each value of a call from the object Var, naming the call Where.
type valuesView struct {
	Where, Var string
	Fields     []fieldView
}

func newValues(where, v string, fields []fieldView) valuesView {
	return valuesView{Where: String(where), Var: v, Fields: fields}
}

// doc makes text safe inside a /** … */ comment.
func doc(s string) string { return strings.ReplaceAll(s, "*/", "* /") }

// view is what the templates read: the model with its TypeScript names.
type view struct {
	Header      []string
	Imports     []string
	BookName    string
	Description string
	Reasons     []string // as string literals
	Runtime     []runtimeFile
	Def         string // TigerBeetle: the chain definition, a TypeScript expression
	Expire      string // PostgreSQL: the statement, a string literal
	// History are the PostgreSQL statements of the history reads, as
	// string literals; nil on TigerBeetle.
	History   *historyView
	Transfers []transferView
	Accounts  []accountView
}

type historyView struct {
	Statement, Call, OpenHolds, BalanceAt string
}

type runtimeFile struct {
	Name string
	Body string
}

type transferView struct {
	TransferNames
	Name, Description            string
	Index                        int // in the book's declaration order
	Pending                      bool
	ArgList, KeyList, AmountList []fieldView
	Statements                   map[string]string // by operation, as string literals
}

type accountView struct {
	AccountNames
	Name, Description string
	Index             int
	Fields            []fieldView
	Statement         string
}

type fieldView struct {
	Name   string // as the book writes it, a string literal
	Prop   string // where a type declares it
	Type   string // string or bigint
	Amount bool
}

// Generate returns the source of <book>.ts for the model, starting with
// header as comment lines.
func Generate(m *model.Model, header []string) ([]byte, error) {
	tmpl, ok := templates[m.Backend]
	if !ok {
		return nil, fmt.Errorf("no TypeScript client for the backend %q", m.Backend)
	}
	rt, imports, reserved, err := runtimeOf(m.Backend)
	if err != nil {
		return nil, err
	}
	names := Naming(m, reserved)
	v := view{Header: header, Imports: imports, BookName: m.Book.Name, Description: m.Book.Description, Runtime: rt}
	for _, r := range m.Reasons {
		v.Reasons = append(v.Reasons, String(r))
	}
	if m.Def != nil {
		v.Def = lit.Write(m.Def, defSyntax)
	} else {
		v.Expire = String(m.Expire)
	}
	if h := m.History; h != nil {
		v.History = &historyView{Statement: String(h.Statement), Call: String(h.Call), OpenHolds: String(h.OpenHolds), BalanceAt: String(h.BalanceAt)}
	}
	for i, t := range m.Transfers {
		tv := transferView{TransferNames: names.Transfers[t.Name], Name: t.Name, Description: t.Description,
			Index: i, Pending: t.Pending, ArgList: fields(t.Args), KeyList: fields(t.Key), AmountList: fields(t.Amounts),
			Statements: map[string]string{}}
		for _, op := range t.Operations {
			tv.Statements[op.Name] = String(op.Statement)
		}
		v.Transfers = append(v.Transfers, tv)
	}
	for i, a := range m.Accounts {
		v.Accounts = append(v.Accounts, accountView{AccountNames: names.Accounts[a.Name], Name: a.Name,
			Description: a.Description, Index: i, Fields: fields(a.Params), Statement: String(a.Statement)})
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func fields(ps []model.Param) []fieldView {
	var out []fieldView
	for _, p := range ps {
		out = append(out, fieldView{Name: String(p.Name), Prop: Property(p.Name), Type: FieldType(p), Amount: p.Amount})
	}
	return out
}

// FieldType is the TypeScript type of a parameter's property.
func FieldType(p model.Param) string {
	if p.Amount {
		return "bigint"
	}
	return "string"
}

// ClientNames are the names Generate gives the model's transfers and
// accounts.
func ClientNames(m *model.Model) Names {
	_, _, reserved, err := runtimeOf(m.Backend)
	if err != nil {
		panic("chobo: " + err.Error()) // the runtime is compiled in
	}
	return Naming(m, reserved)
}

var (
	// importLine matches one import declaration, over as many lines as it
	// takes; the runtime's files write nothing else that starts a line
	// with "import".
	importLine = regexp.MustCompile(`(?ms)^import [^;]*? from "([^"]+)";\n`)
	// exportedType matches what a runtime file declares in the type space.
	exportedType = regexp.MustCompile(`(?m)^export (?:interface|type|class) ([A-Za-z_$][A-Za-z0-9_$]*)`)
)

// runtimeParts is the runtime as a client of one backend carries it.
type runtimeParts struct {
	files   []runtimeFile
	imports []string
	types   []string // the type names the runtime declares
	err     error
}

// runtimes holds the runtime's parts by backend, worked out once: the
// sources are compiled in, and every client of a backend carries the same.
var runtimes = sync.OnceValue(func() map[string]runtimeParts {
	out := map[string]runtimeParts{}
	for _, backend := range []string{model.Postgres, model.TigerBeetle} {
		var p runtimeParts
		p.files, p.imports, p.types, p.err = readRuntime(backend)
		out[backend] = p
	}
	return out
})

// runtimeOf returns the runtime's files for a backend, its imports of
// Node's modules, and the type names it declares, which the book's types
// must not take.
func runtimeOf(backend string) (files []runtimeFile, imports, types []string, err error) {
	p, ok := runtimes()[backend]
	if !ok {
		return nil, nil, nil, fmt.Errorf("no TypeScript runtime for the backend %q", backend)
	}
	return p.files, p.imports, p.types, p.err
}

// readRuntime reads the runtime's files for a backend. Their imports of
// one another go (the files end up in one), and their imports of Node's
// modules are gathered at the top of the client.
func readRuntime(backend string) (files []runtimeFile, imports, types []string, err error) {
	names, err := tsruntime.Files(backend)
	if err != nil {
		return nil, nil, nil, err
	}
	seen := map[string]bool{}
	for _, name := range names {
		src, err := tsruntime.Source(name)
		if err != nil {
			return nil, nil, nil, err
		}
		body := importLine.ReplaceAllStringFunc(string(src), func(decl string) string {
			from := importLine.FindStringSubmatch(decl)[1]
			if !strings.HasPrefix(from, "./") && !seen[decl] {
				seen[decl] = true
				imports = append(imports, strings.TrimSuffix(decl, "\n"))
			}
			return ""
		})
		for _, m := range exportedType.FindAllStringSubmatch(body, -1) {
			types = append(types, m[1])
		}
		files = append(files, runtimeFile{Name: name, Body: strings.TrimSpace(body)})
	}
	return files, imports, types, nil
}

// defSyntax writes the chain definition as a TypeScript expression of
// the runtime's type Def. Its 64-bit integers are bigints, as the runtime
// reads them.
var defSyntax = lit.Syntax{
	Indent:    "  ",
	Struct:    func(string, bool, bool) string { return "{" },
	Close:     "}",
	Pad:       " ",
	List:      func(string) string { return "[" },
	ListClose: "]",
	Field: func(name string) string {
		return strings.ToLower(name[:1]) + name[1:] // the runtime's properties are camelCase
	},
	Bind:   ": ",
	String: String,
	True:   "true",
	False:  "false",
	Null:   "null",
	Big:    "n",
}
