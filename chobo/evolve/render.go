package evolve

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// The previous version is quoted by writing its declarations back as a
// book would, from the model rather than from its text: a previous
// version read from `chobo api` JSON has no text, and both forms must say
// the same thing. Comments, descriptions and spacing are left out, since
// none of them changes what is stored.

func bookLine(b *book.Book) string { return fmt.Sprintf("book %s v%d", b.Name, b.Version) }

func unitLine(u *book.Unit) string {
	s := "unit " + u.Name
	if u.Scale > 0 {
		s += fmt.Sprintf(" scale %d", u.Scale)
	}
	if t := u.Tax.String(); t != "" {
		s += " " + t
	}
	return s
}

// accountShape is the account kind with its parameters, as its
// declaration writes them: `stock(sku: string)`, or the bare name.
func accountShape(a *book.Account) string {
	if len(a.Params) == 0 {
		return a.Name
	}
	ps := make([]string, len(a.Params))
	for i, p := range a.Params {
		ps[i] = p + ": string"
	}
	return a.Name + "(" + strings.Join(ps, ", ") + ")"
}

func accountLine(a *book.Account) string {
	s := "account " + accountShape(a) + " : " + a.Unit.Name
	if a.Outside {
		s += " outside"
	}
	return s
}

// boundLine writes a bound of a, or "" for none; lower picks the side.
func boundLine(a *book.Account, lower bool) string {
	b := bound(a, lower)
	if b == nil {
		return ""
	}
	return boundValue(a, lower) + " refused as " + b.Reason
}

func bound(a *book.Account, lower bool) *book.Bound {
	if lower {
		return a.Lower
	}
	return a.Upper
}

// boundValue writes a bound of a without its reason, `at least 0`, or ""
// for none.
func boundValue(a *book.Account, lower bool) string {
	b := bound(a, lower)
	switch {
	case b == nil:
		return ""
	case lower:
		return "at least " + book.FormatAmount(b.Value, a.Unit.Scale)
	}
	return "at most " + book.FormatAmount(b.Value, a.Unit.Scale)
}

func paramType(p *book.Param) string {
	if p.Unit == nil {
		return "string"
	}
	return p.Unit.Name
}

// transferShape is the transfer kind with its parameters and their
// types: `receive(delivery: string, qty: pcs)`, or the bare name.
func transferShape(t *book.Transfer) string {
	if len(t.Params) == 0 {
		return t.Name
	}
	ps := make([]string, len(t.Params))
	for i, p := range t.Params {
		ps[i] = p.Name + ": " + paramType(p)
	}
	return t.Name + "(" + strings.Join(ps, ", ") + ")"
}

func transferLine(t *book.Transfer) string { return "transfer " + transferShape(t) }

func keyLine(t *book.Transfer) string {
	names := make([]string, len(t.Key))
	for i, p := range t.Key {
		names[i] = p.Name
	}
	return "key " + strings.Join(names, ", ")
}

// pendingLine writes the `pending` line, or "" for a transfer that posts
// at once.
func pendingLine(p *book.Pending) string {
	switch {
	case p == nil:
		return ""
	case !p.Expires:
		return "pending never expires"
	}
	return "pending expires after " + syntax.FormatDuration(p.Seconds)
}

func moveLine(m *book.Move) string {
	amount := ""
	if m.Amount.Param != nil {
		amount = m.Amount.Param.Name
	} else {
		amount = book.FormatAmount(m.Amount.Literal, m.From.Account.Unit.Scale)
	}
	return fmt.Sprintf("move %s from %s to %s", amount, m.From, m.To)
}
