package evolve_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/evolve"
	"github.com/chobo-lang/chobo/chobo/report"
	"github.com/chobo-lang/chobo/chobo/resolve"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

const base = `book shop v1
unit pcs
unit USD scale 2
account shelf(sku: string) : pcs
  at least 0 refused as out_of_stock
  at most 100 refused as shelf_full
account world : pcs outside
account till : USD
  at least 0 refused as till_short
account bank : USD outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to shelf(sku)
transfer reserve(order: string, sku: string, qty: pcs, price: USD)
  key order, sku
  pending expires after 30 minutes
  move qty from shelf(sku) to world
  move price from bank to till
transfer bank_out(slip: string, amount: USD)
  key slip
  move amount from till to bank
  move 0.50 from till to bank
`

// resolved reads a book that must resolve without errors.
func resolved(t *testing.T, name, src string) *book.Book {
	t.Helper()
	f, ds := syntax.Parse(name, []byte(src))
	if ds.Errors() > 0 {
		t.Fatalf("%s does not parse: %+v", name, ds)
	}
	b, ds := resolve.Resolve(f)
	if b == nil || ds.Errors() > 0 {
		t.Fatalf("%s does not resolve: %+v", name, ds)
	}
	return b
}

// edit applies replacements to base, each of which must match.
func edit(t *testing.T, pairs ...string) string {
	t.Helper()
	s := base
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("the base book has no %q", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

// want is one expected diagnostic: its code, its line in the new book,
// and words its English message holds.
type want struct {
	code string
	line int
	text string
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name  string
		pairs []string // replacements that turn base into the new book
		src   string   // the new book, when pairs cannot say it
		want  []want
	}{
		{name: "no change"},
		{name: "description, comments and version", pairs: []string{
			"book shop v1", "# the shop\nbook shop v7\ndescription \"what the shop keeps\"",
			"account world : pcs outside", "account world : pcs outside # the world",
			"  key delivery, sku", "  description \"goods come in\"\n  key delivery, sku",
		}},
		{name: "declarations reordered", src: `book shop v1
unit USD scale 2
unit pcs
account bank : USD outside
account till : USD
  at least 0 refused as till_short
account world : pcs outside
account shelf(sku: string) : pcs
  at most 100 refused as shelf_full
  at least 0 refused as out_of_stock
transfer bank_out(slip: string, amount: USD)
  move amount from till to bank
  move 0.50 from till to bank
  key slip
transfer reserve(order: string, sku: string, qty: pcs, price: USD)
  move qty from shelf(sku) to world
  move price from bank to till
  pending expires after 1800 seconds
  key order, sku
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to shelf(sku)
`},
		{name: "bound raised", pairs: []string{"at most 100", "at most 500"},
			want: []want{{"W110", 6, "widened its upper bound, `at most 100` → `at most 500`: calls the old bound would refuse can pass now, under keys not refused before"}}},
		{name: "bound narrowed with a new reason", pairs: []string{"at most 100 refused as shelf_full", "at most 60 refused as shelf_small"},
			want: []want{{"W110", 6, "narrowed its upper bound, `at most 100` → `at most 60`: accounts holding more than 60 pcs, holds on their way in counted, are outside it: calls that add to them are refused with `shelf_small`, calls that take from them pass, and once back inside, an account is held by the bound like any other; its reason is renamed too, `shelf_full` → `shelf_small`: calls refused by it from now on answer `shelf_small`; calls answered before keep the old reason `shelf_full`"}}},
		{name: "lower bound raised above zero", pairs: []string{"at least 0 refused as till_short", "at least 5 refused as till_short"},
			want: []want{{"W110", 9, "narrowed its lower bound, `at least 0.00` → `at least 5.00`: accounts holding less than 5.00 USD, holds on their way out counted, are outside it: calls that take from them are refused with `till_short`, calls that add to them pass"}}},
		{name: "bound lowered below zero", pairs: []string{"at least 0 refused as out_of_stock", "at least -5 refused as out_of_stock"},
			want: []want{{"E050", 5, "changed its lower bound across 0, `at least 0` → `at least -5`: on TigerBeetle an account whose lower bound is 0 or more carries the flag debits_must_not_exceed_credits"}}},
		{name: "lower bound of zero removed", pairs: []string{"  at least 0 refused as out_of_stock\n", ""},
			want: []want{{"E050", 4, "changed its lower bound across 0, `at least 0` → none"}}},
		{name: "bound removed", pairs: []string{"  at most 100 refused as shelf_full\n", ""},
			want: []want{{"W110", 4, "removed its upper bound, `at most 100` → none: calls it would refuse pass now, under keys not refused before"}}},
		{name: "bound added", pairs: []string{"  at least 0 refused as till_short\n", "  at least 0 refused as till_short\n  at most 1000 refused as till_full\n"},
			want: []want{{"W110", 10, "added an upper bound, none → `at most 1000.00`: accounts holding more than 1000.00 USD"}}},
		{name: "bounds on both sides", pairs: []string{"at least 0 refused as out_of_stock", "at least 1 refused as out_of_stock", "at most 100", "at most 90"},
			want: []want{{"W110", 5, "narrowed its lower bound, `at least 0` → `at least 1`"}, {"W110", 6, "narrowed its upper bound, `at most 100` → `at most 90`"}}},
		{name: "reason renamed", pairs: []string{"refused as out_of_stock", "refused as sold_out"},
			want: []want{{"W110", 5, "renamed the reason of its lower bound, `out_of_stock` → `sold_out`: calls refused by it from now on answer `sold_out`; calls answered before keep the old reason `out_of_stock`"}}},
		{name: "bound and parameters", pairs: []string{"account shelf(sku: string)", "account shelf(item: string)", "at most 100", "at most 500",
			"move qty from world to shelf(sku)", "move qty from world to shelf(delivery)", "move qty from shelf(sku) to world", "move qty from shelf(order) to world"},
			want: []want{{"E050", 4, "changed its parameters"}, {"E051", 13, "changed move 1"}, {"E051", 17, "changed move 1"}}},
		{name: "unit renamed", pairs: []string{"unit USD scale 2", "unit EUR scale 2", "account till : USD", "account till : EUR",
			"account bank : USD", "account bank : EUR", "price: USD", "price: EUR", "amount: USD", "amount: EUR"},
			want: []want{
				{"E050", 8, "the account kind `till` changed its unit, `USD` → `EUR`"},
				{"E050", 10, "the account kind `bank` changed its unit, `USD` → `EUR`"},
				{"E051", 14, "`reserve(order: string, sku: string, qty: pcs, price: USD)` → `reserve(order: string, sku: string, qty: pcs, price: EUR)`"},
				{"E051", 19, "changed its parameters"},
			}},
		{name: "scale of a unit", pairs: []string{"unit USD scale 2", "unit USD scale 3"},
			want: []want{{"E050", 3, "the unit `USD` of the account kind `till` changed its scale, 2 → 3"},
				{"E050", 3, "the unit `USD` of the account kind `bank` changed its scale, 2 → 3"}}},
		{name: "outside becomes inside", pairs: []string{"account world : pcs outside", "account world : pcs\n  at most 0 refused as world_full"},
			want: []want{{"E050", 7, "is no longer `outside`"}}},
		{name: "account parameters", pairs: []string{"account shelf(sku: string)", "account shelf(sku: string, site: string)",
			"transfer receive(delivery: string, sku: string, qty: pcs)", "transfer receive(delivery: string, sku: string, qty: pcs, site: string)",
			"move qty from world to shelf(sku)", "move qty from world to shelf(sku, site)",
			"transfer reserve(order: string, sku: string, qty: pcs, price: USD)", "transfer reserve(order: string, sku: string, qty: pcs, price: USD, site: string)",
			"move qty from shelf(sku) to world", "move qty from shelf(sku, site) to world"},
			want: []want{
				{"E050", 4, "changed its parameters, `shelf(sku)` → `shelf(sku, site)`"},
				{"E051", 11, "`receive(delivery: string, sku: string, qty: pcs)` → `receive(delivery: string, sku: string, qty: pcs, site: string)`"},
				{"E051", 13, "changed move 1, `move qty from world to shelf(sku)` → `move qty from world to shelf(sku, site)`"},
				{"E051", 14, "changed its parameters"},
				{"E051", 17, "changed move 1"},
			}},
		{name: "transfer parameter renamed", pairs: []string{"transfer bank_out(slip: string, amount: USD)", "transfer bank_out(slip: string, sum: USD)",
			"move amount from till to bank", "move sum from till to bank"},
			want: []want{{"E051", 19, "changed its parameters"}, {"E051", 21, "changed move 1"}}},
		{name: "key", pairs: []string{"  key delivery, sku", "  key sku, delivery"},
			want: []want{{"E051", 12, "changed its key, `key delivery, sku` → `key sku, delivery`"}}},
		{name: "hold lifetime", pairs: []string{"pending expires after 30 minutes", "pending expires after 1 hour"},
			want: []want{{"E051", 16, "`pending expires after 30 minutes` → `pending expires after 1 hour`"}}},
		{name: "hold never expires", pairs: []string{"pending expires after 30 minutes", "pending never expires"},
			want: []want{{"E051", 16, "→ `pending never expires`"}}},
		{name: "hold dropped", pairs: []string{"  pending expires after 30 minutes\n", ""},
			want: []want{{"E051", 14, "`pending expires after 30 minutes` → none"}}},
		{name: "hold added", pairs: []string{"  key delivery, sku\n", "  key delivery, sku\n  pending never expires\n"},
			want: []want{{"E051", 13, "none → `pending never expires`"}}},
		{name: "move changed", pairs: []string{"move qty from world to shelf(sku)", "move qty from world to shelf(delivery)"},
			want: []want{{"E051", 13, "changed move 1, `move qty from world to shelf(sku)` → `move qty from world to shelf(delivery)`"}}},
		{name: "literal changed", pairs: []string{"move 0.50 from till to bank", "move 0.75 from till to bank"},
			want: []want{{"E051", 22, "changed move 2, `move 0.50 from till to bank` → `move 0.75 from till to bank`"}}},
		{name: "move added", pairs: []string{"  move 0.50 from till to bank\n", "  move 0.50 from till to bank\n  move 0.01 from till to bank\n"},
			want: []want{{"E051", 23, "has a new move 3, none → `move 0.01 from till to bank`"}}},
		{name: "move removed", pairs: []string{"  move 0.50 from till to bank\n", ""},
			want: []want{{"E051", 19, "lost move 2, `move 0.50 from till to bank` → none"}}},
		{name: "moves swapped", pairs: []string{"  move qty from shelf(sku) to world\n  move price from bank to till\n", "  move price from bank to till\n  move qty from shelf(sku) to world\n"},
			want: []want{{"E051", 17, "changed move 1"}, {"E051", 18, "changed move 2"}}},
		{name: "account removed", src: `book shop v1
unit pcs
account shelf(sku: string) : pcs
  at least 0 refused as out_of_stock
  at most 100 refused as shelf_full
account world : pcs outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to shelf(sku)
transfer reserve(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 30 minutes
  move qty from shelf(sku) to world
transfer bank_out(slip: string, amount: pcs)
  key slip
  move amount from shelf(slip) to world
`, want: []want{
			{"W107", 1, "the account kind `till` is gone"},
			{"W107", 1, "the account kind `bank` is gone"},
			{"E051", 10, "changed its parameters"},
			{"E051", 10, "lost move 2, `move price from bank to till` → none"},
			{"E051", 14, "changed its parameters"},
			{"E051", 16, "changed move 1, `move amount from till to bank` → `move amount from shelf(slip) to world`"},
			{"E051", 14, "lost move 2"},
		}},
		{name: "transfer removed", pairs: []string{"transfer reserve(order: string, sku: string, qty: pcs, price: USD)\n  key order, sku\n  pending expires after 30 minutes\n  move qty from shelf(sku) to world\n  move price from bank to till\n", ""},
			want: []want{{"W107", 1, "the transfer kind `reserve` is gone from the book: its holds stay held"}}},
		{name: "book renamed", pairs: []string{"book shop v1", "book store v2"},
			want: []want{{"W107", 1, "the book was renamed, `shop` → `store`"}}},
	}
	old := resolved(t, "old.book", base)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			if src == "" {
				src = edit(t, tt.pairs...)
			}
			cur := resolved(t, "new.book", src)
			got := evolve.Compare(evolve.FromBook(old), cur)
			check(t, got, tt.want)
			// Every transfer whose definition hash changed is named by
			// some diagnostic: nothing the backends would answer
			// key_conflict for goes unsaid.
			for _, nt := range cur.Transfers {
				ot := old.Transfer(nt.Name)
				if ot == nil || ot.Definition() == nt.Definition() {
					continue
				}
				if !named(got, nt.Name) {
					t.Errorf("the definition of %s changed and no diagnostic names it:\n%s", nt.Name, dump(got))
				}
			}
			// The same old book as `chobo api` JSON says the same.
			if fromAPI := evolve.Compare(viaAPI(t, old), cur); !reflect.DeepEqual(fromAPI, got) {
				t.Errorf("the api form of the old book says otherwise:\n%s\nthe book form:\n%s", dump(fromAPI), dump(got))
			}
		})
	}
}

