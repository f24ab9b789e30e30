package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// A read step reads the ledger's history where it stands, and changes
// nothing: a statement of an account, the entries of one call, the open
// holds, or a balance at an earlier time. Its expectation holds the
// lines a read gives in English, as Entry.String and the listings write
// them. Reads run on the interpreter's one history, so a read cannot
// stand inside a `together` or after one: the orders of concurrent calls
// leave their entries in different orders.

// The kinds of read.
const (
	ReadStatement = "statement"
	ReadEntries   = "entries"
	ReadHolds     = "holds"
	ReadBalance   = "balance"
)

var readKinds = []string{ReadStatement, ReadEntries, ReadHolds, ReadBalance}

// ReadStep is a read step as the file writes it.
type ReadStep struct {
	Kind string
	// Name names the step, for a later statement's "after".
	Name string
	// Account, for a statement, a balance and (optionally) holds.
	Account *interp.Account
	// Transfer, for the entries of a call and (optionally) holds.
	Transfer *book.Transfer
	Key      []string // entries: the key values, in key order
	// A statement's filter; AfterStep is the index of the step whose
	// cursor it continues from, -1 for none.
	Transfers []*book.Transfer
	From      int64
	FromText  string
	To        *int64
	ToText    string
	Order     interp.Order
	Limit     int
	AfterStep int
	// At, for a balance.
	At     int64
	AtText string
	Expect *ReadExpect
}

// ReadExpect is what a read must give: the lines of its entries or holds,
// or its balance, and for a statement whether more entries follow.
type ReadExpect struct {
	Lines []string
	More  *bool
}

// ReadResult is what a read gave.
type ReadResult struct {
	Entries []interp.Entry
	Holds   []*interp.Hold
	Balance interp.Balance
	More    bool
	Next    string // a statement's cursor
	// Failed holds why the read could not be made.
	Failed, FailedJa string
}

// Lines writes the result as its expectation holds it, in English.
func (r *ReadResult) Lines(rd *ReadStep) []string {
	switch rd.Kind {
	case ReadStatement, ReadEntries:
		out := []string{}
		for _, e := range r.Entries {
			out = append(out, e.String())
		}
		return out
	case ReadHolds:
		out := []string{}
		for _, h := range r.Holds {
			out = append(out, HoldLine(h, diag.English))
		}
		return out
	}
	return []string{BalanceLine(r.Balance, rd.Account.Kind.Unit.Scale, diag.English)}
}

// HoldLine writes an open hold: its name, when it was made, its deadline
// and what each move holds.
func HoldLine(h *interp.Hold, lang diag.Lang) string {
	var moves []string
	for i, a := range h.Amounts {
		amt := book.FormatAmount(a, h.From[i].Kind.Unit.Scale)
		moves = append(moves, diag.T(fmt.Sprintf("move %d %s from %s to %s", i+1, amt, h.From[i], h.To[i]),
			fmt.Sprintf("移動 %d %s を %s から %s へ", i+1, amt, h.From[i], h.To[i])).In(lang))
	}
	until := diag.T("never expires", "期限なし")
	if h.Transfer.Pending.Expires {
		until = diag.T(fmt.Sprintf("expires at %ds", h.Deadline), fmt.Sprintf("期限 %d 秒", h.Deadline))
	}
	return diag.T(fmt.Sprintf("%s held at %ds, %s: %s", h.Name(), h.Created, until.En, strings.Join(moves, "; ")),
		fmt.Sprintf("%s %d 秒に押さえ、%s: %s", h.Name(), h.Created, until.Ja, strings.Join(moves, "。"))).In(lang)
}

// BalanceLine writes a balance at its unit's scale.
func BalanceLine(b interp.Balance, scale int, lang diag.Lang) string {
	v := func(n int64) string { return book.FormatAmount(n, scale) }
	return diag.T(fmt.Sprintf("posted %s, held out %s, held in %s", v(b.Posted), v(b.HeldOut), v(b.HeldIn)),
		fmt.Sprintf("確定 %s、出ていく仮押さえ %s、入ってくる仮押さえ %s", v(b.Posted), v(b.HeldOut), v(b.HeldIn))).In(lang)
}

// EntryLine writes an entry for people in lang; in English it is the
// line an expectation holds.
func EntryLine(e interp.Entry, lang diag.Lang) string {
	if lang != diag.Japanese {
		return e.String()
	}
	side := "入"
	if e.Out {
		side = "出"
	}
	return fmt.Sprintf("%s %d 秒: %s 移動 %d %s。%s → %s", e.Account, e.Time, e.CallText(), e.Move, side,
		e.ChangeText(true), BalanceLine(e.After, e.Account.Kind.Unit.Scale, diag.Japanese))
}

