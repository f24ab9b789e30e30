package scenario_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// A card: a payment holds its price and its fee from one wallet, so
// that each of its calls writes two entries to the wallet's statement.
const card = `book card v1
unit USD scale 2
account wallet(card: string) : USD
  at least 0 refused as insufficient_funds
account bank : USD outside
account merchants : USD outside
account fees : USD outside
transfer top_up(top_up_id: string, card: string, amount: USD)
  key top_up_id
  move amount from bank to wallet(card)
transfer payment(payment_id: string, card: string, price: USD, fee: USD)
  key payment_id
  pending expires after 30 minutes
  move price from wallet(card) to merchants
  move fee from wallet(card) to fees
`

// A sale is keyed by the order whose refundable amount it fills: there
// is one way to fill it, and every refund of the order draws on it.
const refundsBook = `book refunds v1
unit USD scale 2
account refundable(order: string) : USD
  at least 0 refused as refund_exceeds_sale
account customers : USD outside
transfer sale(order: string, amount: USD)
  key order
  move amount from customers to refundable(order)
transfer refund(refund_id: string, order: string, amount: USD)
  key refund_id
  pending expires after 7 days
  move amount from refundable(order) to customers
`

// A spread takes from one shelf twice: its calls write two entries to
// the shelf, which a fill writes one to.
const spread = `book spread v1
unit pcs
account shelf(sku: string) : pcs
  at least 0 refused as shelf_empty
account world : pcs outside
transfer fill(id: string, sku: string, qty: pcs)
  key id
  move qty from world to shelf(sku)
transfer spread(id: string, sku: string, qty: pcs)
  key id
  move qty from shelf(sku) to world
  move qty from shelf(sku) to world
`

// Nothing ever fills a voucher balance: every call is refused.
const neverDone = `book vouchers v1
unit vouchers
account balance(member: string) : vouchers
  at least 0 refused as no_voucher
account redeemed : vouchers outside
transfer redeem(use: string, member: string, count: vouchers)
  key use
  move count from balance(member) to redeemed
`

// readScenarios are the generated scenarios that read the history.
func readScenarios(t *testing.T, src string) (*book.Book, []scenario.Scenario) {
	t.Helper()
	res := check.Check("test.book", []byte(src))
	if res.Book == nil {
		t.Fatalf("%+v", res.Diags)
	}
	var out []scenario.Scenario
	for _, sc := range scenario.Generate(res.Book) {
		if slices.ContainsFunc(sc.Steps, func(st scenario.Step) bool { return st.Read != nil }) {
			out = append(out, sc)
		}
	}
	return res.Book, out
}

