// Package doc builds the page `chobo doc` writes for the people who run a
// ledger: what the accounts are, where amounts flow, how a hold ends, why
// a call is refused, every generated scenario step by step, and the
// statements of one scenario's accounts, as a client reads them. Build
// turns a book into a Page, the one content both formats share; Markdown
// writes it with Mermaid diagrams, HTML as one self-contained file whose
// diagrams come from package draw and whose stepper reads the per-step
// ledgers embedded as JSON.
//
// The page says nothing of the backends (no floor or room accounts, no
// chains, no tables): its readers check the rules of the book, not the
// database. Amounts are written at their unit's scale, as the book
// writes them, their digits grouped in threes wherever people read them,
// in calls and scenario titles too; the data the stepper reads keeps
// them plain, and the stepper groups them as it shows them.
package doc

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/report"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// Page is everything the page says, in one language, ready to write.
type Page struct {
	Lang        diag.Lang
	File        string // the book's file name, without its folder
	Name        string
	Version     int
	Description string
	Accounts    []AccountRow
	Flow        Flow
	Transfers   []TransferSection
	// Own are the scenarios the team wrote, file by file, in the order
	// given; they come before the generated ones and are numbered first.
	Own       []ScenarioFile
	Scenarios []ScenarioView
	// Statements shows the history of one scenario as statements read
	// it; nil when no scenario writes any entry.
	Statements *Statements
	// Warnings is what `chobo check` prints for the book's warnings, in
	// the page's language; empty when there are none.
	Warnings string
}

// AccountRow is one account kind in the accounts table.
type AccountRow struct {
	Name        string // the kind and its parameters: stock(sku)
	Params      string // what one account is per, or "—"
	Unit        string
	Bounds      string // each bound and its reason, or that it is outside
	Description string
	Outside     bool
}

// Flow is the diagram of where amounts flow: one node per account kind,
// one edge per move, in the book's order.
type Flow struct {
	Nodes []FlowNode
	Edges []FlowEdge
}

// FlowNode is an account kind as a box.
type FlowNode struct {
	Title   string
	Lines   []string
	Outside bool
}

// FlowEdge is one move of a transfer kind.
type FlowEdge struct {
	From, To int
	Label    string
	Held     bool
	Transfer int
}

// TransferSection is what the page says of one transfer kind.
type TransferSection struct {
	Index       int
	Name        string
	Description string
	Signature   string   // receive(delivery, sku, qty: pcs)
	Moves       []string // each move in words, in order
	// Together says the moves happen in order, all or none: set when
	// there are two or more.
	Together string
	Key      string
	Ends     string     // how a call of it ends: at once, or how its holds end
	Hold     *HoldView  // nil for a transfer that posts at once
	Ops      []OpReport // the operations and what each may be refused with
	// Reasons is the table of refusals: one row per reason and meaning,
	// with every operation it may refuse, in the order first met.
	Reasons []ReasonRow
}

// ReasonRow is one row of the table of refusals: what a reason means,
// for the operations it may refuse. An operation that no call was found
// to refuse has a row of its own, with no reason.
type ReasonRow struct {
	Ops     []string
	Reason  string // "—" for an operation without a refusal
	Meaning string
}

// reasonRows gathers the refusals of ops by reason and meaning: a reason
// every operation of a transfer may give (key_conflict) is said once.
func reasonRows(ops []OpReport, lang diag.Lang) []ReasonRow {
	var out []ReasonRow
	at := map[[2]string]int{}
	add := func(op, reason, meaning string) {
		k := [2]string{reason, meaning}
		if i, ok := at[k]; ok {
			out[i].Ops = append(out[i].Ops, op)
			return
		}
		at[k] = len(out)
		out = append(out, ReasonRow{Ops: []string{op}, Reason: reason, Meaning: meaning})
	}
	for _, o := range ops {
		if len(o.Refusals) == 0 {
			add(o.Op, "—", T("no refusal found", "拒否される例は見つかりません").In(lang))
		}
		for _, r := range o.Refusals {
			add(o.Op, r.Reason, r.Meaning)
		}
	}
	return out
}

// HoldView is the life of one transfer kind's holds.
type HoldView struct {
	Expires  bool
	Lifetime string // "30 minutes" ("30 分" in Japanese), in the largest unit that divides it
	// Rows is what post and void answer in each state, as the table on
	// the page writes it: state, post, void, expiry.
	Rows [][4]string
}