// Label writes the read as the listings show it.
func (rd *ReadStep) Label(lang diag.Lang) string {
	var parts []string
	add := func(en, ja string) { parts = append(parts, diag.T(en, ja).In(lang)) }
	switch rd.Kind {
	case ReadStatement:
		add("statement of "+rd.Account.String(), rd.Account.String()+" の明細")
		if len(rd.Transfers) > 0 {
			var names []string
			for _, t := range rd.Transfers {
				names = append(names, t.Name)
			}
			add("of "+strings.Join(names, ", "), strings.Join(names, "、")+" のみ")
		}
		if rd.FromText != "" {
			add("from "+rd.FromText, sinceJa(rd.FromText)+"から")
		}
		if rd.ToText != "" {
			add("before "+rd.ToText, sinceJa(rd.ToText)+"より前")
		}
		if rd.Order == interp.Newest {
			add("newest first", "新しい順")
		}
		if rd.Limit > 0 {
			add(fmt.Sprintf("limit %d", rd.Limit), fmt.Sprintf("%d 件まで", rd.Limit))
		}
		if rd.AfterStep >= 0 {
			add(fmt.Sprintf("after step %d", rd.AfterStep+1), fmt.Sprintf("ステップ %d の続き", rd.AfterStep+1))
		}
	case ReadEntries:
		add("entries of "+book.KindArgs(rd.Transfer.Name, rd.Key), book.KindArgs(rd.Transfer.Name, rd.Key)+" の記録")
	case ReadHolds:
		var of []string
		if rd.Account != nil {
			of = append(of, rd.Account.String())
		}
		if rd.Transfer != nil {
			of = append(of, rd.Transfer.Name)
		}
		if len(of) == 0 {
			add("open holds", "押さえ中の仮押さえ")
		} else {
			add("open holds of "+strings.Join(of, ", "), strings.Join(of, "、")+" の押さえ中の仮押さえ")
		}
	case ReadBalance:
		add("balance of "+rd.Account.String()+" at "+rd.AtText, rd.Account.String()+" の"+sinceJa(rd.AtText)+"の残高")
	}
	sep := ", "
	if lang == diag.Japanese {
		sep = "、"
	}
	return diag.T("read ", "読む: ").In(lang) + diag.Printable(strings.Join(parts, sep))
}

var readFields = []string{"read", "name", "account", "transfer", "key", "transfers", "from", "to", "order", "limit", "after", "at", "expect"}

// which fields each kind of read takes, besides "read", "name" and
// "expect".
var readTakes = map[string][]string{
	ReadStatement: {"account", "transfers", "from", "to", "order", "limit", "after"},
	ReadEntries:   {"transfer", "key"},
	ReadHolds:     {"account", "transfer"},
	ReadBalance:   {"account", "at"},
}

// readRead reads a read step. earlier is the steps before it, whose
// names "after" looks up.
func readRead(b *book.Book, v *value, earlier []Step) (*ReadStep, *Error) {
	if err := fields(v, diag.T("a read step", "読むステップ"), readFields...); err != nil {
		return nil, err
	}
	kind, _, err := text(v, "read")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(readKinds, kind) {
		return nil, fail(`read %q: a read is %s`, `read %q: 読むものは %s のどれかです`, kind,
			diag.T(quoteAll(readKinds, ", "), quoteAll(readKinds, "、")))
	}
	rd := &ReadStep{Kind: kind, AfterStep: -1}
	for _, k := range v.keys {
		if k != "read" && k != "name" && k != "expect" && !slices.Contains(readTakes[kind], k) {
			return nil, fail(`read %q takes no %q; it takes %s`, `read %q には %q を書けません。書けるのは %s です`, kind, k,
				diag.T(quoteAll(readTakes[kind], ", "), quoteAll(readTakes[kind], "、")))
		}
	}
	if rd.Name, _, err = text(v, "name"); err != nil {
		return nil, err
	}
	if rd.Name != "" {
		for i, st := range earlier {
			if st.Read != nil && st.Read.Name == rd.Name {
				return nil, fail(`the name %q is already that of step %d`, `名前 %q はステップ %d がもう使っています`, rd.Name, i+1)
			}
		}
	}
	if err := rd.readWhat(b, v); err != nil {
		return nil, err
	}
	if kind == ReadBalance {
		at, ok, err := text(v, "at")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fail(`read "balance": "at" is missing: the time, from the start of the scenario, such as "30 minutes"`,
				`read "balance": "at" がありません。シナリオの始まりからの時間("30 minutes" など)を書きます`)
		}
		if rd.At, err = parseTime(at); err != nil {
			return nil, within("at", "at", err)
		}
		rd.AtText = at
	}
	if kind == ReadStatement {
		if err := rd.readFilter(b, v, earlier); err != nil {
			return nil, err
		}
	}
	if ev := v.field("expect"); ev != nil {
		if rd.Expect, err = readReadExpect(kind, ev); err != nil {
			return nil, within("expect", "expect", err)
		}
	}
	return rd, nil
}

