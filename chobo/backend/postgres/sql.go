// Package postgres writes a book as PostgreSQL: one schema per book, the
// tables that hold balances and used keys (with each hold on the key row
// of its hold call, also seen through the view holds), the history
// (account_entries, the one store of entries, each account's in its own
// order, also seen through the view entries), one function per transfer
// and operation, and the functions that read the history. Every bound is kept inside one function call: the rows are
// locked in id order, every move is checked on the locked values in the
// order written, and nothing is written unless all of them pass.
//
// The SQL comes from the templates under templates/, which read as the
// SQL they write; this package only works out the names and expressions
// they fill in (views.go).
package postgres

import (
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/chobo-lang/chobo/chobo/book"
)

//go:embed templates/*.sql.tmpl
var templateFiles embed.FS

var templates *template.Template

func init() {
	templates = template.Must(template.New("").Funcs(template.FuncMap{
		"join":    strings.Join,
		"lit":     Lit,
		"reason":  reasonLit,
		"include": include,
		"indent":  indent,
		"shard":   shardOf,
	}).ParseFS(templateFiles, "templates/*.sql.tmpl"))
}

// include runs a shared template into a string, so that another template
// can indent it where it nests it inside a block.
func include(name string, data any) (string, error) {
	var b strings.Builder
	err := templates.ExecuteTemplate(&b, name, data)
	return b.String(), err
}

// indent puts n more spaces in front of every line of s that is not
// empty.
func indent(n int, s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = strings.Repeat(" ", n) + l
		}
	}
	return strings.Join(lines, "\n")
}

// Generate returns the SQL of b. header is written first as comment lines.
// The text is safe to run again on a database that has it already.
func Generate(b *book.Book, header []string) string {
	var out strings.Builder
	exec := func(name string, data any) {
		if err := templates.ExecuteTemplate(&out, name, data); err != nil {
			// The templates are part of the binary: a failure is a bug here.
			panic("chobo: template " + name + ": " + err.Error())
		}
	}
	s := Ident(b.Name)
	exec("schema.sql.tmpl", struct {
		Header  []string
		S, Book string
	}{header, s, Lit(b.Name)})
	exec("replace.sql.tmpl", struct {
		S         string
		Functions []Function
	}{s, Functions(b)})
	exec("unbounded.sql.tmpl", struct {
		S, Book string
		Shards  int
	}{s, Lit(b.Name), Shards})
	exec("history.sql.tmpl", newHistoryView(b))
	for _, t := range b.Transfers {
		if t.Pending == nil {
			exec("move.sql.tmpl", newMoveView(b, t, book.Do))
			continue
		}
		exec("move.sql.tmpl", newMoveView(b, t, book.Hold))
		exec("post.sql.tmpl", newPostView(b, t))
		exec("void.sql.tmpl", newVoidView(b, t))
		exec("status.sql.tmpl", newFunction(b, t, "status", t.Key, false))
	}
	for _, a := range b.Accounts {
		exec("balance.sql.tmpl", newBalanceView(b, a))
	}
	exec("expire.sql.tmpl", struct{ S, CallID string }{s, Ident(CallIDParam)})
	exec("close.sql.tmpl", struct {
		S         string
		Functions []Function
	}{s, Functions(b)})
	return out.String()
}

// Function is one function the SQL of a book writes: as PostgreSQL names
// it with its argument types (the text of a regprocedure), the names of
// its arguments, and the names of the columns it returns, for one that
// returns a table.
type Function struct {
	Signature string
	Args      []string
	Out       []string
}

// ArgArray writes the names as PostgreSQL keeps them (proargnames), a
// text[] literal: the arguments, then the columns of a table it returns.
// A function whose columns changed is made anew like one whose arguments
// were renamed, since PostgreSQL replaces no result type in place.
func (f Function) ArgArray() string {
	var names []string
	for _, a := range append(append([]string{}, f.Args...), f.Out...) {
		names = append(names, Lit(a))
	}
	return "array[" + strings.Join(names, ", ") + "]::text[]"
}

// entryOut are the columns of a statement's rows and of a call's entries.
var entryOut = strings.Split(strings.ReplaceAll(entryColumns, " ", ""), ",")

// Functions lists every function the SQL of b writes. The loaded file
// keeps these and drops any other function of the schema, and it drops
// first one of these whose arguments an earlier version named otherwise,
// since PostgreSQL renames no argument in place.
func Functions(b *book.Book) []Function {
	s := Ident(b.Name)
	fn := func(name string, args ...[2]string) Function {
		f := Function{}
		var types []string
		for _, a := range args {
			f.Args = append(f.Args, a[0])
			types = append(types, a[1])
		}
		f.Signature = s + "." + Ident(name) + "(" + strings.Join(types, ", ") + ")"
		return f
	}
	arg := func(name, typ string) [2]string { return [2]string{name, typ} }
	returning := func(out []string, f Function) Function {
		f.Out = out
		return f
	}
	tenant := arg("p_tenant", "text")
	out := []Function{
		fn("chobo_id", arg("parts", "text[]")),
		fn("chobo_unbounded", tenant, arg("p_ids", "uuid[]"), arg("p_d", "numeric[]"), arg("p_write", "boolean")),
		fn("chobo_record", tenant, arg("p_kind", "text"), arg("p_op", "text"), arg("p_key", "text[]"), arg("p_accounts", "uuid[]"),
			arg("p_posted", "bigint[]"), arg("p_held_in", "bigint[]"), arg("p_held_out", "bigint[]")),
		returning(entryOut, fn("history_statement", tenant, arg("p_account", "text"), arg("p_args", "text[]"), arg("p_from", "timestamp with time zone"),
			arg("p_to", "timestamp with time zone"), arg("p_kinds", "text[]"), arg("p_newest", "boolean"),
			arg("p_limit", "integer"), arg("p_after", "bigint"))),
		returning(entryOut, fn("history_call", tenant, arg("p_kind", "text"), arg("p_key", "text[]"))),
		returning(openHoldOut, fn("history_open_holds", tenant, arg("p_account", "text"), arg("p_args", "text[]"), arg("p_kind", "text"))),
		fn("history_balance", tenant, arg("p_account", "text"), arg("p_args", "text[]"), arg("p_at", "timestamp with time zone")),
	}
	for _, t := range b.Transfers {
		ops := t.Ops()
		if t.Pending != nil {
			ops = append(ops, "status")
		}
		for _, op := range ops {
			args := [][2]string{tenant}
			for _, p := range Params(t, string(op)) {
				args = append(args, arg(ParamName(p.Name), SQLType(p.IsAmount())))
			}
			if op != "status" {
				args = append(args, arg(CallIDParam, "uuid"))
			}
			out = append(out, fn(FuncName(t, string(op)), args...))
		}
	}
	for _, a := range b.Accounts {
		args := [][2]string{tenant}
		for _, p := range a.Params {
			args = append(args, arg(ParamName(p), "text"))
		}
		out = append(out, fn(BalanceName(a), args...))
	}
	return append(out, fn("expire", arg("p_max", "integer"), arg(CallIDParam, "uuid")))
}

// reasonLit writes one of chobo's own refusal reasons as a literal. The
// templates name reasons by their text, which reads as the SQL it
// becomes; a name that is not one of them stops the generator.
func reasonLit(name string) (string, error) {
	for _, r := range book.BuiltinReasons {
		if r == name {
			return Lit(r), nil
		}
	}
	return "", fmt.Errorf("%q is not a reason of chobo's", name)
}