// OpReport is one operation's refusals.
type OpReport struct {
	Op       string // receive.do
	Refusals []RefusalView
}

// RefusalView is one reason an operation may be refused with, what it
// means, and calls that end refused with it.
type RefusalView struct {
	Reason  string
	Bound   string // the bound behind a bound's reason, else empty
	Meaning string
	KeyUsed bool
	Steps   []ExampleStep
	// Ledger is the ledger at the refusal: the refused call moved
	// nothing, so it is also the ledger after it.
	Ledger []LedgerRow
}

// ExampleStep is one call (or pass) of an example and its answer.
type ExampleStep struct {
	Call   string
	Answer string
}

// LedgerRow is one account's balance as the page writes it.
type LedgerRow struct {
	Account string
	// Posted, HeldOut and HeldIn are plain, as the data the stepper
	// reads keeps them ("0" when nothing is held); the stepper groups
	// their digits when it shows them.
	Posted  string
	HeldOut string
	HeldIn  string
	// Text is the balance in one cell, its digits grouped: posted, and
	// what is held in parentheses when anything is.
	Text string
}

// ScenarioFile is one scenario file of the team's and its scenarios.
type ScenarioFile struct {
	File      string // the file's name, without its folder
	Scenarios []ScenarioView
}

// OwnFile is a scenario file the team wrote, as read for the page.
type OwnFile struct {
	File      string
	Scenarios []scenario.Scenario
}

// ScenarioView is one scenario with each of its outcomes traced step by
// step.
type ScenarioView struct {
	Number   int // from 1, as the fragment URL counts
	Title    string
	Steps    []StepView
	Outcomes []OutcomeView
	// Unmet are the expectations the scenario writes that its outcomes
	// do not meet (a team's scenario; a generated one meets its own).
	Unmet []string
}

// StepView is one step as the scenario writes it.
type StepView struct {
	Label string // the call, "pass 31 minutes", or "together"
	// Calls are the calls of a `together`, one line per call with its
	// caller.
	Calls []string
	// Transfers are the transfer kinds the step calls (indexes).
	Transfers []int
}

// OutcomeView is one way the scenario can end, with the ledger after
// every step on the way.
type OutcomeView struct {
	Steps []StepState
}

// StepState is one step of one outcome: its answers and the ledger after
// it.
type StepState struct {
	Answers []string // one per call; for a pass, what expired
	// Refused names, per transfer called in this step, whether every
	// call of it was refused (for the arrows on the diagram).
	Refused map[int]bool `json:"-"`
	Ledger  []LedgerRow
	Holds   [][2]string // hold name, state
	Changed []bool      // per ledger row: differs from the step before
}

// Build makes the page of b in lang. diags are the book's diagnostics
// (warnings only: a book with errors has no page), rep its refusal
// report, and own the team's scenario files, already read.
func Build(b *book.Book, diags diag.List, rep report.Report, own []OwnFile, lang diag.Lang) (*Page, error) {
	p := &Page{
		Lang: lang, File: filepath.Base(b.File), Name: b.Name, Version: b.Version, Description: b.Description,
	}
	for _, a := range b.Accounts {
		p.Accounts = append(p.Accounts, accountRow(a, lang))
	}
	p.Flow = flowOf(b, lang)
	ops := map[*book.Transfer][]report.Operation{}
	for _, o := range rep.Operations {
		ops[o.Transfer] = append(ops[o.Transfer], o)
	}
	p.Transfers = make([]TransferSection, len(b.Transfers))
	err := eachAtOnce(len(b.Transfers), func(i int) (err error) {
		t := b.Transfers[i]
		p.Transfers[i], err = transferSection(b, t, api.TransferOf(b, t, ops[t], lang), ops[t], lang)
		return err
	})
	if err != nil {
		return nil, err
	}
	n := 0
	var all []scenario.Scenario
	for _, f := range own {
		all = append(all, f.Scenarios...)
		sf := ScenarioFile{File: filepath.Base(f.File), Scenarios: make([]ScenarioView, len(f.Scenarios))}
		first := n
		err = eachAtOnce(len(f.Scenarios), func(i int) (err error) {
			sf.Scenarios[i], err = scenarioView(b, first+i+1, f.Scenarios[i], lang)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.File, err)
		}
		n += len(f.Scenarios)
		p.Own = append(p.Own, sf)
	}
	// The generated scenarios that read the history are left off the
	// page: they repeat calls the others show, to compare every backend's
	// reads, and the page shows what a statement looks like in its own
	// section. A team's own scenarios are shown whatever they hold.
	scs := slices.DeleteFunc(scenario.Generate(b), scenario.Scenario.Reads)
	p.Scenarios = make([]ScenarioView, len(scs))
	err = eachAtOnce(len(scs), func(i int) (err error) {
		p.Scenarios[i], err = scenarioView(b, n+i+1, scs[i], lang)
		return err
	})
	if err != nil {
		return nil, err
	}
	p.Statements = statementsOf(b, append(all, scs...), lang)
	var w bytes.Buffer
	for _, dg := range diags {
		if dg.Severity != diag.Error {
			diag.WriteText(&w, dg, lang)
		}
	}
	p.Warnings = w.String()
	return p, nil
}

