package tigerbeetle

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
)

const shelves = `book shelves v1
unit pcs
account bin(place: string) : pcs
  at least 2 refused as below_safety
  at most 10 refused as bin_full
account credit(member: string) : pcs
  at least -5 refused as overdrawn
account world : pcs outside
transfer move_stock(ref: string, from_place: string, to_place: string, qty: pcs)
  key ref
  move qty from bin(from_place) to bin(to_place)
transfer lend(ref: string, member: string)
  key ref
  pending expires after 1 minutes
  move 3 from credit(member) to world
`

func chainsOf(t *testing.T, src string) ([]Chain, *book.Book) {
	t.Helper()
	res := check.Check("shelves.book", []byte(src))
	if res.Book == nil {
		t.Fatalf("%+v", res.Diags)
	}
	cs, err := Chains(res.Book)
	if err != nil {
		t.Fatal(err)
	}
	return cs, res.Book
}

func line(e ChainEvent) string {
	s := fmt.Sprintf("%s %d %s→%s", e.Role, e.Move, e.Debit, e.Credit)
	if e.Amount != "" {
		s += " " + e.Amount
	}
	if e.Pending {
		s += " pending"
	}
	if e.Linked {
		s += " linked"
	}
	if e.Ends >= 0 {
		s += fmt.Sprintf(" ends %d", e.Ends)
	}
	if e.Reason != "" {
		s += " refused as " + e.Reason
	}
	if e.IDOf >= 0 {
		s += fmt.Sprintf(" id of %d", e.IDOf)
	}
	return s
}

func TestChainsSayWhatEachOperationSends(t *testing.T) {
	cs, _ := chainsOf(t, shelves)
	var ops []string
	for _, c := range cs {
		ops = append(ops, c.Transfer+"."+c.Op)
	}
	if got := strings.Join(ops, " "); got != "move_stock.do lend.hold lend.post lend.void lend.status" {
		t.Fatalf("operations %s", got)
	}
	tests := []struct {
		chain    Chain
		accounts string
		openings string
		lookups  string
		events   []string
	}{
		{cs[0],
			"bin(from_place) account, bin(to_place) account, sink(pcs) sink, room(bin(from_place)) room, room(bin(to_place)) room, " +
				"shortfall(room(bin(to_place))) shortfall",
			"room(bin(from_place)) 10, room(bin(to_place)) 10", "[]",
			[]string{
				"move 1 bin(from_place)→bin(to_place) qty linked refused as below_safety",
				"lower_probe 1 bin(from_place)→sink(pcs) 2 pending linked refused as below_safety",
				"lower_probe_void 1 → linked ends 1",
				"room_give 1 sink(pcs)→room(bin(from_place)) qty linked",
				"room_net 1 room(bin(to_place))→shortfall(room(bin(to_place))) owed linked",
				"room_take 1 room(bin(to_place))→sink(pcs) qty refused as bin_full",
				"key_guard 0 → id of 0",
			}},
		{cs[1],
			"credit(member) account, world account, sink(pcs) sink, floor(credit(member)) floor, shortfall(floor(credit(member))) shortfall",
			"floor(credit(member)) 5", "[]",
			[]string{
				"move 1 credit(member)→world 3 pending linked",
				// Posted though the rest is held: no void takes a netting back.
				"floor_net 1 floor(credit(member))→shortfall(floor(credit(member))) owed linked",
				"floor_take 1 floor(credit(member))→sink(pcs) 3 pending refused as overdrawn",
				"key_guard 0 → id of 0",
			}},
		{cs[2], "", "", "[0]",
			[]string{"post 1 → held linked ends 0", "post 1 → held ends 2"}},
		{cs[3], "", "", "[0]",
			[]string{"void 1 → linked ends 0", "void 1 → ends 2"}},
		{cs[4], "", "", "[]",
			[]string{"status_void 0 → linked ends 0", "status_fail 0 →"}},
	}
	for _, tt := range tests {
		name := tt.chain.Transfer + "." + tt.chain.Op
		var accs, opens, evs []string
		for _, a := range tt.chain.Accounts {
			accs = append(accs, a.Name+" "+a.Role)
		}
		for _, o := range tt.chain.Openings {
			opens = append(opens, fmt.Sprintf("%s %d", o.Account, o.Amount))
		}
		for _, e := range tt.chain.Events {
			evs = append(evs, line(e))
		}
		if got := strings.Join(accs, ", "); got != tt.accounts {
			t.Errorf("%s accounts:\n got  %s\n want %s", name, got, tt.accounts)
		}
		if got := strings.Join(opens, ", "); got != tt.openings {
			t.Errorf("%s openings:\n got  %s\n want %s", name, got, tt.openings)
		}
		if got := fmt.Sprint(tt.chain.Lookups); got != tt.lookups && !(got == "[]" && tt.lookups == "[]") {
			t.Errorf("%s lookups %s, want %s", name, got, tt.lookups)
		}
		if got, want := strings.Join(evs, "\n"), strings.Join(tt.events, "\n"); got != want {
			t.Errorf("%s chain:\n got\n%s\n want\n%s", name, got, want)
		}
	}
}

// The chain of the layout is as long as what Check counts for E060.
func TestChainsAreAsLongAsCheckCounts(t *testing.T) {
	cs, b := chainsOf(t, shelves)
	d := Def(b)
	for _, c := range cs {
		if c.Op != "do" && c.Op != "hold" {
			continue
		}
		for i, tr := range b.Transfers {
			if tr.Name == c.Transfer && d.ChainLength(i) != len(c.Events) {
				t.Errorf("%s: %d events, ChainLength %d", c.Transfer, len(c.Events), d.ChainLength(i))
			}
		}
	}
}