func check(t *testing.T, got diag.List, wants []want) {
	t.Helper()
	used := make([]bool, len(got))
	for _, w := range wants {
		found := false
		for i, d := range got {
			if !used[i] && d.Code == w.code && d.Line == w.line && strings.Contains(d.Message.En, w.text) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("no %s on line %d saying %q in:\n%s", w.code, w.line, w.text, dump(got))
		}
	}
	for i, d := range got {
		if !used[i] {
			t.Errorf("unexpected %s on line %d: %s", d.Code, d.Line, d.Message.En)
		}
		for _, tx := range append([]diag.Text{d.Message, d.Hint}, d.Notes...) {
			if tx.En == "" || tx.Ja == "" {
				t.Errorf("%s on line %d lacks a language: %+v", d.Code, d.Line, tx)
			}
		}
		if d.Hint.IsZero() || len(d.Notes) == 0 || !strings.Contains(d.Notes[0].En, "before: `") {
			t.Errorf("%s on line %d does not quote the previous version and give a fix", d.Code, d.Line)
		}
		if want := d.Code[0] == 'W'; want != (d.Severity == diag.Warning) {
			t.Errorf("%s has severity %v", d.Code, d.Severity)
		}
	}
}

func dump(l diag.List) string {
	var b strings.Builder
	for _, d := range l {
		fmt.Fprintf(&b, "  %s %d:%d %s\n", d.Code, d.Line, d.Col, d.Message.En)
	}
	return b.String()
}