func TestGenerateReadFamilies(t *testing.T) {
	tests := []struct {
		name, book string
		// want are the read scenarios, by name, in order.
		want []string
		// ops must appear among the entries of the first scenario's
		// first statement: every kind of call it makes.
		ops []string
		// inside: the first scenario's first page ends between two
		// entries of one call.
		inside bool
	}{
		{"two moves from one wallet, holds that expire", card, []string{
			"payment: the history of a hold posted in full, one posted in part, one voided, one expired, one left open, read back",
			"calls of top_up before and after a pass, read back",
			"tenants: tenant-a: a read sees only the calls of its own tenant",
			"tenants: tenant-b: the same keys and accounts as tenant-a, other amounts",
		}, []string{"top_up.do(", "payment.hold(", "payment.post(payment_id: payment_id-3)", "price: 0.01, fee: 0.01) move 1", "payment.void(", "payment.expire("}, true},
		{"holds that never expire, an upper bound at zero", creditLine, []string{
			"spend: the history of a hold posted in full, one posted in part, one voided, one expired, one left open, read back",
			"refund: the history of a hold posted in full, one posted in part, one voided, one posted after a pass, one left open, read back",
			"calls of repay before and after a pass, read back",
			"tenants: tenant-a: a read sees only the calls of its own tenant",
			"tenants: tenant-b: the same keys and accounts as tenant-a, other amounts",
		}, []string{"spend.hold(", "spend.post(", "spend.void(", "spend.expire("}, false},
		{"one way to fill the account refunds draw on", refundsBook, []string{
			"refund: the history of a hold posted in full, one posted in part, one voided, one expired, one left open, read back",
			"calls of sale before and after a pass, read back",
			"tenants: tenant-a: a read sees only the calls of its own tenant",
			"tenants: tenant-b: the same keys and accounts as tenant-a, other amounts",
		}, []string{"sale.do(", "refund.hold(", "refund.post(", "refund.void(", "refund.expire("}, false},
		{"calls that post at once only", bins, []string{
			"calls of stock_in, relocate before and after a pass, read back",
			"tenants: tenant-a: a read sees only the calls of its own tenant",
			"tenants: tenant-b: the same keys and accounts as tenant-a, other amounts",
		}, []string{"stock_in.do("}, false},
		// The shelf a spread takes from is read every way, not the one
		// the first fill fills.
		{"calls that write two entries to one account", spread, []string{
			"calls of fill, spread before and after a pass, read back",
			"tenants: tenant-a: a read sees only the calls of its own tenant",
			"tenants: tenant-b: the same keys and accounts as tenant-a, other amounts",
		}, []string{"fill.do(", "spread.do("}, true},
		{"no call is ever done", neverDone, []string{
			"redeem.do refused: nothing is written to read back",
		}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, scs := readScenarios(t, tt.book)
			var names []string
			for _, sc := range scs {
				names = append(names, sc.Name)
				checkReadScenario(t, b, sc)
			}
			if !slices.Equal(names, tt.want) {
				t.Fatalf("read scenarios:\n got %q\nwant %q", names, tt.want)
			}
			outs := scenario.Run(b, scs[0])
			// The whole statement of the account read in pages, or the
			// first one.
			var first, page1, page2 *scenario.ReadResult
			whole := map[string]*scenario.ReadResult{}
			paged := ""
			for i, st := range scs[0].Steps {
				rd := st.Read
				if rd == nil || rd.Kind != scenario.ReadStatement {
					continue
				}
				switch {
				case rd.Limit == 0 && rd.AfterStep < 0 && rd.Order == interp.Oldest && rd.To == nil && rd.FromText == "" && len(rd.Transfers) == 0:
					if first == nil {
						first = outs[0].Reads[i]
					}
					if whole[rd.Account.String()] == nil {
						whole[rd.Account.String()] = outs[0].Reads[i]
					}
				case rd.Name == "page 1":
					page1, paged = outs[0].Reads[i], rd.Account.String()
				case rd.AfterStep >= 0 && scs[0].Steps[rd.AfterStep].Read.Name == "page 1":
					page2 = outs[0].Reads[i]
				}
			}
			if paged != "" {
				first = whole[paged]
			}
			var lines []string
			for _, e := range first.Entries {
				lines = append(lines, e.String())
			}
			all := strings.Join(lines, "\n")
			for _, op := range tt.ops {
				if !strings.Contains(all, op) {
					t.Errorf("the statement shows no %q:\n%s", op, all)
				}
			}
			if len(tt.ops) == 0 {
				if len(first.Entries) != 0 {
					t.Errorf("a refused call wrote %d entries", len(first.Entries))
				}
				return
			}
			if page1 == nil || page2 == nil {
				t.Fatal("no statement in two pages")
			}
			if got := slices.Concat(page1.Entries, page2.Entries); len(got) != len(first.Entries) || !page1.More || page2.More {
				t.Errorf("two pages hold %d entries (more %v, %v), the whole statement %d", len(got), page1.More, page2.More, len(first.Entries))
			}
			last, next := page1.Entries[len(page1.Entries)-1], page2.Entries[0]
			split := last.Call.Transfer == next.Call.Transfer && last.Op == next.Op && slices.Equal(last.Key, next.Key)
			if split != tt.inside {
				t.Errorf("the first page ends inside a call: %v, want %v\n%s\n%s", split, tt.inside, last, next)
			}
		})
	}
}

// checkReadScenario holds a generated read scenario to what every one
// must be: sequential, within the timing rule, every call and read
// checked, each expectation what the interpreter gives, written and read
// back the same, and an open-hold read finds at most one hold.
func checkReadScenario(t *testing.T, b *book.Book, sc scenario.Scenario) {
	t.Helper()
	outs := scenario.Run(b, sc)
	if len(outs) != 1 {
		t.Errorf("%q: %d outcomes", sc.Name, len(outs))
		return
	}
	if _, err := scenario.Timing(sc, outs); err != nil {
		t.Errorf("%q: %v", sc.Name, err)
	}
	if f := scenario.Failures(sc, outs); len(f) > 0 {
		t.Errorf("%q: %v", sc.Name, f)
	}
	for i, st := range sc.Steps {
		switch {
		case st.Together != nil:
			t.Errorf("%q: step %d: a together", sc.Name, i+1)
		case st.Call != nil && st.Expect == "":
			t.Errorf("%q: step %d: a call without its answer", sc.Name, i+1)
		case st.Read != nil && st.Read.Expect == nil:
			t.Errorf("%q: step %d: a read without its expectation", sc.Name, i+1)
		case st.Read != nil && st.Read.Kind == scenario.ReadHolds && len(st.Read.Expect.Lines) > 1:
			t.Errorf("%q: step %d: %d open holds", sc.Name, i+1, len(st.Read.Expect.Lines))
		}
	}
	data := scenario.Encode([]scenario.Scenario{sc})
	back, err := scenario.Read(b, data)
	if err != nil {
		t.Fatalf("%q: written, it does not read back: %v\n%s", sc.Name, err, data)
	}
	if again := scenario.Encode(back); !bytes.Equal(again, data) {
		t.Errorf("%q: written and read back, it writes\n%s\nnot\n%s", sc.Name, again, data)
	}
}

