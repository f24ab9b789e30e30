// Package lit writes a book's chain definition (chobotb.Def) as a literal
// of a client's language, so that a TigerBeetle client carries the
// definition in its source and reads nothing at run time.
//
// The walk over the definition is written once, here; a language brings
// only its punctuation, as a Syntax. The layout is the same in every
// language: one unit, account and move per line, each transfer kind over
// a few, so that a diff of two clients reads as a diff of two books.
package lit

import (
	"strconv"
	"strings"

	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Syntax is how a language spells the parts of a literal. Type names are
// those of runtime/go/chobotb (Def, Unit, Bound, …) or "int"; field names
// are the Go fields of those types (Book, PostAmounts, …).
type Syntax struct {
	Indent string // one level
	// Struct opens a value of a struct type. Elem says the value is an
	// element of a list, whose type a language may leave to the list;
	// pointer says the runtime holds it by reference.
	Struct func(typ string, elem, pointer bool) string
	Close  string // of a struct
	// Pad goes inside the braces of a struct written on one line.
	Pad string
	// List opens a list of elem; ListClose closes it.
	List      func(elem string) string
	ListClose string
	// Lone follows the element of a list of one written on one line, in
	// a language that would otherwise read the brackets as grouping it
	// (one where (1,) is a list of one and (1) is 1).
	Lone   string
	Field  func(name string) string // a field's name as the language writes it
	Bind   string                   // between a field's name and its value
	String func(s string) string    // a string literal
	True   string
	False  string
	Null   string // an absent reference
	// Big follows a 64-bit integer that the language would otherwise
	// read as a float or a narrower integer.
	Big string
}

// Write returns d as an expression in syntax s.
func Write(d *chobotb.Def, s Syntax) string {
	w := writer{s: s}
	return w.def(d)
}

type writer struct {
	s Syntax
	b strings.Builder
}

// field is one name and its value, already written.
type field struct{ name, value string }

func (w *writer) f(name, value string) field { return field{w.s.Field(name), value} }

// fields writes fields one after another, as on one line.
func (w *writer) fields(fs []field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.name + w.s.Bind + f.value
	}
	return strings.Join(parts, ", ")
}

// inline writes a struct on one line.
func (w *writer) inline(open string, fs ...field) string {
	return open + w.s.Pad + w.fields(fs) + w.s.Pad + w.s.Close
}

// line writes fields on one line at depth, ending it with a comma.
func (w *writer) line(depth int, fs ...field) {
	w.b.WriteString(strings.Repeat(w.s.Indent, depth) + w.fields(fs) + ",\n")
}

// open starts a field whose value spans lines; close ends it.
func (w *writer) open(depth int, name, opener string) {
	w.b.WriteString(strings.Repeat(w.s.Indent, depth) + w.s.Field(name) + w.s.Bind + opener + "\n")
}

func (w *writer) close(depth int, closer string) {
	w.b.WriteString(strings.Repeat(w.s.Indent, depth) + closer + ",\n")
}

// elem writes one element of a list of typ on its own line.
func (w *writer) elem(depth int, typ string, fs ...field) {
	w.b.WriteString(strings.Repeat(w.s.Indent, depth) + w.inline(w.s.Struct(typ, true, false), fs...) + ",\n")
}

func (w *writer) bool(v bool) string {
	if v {
		return w.s.True
	}
	return w.s.False
}

func (w *writer) int(v int) string { return strconv.Itoa(v) }

func (w *writer) big(v int64) string { return strconv.FormatInt(v, 10) + w.s.Big }

func (w *writer) ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return w.list("int", s)
}

// list writes a list of elem on one line.
func (w *writer) list(elem string, items []string) string {
	lone := ""
	if len(items) == 1 {
		lone = w.s.Lone
	}
	return w.s.List(elem) + strings.Join(items, ", ") + lone + w.s.ListClose
}

func (w *writer) bound(x *chobotb.Bound) string {
	if x == nil {
		return w.s.Null
	}
	return w.inline(w.s.Struct("Bound", false, true), w.f("Value", w.big(x.Value)), w.f("Reason", w.s.String(x.Reason)))
}

func (w *writer) side(x chobotb.Side) string {
	return w.inline(w.s.Struct("Side", false, false), w.f("Account", w.int(x.Account)), w.f("Args", w.ints(x.Args)))
}

func (w *writer) def(d *chobotb.Def) string {
	s := w.s
	w.b.WriteString(s.Struct("Def", false, true) + "\n")
	w.line(1, w.f("Book", s.String(d.Book)))
	w.open(1, "Units", s.List("Unit"))
	for _, u := range d.Units {
		w.elem(2, "Unit", w.f("Name", s.String(u.Name)), w.f("Scale", w.int(u.Scale)))
	}
	w.close(1, s.ListClose)
	w.open(1, "Accounts", s.List("AccountKind"))
	for _, a := range d.Accounts {
		w.elem(2, "AccountKind", w.f("Name", s.String(a.Name)), w.f("Unit", w.int(a.Unit)), w.f("Params", w.int(a.Params)),
			w.f("Outside", w.bool(a.Outside)), w.f("Lower", w.bound(a.Lower)), w.f("Upper", w.bound(a.Upper)))
	}
	w.close(1, s.ListClose)
	w.open(1, "Transfers", s.List("TransferKind"))
	for _, t := range d.Transfers {
		w.b.WriteString(strings.Repeat(s.Indent, 2) + s.Struct("TransferKind", true, false) + "\n")
		w.line(3, w.f("Name", s.String(t.Name)), w.f("Definition", s.String(t.Definition)), w.f("Legacy", s.String(t.Legacy)),
			w.f("Pending", w.bool(t.Pending)), w.f("Timeout", strconv.FormatUint(uint64(t.Timeout), 10)))
		params := make([]string, len(t.Params))
		for i, p := range t.Params {
			params[i] = w.inline(s.Struct("Param", true, false), w.f("Name", s.String(p.Name)), w.f("Amount", w.bool(p.Amount)))
		}
		w.line(3, w.f("Params", w.list("Param", params)))
		w.line(3, w.f("Key", w.ints(t.Key)), w.f("PostAmounts", w.ints(t.PostAmounts)))
		w.open(3, "Moves", s.List("Move"))
		for _, m := range t.Moves {
			w.elem(4, "Move", w.f("Amount", w.int(m.Amount)), w.f("Literal", w.big(m.Literal)),
				w.f("From", w.side(m.From)), w.f("To", w.side(m.To)))
		}
		w.close(3, s.ListClose)
		w.close(2, s.Close)
	}
	w.close(1, s.ListClose)
	w.b.WriteString(s.Close)
	return w.b.String()
}