// viaAPI writes b as `chobo api` prints it and reads it back.
func viaAPI(t *testing.T, b *book.Book) *evolve.Previous {
	t.Helper()
	data, err := json.Marshal(api.Describe(b, nil, report.Build(b), diag.English))
	if err != nil {
		t.Fatal(err)
	}
	if !evolve.IsAPI(data) {
		t.Fatal("IsAPI does not know `chobo api` output")
	}
	p, err := evolve.Load("old.api.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// named reports whether some diagnostic names the kind, in its message or
// its notes.
func named(l diag.List, kind string) bool {
	for _, d := range l {
		for _, tx := range append([]diag.Text{d.Message}, d.Notes...) {
			if strings.Contains(tx.En, "`"+kind+"`") {
				return true
			}
		}
	}
	return false
}

// TestQuotesThePreviousVersion looks at one diagnostic whole: where it
// points, what it quotes, and both languages.
func TestQuotesThePreviousVersion(t *testing.T) {
	old := resolved(t, "old.book", base)
	cur := resolved(t, "new.book", edit(t, "at most 100", "at most 500"))
	got := evolve.Compare(evolve.FromBook(old), cur)
	if len(got) != 1 {
		t.Fatalf("want one diagnostic, got:\n%s", dump(got))
	}
	d := got[0]
	if d.Code != "W110" || d.File != "new.book" || d.Line != 6 || d.Col != 3 || d.Severity != diag.Warning || len(d.Notes) != 3 {
		t.Fatalf("%s at %s:%d:%d (%v), %d notes", d.Code, d.File, d.Line, d.Col, d.Severity, len(d.Notes))
	}
	for _, w := range []struct{ text, want string }{
		{d.Notes[0].En, "before: `account shelf(sku: string) : pcs` … `at most 100 refused as shelf_full`"},
		{d.Notes[0].Ja, "前のバージョン: `account shelf(sku: string) : pcs` … `at most 100 refused as shelf_full`"},
		{d.Notes[1].En, "holds made before are posted, voided and expire as before; a key keeps its answer"},
		{d.Notes[1].Ja, "前に作った仮押さえは、前と同じように確定、取消、期限切れになります"},
		{d.Notes[2].En, "on PostgreSQL, loading the new version's SQL changes the bound for every account at once; on TigerBeetle, an upper bound is kept by each account's room account: run `chobo migrate`"},
		{d.Notes[2].Ja, "空きの勘定"},
		{d.Message.Ja, "勘定の種類 `shelf` の上限が広がりました(`at most 100` → `at most 500`)"},
		{d.Hint.En, "\"Changing a bound\""},
		{d.Hint.Ja, "「境界を変えるとき」"},
	} {
		if !strings.Contains(w.text, w.want) {
			t.Errorf("%q lacks %q", w.text, w.want)
		}
	}
}

// TestRecordedHash: a previous version whose recorded hash differs while
// every part compared is the same (another chobo hashed it) still gets
// an E051, on the transfer's line.
func TestRecordedHash(t *testing.T) {
	old := resolved(t, "old.book", base)
	prev := evolve.FromBook(old)
	prev.Definitions["receive"] = "0000000000000000"
	got := evolve.Compare(prev, resolved(t, "new.book", base))
	if len(got) != 1 || got[0].Code != "E051" || got[0].Line != 11 || !strings.Contains(got[0].Message.En, "another definition hash") {
		t.Fatalf("got:\n%s", dump(got))
	}
	if !strings.Contains(got[0].Notes[1].En, "`0000000000000000` → `") {
		t.Errorf("the note does not give both hashes: %q", got[0].Notes[1].En)
	}
	// The hash earlier versions recorded, bounds included, is the kind's.
	cur := resolved(t, "new.book", base)
	for _, tr := range cur.Transfers {
		if tr.LegacyDefinition() != tr.Definition() {
			prev.Definitions[tr.Name] = tr.LegacyDefinition()
		}
	}
	if prev.Definitions["receive"] == "0000000000000000" {
		t.Fatal("receive moves through no bounded account")
	}
	if got := evolve.Compare(prev, cur); len(got) != 0 {
		t.Fatalf("legacy hashes recorded:\n%s", dump(got))
	}
}

func TestLoad(t *testing.T) {
	apiDoc, err := json.Marshal(api.Describe(resolved(t, "old.book", base), nil, report.Build(resolved(t, "old.book", base)), diag.English))
	if err != nil {
		t.Fatal(err)
	}
	swap := func(from, to string) []byte {
		s := strings.Replace(string(apiDoc), from, to, 1)
		if s == string(apiDoc) {
			t.Fatalf("no %q in the api document", from)
		}
		return []byte(s)
	}
	tests := []struct {
		name, file string
		data       []byte
		isAPI      bool
		err        string // "" for no error
	}{
		{"book", "old.book", []byte(base), false, ""},
		{"api", "old.json", apiDoc, true, ""},
		{"api with spaces around", "old.json", append(append([]byte("\n  "), apiDoc...), '\n'), true, ""},
		{"newer api", "old.json", swap(fmt.Sprintf(`"v":%d`, api.Version), fmt.Sprintf(`"v":%d`, api.Version+1)), true,
			fmt.Sprintf("`chobo api` output of version %d; this chobo reads versions 1 to %d", api.Version+1, api.Version)},
		{"api of version 1", "old.json", swap(fmt.Sprintf(`"v":%d`, api.Version), `"v":1`), true, ""},
		{"api of version 0", "old.json", swap(fmt.Sprintf(`"v":%d`, api.Version), `"v":0`), true, "output of version 0; this chobo reads versions 1 to"},
		{"api naming an unknown unit", "old.json", swap(`"unit":"pcs"`, `"unit":"kg"`), true, "counts in a unit not listed"},
		{"api with a broken move", "old.json", swap(`"account":"world"`, `"account":"moon"`), true, "names an account that does not fit in move 1"},
		{"api of the wrong shape", "old.json", []byte(`{"v": 1, "units": 3}`), true, "is JSON but not the output of `chobo api`"},
		{"json without v is read as a book", "old.json", []byte(`{"units": []}`), false, "the first: old.json:1:1: E001"},
		{"book with errors", "old.book", []byte("book shop v1\naccount shelf : pcs\n  at least 0 refused as empty\n"), false, "the previous version old.book has 1 error, so it cannot be what is deployed and there is nothing to compare with; the first: old.book:2:17: E002"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := evolve.IsAPI(tt.data); got != tt.isAPI {
				t.Errorf("IsAPI = %v", got)
			}
			p, err := evolve.Load(tt.file, tt.data)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Load: %v", err)
			case tt.err == "":
				if p.Book.Name != "shop" || len(p.Book.Transfers) != 3 || p.Definitions["reserve"] != p.Book.Transfer("reserve").Definition() {
					t.Errorf("Load read %+v", p)
				}
			case err == nil:
				t.Fatalf("Load took it; want an error with %q", tt.err)
			case !strings.Contains(err.Error(), tt.err):
				t.Errorf("error %q lacks %q", err, tt.err)
			default:
				var e *evolve.Error
				if !errors.As(err, &e) || e.Text.Ja == "" {
					t.Errorf("the error is not in both languages: %#v", err)
				}
			}
		})
	}
}

