package scenario_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

const receive = `{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 5}}`

// TestReadStepsRefused covers what a read step may not say, each an
// *Error in both languages before any call.
func TestReadStepsRefused(t *testing.T) {
	b := load(t)
	steps := func(s ...string) string { return `{"name": "x", "steps": [` + strings.Join(s, ", ") + `]}` }
	for _, tt := range []struct{ name, js, en, ja string }{
		{"unknown read", steps(`{"read": "ledger"}`), `read "ledger": a read is "statement", "entries", "holds", "balance"`, `読むものは "statement"、"entries"、"holds"、"balance" のどれかです`},
		{"a field of another read", steps(`{"read": "balance", "account": "stock(s-1)", "at": "0 seconds", "limit": 2}`), `read "balance" takes no "limit"; it takes "account", "at"`, `read "balance" には "limit" を書けません`},
		{"a call's field", steps(`{"read": "holds", "op": "receive.do"}`), `unknown field "op"; a read step has`, `"op" という項目はありません`},
		{"no account", steps(`{"read": "statement"}`), `read "statement": "account" is missing`, `"account" がありません`},
		{"unknown account", steps(`{"read": "statement", "account": "shelf(s-1)"}`), `account: the book has no account "shelf"`, `帳簿に "shelf" という勘定はありません`},
		{"missing argument", steps(`{"read": "statement", "account": "stock"}`), `"stock": stock takes 1 values (sku), written stock(sku)`, `stock の値は 1 つ(sku)`},
		{"entries without a key", steps(`{"read": "entries", "transfer": "reserve"}`), `"key" is missing; it holds order, sku`, `order、sku を書きます`},
		{"entries with half a key", steps(`{"read": "entries", "transfer": "reserve", "key": {"order": "o-1"}}`), `key: sku is missing`, `key: sku がありません`},
		{"entries of no transfer", steps(`{"read": "entries", "transfer": "ship", "key": {}}`), `transfer: the book has no transfer "ship"`, `帳簿に "ship" という振替はありません`},
		{"balance without a time", steps(`{"read": "balance", "account": "world"}`), `"at" is missing`, `"at" がありません`},
		{"a bad time", steps(`{"read": "balance", "account": "world", "at": "soon"}`), `at: "soon": write the time since the start of the scenario`, `シナリオの始まりからの時間を`},
		{"a bad order", steps(`{"read": "statement", "account": "world", "order": "random"}`), `order "random": write "oldest" or "newest"`, `"oldest" か "newest"`},
		{"a limit of 0", steps(`{"read": "statement", "account": "world", "limit": 0}`), `"limit" is a whole number from 1, not 0`, `"limit" には 1 以上の整数`},
		{"after nothing", steps(`{"read": "statement", "account": "world", "after": "p1"}`), `after "p1": no step before this one has that name`, `この名前のステップが前にありません`},
		{"after a later step", steps(`{"read": "statement", "account": "world", "after": "p1"}`, `{"read": "statement", "name": "p1", "account": "world"}`), `after "p1": no step before`, `after "p1"`},
		{"after another account", steps(`{"read": "statement", "name": "p1", "account": "world"}`, `{"read": "statement", "account": "stock(s-1)", "after": "p1"}`), `after "p1": step 1 is not a statement of stock(s-1)`, `ステップ 1 は stock(s-1) の明細ではありません`},
		{"after holds", steps(`{"read": "holds", "name": "p1"}`, `{"read": "statement", "account": "world", "after": "p1"}`), `step 1 is not a statement of world`, `world の明細ではありません`},
		{"a name twice", steps(`{"read": "holds", "name": "p1"}`, `{"read": "holds", "name": "p1"}`), `the name "p1" is already that of step 1`, `名前 "p1" はステップ 1 がもう使っています`},
		{"unknown transfer in the filter", steps(`{"read": "statement", "account": "world", "transfers": ["ship"]}`), `transfers: the book has no transfer "ship"`, `"ship" という振替はありません`},
		{"a transfer named twice", steps(`{"read": "statement", "account": "world", "transfers": ["receive", "receive"]}`), `"receive" is named twice`, `"receive" が二度あります`},
		{"expect of another read", steps(`{"read": "balance", "account": "world", "at": "0 seconds", "expect": {"entries": []}}`), `expect: unknown field "entries"`, `"entries" という項目はありません`},
		{"more not a bool", steps(`{"read": "statement", "account": "world", "expect": {"entries": [], "more": "no"}}`), `"more" is true or false, not a string`, `"more" には true か false`},
		{"inside together", steps(`{"together": [[{"read": "holds"}]]}`), `together, caller 1, op 1: a read cannot stand inside together`, `together の中には読むステップを置けません`},
		{"after together", steps(`{"together": [[`+receive+`]]}`, `{"read": "holds"}`), `step 2: a read step cannot come after a together step (step 1)`, `together のステップ(ステップ 1)の後には読むステップを置けません`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenario.Read(b, []byte(tt.js))
			var se *scenario.Error
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *scenario.Error", err)
			}
			if msg := se.Text(); !strings.Contains(msg.En, tt.en) || !strings.Contains(msg.Ja, tt.ja) {
				t.Errorf("got\n  %s\n  %s\nwant\n  %s\n  %s", msg.En, msg.Ja, tt.en, tt.ja)
			}
		})
	}
	// A read before a together is read, and runs.
	scs := read(t, b, steps(receive, `{"read": "holds"}`, `{"together": [[`+hold("o-1", 1)+`], [`+hold("o-2", 1)+`]]}`))
	if outs := scenario.Run(b, scs[0]); len(outs) != 1 || outs[0].Reads[1] == nil {
		t.Errorf("outcomes: %+v", outs)
	}
}