func accountRow(a *book.Account, lang diag.Lang) AccountRow {
	r := AccountRow{Name: a.Shape(), Unit: a.Unit.Name, Description: a.Description, Outside: a.Outside, Params: "—"}
	if len(a.Params) > 0 {
		r.Params = strings.Join(a.Params, ", ")
	}
	r.Bounds = boundsText(a, lang)
	return r
}

// boundsText writes an account's bounds with their reasons, or says it
// has none.
func boundsText(a *book.Account, lang diag.Lang) string {
	if a.Outside {
		return T("outside the ledger: no bounds", "帳簿の外: 境界なし").In(lang)
	}
	parts := boundLines(a, lang)
	if len(parts) == 0 {
		return T("no bounds", "境界なし").In(lang)
	}
	return strings.Join(parts, T(", ", "、").In(lang))
}

// boundLines writes each bound of a with its reason: "at least 0
// (out_of_stock)", "0 以上(在庫切れ)".
func boundLines(a *book.Account, lang diag.Lang) []string {
	var out []string
	if a.Lower != nil {
		out = append(out, diag.Paren(lang, boundWords(false, amount(a.Lower.Value, a.Unit.Scale), lang), a.Lower.Reason))
	}
	if a.Upper != nil {
		out = append(out, diag.Paren(lang, boundWords(true, amount(a.Upper.Value, a.Unit.Scale), lang), a.Upper.Reason))
	}
	return out
}

// boundWords says a bound's amount in words: "at most 50,000", "50,000
// 以下". The book's keywords are English; a Japanese page reads them in
// Japanese, as the rest of its sentences.
func boundWords(upper bool, v string, lang diag.Lang) string {
	if upper {
		return T("at most "+v, v+" 以下").In(lang)
	}
	return T("at least "+v, v+" 以上").In(lang)
}

func flowOf(b *book.Book, lang diag.Lang) Flow {
	var f Flow
	for _, a := range b.Accounts {
		n := FlowNode{Title: a.Shape(), Outside: a.Outside}
		if a.Outside {
			n.Lines = []string{a.Unit.Name + T(" · outside", " · 外").In(lang)}
		} else {
			n.Lines = append([]string{a.Unit.Name}, boundLines(a, lang)...)
		}
		f.Nodes = append(f.Nodes, n)
	}
	for _, t := range b.Transfers {
		// Two moves of one transfer that carry the same amount would
		// read alike; then every arrow of the transfer says which move
		// it is, by its number in the transfer's list of moves.
		same := map[string]int{}
		for _, m := range t.Moves {
			same[amountText(m)]++
		}
		numbered := len(same) < len(t.Moves)
		for i, m := range t.Moves {
			label := t.Name
			switch {
			case numbered:
				label = diag.Paren(diag.English, t.Name, T(fmt.Sprintf("move %d: %s", i+1, amountText(m)), fmt.Sprintf("移動 %d: %s", i+1, amountText(m))).In(lang))
			case len(t.Moves) > 1:
				label = diag.Paren(diag.English, t.Name, amountText(m))
			}
			f.Edges = append(f.Edges, FlowEdge{From: m.From.Account.Index, To: m.To.Account.Index,
				Label: label, Held: t.Pending != nil, Transfer: t.Index})
		}
	}
	return f
}

// amountText is what a move carries: its parameter, or its literal at
// the unit's scale.
func amountText(m *book.Move) string {
	if m.Amount.Param != nil {
		return m.Amount.Param.Name
	}
	return amount(m.Amount.Literal, m.From.Account.Unit.Scale)
}

