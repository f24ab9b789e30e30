package api

import (
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/chobo/report"
	"github.com/chobo-lang/chobo/chobo/search"
)

// Book is what `chobo api` prints: how to call a book, what each call may
// be refused with, the ids, the names each target gives, and the life of
// its holds.
type Book struct {
	V         int        `json:"v"`
	Book      BookInfo   `json:"book"`
	Units     []Unit     `json:"units"`
	Accounts  []Account  `json:"accounts"`
	Transfers []Transfer `json:"transfers"`
	IDs       IDScheme   `json:"ids"`
	Targets   Targets    `json:"targets"`
	Build     Builds     `json:"build"`
	Machines  []Machine  `json:"machines"`
}

// BookInfo names the book and the file it was read from.
type BookInfo struct {
	Name        string `json:"name"`
	Version     int    `json:"version"`
	File        string `json:"file"`
	Description string `json:"description"`
}

// Unit is a unit of count.
type Unit struct {
	Name  string `json:"name"`
	Scale int    `json:"scale"`
	// Ledger is the TigerBeetle ledger of the unit (the ids role
	// "ledger").
	Ledger uint32 `json:"ledger"`
	// Tax is "incl_tax" or "excl_tax" for a money unit that says so; the
	// key is left out for every other unit.
	Tax string `json:"tax,omitempty"`
}

// Account is an account kind.
type Account struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Params      []string `json:"params"`
	Unit        string   `json:"unit"`
	Outside     bool     `json:"outside"`
	Lower       *Bound   `json:"lower"`
	Upper       *Bound   `json:"upper"`
	// Code is the 16-bit code of the kind (ids role "code", category
	// "account").
	Code uint16 `json:"code"`
}

// Bound is a lower or upper bound and the reason a call crossing it gets.
type Bound struct {
	// Value counts the unit's smallest step; Text writes it as the book
	// does, with the unit's decimals.
	Value  int64  `json:"value"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// Transfer is a transfer kind.
type Transfer struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Params      []Param  `json:"params"`
	Key         []string `json:"key"`
	// KeyText says what the key means for callers, in the language
	// asked for.
	KeyText    string       `json:"key_text"`
	Pending    Pending      `json:"pending"`
	Moves      []Move       `json:"moves"`
	Operations []TransferOp `json:"operations"`
	// Code is the 16-bit code of the kind (ids role "code", category
	// "transfer").
	Code uint16 `json:"code"`
	// Definition is the hash of what the transfer does (book
	// Transfer.Definition): the backends keep it with every key used,
	// and a retry after the definition changed answers key_conflict.
	Definition string `json:"definition"`
	// LegacyDefinition is the hash earlier versions of chobo kept
	// instead (book Transfer.LegacyDefinition, with the bounds of the
	// accounts in it): the backends take a key or hold recorded with it
	// as recorded with Definition.
	LegacyDefinition string `json:"legacy_definition"`
}

// Param is a parameter of a transfer kind.
type Param struct {
	Name string `json:"name"`
	// Type is "string" or "amount"; Unit is the unit of an amount, empty
	// for a string.
	Type string `json:"type"`
	Unit string `json:"unit"`
}

// Pending says whether a transfer holds first and how its holds end.
type Pending struct {
	Holds bool `json:"holds"`
	// Expires is false for an immediate transfer and for `pending never
	// expires`; Seconds is the lifetime of a hold when it is true.
	Expires bool  `json:"expires"`
	Seconds int64 `json:"seconds"`
}

// Move is one move of a transfer, in the order written.
type Move struct {
	Move   int        `json:"move"`
	Amount MoveAmount `json:"amount"`
	From   AccountRef `json:"from"`
	To     AccountRef `json:"to"`
}

// MoveAmount is a parameter of the transfer, or a literal when Param is
// empty (counted in the unit's smallest step).
type MoveAmount struct {
	Param   string `json:"param"`
	Literal int64  `json:"literal"`
}

// AccountRef is an account kind and the transfer parameters that pick one
// account of it.
type AccountRef struct {
	Account string   `json:"account"`
	Args    []string `json:"args"`
}

// TransferOp is one operation of a transfer kind and the reasons the
// search found it refused with.
type TransferOp struct {
	Op       string    `json:"op"`
	Refusals []Refusal `json:"refusals"`
}