// TestReadStepsRun runs reads and checks their expectations: those met
// pass, and each unmet one is a failure saying what differs.
func TestReadStepsRun(t *testing.T) {
	b := load(t)
	const entry1 = "stock(s-1) at 0s: receive.do(delivery: d-1, sku: s-1, qty: 5) move 1 in; posted +5 -> posted 5, held out 0, held in 0"
	const entry2 = "stock(s-1) at 0s: reserve.hold(order: o-1, sku: s-1, qty: 2) move 1 out; held out +2 -> posted 5, held out 2, held in 0"
	const entry3 = "stock(s-1) at 1800s: reserve.expire(order: o-1, sku: s-1) move 1 out; held out -2 -> posted 5, held out 0, held in 0"
	for _, tt := range []struct {
		name, reads string
		failures    []string
	}{
		{"met", `{"read": "statement", "name": "p1", "account": "stock(s-1)", "limit": 2, "expect": {"entries": ["` + entry1 + `", "` + entry2 + `"], "more": true}},
		  {"read": "statement", "account": "stock(s-1)", "after": "p1", "expect": {"entries": ["` + entry3 + `"], "more": false}},
		  {"read": "holds", "expect": {"holds": []}},
		  {"read": "balance", "account": "stock(s-1)", "at": "29 minutes", "expect": {"balance": "posted 5, held out 2, held in 0"}},
		  {"read": "entries", "transfer": "reserve", "key": {"order": "o-1", "sku": "s-1"}, "expect": {"entries": [
		    "` + entry2 + `", "world at 0s: reserve.hold(order: o-1, sku: s-1, qty: 2) move 1 in; held in +2 -> posted -5, held out 0, held in 2",
		    "` + entry3 + `", "world at 1800s: reserve.expire(order: o-1, sku: s-1) move 1 in; held in -2 -> posted -5, held out 0, held in 0"]}}`, nil},
		{"a line differs", `{"read": "statement", "account": "stock(s-1)", "expect": {"entries": ["` + entry1 + `", "` + entry3 + `", "` + entry3 + `"]}}`,
			[]string{`step 4: line 2: expected "` + entry3 + `", got "` + entry2 + `"`}},
		{"a line too many", `{"read": "statement", "account": "stock(s-1)", "limit": 1, "expect": {"entries": ["` + entry1 + `", "` + entry2 + `"]}}`,
			[]string{"step 4: expected 2 lines, got 1"}},
		{"more differs", `{"read": "statement", "account": "stock(s-1)", "limit": 3, "expect": {"entries": ["` + entry1 + `", "` + entry2 + `", "` + entry3 + `"], "more": true}}`,
			[]string{"step 4: expected more true, got false"}},
		{"a balance differs", `{"read": "balance", "account": "stock(s-1)", "at": "30 minutes", "expect": {"balance": "posted 5, held out 2, held in 0"}}`,
			[]string{`step 4: line 1: expected "posted 5, held out 2, held in 0", got "posted 5, held out 0, held in 0"`}},
		{"a read that fails", `{"read": "balance", "account": "stock(s-1)", "at": "31 minutes", "expect": {"balance": "posted 5, held out 0, held in 0"}}`,
			[]string{"step 4: the read failed: the time 1860 s is outside the ledger's clock, 0 to 1800 s"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			js := `{"name": "x", "steps": [` + receive + `, ` + hold("o-1", 2) + `, {"pass": "30 minutes"}, ` + tt.reads + `]}`
			sc := read(t, b, js)[0]
			outs, _, err := scenario.Explore(b, sc, scenario.Budget)
			if err != nil {
				t.Fatal(err)
			}
			if got := scenario.Failures(sc, outs); !slices.Equal(got, tt.failures) {
				t.Errorf("failures:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.failures, "\n  "))
			}
			// The text names every failure too, in both languages.
			for _, lang := range []diag.Lang{diag.English, diag.Japanese} {
				var sb strings.Builder
				scenario.WriteText(&sb, "shop.book", sc, outs, lang)
				if n := strings.Count(sb.String(), diag.T("FAILED:", "不一致:").In(lang)); n != len(tt.failures) {
					t.Errorf("%v: %d failures in the text:\n%s", lang, n, sb.String())
				}
			}
		})
	}
}

// TestReadStepsTrace keeps a ledger per step for a read as for any
// step, so that a page stepping through the scenario stays in step.
func TestReadStepsTrace(t *testing.T) {
	b := load(t)
	sc := read(t, b, `{"name": "x", "steps": [`+receive+`, {"read": "holds"}, `+hold("o-1", 1)+`]}`)[0]
	outs, _, err := scenario.Trace(b, sc, scenario.Budget)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || len(outs[0].Trace) != 3 || len(outs[0].Results) != 2 {
		t.Fatalf("%+v", outs)
	}
}

// TestReadStepsEncode writes read steps back in the format they were
// read in: what Encode writes reads as the same scenario.
func TestReadStepsEncode(t *testing.T) {
	b := load(t)
	scs := read(t, b, `{"name": "x", "steps": [`+receive+`,
		{"read": "statement", "name": "p 1", "account": "stock(s-1)", "transfers": ["receive", "reserve"], "from": "0 seconds", "to": "2 hours", "order": "newest", "limit": 2, "expect": {"entries": ["a"], "more": true}},
		{"read": "statement", "account": "stock(s-1)", "after": "p 1"},
		{"read": "entries", "transfer": "reserve", "key": {"sku": "s-1", "order": "o-1"}, "expect": {"entries": []}},
		{"read": "holds", "account": "world", "transfer": "reserve", "expect": {"holds": ["b"]}},
		{"read": "balance", "account": "world", "at": "1 day", "expect": {"balance": "c"}}]}`)
	once := scenario.Encode(scs)
	again := scenario.Encode(read(t, b, string(once)))
	if string(once) != string(again) {
		t.Errorf("encoding changes on a second round:\n%s\n%s", once, again)
	}
	for _, want := range []string{
		`{"read": "statement", "name": "p 1", "account": "stock(s-1)", "transfers": ["receive", "reserve"], "from": "0 seconds", "to": "2 hours", "order": "newest", "limit": 2, "expect": {"entries": ["a"], "more": true}}`,
		`{"read": "statement", "account": "stock(s-1)", "after": "p 1"}`,
		`{"read": "entries", "transfer": "reserve", "key": {"order": "o-1", "sku": "s-1"}, "expect": {"entries": []}}`,
		`{"read": "holds", "account": "world", "transfer": "reserve", "expect": {"holds": ["b"]}}`,
		`{"read": "balance", "account": "world", "at": "1 day", "expect": {"balance": "c"}}`,
	} {
		if !strings.Contains(string(once), want) {
			t.Errorf("missing %s in\n%s", want, once)
		}
	}
}
