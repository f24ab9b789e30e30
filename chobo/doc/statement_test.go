package doc

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

const shopBook = `book shop v1
unit yen
account wallet(card: string) : yen
  at least 0 refused as short
account bank : yen outside
account shop : yen
  at least 0 refused as negative
account unused : yen outside
transfer top_up(id: string, card: string, amount: yen)
  key id
  move amount from bank to wallet(card)
transfer pay(id: string, card: string, amount: yen)
  key id
  pending expires after 15 minutes
  move amount from wallet(card) to shop
`

// statementsOfText builds the statements of the book above on the
// scenarios given as a scenario file, as Build does.
func statementsOfText(t *testing.T, scenarios string, lang diag.Lang) *Statements {
	t.Helper()
	res := check.Check("shop.book", []byte(shopBook))
	if res.Book == nil {
		t.Fatalf("the book does not check: %v", res.Diags)
	}
	scs, err := scenario.Read(res.Book, []byte(scenarios))
	if err != nil {
		t.Fatal(err)
	}
	return statementsOf(res.Book, scs, lang)
}

// TestStatementsPickTheScenario: a scenario with a together is passed
// over, though it would win; of the others, the one that reaches the
// most account kinds wins, then the one with the most kinds of entries,
// then the shorter, though it comes later.
func TestStatementsPickTheScenario(t *testing.T) {
	const scs = `[
 {"name": "racing", "steps": [
   {"together": [[{"op": "top_up.do", "args": {"id": "t-0", "card": "c-9", "amount": 1}},
                  {"op": "pay.hold", "args": {"id": "p-0", "card": "c-9", "amount": 1}},
                  {"op": "pay.post", "args": {"id": "p-0"}}],
                 [{"op": "top_up.do", "args": {"id": "t-9", "card": "c-8", "amount": 1}}]]}]},
 {"name": "top up only", "steps": [
   {"op": "top_up.do", "args": {"id": "t-1", "card": "c-1", "amount": 5}}]},
 {"name": "pay, long", "steps": [
   {"op": "top_up.do", "args": {"id": "t-1", "card": "c-1", "amount": 5}},
   {"op": "top_up.do", "args": {"id": "t-2", "card": "c-1", "amount": 5}},
   {"op": "pay.hold", "args": {"id": "p-1", "card": "c-1", "amount": 3}}]},
 {"name": "pay", "steps": [
   {"op": "top_up.do", "args": {"id": "t-1", "card": "c-1", "amount": 5}},
   {"op": "pay.hold", "args": {"id": "p-1", "card": "c-1", "amount": 3}}]},
 {"name": "pay and post, longer", "steps": [
   {"op": "top_up.do", "args": {"id": "t-1", "card": "c-2", "amount": 5000}},
   {"op": "top_up.do", "args": {"id": "t-2", "card": "c-1", "amount": 5}},
   {"op": "pay.hold", "args": {"id": "p-1", "card": "c-2", "amount": 3000}},
   {"pass": "5 minutes"},
   {"op": "pay.post", "args": {"id": "p-1"}},
   {"op": "top_up.do", "args": {"id": "t-3", "card": "c-2", "amount": 1}},
   {"op": "top_up.do", "args": {"id": "t-4", "card": "c-2", "amount": 1}},
   {"op": "top_up.do", "args": {"id": "t-5", "card": "c-2", "amount": 1}},
   {"op": "pay.hold", "args": {"id": "p-2", "card": "c-2", "amount": 2}},
   {"op": "top_up.do", "args": {"id": "t-6", "card": "c-1", "amount": 1}}]},
 {"name": "pay and post", "steps": [
   {"op": "top_up.do", "args": {"id": "t-1", "card": "c-2", "amount": 5000}},
   {"op": "top_up.do", "args": {"id": "t-2", "card": "c-1", "amount": 5}},
   {"op": "pay.hold", "args": {"id": "p-1", "card": "c-2", "amount": 3000}},
   {"pass": "5 minutes"},
   {"op": "pay.post", "args": {"id": "p-1"}},
   {"op": "top_up.do", "args": {"id": "t-3", "card": "c-2", "amount": 1}},
   {"op": "top_up.do", "args": {"id": "t-4", "card": "c-2", "amount": 1}},
   {"op": "top_up.do", "args": {"id": "t-5", "card": "c-2", "amount": 1}},
   {"op": "pay.hold", "args": {"id": "p-2", "card": "c-2", "amount": 2}}]}
]`
	s := statementsOfText(t, scs, diag.English)
	if s == nil {
		t.Fatal("no statements")
	}
	if s.Number != 6 || s.Title != "pay and post" || s.Steps != 9 {
		t.Fatalf("the statements are of scenario %d %q (%d steps), want 6 \"pay and post\" (9 steps)", s.Number, s.Title, s.Steps)
	}
	if got := strings.Join(s.Untouched, ","); got != "unused" {
		t.Errorf("untouched kinds %q, want unused", got)
	}
	var accounts []string
	for _, a := range s.Accounts {
		accounts = append(accounts, a.Account)
	}
	// The first wallet the history reaches, not the first in order.
	if got := strings.Join(accounts, ","); got != "wallet(c-2),bank,shop" {
		t.Errorf("accounts %q", got)
	}
	w := s.Accounts[0]
	if w.MoreText != "3 more entries follow." {
		t.Errorf("wallet(c-2): %q", w.MoreText)
	}
	if b := s.Accounts[1]; b.MoreText != "1 more entry follows." {
		t.Errorf("bank: %d more: %q", b.More, b.MoreText)
	}
	if len(w.Entries) != statementLimit || w.More != 7-statementLimit {
		t.Errorf("wallet(c-2): %d entries and %d more, want %d and %d", len(w.Entries), w.More, statementLimit, 7-statementLimit)
	}
	want := []EntryRow{
		{"at the start", "top_up.do(id: t-1)", "1 in", "posted +5,000", "5,000"},
		{"at the start", "pay.hold(id: p-1)", "1 out", "held out +3,000", "5,000 (held out 3,000)"},
		{"after 5 minutes", "pay.post(id: p-1)", "1 out", "posted -3,000, held out -3,000", "2,000"},
		{"after 5 minutes", "top_up.do(id: t-3)", "1 in", "posted +1", "2,001"},
	}
	for i, e := range w.Entries {
		if e != want[i] {
			t.Errorf("wallet(c-2) entry %d: %+v, want %+v", i+1, e, want[i])
		}
	}
	if len(s.Holds) != 1 || s.Holds[0] != (OpenHoldRow{"pay(p-2)", "after 5 minutes", "after 20 minutes", "2 from wallet(c-2) to shop"}) {
		t.Errorf("open holds %+v", s.Holds)
	}
}