// readWhat reads what a read step reads: its account, transfer kind and
// key, as its kind asks for them.
func (rd *ReadStep) readWhat(b *book.Book, v *value) *Error {
	acct, hasAcct, err := text(v, "account")
	if err != nil {
		return err
	}
	if hasAcct {
		a, aerr := interp.ParseAccount(b, acct)
		if aerr != nil {
			f := aerr.(*interp.Failure)
			return fail("account: %s", "account: %s", diag.T(f.Msg, f.Ja))
		}
		rd.Account = &a
	} else if rd.Kind != ReadHolds && rd.Kind != ReadEntries {
		return fail(`read %q: "account" is missing`, `read %q: "account" がありません`, rd.Kind)
	}
	if tn, ok, err := text(v, "transfer"); err != nil {
		return err
	} else if ok {
		if rd.Transfer = b.Transfer(tn); rd.Transfer == nil {
			return fail("transfer: the book has no transfer %q", "transfer: 帳簿に %q という振替はありません", tn)
		}
	} else if rd.Kind == ReadEntries {
		return fail(`read "entries": "transfer" is missing`, `read "entries": "transfer" がありません`)
	}
	if rd.Kind == ReadEntries {
		if rd.Key, err = readKey(rd.Transfer, v.field("key")); err != nil {
			return err
		}
	}
	return nil
}

// parseTime reads a time of the scenario's clock, written as the time
// passed since its start.
func parseTime(s string) (int64, *Error) {
	n, err := parseDuration(s)
	if err != nil {
		return 0, fail("%q: write the time since the start of the scenario as a whole number and a unit, such as \"30 minutes\"",
			"%q: シナリオの始まりからの時間を、整数と単位で書きます(\"30 minutes\" など)", s)
	}
	return n, nil
}

func readKey(t *book.Transfer, v *value) ([]string, *Error) {
	if v == nil {
		return nil, fail(`read "entries": "key" is missing; it holds %s`, `read "entries": "key" がありません。%s を書きます`,
			diag.T(paramNames(t.Key, ", "), paramNames(t.Key, "、")))
	}
	if v.kind != jsonObject {
		return nil, fail(`"key" is an object, not %s`, `"key" にはオブジェクトを書きます(ここは%sです)`, v.kind.what())
	}
	for _, k := range v.keys {
		if !slices.ContainsFunc(t.Key, func(p *book.Param) bool { return p.Name == k }) {
			return nil, fail(`key: %s is not part of the key of %s (%s)`, `key: %s は %s のキー(%s)にありません`, k, t.Name,
				diag.T(paramNames(t.Key, ", "), paramNames(t.Key, "、")))
		}
	}
	var out []string
	for _, p := range t.Key {
		f := v.field(p.Name)
		if f == nil {
			return nil, fail(`key: %s is missing`, `key: %s がありません`, p.Name)
		}
		if f.kind != jsonString {
			return nil, fail("key: %s takes a string, not %s", "key: %s には文字列を書きます(ここは%sです)", p.Name, f.kind.what())
		}
		out = append(out, f.str)
	}
	return out, nil
}

func (rd *ReadStep) readFilter(b *book.Book, v *value, earlier []Step) *Error {
	if tv := v.field("transfers"); tv != nil {
		if tv.kind != jsonArray || len(tv.elems) == 0 {
			return fail(`"transfers" is an array of transfer names, at least one`, `"transfers" には振替の名前の配列(一つ以上)を書きます`)
		}
		for _, e := range tv.elems {
			if e.kind != jsonString {
				return fail(`"transfers" holds names, not %s`, `"transfers" には名前を書きます(ここは%sです)`, e.kind.what())
			}
			t := b.Transfer(e.str)
			if t == nil {
				return fail("transfers: the book has no transfer %q", "transfers: 帳簿に %q という振替はありません", e.str)
			}
			if slices.Contains(rd.Transfers, t) {
				return fail("transfers: %q is named twice", "transfers: %q が二度あります", e.str)
			}
			rd.Transfers = append(rd.Transfers, t)
		}
	}
	var err *Error
	if f, ok, terr := text(v, "from"); terr != nil {
		return terr
	} else if ok {
		if rd.From, err = parseTime(f); err != nil {
			return within("from", "from", err)
		}
		rd.FromText = f
	}
	if f, ok, terr := text(v, "to"); terr != nil {
		return terr
	} else if ok {
		to, err := parseTime(f)
		if err != nil {
			return within("to", "to", err)
		}
		rd.To, rd.ToText = &to, f
	}
	if o, ok, terr := text(v, "order"); terr != nil {
		return terr
	} else if ok {
		switch o {
		case "oldest":
		case "newest":
			rd.Order = interp.Newest
		default:
			return fail(`order %q: write "oldest" or "newest"`, `order %q: "oldest" か "newest" を書きます`, o)
		}
	}
	if l := v.field("limit"); l != nil {
		n, convErr := strconv.Atoi(l.num)
		if l.kind != jsonNumber || convErr != nil || n < 1 {
			return fail(`"limit" is a whole number from 1, not %s`, `"limit" には 1 以上の整数を書きます(ここは %s です)`, shown(l))
		}
		rd.Limit = n
	}
	if a, ok, terr := text(v, "after"); terr != nil {
		return terr
	} else if ok {
		i := slices.IndexFunc(earlier, func(st Step) bool { return st.Read != nil && st.Read.Name == a })
		if i < 0 {
			return fail(`after %q: no step before this one has that name; "after" names an earlier statement to continue from`,
				`after %q: この名前のステップが前にありません。"after" には続きを読む前の明細のステップの名前を書きます`, a)
		}
		prev := earlier[i].Read
		if prev.Kind != ReadStatement || prev.Account.String() != rd.Account.String() {
			return fail(`after %q: step %d is not a statement of %s; a statement continues one of the same account`,
				`after %q: ステップ %d は %s の明細ではありません。続きを読めるのは同じ勘定の明細です`, a, i+1, rd.Account.String())
		}
		rd.AfterStep = i
	}
	return nil
}

