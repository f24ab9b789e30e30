package chobotb_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// counting is the model, counting every request a read sends.
type counting struct {
	*tbmodel.Model
	n int
}

func (c *counting) GetAccountTransfers(ctx context.Context, f chobotb.AccountFilter) ([]chobotb.Transfer, error) {
	c.n++
	return c.Model.GetAccountTransfers(ctx, f)
}

func (c *counting) QueryTransfers(ctx context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	c.n++
	return c.Model.QueryTransfers(ctx, f)
}

func (c *counting) LookupAccounts(ctx context.Context, list []ids.ID) ([]chobotb.Account, error) {
	c.n++
	return c.Model.LookupAccounts(ctx, list)
}

func (c *counting) LookupTransfers(ctx context.Context, list []ids.ID) ([]chobotb.Transfer, error) {
	c.n++
	return c.Model.LookupTransfers(ctx, list)
}

func (c *counting) CreateTransfers(ctx context.Context, ts []chobotb.Transfer) ([]chobotb.Status, error) {
	c.n++
	return c.Model.CreateTransfers(ctx, ts)
}

// A read asked for what cannot be is an error before anything is sent;
// a client that cannot read an account's transfers is ErrNoHistory.
func TestHistoryReadsRefuseBeforeSending(t *testing.T) {
	c := &counting{Model: tbmodel.New()}
	b := chobotb.NewBook(c, testDef(), "tenant")
	one := []string{"s-1"}
	bad := map[string]func() error{
		"limit over 1000": func() error {
			_, err := b.Statement(ctx, aStock, one, chobo.StatementQuery{Limit: chobo.MaxPage + 1})
			return err
		},
		"negative limit": func() error {
			_, err := b.Statement(ctx, aStock, one, chobo.StatementQuery{Limit: -1})
			return err
		},
		"no such transfer": func() error {
			_, err := b.Statement(ctx, aStock, one, chobo.StatementQuery{Transfers: []string{"nope"}})
			return err
		},
		"not a cursor": func() error {
			_, err := b.Statement(ctx, aStock, one, chobo.StatementQuery{After: "12y3"})
			return err
		},
		"a cursor written otherwise": func() error {
			_, err := b.Statement(ctx, aStock, one, chobo.StatementQuery{After: "012"})
			return err
		},
		"no such account kind": func() error {
			_, err := b.Statement(ctx, 99, one, chobo.StatementQuery{})
			return err
		},
		"too many values": func() error {
			_, err := b.BalanceAt(ctx, aStock, []string{"a", "b"}, time.Now())
			return err
		},
		"no such transfer kind": func() error {
			_, err := b.OpenHolds(ctx, -1, nil, 9999)
			return err
		},
		"a key of two values": func() error {
			_, err := b.CallEntries(ctx, kOrder, chobotb.Values{"a", "b"})
			return err
		},
	}
	for name, read := range bad {
		if err := read(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if c.n != 0 {
		t.Errorf("%d requests sent for reads that cannot be", c.n)
	}
	plain := chobotb.NewBook(struct{ chobotb.Client }{c.Model}, testDef(), "tenant")
	if _, err := plain.Statement(ctx, aStock, one, chobo.StatementQuery{}); !errors.Is(err, chobotb.ErrNoHistory) {
		t.Errorf("statement through a plain client: %v", err)
	}
	if _, err := plain.BalanceAt(ctx, aStock, one, time.Now()); !errors.Is(err, chobotb.ErrNoHistory) {
		t.Errorf("balance at through a plain client: %v", err)
	}
	if _, err := plain.OpenHolds(ctx, aStock, one, -1); !errors.Is(err, chobotb.ErrNoHistory) {
		t.Errorf("open holds through a plain client: %v", err)
	}
}

// Paged one entry at a time, either way, a statement is the whole
// statement, expiries included, and the reads write nothing.
func TestStatementPagesOneByOne(t *testing.T) {
	e := newEnv(t)
	e.runAll([]step{
		doS(aSupplier, aStock, "d-1", "x", "s-1", 10, "done"),
		holdS(aStock, aCust, "h-1", "s-1", "c-1", 3, "done"),
		holdS(aStock, aCust, "h-2", "s-1", "c-1", 2, "done"),
		postS(aStock, aCust, "h-1", []int64{1}, "done"),
		holdS(aStock, aCust, "h-3", "s-1", "c-2", 1, "done"),
		advanceS(61 * time.Second),
		doS(aSupplier, aStock, "d-2", "x", "s-1", 5, "done"),
		holdS(aStock, aCust, "h-4", "s-1", "c-1", 4, "done"),
	})
	sent := len(e.m.Requests())
	full, err := e.b.Statement(ctx, aStock, []string{"s-1"}, chobo.StatementQuery{Limit: chobo.MaxPage})
	if err != nil {
		t.Fatal(err)
	}
	// h-2 and h-3 are past their deadline by the time of the account's
	// last record, so only h-4 is asked about: one status chain.
	var asked int
	for _, r := range e.m.Requests()[sent:] {
		if r.Op == tbmodel.OpCreateTransfers {
			asked += len(r.Transfers)
		}
	}
	if asked != 2 {
		t.Errorf("the statement sent %d events to ask where holds stand, want 2", asked)
	}
	var ops []string
	for _, en := range full.Entries {
		ops = append(ops, en.Op)
		if strings.Contains(en.Cursor, "x") != (en.Op == "expire") {
			t.Errorf("%s entry: cursor %q", en.Op, en.Cursor)
		}
	}
	if want := []string{"do", "hold", "hold", "post", "hold", "expire", "expire", "do", "hold"}; !slices.Equal(ops, want) {
		t.Fatalf("statement: %v, want %v", ops, want)
	}
	if last := full.Entries[len(full.Entries)-1]; full.More || last.After.HeldOut != 4 || last.After.Posted != 14 {
		t.Errorf("the last entry leaves %+v (more %v)", *last.After, full.More)
	}
	for _, newest := range []bool{false, true} {
		var got []chobo.Entry
		q := chobo.StatementQuery{Newest: newest, Limit: 1}
		for {
			p, err := e.b.Statement(ctx, aStock, []string{"s-1"}, q)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, p.Entries...)
			if len(p.Entries) == 0 && p.Next != q.After {
				t.Errorf("an empty page moves the cursor from %q to %q", q.After, p.Next)
			}
			if !p.More {
				break
			}
			q.After = p.Next
		}
		want := slices.Clone(full.Entries)
		if newest {
			slices.Reverse(want)
		}
		same := len(got) == len(want)
		for i := range min(len(got), len(want)) {
			same = same && got[i].ID == want[i].ID && got[i].Op == want[i].Op && got[i].Cursor == want[i].Cursor
		}
		if !same {
			t.Errorf("newest %v: paged one by one, %d entries that are not the statement's %d", newest, len(got), len(want))
		}
	}
	for _, r := range e.m.Requests()[sent:] {
		for _, s := range r.Statuses {
			if s == chobotb.Created {
				t.Fatalf("a read wrote: %s %v", r.Op, r.Statuses)
			}
		}
	}
}