// Refusal is one reason an operation may be refused with.
type Refusal struct {
	Reason string `json:"reason"`
	// By is "bound" for a bound's reason, "chobo" for one of chobo's own.
	By    string        `json:"by"`
	Bound *RefusalBound `json:"bound"`
	// KeyUsed is true when the key stays taken after this answer: a later
	// call with the same key is refused with already_refused.
	KeyUsed bool `json:"key_used"`
	// Operations are calls that end refused with the reason, as the
	// reference interpreter answered them.
	Operations []Step `json:"operations"`
}

// RefusalBound is the bound behind a bound's reason.
type RefusalBound struct {
	Account string `json:"account"`
	// Side is "lower" or "upper".
	Side string `json:"side"`
	Text string `json:"text"`
	// Moves are the moves (from 1) whose account crosses the bound in
	// the calls the search found.
	Moves []int `json:"moves"`
}

// Step is one step of an example: a call or time passing.
type Step struct {
	Step int `json:"step"`
	// Call and Outcome are the step as `chobo check` prints it; Outcome
	// follows the language asked for.
	Call    string `json:"call"`
	Outcome string `json:"outcome"`
	// Op is "TRANSFER.OPERATION", empty for a pass. Args and Amounts are
	// what a scenario step holds (amounts: the amounts of a partial post,
	// else null); both are null for a pass.
	Op      string `json:"op"`
	Args    Args   `json:"args"`
	Amounts Args   `json:"amounts"`
	// Pass is the time that passes, such as "30 minutes"; empty for a
	// call.
	Pass string `json:"pass"`
	// Result is done, done_before or refused (with Reason); empty for a
	// pass.
	Result string `json:"result"`
	Reason string `json:"reason"`
}

// Describe builds the `chobo api` document of b; src is its text (which
// quotes the lines of build's diagnostics; nil leaves them unquoted), rep
// its refusal report (report.Build), and lang picks the language of the
// texts meant for people (key_text, the outcomes of examples, build's
// diagnostics). Keys are English.
func Describe(b *book.Book, src []byte, rep report.Report, lang diag.Lang) Book {
	builds := BuildsOf(b, src, lang)
	out := Book{
		V:         Version,
		Book:      BookInfo{Name: b.Name, Version: b.Version, File: b.File, Description: b.Description},
		Units:     []Unit{},
		Accounts:  []Account{},
		Transfers: []Transfer{},
		IDs:       idScheme(),
		Targets:   builds.Refuse(TargetsOf(b)),
		Build:     builds,
		Machines:  []Machine{},
	}
	for _, u := range b.Units {
		out.Units = append(out.Units, Unit{Name: u.Name, Scale: u.Scale, Ledger: ids.Ledger(u.Name, u.Scale), Tax: u.Tax.String()})
	}
	for _, a := range b.Accounts {
		out.Accounts = append(out.Accounts, accountOf(b, a))
	}
	ops := map[*book.Transfer][]report.Operation{}
	for _, o := range rep.Operations {
		ops[o.Transfer] = append(ops[o.Transfer], o)
	}
	for _, t := range b.Transfers {
		out.Transfers = append(out.Transfers, transferOf(b, t, ops[t], lang))
		if t.Pending != nil {
			out.Machines = append(out.Machines, MachineOf(t))
		}
	}
	return out
}

func accountOf(b *book.Book, a *book.Account) Account {
	out := Account{
		Name: a.Name, Description: a.Description, Params: []string{}, Unit: a.Unit.Name, Outside: a.Outside,
		Code: ids.Code(b.Name, "account", a.Name),
	}
	out.Params = append(out.Params, a.Params...)
	bound := func(bd *book.Bound) *Bound {
		if bd == nil {
			return nil
		}
		return &Bound{Value: bd.Value, Text: book.FormatAmount(bd.Value, a.Unit.Scale), Reason: bd.Reason}
	}
	out.Lower, out.Upper = bound(a.Lower), bound(a.Upper)
	return out
}

// TransferOf describes one transfer kind of b as Describe does, for a
// caller that needs its transfers and not the rest (the page of `chobo
// doc`): ops are the report's operations of t.
func TransferOf(b *book.Book, t *book.Transfer, ops []report.Operation, lang diag.Lang) Transfer {
	return transferOf(b, t, ops, lang)
}