func signature(t *book.Transfer) string {
	var parts []string
	for _, p := range t.Params {
		if p.IsAmount() {
			parts = append(parts, p.Name+": "+p.Unit.Name)
		} else {
			parts = append(parts, p.Name)
		}
	}
	return t.Name + "(" + strings.Join(parts, ", ") + ")"
}

func transferSection(b *book.Book, t *book.Transfer, d api.Transfer, ops []report.Operation, lang diag.Lang) (TransferSection, error) {
	s := TransferSection{Index: t.Index, Name: t.Name, Description: t.Description, Signature: signature(t), Key: d.KeyText}
	for _, m := range t.Moves {
		s.Moves = append(s.Moves, T(
			fmt.Sprintf("%s from %s to %s", amountText(m), m.From, m.To),
			fmt.Sprintf("%s を %s から %s へ", amountText(m), m.From, m.To)).In(lang))
	}
	if len(t.Moves) > 1 {
		s.Together = T("The moves happen in the order written, all or none: when one is refused, none of them moves anything.",
			"移動は書いた順に行い、全部行うか一つも行わないかのどちらかです。一つが拒否されると、どの移動も何も動かしません。").In(lang)
	}
	switch {
	case t.Pending == nil:
		s.Ends = T("A call moves the amounts at once (`do`).", "呼び出すと、その場で額が動きます(`do`)。").In(lang)
	case t.Pending.Expires:
		life := lifetimeText(t.Pending.Seconds, lang)
		s.Ends = T(
			fmt.Sprintf("A call holds the amounts first (`hold`): they count against the bounds but have not moved. `post` moves them, in full or in part; `void` gives them back; a hold neither posted nor voided within %s expires and gives them back.", life),
			fmt.Sprintf("呼び出すと、まず額を押さえます(`hold`)。押さえた額は境界に数えますが、まだ動いていません。`post` で全部か一部を動かし、`void` で戻します。%sのうちに確定も取消もされない仮押さえは期限切れになり、額が戻ります。", life)).In(lang)
		s.Hold = holdView(t, lang)
	default:
		s.Ends = T(
			"A call holds the amounts first (`hold`): they count against the bounds but have not moved. `post` moves them, in full or in part; `void` gives them back. The hold never expires: only `post` or `void` ends it.",
			"呼び出すと、まず額を押さえます(`hold`)。押さえた額は境界に数えますが、まだ動いていません。`post` で全部か一部を動かし、`void` で戻します。この仮押さえは期限切れになりません。終わらせるのは `post` か `void` だけです。").In(lang)
		s.Hold = holdView(t, lang)
	}
	for oi, o := range ops {
		or := OpReport{Op: t.Name + "." + string(o.Op)}
		for ri, rf := range o.Refusals {
			v, err := refusalView(b, rf, d.Operations[oi].Refusals[ri], lang)
			if err != nil {
				return s, err
			}
			or.Refusals = append(or.Refusals, v)
		}
		s.Ops = append(s.Ops, or)
	}
	s.Reasons = reasonRows(s.Ops, lang)
	return s, nil
}

func holdView(t *book.Transfer, lang diag.Lang) *HoldView {
	h := &HoldView{Expires: t.Pending.Expires}
	deadline := T("", "").In(lang)
	if h.Expires {
		h.Lifetime = lifetimeText(t.Pending.Seconds, lang)
		deadline = T(
			fmt.Sprintf("; refused with expired once %s have passed", h.Lifetime),
			fmt.Sprintf("。%sが過ぎていれば expired で拒否", h.Lifetime)).In(lang)
	}
	st := func(s interp.HoldState) string { return scenario.HoldStateText(s, lang) }
	never := T("cannot happen", "起きない").In(lang)
	expiry := never
	if h.Expires {
		expiry = T(fmt.Sprintf("after %s: expired, the amounts go back", h.Lifetime),
			fmt.Sprintf("%s後に期限切れになり、額が戻る", h.Lifetime)).In(lang)
	}
	h.Rows = [][4]string{
		{st(interp.Held), T("posted", "確定").In(lang) + deadline, T("voided", "取消").In(lang) + deadline, expiry},
		{st(interp.Posted), T("the same amounts: done_before; others: key_conflict", "同じ額なら done_before、違えば key_conflict").In(lang), book.AlreadyPosted, never},
		{st(interp.Voided), book.AlreadyVoided, "done_before", never},
	}
	if h.Expires {
		h.Rows = append(h.Rows, [4]string{st(interp.HoldExpired), book.Expired, book.Expired, never})
	}
	h.Rows = append(h.Rows, [4]string{T("no such hold", "無い").In(lang), book.NoSuchHold, book.NoSuchHold, never})
	return h
}

