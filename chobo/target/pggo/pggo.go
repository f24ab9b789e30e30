// Package pggo writes a Go client for a book stored in PostgreSQL: a
// package with a typed method per operation that calls the book's SQL
// function through pgx, retrying serialization failures.
package pggo

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/chobo/target/gonames"
	"github.com/chobo-lang/chobo/chobo/target/postgres"
)

// PackageName is the Go package of a book's client: the book's name when
// it is a plain lower-case ASCII identifier, else "book".
func PackageName(b *book.Book) string {
	n := b.Name
	if n == "" || token.IsKeyword(n) {
		return "book"
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return "book"
		}
	}
	return n
}

// Build writes <package>/book.go and <package>/runtime.go; the package is
// opt.Package, or PackageName when that is empty.
func Build(b *book.Book, src target.Source, opt target.Options) ([]target.File, diag.List) {
	pkg := opt.Package
	if ds := postgres.Check(b); len(ds) > 0 {
		return nil, ds
	}
	if pkg == "" {
		pkg = PackageName(b)
	}
	header := target.Header(b, src)
	bookGo := generate(b, pkg, header)
	runtimeGo := "// " + header[0] + "\n\n" + fmt.Sprintf(runtimeSource, pkg)
	var files []target.File
	for _, f := range []struct{ name, text string }{{"book.go", bookGo}, {"runtime.go", runtimeGo}} {
		formatted, err := format.Source([]byte(f.text))
		if err != nil {
			// A generator bug, not a user error: say so loudly.
			panic(fmt.Sprintf("chobo: generated Go does not parse: %v\n%s", err, f.text))
		}
		files = append(files, target.File{Path: pkg + "/" + f.name, Data: formatted})
	}
	return files, nil
}

// runtimeNames are the names runtime.go declares; book names must not
// take them.
var runtimeNames = []string{"Querier", "Outcome", "Done", "DoneBefore", "Refused", "Result", "HoldState",
	"Held", "Posted", "Voided", "Expired", "Balance", "Book", "Postgres", "Balances"}

// Names are the Go names a generated package gives a book's transfers,
// accounts and parameters. Tests that drive a generated client by
// reflection read them here rather than guessing.
type Names struct {
	Transfers map[*book.Transfer]TransferNames
	Accounts  map[*book.Account]AccountNames
}

// TransferNames are the names of one transfer kind.
type TransferNames struct {
	Field, Type, Args, Key, Amounts    string
	ArgFields, KeyFields, AmountFields []string // in parameter order
}

// AccountNames are the names of one account kind.
type AccountNames struct {
	Method, Type string
	Fields       []string
}

// Naming gives every name of b's client. Names never collide: with each
// other, with runtime.go, or with the Balance and Expire members.
func Naming(b *book.Book) Names {
	n := Names{Transfers: map[*book.Transfer]TransferNames{}, Accounts: map[*book.Account]AccountNames{}}
	var types gonames.Set
	types.Reserve(runtimeNames...)
	var fields gonames.Set
	fields.Reserve("Balance", "Expire")
	for _, t := range b.Transfers {
		e := gonames.Exported(t.Name)
		n.Transfers[t] = TransferNames{
			Field:        fields.Unique(e),
			Type:         types.Unique(e),
			Args:         types.Unique(e + "Args"),
			Key:          types.Unique(e + "Key"),
			Amounts:      types.Unique(e + "Amounts"),
			ArgFields:    structFields(t.Params),
			KeyFields:    structFields(t.Key),
			AmountFields: structFields(postgres.Params(t, "post")[len(t.Key):]),
		}
	}
	var methods gonames.Set
	for _, a := range b.Accounts {
		var params []*book.Param
		for _, p := range a.Params {
			params = append(params, &book.Param{Name: p})
		}
		n.Accounts[a] = AccountNames{
			Method: methods.Unique(gonames.Exported(a.Name)),
			Type:   types.Unique(gonames.Exported(a.Name) + "Account"),
			Fields: structFields(params),
		}
	}
	return n
}