// TestAccountChangeHints: the hint of E050 fits what changed. A scale
// cannot change under a new account kind of the same unit, so it asks for
// a unit of its own; a bound, for the limit to be an account.
func TestAccountChangeHints(t *testing.T) {
	old := resolved(t, "old.book", base)
	for _, tt := range []struct {
		name  string
		pairs []string
		hint  diag.Text
	}{
		{"scale", []string{"unit USD scale 2", "unit USD scale 3"},
			diag.T("keep the unit `USD` at scale 2; for the finer step, declare a new unit (such as `unit USD_3 scale 3`) and new account kinds in it",
				"単位 `USD` は scale 2 のままにしてください。最小単位を変えるなら、新しい単位(`unit USD_3 scale 3` など)とその単位の新しい勘定の種類を宣言し")},
		{"bound across 0", []string{"at least 0 refused as out_of_stock", "at least -5 refused as out_of_stock"},
			diag.T("keep the lower bound of `shelf` on its side of 0: a bound may change in place only as long as it does not cross 0 (W110); for a lower bound on the other side, declare an account kind under a new name (such as `shelf_2`)",
				"`shelf` の下限は 0 の同じ側に置いてください")},
		{"outside", []string{"account world : pcs outside", "account world : pcs\n  at least 0 refused as none_left"},
			diag.T("(such as `world_2`)", "(`world_2` など)")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := evolve.Compare(evolve.FromBook(old), resolved(t, "new.book", edit(t, tt.pairs...)))
			if len(got) == 0 || got[0].Code != "E050" {
				t.Fatalf("want E050 first, got:\n%s", dump(got))
			}
			if h := got[0].Hint; !strings.Contains(h.En, tt.hint.En) || !strings.Contains(h.Ja, tt.hint.Ja) {
				t.Errorf("hint %q / %q; want %q / %q", h.En, h.Ja, tt.hint.En, tt.hint.Ja)
			}
		})
	}
}