func refusalView(b *book.Book, rf report.Refusal, d api.Refusal, lang diag.Lang) (RefusalView, error) {
	v := RefusalView{Reason: rf.Reason, Bound: boundText(rf, lang), KeyUsed: d.KeyUsed, Meaning: meaning(rf, lang)}
	sc := scenario.FromExample(rf.Reason, rf.Example)
	outs, _, err := scenario.Explore(b, sc, scenario.Budget)
	if err != nil {
		return v, err
	}
	if len(outs) != 1 {
		return v, fmt.Errorf("the example of %s has %d outcomes", rf.Reason, len(outs))
	}
	o := outs[0]
	k := 0
	for i, st := range sc.Steps {
		if st.Call == nil {
			var note string
			if names := o.Expired[i]; len(names) > 0 {
				note = scenario.ExpiredText(names, lang)
			}
			v.Steps = append(v.Steps, ExampleStep{Call: passLabel(st.PassText, lang), Answer: note})
			continue
		}
		v.Steps = append(v.Steps, ExampleStep{Call: callText(st.Call), Answer: answerText(o.Results[k], lang)})
		k++
	}
	v.Ledger = ledgerOf(o.Accounts, lang)
	return v, nil
}

// meaning says what a refusal means for the caller.
func meaning(rf report.Refusal, lang diag.Lang) string {
	if rf.Account != nil {
		return T(
			fmt.Sprintf("the call would take %s past its bound (%s); nothing moves, and the key stays refused", rf.Account.Name, boundText(rf, lang)),
			fmt.Sprintf("呼び出すと %s が境界(%s)を越えます。何も動かず、このキーは拒否されたままになります", rf.Account.Name, boundText(rf, lang))).In(lang)
	}
	if m, ok := meanings[rf.Reason]; ok {
		return m.In(lang)
	}
	return ""
}

var meanings = map[string]diag.Text{
	book.KeyConflict: T("a call with the same key was made before with other content; the first one stands",
		"同じキーで中身の違う呼び出しが前にありました。前のものがそのまま残ります"),
	book.AlreadyRefused: T("the same key was refused at a bound before; it stays refused, even after the balance would allow it: retry with a new key",
		"同じキーが前に境界で拒否されています。あとで残高が足りても拒否されたままです。やり直すなら新しいキーで"),
	book.SameAccount: T("a move would take from and put into the same account (equal arguments)",
		"一つの移動の元と先が同じ勘定になります(引数が同じ)"),
	book.NoSuchHold:    T("there is no hold with that key", "そのキーの仮押さえがありません"),
	book.AlreadyPosted: T("the hold was posted; it can no longer be voided", "仮押さえは確定済みで、もう取り消せません"),
	book.AlreadyVoided: T("the hold was voided; it can no longer be posted", "仮押さえは取消済みで、もう確定できません"),
	book.Expired:       T("the hold expired; its amounts went back", "仮押さえは期限切れで、額は戻っています"),
	book.OverHold:      T("the post asks for more than the hold holds", "押さえた額を超えて確定しようとしています"),
}

// lifetimeText writes a length of time as the book would, with the unit
// in the page's language: a Japanese sentence reads "30 分", as chobo run
// writes it beside a pass.
func lifetimeText(secs int64, lang diag.Lang) string {
	s := groupNumbers(syntax.FormatDuration(secs))
	if lang != diag.Japanese {
		return s
	}
	n, word, ok := strings.Cut(s, " ")
	if unit, known := syntax.TimeWordJa(word); ok && known {
		return n + " " + unit
	}
	return s
}

// amount writes an amount at its unit's scale for people to read: the
// integer part in groups of three digits, 1,234,567.89. English and
// Japanese pages write it alike.
func amount(v int64, scale int) string { return group(book.FormatAmount(v, scale)) }