// TestStatementsInJapanese: the labels of a Japanese page are Japanese,
// an expiry is an entry of its own, and no hold is left open.
func TestStatementsInJapanese(t *testing.T) {
	const scs = `[{"name": "expires", "steps": [
   {"op": "top_up.do", "args": {"id": "t-1", "card": "c-1", "amount": 5}},
   {"op": "pay.hold", "args": {"id": "p-1", "card": "c-1", "amount": 3}},
   {"pass": "1 hour"}]}]`
	s := statementsOfText(t, scs, diag.Japanese)
	if s == nil || len(s.Accounts) == 0 {
		t.Fatal("no statements")
	}
	got := s.Accounts[0].Entries
	want := []EntryRow{
		{"開始時", "top_up.do(id: t-1)", "1 入", "確定 +5", "5"},
		{"開始時", "pay.hold(id: p-1)", "1 出", "出ていく仮押さえ +3", "5(出ていく仮押さえ 3)"},
		{"1 時間後", "pay(id: p-1) の期限切れ", "1 出", "出ていく仮押さえ -3", "5"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}
	if len(s.Holds) != 0 {
		t.Errorf("open holds after the expiry: %+v", s.Holds)
	}
	// In English the expiry reads as the operation the history names.
	en := statementsOfText(t, scs, diag.English).Accounts[0].Entries
	if len(en) != 3 || en[2].Call != "pay.expire(id: p-1)" || en[2].Time != "after 1 hour" {
		t.Errorf("the English expiry: %+v", en)
	}
}

// TestNoStatementsWithoutEntries: a book whose scenarios write nothing
// (every one races) has no statements, and its page no section.
func TestNoStatementsWithoutEntries(t *testing.T) {
	const scs = `[{"name": "racing", "steps": [
   {"together": [[{"op": "top_up.do", "args": {"id": "t-0", "card": "c-9", "amount": 1}}],
                 [{"op": "top_up.do", "args": {"id": "t-1", "card": "c-9", "amount": 1}}]]}]}]`
	if s := statementsOfText(t, scs, diag.English); s != nil {
		t.Errorf("statements of scenario %d", s.Number)
	}
}

// TestPagesWriteTheStatements: both formats carry the section, with the
// scenario it is of, and the HTML links to its last step.
func TestPagesWriteTheStatements(t *testing.T) {
	for _, lang := range []diag.Lang{diag.English, diag.Japanese} {
		p := pageOf(t, shopBook, lang)
		if p.Statements == nil {
			t.Fatalf("%v: no statements on the page", lang)
		}
		s := p.Statements
		html, err := HTML(p)
		if err != nil {
			t.Fatal(err)
		}
		link := `href="#scenario=` + strconv.Itoa(s.Number) + `&amp;step=` + strconv.Itoa(s.Steps) + `"`
		if !strings.Contains(string(html), `<section aria-labelledby="statements">`) || !strings.Contains(string(html), link) {
			t.Errorf("%v: the HTML page has no statements section linking %s", lang, link)
		}
		text, err := Markdown(p)
		if err != nil {
			t.Fatal(err)
		}
		head := diag.T("## Statements", "## 明細").In(lang)
		if !strings.Contains(string(text), head+"\n") || !strings.Contains(string(text), "### "+md(s.Accounts[0].Account)+"\n") {
			t.Errorf("%v: the Markdown page has no statements section", lang)
		}
	}
}

// TestReasonsSaidOnce: the table of refusals says a reason once for all
// the operations it may refuse with the same meaning, and leaves out no
// refusal of any operation.
func TestReasonsSaidOnce(t *testing.T) {
	p := pageOf(t, shopBook, diag.English)
	pay := p.Transfers[1]
	seen := map[[2]string]bool{}
	merged := false
	for _, r := range pay.Reasons {
		k := [2]string{r.Reason, r.Meaning}
		if seen[k] {
			t.Errorf("%s is said twice", r.Reason)
		}
		seen[k] = true
		merged = merged || len(r.Ops) > 1
	}
	if !merged {
		t.Errorf("no reason of pay is given by two operations: %+v", pay.Reasons)
	}
	for _, o := range pay.Ops {
		for _, rf := range o.Refusals {
			found := 0
			for _, r := range pay.Reasons {
				if r.Reason == rf.Reason && r.Meaning == rf.Meaning && slices.Contains(r.Ops, o.Op) {
					found++
				}
			}
			if found != 1 {
				t.Errorf("%s: %s is in %d rows", o.Op, rf.Reason, found)
			}
		}
	}
}

// TestStatementCellsKeepValuesWhole: in a cell of a statement, a value
// with a hyphen does not break after it, a long name breaks between its
// words, and the text is one element, which a narrow card keeps in one
// column.
func TestStatementCellsKeepValuesWhole(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{string(callHTML("pay.do(id: p-1)")), `<span>pay.do(id: <span class="nw">p-1</span>)</span>`},
		{string(callHTML("pay.do(id: p1)")), `pay.do(id: p1)`},
		{string(callHTML("a_long_transfer_name.do(key_name: k-1)")), `<span>a_<wbr>long_<wbr>transfer_<wbr>name.do<wbr>(key_<wbr>name: <span class="nw">k-1</span>)</span>`},
		{string(movesHTML("3 from shelf_area(KANTO-NORTH) to <shop>")), `<span>3 from shelf_<wbr>area(<span class="nw">KANTO-NORTH</span>) to &lt;shop&gt;</span>`},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}