func generate(b *book.Book, pkg string, header []string) string {
	var w bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&w, format, args...); w.WriteString("\n") }
	for _, h := range header {
		p("// %s", h)
	}
	p("")
	p("// Package %s calls the book %s in PostgreSQL: one method per operation,", pkg, b.Name)
	p("// each one call of the book's SQL function (%s.sql).", b.Name)
	p("package %s", pkg)
	p("")
	p(`import "context"`)
	p("")

	names := Naming(b)
	tn := func(t *book.Transfer) TransferNames { return names.Transfers[t] }

	p("// Book is the book %s, kept in PostgreSQL for one tenant.", b.Name)
	p("type Book struct {")
	for _, t := range b.Transfers {
		p("\t%s %s", tn(t).Field, tn(t).Type)
	}
	p("\t// Balance reads accounts.")
	p("\tBalance Balances")
	p("")
	p("\tq      Querier")
	p("\ttenant string")
	p("}")
	p("")
	p("// Postgres returns the book over q for a tenant (\"\" by default).")
	p("func Postgres(q Querier, tenant string) *Book {")
	p("\tb := &Book{q: q, tenant: tenant}")
	for _, t := range b.Transfers {
		p("\tb.%s = %s{b}", tn(t).Field, tn(t).Type)
	}
	p("\tb.Balance = Balances{b}")
	p("\treturn b")
	p("}")
	p("")
	p("// Expire gives back up to max holds past their deadline and says how")
	p("// many. Call it from one periodic job.")
	p("func (b *Book) Expire(ctx context.Context, max int) (int, error) {")
	p("\tvar n int")
	p("\terr := queryRow(ctx, b.q, %s, []any{max}, &n)", "`"+postgres.ExpireSQL(b)+"`")
	p("\treturn n, err")
	p("}")

	for _, t := range b.Transfers {
		g := tn(t)
		p("")
		if t.Description != "" {
			p("// %s is the transfer %s: %s", g.Type, t.Name, t.Description)
		} else {
			p("// %s is the transfer %s.", g.Type, t.Name)
		}
		p("type %s struct{ b *Book }", g.Type)
		fieldNames := g.ArgFields
		p("")
		p("// %s are the arguments of %s.", g.Args, t.Name)
		writeStruct(p, g.Args, t.Params, fieldNames)
		if t.Pending == nil {
			writeCall(p, b, t, g, "Do", "do", fieldNames)
			continue
		}
		keyFields := g.KeyFields
		p("")
		p("// %s names one hold of %s.", g.Key, t.Name)
		writeStruct(p, g.Key, t.Key, keyFields)
		amounts := postgres.Params(t, "post")[len(t.Key):]
		amountFields := g.AmountFields
		if len(amounts) > 0 {
			p("")
			p("// %s are the amounts of a partial post.", g.Amounts)
			writeStruct(p, g.Amounts, amounts, amountFields)
		}
		writeCall(p, b, t, g, "Hold", "hold", fieldNames)
		// Post
		p("")
		p("// Post posts the hold: in full when amounts is nil.")
		if len(amounts) > 0 {
			p("func (t %s) Post(ctx context.Context, k %s, amounts *%s) (Result, error) {", g.Type, g.Key, g.Amounts)
		} else {
			p("func (t %s) Post(ctx context.Context, k %s) (Result, error) {", g.Type, g.Key)
		}
		args := []string{"t.b.tenant"}
		for _, f := range keyFields {
			args = append(args, "k."+f)
		}
		if len(amounts) > 0 {
			p("\targs := []any{%s}", strings.Join(args, ", "))
			p("\tif amounts == nil {")
			p("\t\targs = append(args%s)", strings.Repeat(", nil", len(amounts)))
			p("\t} else {")
			for i, a := range amounts {
				p("\t\tif err := amount(%q, amounts.%s); err != nil {", a.Name, amountFields[i])
				p("\t\t\treturn Result{}, err")
				p("\t\t}")
			}
			var as []string
			for _, f := range amountFields {
				as = append(as, "amounts."+f)
			}
			p("\t\targs = append(args, %s)", strings.Join(as, ", "))
			p("\t}")
			p("\treturn call(ctx, t.b.q, %s, args...)", "`"+postgres.CallSQL(b, t, "post")+"`")
		} else {
			p("\treturn call(ctx, t.b.q, %s, %s)", "`"+postgres.CallSQL(b, t, "post")+"`", strings.Join(args, ", "))
		}
		p("}")
		p("")
		p("// Void cancels the hold.")
		p("func (t %s) Void(ctx context.Context, k %s) (Result, error) {", g.Type, g.Key)
		p("\treturn call(ctx, t.b.q, %s, %s)", "`"+postgres.CallSQL(b, t, "void")+"`", strings.Join(args, ", "))
		p("}")
		p("")
		p("// Status says where the hold stands; \"\" when there is none.")
		p("func (t %s) Status(ctx context.Context, k %s) (HoldState, error) {", g.Type, g.Key)
		p("\treturn status(ctx, t.b.q, %s, %s)", "`"+postgres.CallSQL(b, t, "status")+"`", strings.Join(args, ", "))
		p("}")
	}

	p("")
	p("// Balances reads accounts: posted, held coming in, held going out.")
	p("type Balances struct{ b *Book }")
	for _, a := range b.Accounts {
		var params []*book.Param
		for _, n := range a.Params {
			params = append(params, &book.Param{Name: n})
		}
		fieldNames := names.Accounts[a].Fields
		p("")
		args := []string{"x.b.tenant"}
		if len(params) > 0 {
			p("// %s names one account of %s.", names.Accounts[a].Type, a.Name)
			writeStruct(p, names.Accounts[a].Type, params, fieldNames)
			p("")
			p("// %s reads an account of %s.", names.Accounts[a].Method, a.Name)
			p("func (x Balances) %s(ctx context.Context, a %s) (Balance, error) {", names.Accounts[a].Method, names.Accounts[a].Type)
			for _, f := range fieldNames {
				args = append(args, "a."+f)
			}
		} else {
			p("// %s reads the account %s.", names.Accounts[a].Method, a.Name)
			p("func (x Balances) %s(ctx context.Context) (Balance, error) {", names.Accounts[a].Method)
		}
		p("\treturn balance(ctx, x.b.q, %s, %s)", "`"+postgres.BalanceSQL(b, a)+"`", strings.Join(args, ", "))
		p("}")
	}
	return w.String()
}