// group puts a comma between each three digits of the integer part of a
// number written as book.FormatAmount writes it; the sign and the
// fraction stay as they are.
func group(s string) string {
	sign, rest := "", s
	if strings.HasPrefix(rest, "-") {
		sign, rest = "-", rest[1:]
	}
	whole, frac, dot := strings.Cut(rest, ".")
	if len(whole) <= 3 {
		return s
	}
	var b strings.Builder
	b.WriteString(sign)
	head := len(whole) % 3
	if head == 0 {
		head = 3
	}
	b.WriteString(whole[:head])
	for i := head; i < len(whole); i += 3 {
		b.WriteByte(',')
		b.WriteString(whole[i : i+3])
	}
	if dot {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// boundText is the bound behind a refusal, its amount grouped as the
// page writes amounts.
func boundText(rf report.Refusal, lang diag.Lang) string {
	a := rf.Account
	if a == nil {
		return rf.Bound
	}
	b := a.Upper
	if rf.Lower {
		b = a.Lower
	}
	if b == nil {
		return rf.Bound
	}
	return a.Shape() + T(" ", " が ").In(lang) + boundWords(!rf.Lower, amount(b.Value, a.Unit.Scale), lang)
}

// passLabel is a pass of time as a step of the page says it: "pass 30
// minutes", "30 分経過". The listings of chobo run keep the scenario's
// own words beside the Japanese; the page speaks only its language.
func passLabel(text string, lang diag.Lang) string {
	n, word, ok := strings.Cut(text, " ")
	if !ok || strings.Contains(word, " ") {
		return scenario.PassText(text, lang)
	}
	n = groupNumbers(diag.Printable(n))
	if lang != diag.Japanese {
		return "pass " + n + " " + diag.Printable(word)
	}
	if unit, known := syntax.TimeWordJa(word); known {
		return n + " " + unit + "経過"
	}
	return scenario.PassText(text, lang)
}

// callText writes a call as the page shows it: each amount at its unit's
// scale with its digits grouped, as every other amount of the page.
func callText(c *scenario.Call) string { return c.Format(group) }

// groupNumbers groups the digits of every number that stands on its own
// in s, as the page writes amounts: a scenario's title carries the
// amounts of its calls, plain. Digits inside a word (sku-12345, v2) or
// after a decimal point stay as they are; a word of another script may
// follow (12345円).
func groupNumbers(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		c := s[i]
		if c < '0' || c > '9' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if !inWord(s, i) && (j == len(s) || s[j] >= 0x80 || !wordByte(s[j])) {
			b.WriteString(group(s[i:j]))
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// inWord reports whether the digits at s[i:] continue a word: they follow
// a letter, a digit, an underscore, a point or a hyphen that itself
// follows one of those.
func inWord(s string, i int) bool {
	if i == 0 {
		return false
	}
	p := s[i-1]
	if p == '-' {
		return i >= 2 && (wordByte(s[i-2]) || s[i-2] == '.')
	}
	return wordByte(p) || p == '.' || p == ','
}

// wordByte reports whether c belongs to a word: an ASCII letter or digit,
// an underscore, or a byte of a character beyond ASCII (名前 too).
func wordByte(c byte) bool {
	return c >= 0x80 || c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// answerText is a call's answer as the page writes it: as chobo run
// lists it, but a bound met in a transfer of several moves is told in
// the page's words, its amount grouped (`移動 2: 在庫(s-2) が 0 以上`).
func answerText(r scenario.OpResult, lang diag.Lang) string {
	if r.Failed != "" || r.Move == 0 {
		return scenario.ResultText(r, lang)
	}
	m := r.Bound
	where := report.MovesText([]int{r.Move}, lang) + ": " + m.Account + T(" ", " が ").In(lang) +
		boundWords(m.Upper, amount(m.Value, m.Scale), lang)
	return diag.Printable(diag.Paren(lang, r.Result.Text().In(lang), where))
}

// T is diag.T, short for the many texts of the page.
func T(en, ja string) diag.Text { return diag.T(en, ja) }

func amountOf(a interp.Account, v int64) string { return book.FormatAmount(v, a.Kind.Unit.Scale) }

// ledgerOf writes the accounts of one ledger.
func ledgerOf(accs []interp.AccountBalance, lang diag.Lang) []LedgerRow {
	var out []LedgerRow
	for _, a := range accs {
		r := LedgerRow{Account: a.Account.String(), Posted: amountOf(a.Account, a.Balance.Posted),
			HeldOut: amountOf(a.Account, a.Balance.HeldOut), HeldIn: amountOf(a.Account, a.Balance.HeldIn)}
		r.Text = balanceText(a.Balance, a.Account.Kind.Unit.Scale, lang)
		out = append(out, r)
	}
	return out
}

func scenarioView(b *book.Book, n int, sc scenario.Scenario, lang diag.Lang) (ScenarioView, error) {
	v := ScenarioView{Number: n, Title: groupNumbers(sc.Title(lang))}
	for _, st := range sc.Steps {
		switch {
		case st.Call != nil:
			v.Steps = append(v.Steps, StepView{Label: callText(st.Call), Transfers: []int{st.Call.Transfer.Index}})
		case st.Together != nil:
			sv := StepView{Label: T("together", "同時に").In(lang)}
			for ci, calls := range st.Together {
				for _, c := range calls {
					sv.Calls = append(sv.Calls, T(fmt.Sprintf("caller %d: ", ci+1), fmt.Sprintf("呼び出し元 %d: ", ci+1)).In(lang)+callText(c))
					if !slices.Contains(sv.Transfers, c.Transfer.Index) {
						sv.Transfers = append(sv.Transfers, c.Transfer.Index)
					}
				}
			}
			v.Steps = append(v.Steps, sv)
		case st.Read != nil:
			v.Steps = append(v.Steps, StepView{Label: st.Read.Label(lang)})
		default:
			v.Steps = append(v.Steps, StepView{Label: passLabel(st.PassText, lang)})
		}
	}
	outs, _, err := scenario.Trace(b, sc, scenario.Budget)
	if err != nil {
		return v, fmt.Errorf("scenario %q: %w", sc.Name, err)
	}
	for _, o := range outs {
		v.Outcomes = append(v.Outcomes, outcomeView(sc, o, lang))
	}
	for _, f := range scenario.FailureTexts(sc, outs) {
		v.Unmet = append(v.Unmet, diag.Printable(f.In(lang)))
	}
	return v, nil
}

func outcomeView(sc scenario.Scenario, o scenario.Outcome, lang diag.Lang) OutcomeView {
	var ov OutcomeView
	k := 0
	var prev []LedgerRow
	for i, st := range sc.Steps {
		ss := StepState{Refused: map[int]bool{}}
		var calls []*scenario.Call
		switch {
		case st.Call != nil:
			calls = []*scenario.Call{st.Call}
		case st.Together != nil:
			for _, cs := range st.Together {
				calls = append(calls, cs...)
			}
		case st.Read != nil:
			ss.Answers = []string{scenario.ReadNote(st.Read, o.Reads[i], lang)}
		default:
			if names := o.Expired[i]; len(names) > 0 {
				ss.Answers = []string{scenario.ExpiredText(names, lang)}
			}
		}
		done := map[int]bool{}
		for _, c := range calls {
			r := o.Results[k]
			k++
			ss.Answers = append(ss.Answers, answerText(r, lang))
			if r.Failed == "" && r.Outcome != interp.Refused {
				done[c.Transfer.Index] = true
			}
			ss.Refused[c.Transfer.Index] = !done[c.Transfer.Index]
		}
		snap := o.Trace[i]
		ss.Ledger = ledgerOf(snap.Accounts, lang)
		for _, h := range snap.Holds {
			ss.Holds = append(ss.Holds, [2]string{h.Name, scenario.HoldStateText(h.State, lang)})
		}
		ss.Changed = changed(prev, ss.Ledger)
		prev = ss.Ledger
		ov.Steps = append(ov.Steps, ss)
	}
	return ov
}

// changed marks the rows of now that differ from the step before: a new
// account, or another balance.
func changed(before, now []LedgerRow) []bool {
	old := map[string]LedgerRow{}
	for _, r := range before {
		old[r.Account] = r
	}
	out := make([]bool, len(now))
	for i, r := range now {
		o, ok := old[r.Account]
		out[i] = !ok || o != r
	}
	return out
}

// eachAtOnce calls f for 0…n-1, on as many goroutines as there are
// processors: the sections of a page are worked out apart from each other,
// each into its own place, so the page is the same whatever order they
// finish in. The error is the one of the lowest index.
func eachAtOnce(n int, f func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				errs[i] = f(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// All is every scenario of the page in the stepper's order: the team's,
// then the generated ones.
func (p *Page) All() []ScenarioView {
	var out []ScenarioView
	for _, f := range p.Own {
		out = append(out, f.Scenarios...)
	}
	return append(out, p.Scenarios...)
}