// TestBoundDeployNotes: what a new bound takes to deploy depends on where
// TigerBeetle keeps it. A lower bound of 0 or more is judged by the chain
// a client sends; one below 0 is a floor account's balance, an upper
// bound a room account's, and `chobo migrate` moves those. A renamed
// reason is stored nowhere. A lower bound moved between 0 and above 0
// changes the chain of a transfer of one move, and a retry across the
// deploy still answers as the call did before: no key_conflict is said.
func TestBoundDeployNotes(t *testing.T) {
	const old = "book b v1\nunit pcs\naccount a : pcs\n  at least %s refused as low\n  at most %s refused as high\n"
	for _, tt := range []struct {
		name            string
		oldLow, oldHigh string
		newLow, newHigh string
		reason          bool
		want, wantNot   string
	}{
		{"lower above 0", "0", "10", "2", "10", false, "on TigerBeetle, the new version's clients apply it at once", "key_conflict"},
		{"lower from 1 to 2", "1", "10", "2", "10", false, "on TigerBeetle, the new version's clients apply it at once", "key_conflict"},
		{"lower below 0", "-5", "10", "-2", "10", false, "a lower bound below 0 is kept by each account's floor account: run `chobo migrate`", "room"},
		{"upper", "0", "10", "0", "20", false, "an upper bound is kept by each account's room account: run `chobo migrate`", "floor"},
		{"reason", "0", "10", "0", "10", true, "no account stores the reason", "migrate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			nsrc := fmt.Sprintf(old, tt.newLow, tt.newHigh)
			if tt.reason {
				nsrc = strings.Replace(nsrc, "as high", "as too_high", 1)
			}
			got := evolve.Compare(evolve.FromBook(resolved(t, "old.book", fmt.Sprintf(old, tt.oldLow, tt.oldHigh))), resolved(t, "new.book", nsrc))
			if len(got) != 1 || got[0].Code != "W110" {
				t.Fatalf("want one W110, got:\n%s", dump(got))
			}
			last := got[0].Notes[len(got[0].Notes)-1]
			if !strings.Contains(last.En, tt.want) || strings.Contains(last.En, tt.wantNot) {
				t.Errorf("the last note %q should say %q and not %q", last.En, tt.want, tt.wantNot)
			}
		})
	}
}