func readReadExpect(kind string, v *value) (*ReadExpect, *Error) {
	want := map[string][]string{
		ReadStatement: {"entries", "more"}, ReadEntries: {"entries"}, ReadHolds: {"holds"}, ReadBalance: {"balance"},
	}[kind]
	if err := fields(v, diag.T("the expectation of a read", "読むステップの expect"), want...); err != nil {
		return nil, err
	}
	ex := &ReadExpect{}
	if kind == ReadBalance {
		s, ok, err := text(v, "balance")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fail(`"balance" is missing`, `"balance" がありません`)
		}
		ex.Lines = []string{s}
		return ex, nil
	}
	lv := v.field(want[0])
	if lv == nil {
		return nil, fail(`%q is missing`, `%q がありません`, want[0])
	}
	if lv.kind != jsonArray {
		return nil, fail(`%q is an array of lines, not %s`, `%q には行の配列を書きます(ここは%sです)`, want[0], lv.kind.what())
	}
	ex.Lines = []string{}
	for _, e := range lv.elems {
		if e.kind != jsonString {
			return nil, fail(`%q holds lines, not %s`, `%q には行を書きます(ここは%sです)`, want[0], e.kind.what())
		}
		ex.Lines = append(ex.Lines, e.str)
	}
	if m := v.field("more"); m != nil {
		if m.kind != jsonBool {
			return nil, fail(`"more" is true or false, not %s`, `"more" には true か false を書きます(ここは%sです)`, m.kind.what())
		}
		more := m.str == "true"
		ex.More = &more
	}
	return ex, nil
}

// run makes the read on s. reads holds the results of earlier read
// steps, by step index.
func (rd *ReadStep) run(s *interp.State, reads map[int]*ReadResult) *ReadResult {
	out := &ReadResult{}
	var err error
	switch rd.Kind {
	case ReadStatement:
		f := interp.Filter{From: rd.From, To: rd.To, Transfers: rd.Transfers, Order: rd.Order, Limit: rd.Limit}
		if rd.AfterStep >= 0 {
			prev := reads[rd.AfterStep]
			if prev.Failed != "" {
				return &ReadResult{Failed: fmt.Sprintf("the statement of step %d it continues failed", rd.AfterStep+1),
					FailedJa: fmt.Sprintf("続きを読むステップ %d の明細が失敗しています", rd.AfterStep+1)}
			}
			f.After = prev.Next
		}
		var p interp.Page
		p, err = s.Statement(*rd.Account, f)
		out.Entries, out.More, out.Next = p.Entries, p.More, p.Next
	case ReadEntries:
		out.Entries, err = s.CallEntries(rd.Transfer, rd.Key)
	case ReadHolds:
		out.Holds = s.OpenHolds(rd.Account, rd.Transfer)
	case ReadBalance:
		out.Balance, err = s.BalanceAt(*rd.Account, rd.At)
	}
	if err != nil {
		out = &ReadResult{Failed: err.Error(), FailedJa: err.Error()}
		if f, ok := err.(*interp.Failure); ok {
			out.FailedJa = f.Ja
		}
	}
	return out
}

// sinceJa writes a time of the scenario's clock in Japanese, "30
// minutes" as 「開始 30 分後」; what it cannot read stays as written.
func sinceJa(text string) string {
	if f := strings.Fields(text); len(f) == 2 {
		if unit, ok := syntax.TimeWordJa(f[1]); ok {
			return "開始 " + f[0] + " " + unit + "後"
		}
	}
	return text
}