// TestGeneratedReadsCoverEveryRead: among the read scenarios of a book
// with holds and several kinds, every kind of read and every option a
// statement takes.
func TestGeneratedReadsCoverEveryRead(t *testing.T) {
	_, scs := readScenarios(t, card)
	have := map[string]bool{}
	for _, sc := range scs {
		for _, st := range sc.Steps {
			rd := st.Read
			if rd == nil {
				continue
			}
			have[rd.Kind] = true
			for what, ok := range map[string]bool{
				"limit": rd.Limit > 0, "after": rd.AfterStep >= 0, "newest": rd.Order == interp.Newest,
				"from": rd.FromText != "", "to": rd.ToText != "", "transfers": len(rd.Transfers) > 0,
				"a window":            rd.FromText != "" && rd.ToText != "",
				"holds of an account": rd.Kind == scenario.ReadHolds && rd.Account != nil,
				"holds of a kind":     rd.Kind == scenario.ReadHolds && rd.Transfer != nil,
				"newest, after":       rd.Order == interp.Newest && rd.AfterStep >= 0,
				"balance before now":  rd.Kind == scenario.ReadBalance && rd.At == 0 && slices.ContainsFunc(sc.Steps, func(st scenario.Step) bool { return st.PassText != "" }),
			} {
				if ok {
					have[what] = true
				}
			}
		}
	}
	for _, want := range []string{scenario.ReadStatement, scenario.ReadEntries, scenario.ReadHolds, scenario.ReadBalance,
		"limit", "after", "newest", "from", "to", "a window", "transfers", "holds of an account", "holds of a kind", "newest, after", "balance before now"} {
		if !have[want] {
			t.Errorf("no generated read has %s", want)
		}
	}
}

// TestGeneratedReadsAreChecked: an expectation of a generated read that
// the history does not meet is a failure, as a call's is.
func TestGeneratedReadsAreChecked(t *testing.T) {
	b, scs := readScenarios(t, card)
	for _, sc := range scs {
		for i, st := range sc.Steps {
			if st.Read == nil {
				continue
			}
			wrong := sc
			wrong.Steps = slices.Clone(sc.Steps)
			rd := *st.Read
			ex := *rd.Expect
			ex.Lines = append(slices.Clone(ex.Lines), "one line too many")
			rd.Expect = &ex
			wrong.Steps[i].Read = &rd
			if f := scenario.Failures(wrong, scenario.Run(b, wrong)); len(f) == 0 {
				t.Errorf("%q: step %d: a line too many goes unnoticed", sc.Name, i+1)
			}
		}
	}
}

// TestGeneratedTenantsDiffer: the two tenants' scenarios make the same
// calls under the same keys, and read the same account, which holds
// other amounts in each.
func TestGeneratedTenantsDiffer(t *testing.T) {
	_, scs := readScenarios(t, card)
	var tenants []scenario.Scenario
	for _, sc := range scs {
		if sc.Tenant != "" {
			tenants = append(tenants, sc)
		}
	}
	if len(tenants) != 2 || tenants[0].Tenant == tenants[1].Tenant {
		t.Fatalf("%d scenarios with a tenant", len(tenants))
	}
	a, b := scenario.Encode(tenants[:1]), scenario.Encode(tenants[1:])
	if !bytes.Contains(a, []byte(`"account": "wallet(card-2)"`)) || !bytes.Contains(b, []byte(`"account": "wallet(card-2)"`)) {
		t.Errorf("the tenants do not read the same wallet:\n%s\n%s", a, b)
	}
	if la, lb := tenants[0].Steps[len(tenants[0].Steps)-1].Read.Expect.Lines, tenants[1].Steps[len(tenants[1].Steps)-1].Read.Expect.Lines; slices.Equal(la, lb) {
		t.Errorf("both tenants' wallets read %q", la)
	}
}

// TestGeneratedReadsAreTheSameEachTime: the read scenarios, like the
// others, are the same bytes on every run.
func TestGeneratedReadsAreTheSameEachTime(t *testing.T) {
	for _, src := range []string{card, creditLine, refundsBook} {
		_, first := readScenarios(t, src)
		_, again := readScenarios(t, src)
		if !bytes.Equal(scenario.Encode(first), scenario.Encode(again)) {
			t.Errorf("two runs differ:\n%s\n%s", scenario.Encode(first), scenario.Encode(again))
		}
	}
}

// TestFailuresOfAReadNotMade: an outcome that holds the calls' answers
// and no reads, as one observed elsewhere than on the interpreter may,
// fails each read it should have made, and nothing else.
func TestFailuresOfAReadNotMade(t *testing.T) {
	b, scs := readScenarios(t, card)
	sc := scs[len(scs)-1]
	outs := scenario.Run(b, sc)
	f := scenario.Failures(sc, []scenario.Outcome{{Results: outs[0].Results}})
	reads := 0
	for _, st := range sc.Steps {
		if st.Read != nil {
			reads++
		}
	}
	if len(f) != reads || reads == 0 {
		t.Fatalf("%d reads, failures %q", reads, f)
	}
	for _, line := range f {
		if !strings.HasSuffix(line, "the read was not made") {
			t.Errorf("%q", line)
		}
	}
}