func transferOf(b *book.Book, t *book.Transfer, ops []report.Operation, lang diag.Lang) Transfer {
	out := Transfer{
		Name: t.Name, Description: t.Description,
		Params: []Param{}, Key: []string{}, KeyText: report.KeyText(t, ops).In(lang),
		Moves: []Move{}, Operations: []TransferOp{},
		Code:       ids.Code(b.Name, "transfer", t.Name),
		Definition: t.Definition(), LegacyDefinition: t.LegacyDefinition(),
	}
	for _, p := range t.Params {
		if p.IsAmount() {
			out.Params = append(out.Params, Param{Name: p.Name, Type: "amount", Unit: p.Unit.Name})
		} else {
			out.Params = append(out.Params, Param{Name: p.Name, Type: "string"})
		}
	}
	for _, p := range t.Key {
		out.Key = append(out.Key, p.Name)
	}
	if t.Pending != nil {
		out.Pending = Pending{Holds: true, Expires: t.Pending.Expires}
		if t.Pending.Expires {
			out.Pending.Seconds = t.Pending.Seconds
		}
	}
	for _, m := range t.Moves {
		mv := Move{Move: m.Index, Amount: MoveAmount{Literal: m.Amount.Literal}, From: refOf(m.From), To: refOf(m.To)}
		if m.Amount.Param != nil {
			mv.Amount = MoveAmount{Param: m.Amount.Param.Name}
		}
		out.Moves = append(out.Moves, mv)
	}
	// The report lists every operation of t, in the order of t.Ops().
	for _, o := range ops {
		jo := TransferOp{Op: string(o.Op), Refusals: []Refusal{}}
		for _, rf := range o.Refusals {
			jo.Refusals = append(jo.Refusals, refusalOf(rf, lang))
		}
		out.Operations = append(out.Operations, jo)
	}
	return out
}

func refOf(r book.AccountRef) AccountRef {
	out := AccountRef{Account: r.Account.Name, Args: []string{}}
	for _, p := range r.Args {
		out.Args = append(out.Args, p.Name)
	}
	return out
}

func refusalOf(rf report.Refusal, lang diag.Lang) Refusal {
	out := Refusal{Reason: rf.Reason, By: "chobo", Operations: steps(rf.Example, lang)}
	if rf.Account != nil {
		side := "upper"
		if rf.Lower {
			side = "lower"
		}
		out.By = "bound"
		out.Bound = &RefusalBound{Account: rf.Account.Name, Side: side, Text: rf.Bound, Moves: rf.Moves}
	}
	// A refusal by a bound marks the key as refused for good; the answer
	// to such a key stays already_refused. Every other refusal leaves the
	// key as it was.
	out.KeyUsed = rf.Account != nil || rf.Reason == book.AlreadyRefused
	return out
}

// steps converts an example: the text `chobo check` prints, and the same
// calls as data.
func steps(e search.Example, lang diag.Lang) []Step {
	texts := exampleOperations(e, lang)
	out := make([]Step, 0, len(e.Steps))
	for i, st := range e.Steps {
		s := Step{Step: texts[i].Step, Call: texts[i].Call, Outcome: texts[i].Outcome}
		if st.IsPass() {
			s.Pass = strings.TrimPrefix(s.Call, "pass ")
			out = append(out, s)
			continue
		}
		c := st.Call
		s.Op = c.Transfer.Name + "." + string(c.Op)
		s.Args = Args{}
		post := c.Op == book.Post || c.Op == book.Void
		for _, p := range c.Transfer.Params {
			if v, ok := c.Strings[p.Name]; ok {
				s.Args = append(s.Args, Arg{Name: p.Name, String: v})
			} else if v, ok := c.Amounts[p.Name]; ok && !post {
				s.Args = append(s.Args, Arg{Name: p.Name, Amount: v, IsAmount: true})
			}
		}
		if post && c.Amounts != nil {
			s.Amounts = Args{}
			for _, p := range c.Transfer.Params {
				if v, ok := c.Amounts[p.Name]; ok {
					s.Amounts = append(s.Amounts, Arg{Name: p.Name, Amount: v, IsAmount: true})
				}
			}
		}
		s.Result = st.Result.Outcome.String()
		s.Reason = st.Result.Reason
		out = append(out, s)
	}
	return out
}