// TestNarrowedBoundInJapanese: the amount a narrowed bound leaves outside
// is written with its unit, spaced from the Japanese after it only when
// the unit is written in Latin letters.
func TestNarrowedBoundInJapanese(t *testing.T) {
	const src = "book b v1\nunit %s\naccount a : %[1]s\n  at most %s refused as full\naccount w : %[1]s outside\ntransfer put(id: string, q: %[1]s)\n  key id\n  move q from w to a\n"
	for _, tt := range []struct{ unit, want string }{
		{"seats", "350 seats を超えて持つ勘定"},
		{"席", "350 席を超えて持つ勘定"},
	} {
		got := evolve.Compare(evolve.FromBook(resolved(t, "old.book", fmt.Sprintf(src, tt.unit, "500"))), resolved(t, "new.book", fmt.Sprintf(src, tt.unit, "350")))
		if len(got) != 1 || !strings.Contains(got[0].Message.Ja, tt.want) {
			t.Errorf("%s: want %q in:\n%s", tt.unit, tt.want, dump(got))
		}
	}
}

// TestLegacyHashAndABoundChanged: keys an earlier chobo recorded carry
// the legacy hash, which holds the bounds; the backends take it as the
// kind's only while the bounds stay, so a bound changed against such a
// version is an E051 on every transfer through the account, with the way
// round it.
func TestLegacyHashAndABoundChanged(t *testing.T) {
	old := resolved(t, "old.book", base)
	prev := evolve.FromBook(old)
	for _, tr := range old.Transfers {
		prev.Definitions[tr.Name] = tr.LegacyDefinition()
	}
	got := evolve.Compare(prev, resolved(t, "new.book", edit(t, "at most 100", "at most 500")))
	check(t, got, []want{
		{"W110", 6, "widened its upper bound"},
		{"E051", 11, "the transfer kind `receive` was recorded with the hash an earlier chobo gave it, which holds the bounds of the accounts it moves through, and one of those bounds changed"},
		{"E051", 14, "the transfer kind `reserve` was recorded with the hash an earlier chobo gave it"},
	})
	for _, d := range got {
		if d.Code == "E051" && !strings.Contains(d.Hint.En, "deploy this chobo with the bounds as they were first") {
			t.Errorf("hint: %q", d.Hint.En)
		}
	}
}