func structFields(params []*book.Param) []string {
	var s gonames.Set
	var out []string
	for _, p := range params {
		out = append(out, s.Unique(gonames.Exported(p.Name)))
	}
	return out
}

func writeStruct(p func(string, ...any), name string, params []*book.Param, fields []string) {
	p("type %s struct {", name)
	for i, prm := range params {
		ty := "string"
		if prm.IsAmount() {
			ty = "int64"
		}
		p("\t%s %s", fields[i], ty)
	}
	p("}")
}

func writeCall(p func(string, ...any), b *book.Book, t *book.Transfer, g TransferNames, method, op string, fields []string) {
	p("")
	p("// %s calls %s.%s.", method, t.Name, op)
	p("func (t %s) %s(ctx context.Context, a %s) (Result, error) {", g.Type, method, g.Args)
	args := []string{"t.b.tenant"}
	for i, prm := range t.Params {
		if prm.IsAmount() {
			p("\tif err := amount(%q, a.%s); err != nil {", prm.Name, fields[i])
			p("\t\treturn Result{}, err")
			p("\t}")
		}
		args = append(args, "a."+fields[i])
	}
	p("\treturn call(ctx, t.b.q, %s, %s)", "`"+postgres.CallSQL(b, t, op)+"`", strings.Join(args, ", "))
	p("}")
}
