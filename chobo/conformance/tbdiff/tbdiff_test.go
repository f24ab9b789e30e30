package tbdiff

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

func id(name string) ids.ID { return ids.Sum("tbdiff-test", name) }

// offByOne answers as its model, except that it moves one unit less than
// asked into an account: a model with a bug, as the tee must see it.
type offByOne struct{ *tbmodel.Model }

func (o offByOne) CreateTransfers(ctx context.Context, ts []chobotb.Transfer) ([]chobotb.Status, error) {
	out := make([]chobotb.Transfer, len(ts))
	for i, t := range ts {
		if t.ID == id("in") {
			t.Amount.Lo--
		}
		out[i] = t
	}
	return o.Model.CreateTransfers(ctx, out)
}

func send(t *testing.T, c chobotb.Client) {
	t.Helper()
	ctx := context.Background()
	a := chobotb.Account{ID: id("a"), Ledger: 1, Code: 1, Flags: chobotb.AccountDebitsMustNotExceedCredits}
	b := chobotb.Account{ID: id("b"), Ledger: 1, Code: 1}
	if _, err := c.CreateAccounts(ctx, []chobotb.Account{a, b}); err != nil {
		t.Fatal(err)
	}
	in := chobotb.Transfer{ID: id("in"), DebitAccountID: b.ID, CreditAccountID: a.ID, Amount: chobotb.U64(5), Ledger: 1, Code: 1}
	out := chobotb.Transfer{ID: id("out"), DebitAccountID: a.ID, CreditAccountID: b.ID, Amount: chobotb.U64(5), Ledger: 1, Code: 1}
	if _, err := c.CreateTransfers(ctx, []chobotb.Transfer{in}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTransfers(ctx, []chobotb.Transfer{out}); err != nil {
		t.Fatal(err)
	}
}

func TestSameModelsAgree(t *testing.T) {
	one, two := tbmodel.New(), tbmodel.New()
	two.Advance(time.Hour) // another clock: timestamps are not compared
	tee := New(one, two)
	send(t, tee)
	n, err := tee.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("%d records compared, want the 2 accounts and 2 transfers", n)
	}
	if d := tee.Diffs(); len(d) != 0 {
		t.Errorf("two equal models differ: %q", d)
	}
	if tee.Requests() != 5 {
		t.Errorf("%d requests, want 5", tee.Requests())
	}
}

func TestAModelWithABugIsCaught(t *testing.T) {
	real := tbmodel.New()
	tee := New(real, offByOne{tbmodel.New()})
	send(t, tee)
	if _, err := tee.Records(context.Background()); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(tee.Diffs(), "\n")
	// The model took in 4, so taking out 5 is refused there and not on
	// the real side; and the records read back differ.
	for _, want := range []string{
		"create_transfers",
		"real:  [created]\n  model: [exceeds_credits]",
		"lookup_accounts",
		"lookup_transfers",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no difference that says %q; found:\n%s", want, all)
		}
	}
}

// late answers lookups as its model, but gives back holds past their
// deadline only when told to: a replica whose pulse has not come yet.
func TestAHoldGivenBackLaterIsNoDifference(t *testing.T) {
	ctx := context.Background()
	real, model := tbmodel.New(), tbmodel.New()
	real.SetPulse(false)
	tee := New(real, model)
	settled := 0
	tee.Settle = func() { settled++; real.Pulse() }
	a := chobotb.Account{ID: id("a"), Ledger: 1, Code: 1, Flags: chobotb.AccountDebitsMustNotExceedCredits}
	b := chobotb.Account{ID: id("b"), Ledger: 1, Code: 1}
	if _, err := tee.CreateAccounts(ctx, []chobotb.Account{a, b}); err != nil {
		t.Fatal(err)
	}
	in := chobotb.Transfer{ID: id("in"), DebitAccountID: b.ID, CreditAccountID: a.ID, Amount: chobotb.U64(5), Ledger: 1, Code: 1}
	hold := chobotb.Transfer{ID: id("hold"), DebitAccountID: a.ID, CreditAccountID: b.ID, Amount: chobotb.U64(5), Ledger: 1, Code: 1,
		Flags: chobotb.TransferPending, Timeout: 1}
	if _, err := tee.CreateTransfers(ctx, []chobotb.Transfer{in, hold}); err != nil {
		t.Fatal(err)
	}
	real.Advance(2 * time.Second)
	model.Advance(2 * time.Second)
	// The model gives the hold back at its next create; the real side
	// not before its pulse.
	if _, err := tee.CreateTransfers(ctx, []chobotb.Transfer{{ID: id("other"), DebitAccountID: b.ID, CreditAccountID: a.ID, Amount: chobotb.U64(1), Ledger: 1, Code: 1}}); err != nil {
		t.Fatal(err)
	}
	got, err := tee.LookupAccounts(ctx, []ids.ID{a.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].DebitsPending.Lo != 5 {
		t.Errorf("the caller got debits pending %v, want the 5 the real side said before it settled", got[0].DebitsPending)
	}
	if settled != 1 {
		t.Errorf("settled %d times, want 1", settled)
	}
	if d := tee.Diffs(); len(d) != 0 {
		t.Errorf("a hold given back later is noted as a difference: %q", d)
	}
	// Without Settle, the same moment is a difference.
	real2, model2 := tbmodel.New(), tbmodel.New()
	real2.SetPulse(false)
	tee2 := New(real2, model2)
	tee2.CreateAccounts(ctx, []chobotb.Account{a, b})
	tee2.CreateTransfers(ctx, []chobotb.Transfer{in, hold})
	real2.Advance(2 * time.Second)
	model2.Advance(2 * time.Second)
	tee2.CreateTransfers(ctx, []chobotb.Transfer{{ID: id("other"), DebitAccountID: b.ID, CreditAccountID: a.ID, Amount: chobotb.U64(1), Ledger: 1, Code: 1}})
	tee2.LookupAccounts(ctx, []ids.ID{a.ID})
	if len(tee2.Diffs()) == 0 {
		t.Error("without Settle, the pending balances that differ are not noted")
	}
}
