package tbmodel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// The test cases below reproduce, one by one, the request sequences of
// the project's tigerbeetle-observations.md section 2 (which re-ran
// design 4.2's two observation blocks on a real 0.17.9 replica) and assert
// the per-event statuses and balances the replica gave.

// ---- names, accounts and transfers ----

func id(name string) ids.ID { return ids.Sum("tbmodel-test", name) }

const (
	ledger = 1
	code   = 1
	dnec   = chobotb.AccountDebitsMustNotExceedCredits
	cned   = chobotb.AccountCreditsMustNotExceedDebits
)

func acct(name string, flags uint16) chobotb.Account {
	return chobotb.Account{ID: id(name), Ledger: ledger, Code: code, Flags: flags}
}

// universe is created before every case: the accounts the observations
// use. "stock", "escrow", "capped", "room", "safety" and "A" may not go
// below zero (debits_must_not_exceed_credits); "cnd" may not go above zero
// (credits_must_not_exceed_debits); the others are unbounded.
var universe = []chobotb.Account{
	acct("supplier", 0), acct("cust", 0), acct("sink", 0), acct("B", 0), acct("C", 0),
	acct("stock", dnec), acct("escrow", dnec), acct("capped", dnec), acct("room", dnec),
	acct("safety", dnec), acct("A", dnec), acct("cnd", cned),
}

func mv(tid, dr, cr string, amount uint64) chobotb.Transfer {
	return chobotb.Transfer{ID: id(tid), DebitAccountID: id(dr), CreditAccountID: id(cr),
		Amount: chobotb.U64(amount), Ledger: ledger, Code: code}
}

func hold(tid, dr, cr string, amount uint64, timeout uint32) chobotb.Transfer {
	t := mv(tid, dr, cr, amount)
	t.Flags |= chobotb.TransferPending
	t.Timeout = timeout
	return t
}

// post and void send zero accounts, ledger and code, as chobo does: they
// are taken from the pending transfer.
func post(tid, pending string, amount chobotb.U128) chobotb.Transfer {
	return chobotb.Transfer{ID: id(tid), PendingID: id(pending), Amount: amount,
		Flags: chobotb.TransferPostPending}
}

func postAll(tid, pending string) chobotb.Transfer { return post(tid, pending, chobotb.AmountMax) }

func void(tid, pending string) chobotb.Transfer {
	return chobotb.Transfer{ID: id(tid), PendingID: id(pending), Flags: chobotb.TransferVoidPending}
}

func withUD(t chobotb.Transfer, ud string) chobotb.Transfer {
	t.UserData128 = id(ud)
	return t
}

// chain links every transfer but the last.
func chain(ts ...chobotb.Transfer) []chobotb.Transfer {
	out := slices.Clone(ts)
	for i := range out[:len(out)-1] {
		out[i].Flags |= chobotb.TransferLinked
	}
	return out
}

func one(t chobotb.Transfer) []chobotb.Transfer { return []chobotb.Transfer{t} }

func sts(s ...chobotb.Status) []chobotb.Status { return s }

func repeat(s chobotb.Status, n int) []chobotb.Status {
	out := make([]chobotb.Status, n)
	for i := range out {
		out[i] = s
	}
	return out
}

const (
	created = chobotb.Created
	lef     = chobotb.LinkedEventFailed
	exists  = chobotb.Exists
)

// ---- steps ----

// bal is an account's balances in the observations' terms: posted =
// credits_posted − debits_posted, held out = debits_pending, held in =
// credits_pending.
type bal struct {
	acct            string
	posted          int64
	heldOut, heldIn uint64
}

type step struct {
	do        string
	advance   time.Duration
	act       func(m *Model)
	accounts  []chobotb.Account
	transfers []chobotb.Transfer
	want      []chobotb.Status
	bal       []bal
	missing   []string // transfers a lookup must not find
	check     func(t *testing.T, m *Model)
}

type obsCase struct {
	name  string
	steps []step
}

func runCase(t *testing.T, m *Model, steps []step) {
	t.Helper()
	ctx := context.Background()
	for i, s := range steps {
		where := fmt.Sprintf("step %d (%s)", i+1, s.do)
		if s.act != nil {
			s.act(m)
		}
		if s.advance != 0 {
			m.Advance(s.advance)
		}
		if s.accounts != nil {
			got, err := m.CreateAccounts(ctx, s.accounts)
			if err != nil {
				t.Fatalf("%s: create_accounts: %v", where, err)
			}
			if !slices.Equal(got, s.want) {
				t.Fatalf("%s: create_accounts = %v, want %v", where, got, s.want)
			}
		}
		if s.transfers != nil {
			got, err := m.CreateTransfers(ctx, s.transfers)
			if err != nil {
				t.Fatalf("%s: create_transfers: %v", where, err)
			}
			if !slices.Equal(got, s.want) {
				t.Fatalf("%s: create_transfers = %v, want %v", where, got, s.want)
			}
		}
		for _, b := range s.bal {
			found, err := m.LookupAccounts(ctx, []ids.ID{id(b.acct)})
			if err != nil || len(found) != 1 {
				t.Fatalf("%s: lookup %s: %v %v", where, b.acct, found, err)
			}
			a := found[0]
			if a.CreditsPosted.Hi != 0 || a.DebitsPosted.Hi != 0 || a.DebitsPending.Hi != 0 || a.CreditsPending.Hi != 0 {
				t.Fatalf("%s: %s balances beyond 64 bits: %+v", where, b.acct, a)
			}
			got := bal{b.acct, int64(a.CreditsPosted.Lo) - int64(a.DebitsPosted.Lo), a.DebitsPending.Lo, a.CreditsPending.Lo}
			if got != b {
				t.Fatalf("%s: %s posted/held out/held in = %d/%d/%d, want %d/%d/%d", where, b.acct,
					got.posted, got.heldOut, got.heldIn, b.posted, b.heldOut, b.heldIn)
			}
		}
		if s.missing != nil {
			var want []ids.ID
			for _, n := range s.missing {
				want = append(want, id(n))
			}
			found, err := m.LookupTransfers(ctx, want)
			if err != nil || len(found) != 0 {
				t.Fatalf("%s: lookup_transfers %v found %v (%v), want nothing", where, s.missing, found, err)
			}
		}
		if s.check != nil {
			s.check(t, m)
		}
	}
}

func newUniverse(t *testing.T) *Model {
	t.Helper()
	m := New()
	got, err := m.CreateAccounts(context.Background(), universe)
	if err != nil || !slices.Equal(got, repeat(created, len(universe))) {
		t.Fatalf("universe: %v %v", got, err)
	}
	m.ResetRequests()
	return m
}

func runCases(t *testing.T, cases []obsCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runCase(t, newUniverse(t), c.steps)
		})
	}
}

func pulseOff(m *Model) { m.SetPulse(false) }

// ---- design 4.2, first block (a)–(l) ----

var (
	receive1 = step{do: "receive 1 into stock", transfers: one(mv("a1", "supplier", "stock", 1)), want: sts(created),
		bal: []bal{{"stock", 1, 0, 0}}}
	hold1 = step{do: "hold 1 (timeout 60 s)", transfers: one(hold("b1", "stock", "cust", 1, 60)), want: sts(created),
		bal: []bal{{"stock", 1, 1, 0}}}
	holdMore = step{do: "hold 1 more", transfers: one(hold("c1", "stock", "cust", 1, 60)),
		want: sts(chobotb.ExceedsCredits)}
	postHold = step{do: "post the hold with amount_max", transfers: one(postAll("f1", "b1")), want: sts(created),
		bal: []bal{{"stock", 0, 0, 0}, {"cust", 1, 0, 0}}}
)

func TestObservationsFirstBlock(t *testing.T) {
	runCases(t, []obsCase{
		{"a_receive_1_into_stock", []step{receive1}},
		{"b_hold_1_timeout_60s", []step{receive1, hold1}},
		{"c_hold_1_more_exceeds_credits", []step{receive1, hold1, holdMore}},
		{"d_the_same_again_id_already_failed", []step{receive1, hold1, holdMore,
			{do: "the same again", transfers: one(hold("c1", "stock", "cust", 1, 60)), want: sts(chobotb.IDAlreadyFailed)},
		}},
		{"e_same_id_amount_5_id_already_failed", []step{receive1, hold1, holdMore,
			{do: "same id, amount 5", transfers: one(hold("c1", "stock", "cust", 5, 60)), want: sts(chobotb.IDAlreadyFailed)},
		}},
		{"f_post_amount_max_and_retries", []step{receive1, hold1, postHold,
			{do: "retry amount_max", transfers: one(postAll("f1", "b1")), want: sts(exists)},
			{do: "retry amount 1", transfers: one(post("f1", "b1", chobotb.U64(1))), want: sts(exists)},
			{do: "retry amount 5", transfers: one(post("f1", "b1", chobotb.U64(5))), want: sts(chobotb.ExistsWithDifferentAmount)},
			{do: "retry amount 0", transfers: one(post("f1", "b1", chobotb.U64(0))), want: sts(chobotb.ExistsWithDifferentAmount)},
			{do: "extra: retry amount 2 (above the hold, below amount_max)", transfers: one(post("f1", "b1", chobotb.U64(2))),
				want: sts(chobotb.ExistsWithDifferentAmount), bal: []bal{{"stock", 0, 0, 0}, {"cust", 1, 0, 0}}},
		}},
		{"g_void_posted_and_post_missing", []step{receive1, hold1, postHold,
			{do: "void the posted hold", transfers: one(void("g1", "b1")), want: sts(chobotb.PendingTransferAlreadyPosted)},
			{do: "retry", transfers: one(void("g1", "b1")), want: sts(chobotb.PendingTransferAlreadyPosted)},
			{do: "post a hold that is not there", transfers: one(postAll("g2", "nohold")), want: sts(chobotb.PendingTransferNotFound)},
			{do: "retry", transfers: one(postAll("g2", "nohold")), want: sts(chobotb.IDAlreadyFailed),
				bal: []bal{{"stock", 0, 0, 0}}},
		}},
		{"h_post_after_expiry", []step{
			{do: "receive 1, hold it with timeout 1 s", transfers: []chobotb.Transfer{
				mv("h1", "supplier", "stock", 1), hold("h2", "stock", "cust", 1, 1)},
				want: sts(created, created), bal: []bal{{"stock", 1, 1, 0}}},
			{do: "post after 1.05 s", advance: 1050 * time.Millisecond, transfers: one(postAll("h3", "h2")),
				want: sts(chobotb.PendingTransferExpired), bal: []bal{{"stock", 1, 0, 0}}},
			{do: "void after release", transfers: one(void("h4", "h2")), want: sts(chobotb.PendingTransferExpired),
				bal: []bal{{"stock", 1, 0, 0}, {"cust", 0, 0, 0}}},
		}},
		{"h_post_after_expiry_before_the_pulse", []step{
			{do: "pulse held back", act: pulseOff},
			{do: "receive 1, hold it with timeout 1 s", transfers: []chobotb.Transfer{
				mv("h1", "supplier", "stock", 1), hold("h2", "stock", "cust", 1, 1)},
				want: sts(created, created)},
			{do: "1.05 s later the hold is not released yet", advance: 1050 * time.Millisecond,
				bal: []bal{{"stock", 1, 1, 0}}},
			{do: "post", transfers: one(postAll("h3", "h2")), want: sts(chobotb.PendingTransferExpired),
				bal: []bal{{"stock", 1, 1, 0}}},
			{do: "the pulse releases it", act: (*Model).Pulse, bal: []bal{{"stock", 1, 0, 0}},
				check: func(t *testing.T, m *Model) {
					if s := m.PendingState(id("h2")); s != "expired" {
						t.Fatalf("h2 is %q, want expired", s)
					}
				}},
		}},
		{"i_chain_refused_by_balance", []step{
			{do: "chain +5 into stock, -100 out", transfers: chain(mv("i1", "supplier", "stock", 5), mv("i2", "stock", "cust", 100)),
				want: sts(lef, chobotb.ExceedsCredits), bal: []bal{{"stock", 0, 0, 0}}},
			{do: "retry", transfers: chain(mv("i1", "supplier", "stock", 5), mv("i2", "stock", "cust", 100)),
				want: sts(lef, chobotb.IDAlreadyFailed), bal: []bal{{"stock", 0, 0, 0}}},
			{do: "the first alone", transfers: one(mv("i1", "supplier", "stock", 5)), want: sts(created),
				bal: []bal{{"stock", 5, 0, 0}}},
		}},
		{"j_held_in_cannot_be_spent", []step{
			{do: "pending chain supplier->escrow, escrow->cust", transfers: chain(
				hold("j1", "supplier", "escrow", 1, 60), hold("j2", "escrow", "cust", 1, 60)),
				want: sts(lef, chobotb.ExceedsCredits), bal: []bal{{"escrow", 0, 0, 0}}},
		}},
		{"k_upper_bound_with_room", []step{
			{do: "open room with 3", transfers: one(mv("k0", "sink", "room", 3)), want: sts(created)},
			{do: "+2 into capped", transfers: chain(mv("k1", "supplier", "capped", 2), mv("k2", "room", "sink", 2)),
				want: sts(created, created)},
			{do: "+2 more", transfers: chain(mv("k3", "supplier", "capped", 2), mv("k4", "room", "sink", 2)),
				want: sts(lef, chobotb.ExceedsCredits)},
			{do: "hold +1 into capped", transfers: chain(hold("k5", "supplier", "capped", 1, 60), hold("k6", "room", "sink", 1, 60)),
				want: sts(created, created)},
			{do: "hold +1 more", transfers: chain(hold("k7", "supplier", "capped", 1, 60), hold("k8", "room", "sink", 1, 60)),
				want: sts(lef, chobotb.ExceedsCredits),
				bal:  []bal{{"capped", 2, 0, 1}, {"room", 1, 1, 0}}},
		}},
		{"l_lower_bound_with_probe", []step{
			{do: "put 5 into safety", transfers: one(mv("l0", "supplier", "safety", 5)), want: sts(created)},
			{do: "take 3 with the 3-probe", transfers: chain(mv("l1", "safety", "cust", 3),
				hold("l2", "safety", "sink", 3, 0), void("l3", "l2")),
				want: sts(lef, chobotb.ExceedsCredits, lef)},
			{do: "take 2", transfers: chain(mv("l4", "safety", "cust", 2),
				hold("l5", "safety", "sink", 3, 0), void("l6", "l5")),
				want: sts(created, created, created), bal: []bal{{"safety", 3, 0, 0}}},
		}},
	})
}

// ---- design 4.2, second block ----

func TestObservationsSecondBlock(t *testing.T) {
	xyz := []chobotb.Account{acct("x", dnec), acct("y", 0), acct("z", 0)}
	putHoldPost := []step{
		{do: "put 10 into A", transfers: one(mv("s1", "supplier", "A", 10)), want: sts(created)},
		{do: "hold 3", transfers: one(hold("s2", "A", "B", 3, 0)), want: sts(created)},
		{do: "post 1 of the 3", transfers: one(post("s3", "s2", chobotb.U64(1))), want: sts(created),
			bal: []bal{{"A", 9, 0, 0}, {"B", 1, 0, 0}}},
	}
	put10 := step{do: "put 10 into A", transfers: one(mv("s1", "supplier", "A", 10)), want: sts(created)}
	chainAB := chain(mv("q1", "A", "B", 3), mv("q2", "A", "C", 2))
	runCases(t, []obsCase{
		{"create_accounts_again_and_with_another_flag", []step{
			{do: "create_accounts", accounts: xyz, want: repeat(created, 3)},
			{do: "the same again", accounts: xyz, want: repeat(exists, 3)},
			{do: "A with another flag", accounts: []chobotb.Account{acct("x", 0)}, want: sts(chobotb.ExistsWithDifferentFlags)},
		}},
		{"partial_post_and_retries", append(slices.Clone(putHoldPost),
			step{do: "retry amount 1", transfers: one(post("s3", "s2", chobotb.U64(1))), want: sts(exists)},
			step{do: "retry amount_max", transfers: one(postAll("s3", "s2")), want: sts(chobotb.ExistsWithDifferentAmount)},
			step{do: "retry amount 3", transfers: one(post("s3", "s2", chobotb.U64(3))), want: sts(chobotb.ExistsWithDifferentAmount),
				bal: []bal{{"A", 9, 0, 0}}},
		)},
		{"expired_hold_sent_again_is_exists", append(slices.Clone(putHoldPost),
			step{do: "hold 2 with timeout 1 s", transfers: one(hold("s4", "A", "B", 2, 1)), want: sts(created),
				bal: []bal{{"A", 9, 2, 0}}},
			step{do: "after 1.5 s", advance: 1500 * time.Millisecond, bal: []bal{{"A", 9, 0, 0}}},
			step{do: "the same hold again", transfers: one(hold("s4", "A", "B", 2, 1)), want: sts(exists),
				bal: []bal{{"A", 9, 0, 0}}},
		)},
		{"chain_retries", []step{put10,
			{do: "chain A->B 3, A->C 2", transfers: chainAB, want: sts(created, created)},
			{do: "the same chain again", transfers: chainAB, want: sts(exists, lef)},
			{do: "chain with a new first event", transfers: chain(mv("q0", "A", "B", 1), mv("q2", "A", "C", 2)),
				want: sts(lef, exists)},
			{do: "user_data_128 differs on the first", transfers: chain(withUD(mv("q1", "A", "B", 3), "other"), mv("q2", "A", "C", 2)),
				want: sts(chobotb.ExistsWithDifferentUserData128, lef),
				bal:  []bal{{"A", 5, 0, 0}, {"B", 3, 0, 0}, {"C", 2, 0, 0}}, missing: []string{"q0"}},
		}},
		{"pending_chain_post_again_and_void", []step{put10,
			{do: "hold chain A->B 3, A->C 2", transfers: chain(hold("r1", "A", "B", 3, 0), hold("r2", "A", "C", 2, 0)),
				want: sts(created, created), bal: []bal{{"A", 10, 5, 0}}},
			{do: "post both", transfers: chain(postAll("r3", "r1"), postAll("r4", "r2")), want: sts(created, created)},
			{do: "post both again", transfers: chain(postAll("r3", "r1"), postAll("r4", "r2")), want: sts(exists, lef)},
			{do: "void both", transfers: chain(void("r5", "r1"), void("r6", "r2")),
				want: sts(chobotb.PendingTransferAlreadyPosted, lef),
				bal:  []bal{{"A", 5, 0, 0}, {"B", 3, 0, 0}, {"C", 2, 0, 0}}},
		}},
	})
}

// ---- design 4.2 "状態を読む": a void linked with a debit==credit transfer ----

func probe(pendingName string) step {
	return step{do: "status probe", transfers: chain(void("p1", pendingName), mv("p2", "A", "A", 1)),
		missing: []string{"p1", "p2"}}
}

func TestObservationsStatusChain(t *testing.T) {
	setup := []step{
		{do: "put 100 into A", transfers: one(mv("u1", "supplier", "A", 100)), want: sts(created)},
		{do: "take 3", transfers: one(mv("u2", "A", "cust", 3)), want: sts(created), bal: []bal{{"A", 97, 0, 0}}},
	}
	with := func(extra ...step) []step { return append(slices.Clone(setup), extra...) }
	p := func(name string, want ...chobotb.Status) step {
		s := probe(name)
		s.want = want
		return s
	}
	holdH := step{do: "hold 3", transfers: one(hold("hh", "A", "B", 3, 0)), want: sts(created)}
	runCases(t, []obsCase{
		{"held", with(holdH, p("hh", lef, chobotb.AccountsMustBeDifferent))},
		{"posted", with(holdH,
			step{do: "post", transfers: one(postAll("hp", "hh")), want: sts(created)},
			p("hh", chobotb.PendingTransferAlreadyPosted, lef))},
		{"voided", with(holdH,
			step{do: "void", transfers: one(void("hv", "hh")), want: sts(created)},
			p("hh", chobotb.PendingTransferAlreadyVoided, lef))},
		{"expired", with(
			step{do: "hold 3, timeout 1 s", transfers: one(hold("hh", "A", "B", 3, 1)), want: sts(created)},
			step{do: "wait 2 s", advance: 2 * time.Second},
			p("hh", chobotb.PendingTransferExpired, lef))},
		{"not_there", with(p("nohold", chobotb.PendingTransferNotFound, lef))},
		{"writes_nothing", with(holdH, p("hh", lef, chobotb.AccountsMustBeDifferent),
			step{do: "both random ids not found, the hold still held", missing: []string{"p1", "p2"},
				bal: []bal{{"A", 97, 3, 0}, {"B", 0, 0, 3}},
				check: func(t *testing.T, m *Model) {
					if s := m.PendingState(id("hh")); s != "pending" {
						t.Fatalf("hold is %q, want pending", s)
					}
				}},
			step{do: "the hold can still be posted", transfers: one(postAll("hp", "hh")), want: sts(created),
				bal: []bal{{"A", 94, 0, 0}, {"B", 3, 0, 0}}},
		)},
		{"expired_reads_as_expired_before_release", with(
			step{do: "pulse held back", act: pulseOff},
			step{do: "hold 3", transfers: one(hold("hh", "A", "B", 3, 0)), want: sts(created)},
			step{do: "hold 3, timeout 1 s", transfers: one(hold("he", "A", "B", 3, 1)), want: sts(created)},
			step{do: "past the deadline, the lookup still counts both", advance: 1010 * time.Millisecond,
				bal: []bal{{"A", 97, 6, 0}}},
			p("he", chobotb.PendingTransferExpired, lef),
			step{do: "the pulse releases it", act: (*Model).Pulse, bal: []bal{{"A", 97, 3, 0}}},
		)},
	})
}

// ---- design 4.2 "押さえた額を超える確定": posting 5 of a 3-hold ----

func TestObservationsPostOverHold(t *testing.T) {
	put := step{do: "put 10 into A", transfers: one(mv("v0", "supplier", "A", 10)), want: sts(created)}
	over := func(want chobotb.Status) step {
		return step{do: "post 5 of 3", transfers: one(post("vp", "vh", chobotb.U64(5))), want: sts(want)}
	}
	runCases(t, []obsCase{
		{"held_then_same_id_right_amount", []step{put,
			{do: "hold 3", transfers: one(hold("vh", "A", "B", 3, 0)), want: sts(created)},
			over(chobotb.ExceedsPendingTransferAmount),
			{do: "same id, amount 3", transfers: one(post("vp", "vh", chobotb.U64(3))), want: sts(created),
				bal: []bal{{"A", 7, 0, 0}}},
		}},
		{"voided", []step{put,
			{do: "hold 3", transfers: one(hold("vh", "A", "B", 3, 0)), want: sts(created)},
			{do: "void", transfers: one(void("vv", "vh")), want: sts(created)},
			over(chobotb.ExceedsPendingTransferAmount),
			{do: "same id, amount 3", transfers: one(post("vp", "vh", chobotb.U64(3))),
				want: sts(chobotb.PendingTransferAlreadyVoided), bal: []bal{{"A", 10, 0, 0}}},
		}},
		{"expired_then_same_id_twice", []step{put,
			{do: "hold 3, timeout 1 s", transfers: one(hold("vh", "A", "B", 3, 1)), want: sts(created)},
			{do: "wait 2 s", advance: 2 * time.Second},
			over(chobotb.ExceedsPendingTransferAmount),
			{do: "same id to the expired hold", transfers: one(post("vp", "vh", chobotb.U64(3))), want: sts(chobotb.PendingTransferExpired)},
			{do: "again", transfers: one(post("vp", "vh", chobotb.U64(3))), want: sts(chobotb.PendingTransferExpired),
				bal: []bal{{"A", 10, 0, 0}}},
		}},
	})
}

// ---- the other claims of section 2 ----

func TestObservationsOtherClaims(t *testing.T) {
	runCases(t, []obsCase{
		{"accounts_first_missing_account_uses_up_the_id", []step{
			{do: "transfer from a missing account", transfers: one(mv("o1", "ghost", "stock", 1)),
				want: sts(chobotb.DebitAccountNotFound)},
			{do: "create the account", accounts: []chobotb.Account{acct("ghost", 0)}, want: sts(created)},
			{do: "the same id", transfers: one(mv("o1", "ghost", "stock", 1)), want: sts(chobotb.IDAlreadyFailed),
				bal: []bal{{"stock", 0, 0, 0}}},
		}},
		{"opening_with_another_amount", []step{
			{do: "opening 3", transfers: one(mv("op", "sink", "room", 3)), want: sts(created)},
			{do: "opening 4", transfers: one(mv("op", "sink", "room", 4)), want: sts(chobotb.ExistsWithDifferentAmount),
				bal: []bal{{"room", 3, 0, 0}}},
		}},
		{"debits_must_not_exceed_credits_counts_held_out_not_held_in", []step{
			{do: "put 5 into A", transfers: one(mv("w0", "supplier", "A", 5)), want: sts(created)},
			{do: "hold 3 out", transfers: one(hold("w1", "A", "B", 3, 0)), want: sts(created)},
			{do: "take 3", transfers: one(mv("w2", "A", "B", 3)), want: sts(chobotb.ExceedsCredits)},
			{do: "take 2", transfers: one(mv("w3", "A", "B", 2)), want: sts(created)},
			{do: "incoming pending 10", transfers: one(hold("w4", "supplier", "A", 10, 0)), want: sts(created)},
			{do: "take 1", transfers: one(mv("w5", "A", "B", 1)), want: sts(chobotb.ExceedsCredits),
				bal: []bal{{"A", 3, 3, 10}}},
		}},
		{"finished_hold_sent_again_is_exists", []step{
			{do: "put 5 into A", transfers: one(mv("w0", "supplier", "A", 5)), want: sts(created)},
			{do: "hold 3", transfers: one(hold("w1", "A", "B", 3, 0)), want: sts(created)},
			{do: "void", transfers: one(void("w2", "w1")), want: sts(created)},
			{do: "the hold again", transfers: one(hold("w1", "A", "B", 3, 0)), want: sts(exists),
				bal: []bal{{"A", 5, 0, 0}}},
		}},
		{"timeout_u32_max_and_timeout_on_single_phase", []step{
			{do: "put 5 into A", transfers: one(mv("w0", "supplier", "A", 5)), want: sts(created)},
			{do: "pending with timeout 4294967295", transfers: one(hold("w1", "A", "B", 1, 4294967295)), want: sts(created)},
			{do: "timeout on a single-phase transfer", transfers: one(func() chobotb.Transfer {
				t := mv("w2", "A", "B", 1)
				t.Timeout = 5
				return t
			}()), want: sts(TimeoutReservedForPendingTransfer)},
		}},
		{"exceeds_debits", []step{
			{do: "credit cnd while its debits are 0", transfers: one(mv("x1", "supplier", "cnd", 1)),
				want: sts(chobotb.ExceedsDebits)},
			{do: "debit cnd first, then credit it", transfers: chain(mv("x2", "cnd", "cust", 1), mv("x3", "supplier", "cnd", 1)),
				want: sts(created, created), bal: []bal{{"cnd", 0, 0, 0}}},
		}},
		{"accounts_must_be_different", []step{
			{do: "debit == credit", transfers: one(mv("x1", "A", "A", 1)), want: sts(chobotb.AccountsMustBeDifferent)},
		}},
		{"pending_transfer_already_voided", []step{
			{do: "put 5 into A", transfers: one(mv("w0", "supplier", "A", 5)), want: sts(created)},
			{do: "hold 3", transfers: one(hold("w1", "A", "B", 3, 0)), want: sts(created)},
			{do: "void", transfers: one(void("w2", "w1")), want: sts(created)},
			{do: "post", transfers: one(postAll("w3", "w1")), want: sts(chobotb.PendingTransferAlreadyVoided)},
			{do: "void with a new id", transfers: one(void("w4", "w1")), want: sts(chobotb.PendingTransferAlreadyVoided)},
		}},
	})
}

// E060: a 253-event chain is taken; 254 events are refused by the client
// before anything is sent, with the Go client's wording.
func TestObservationRequestLimit(t *testing.T) {
	ctx := context.Background()
	m := newUniverse(t)
	var ts []chobotb.Transfer
	for i := 0; i <= chobotb.MaxEvents; i++ {
		ts = append(ts, mv(fmt.Sprint("e", i), "supplier", "cust", 1))
	}
	got, err := m.CreateTransfers(ctx, chain(ts[:chobotb.MaxEvents]...))
	if err != nil || !slices.Equal(got, repeat(created, chobotb.MaxEvents)) {
		t.Fatalf("253 linked: %v %v", got, err)
	}
	before := m.Now()
	_, err = m.CreateTransfers(ctx, chain(append(ts[1:], mv("e-last", "supplier", "cust", 1))...))
	if err == nil || err.Error() != "too much data was sent or requested in this batch" || !errors.Is(err, ErrTooMuchData) {
		t.Fatalf("254 linked: err = %v", err)
	}
	if m.Now() != before {
		t.Fatal("a refused request moved the clock")
	}
	if _, ok := m.Transfer(id("e-last")); ok {
		t.Fatal("a refused request was applied")
	}

	var as []chobotb.Account
	for i := 0; i <= chobotb.MaxEvents; i++ {
		as = append(as, acct(fmt.Sprint("acct", i), 0))
	}
	if got, err := m.CreateAccounts(ctx, as[:chobotb.MaxEvents]); err != nil || !slices.Equal(got, repeat(created, chobotb.MaxEvents)) {
		t.Fatalf("253 accounts: %v %v", got, err)
	}
	if _, err := m.CreateAccounts(ctx, as); !errors.Is(err, ErrTooMuchData) {
		t.Fatalf("254 accounts: err = %v", err)
	}
	many := make([]ids.ID, chobotb.MaxEvents+1)
	if _, err := m.LookupAccounts(ctx, many); !errors.Is(err, ErrTooMuchData) {
		t.Fatalf("254 lookups: err = %v", err)
	}
}

// ---- the model's own rules, from TigerBeetle's source ----

func TestModelRules(t *testing.T) {
	runCases(t, []obsCase{
		{"chain_left_open", []step{
			{do: "last event linked", transfers: func() []chobotb.Transfer {
				c := chain(mv("n1", "supplier", "cust", 1), mv("n2", "supplier", "cust", 1))
				c[1].Flags |= chobotb.TransferLinked
				return c
			}(), want: sts(lef, LinkedEventChainOpen), bal: []bal{{"cust", 0, 0, 0}}, missing: []string{"n1", "n2"}},
			{do: "the ids are free", transfers: one(mv("n1", "supplier", "cust", 1)), want: sts(created)},
		}},
		{"chains_are_independent_in_one_request", []step{
			{do: "ok chain, failing chain, single", transfers: append(append(
				chain(mv("n1", "supplier", "cust", 1), mv("n2", "supplier", "cust", 1)),
				chain(mv("n3", "supplier", "cust", 1), mv("n4", "A", "cust", 1))...),
				mv("n5", "supplier", "cust", 1)),
				want: sts(created, created, lef, chobotb.ExceedsCredits, created), bal: []bal{{"cust", 3, 0, 0}}},
		}},
		{"later_events_of_a_broken_chain", []step{
			{do: "failure in the middle", transfers: chain(mv("n1", "supplier", "cust", 1), mv("n2", "A", "cust", 1),
				mv("n3", "supplier", "cust", 1)),
				want: sts(lef, chobotb.ExceedsCredits, lef), bal: []bal{{"cust", 0, 0, 0}}},
			{do: "only the refused id is used up", transfers: []chobotb.Transfer{mv("n3", "supplier", "cust", 1),
				mv("n1", "supplier", "cust", 1), mv("n2", "supplier", "cust", 1)},
				want: sts(created, created, chobotb.IDAlreadyFailed)},
		}},
		// The clock reads the hold's timestamp after the hold's request, and
		// the next event comes 1 ns after the clock.
		{"deadline_itself_is_expired", []step{
			{do: "pulse held back", act: pulseOff},
			{do: "hold, timeout 1 s", transfers: one(hold("d1", "supplier", "cust", 1, 1)), want: sts(created)},
			{do: "post exactly at the deadline", advance: time.Second - 1, transfers: one(postAll("d2", "d1")),
				want: sts(chobotb.PendingTransferExpired), bal: []bal{{"cust", 0, 0, 1}}},
		}},
		{"one_ns_before_the_deadline_posts", []step{
			{do: "pulse held back", act: pulseOff},
			{do: "hold, timeout 1 s", transfers: one(hold("d1", "supplier", "cust", 1, 1)), want: sts(created)},
			{do: "post 1 ns before the deadline", advance: time.Second - 2, transfers: one(postAll("d2", "d1")),
				want: sts(created), bal: []bal{{"cust", 1, 0, 0}}},
		}},
		{"pulse_releases_at_the_deadline", []step{
			{do: "hold, timeout 1 s", transfers: one(hold("d1", "supplier", "cust", 1, 1)), want: sts(created)},
			{do: "1 ns before", advance: time.Second - 1, bal: []bal{{"cust", 0, 0, 1}}},
			{do: "at the deadline", advance: 1, bal: []bal{{"cust", 0, 0, 0}, {"supplier", 0, 0, 0}}},
		}},
		{"transient_refusals_use_up_the_id", []step{
			{do: "credit_account_not_found", transfers: one(mv("t1", "supplier", "ghost", 1)), want: sts(chobotb.CreditAccountNotFound)},
			{do: "exceeds_debits", transfers: one(mv("t2", "supplier", "cnd", 1)), want: sts(chobotb.ExceedsDebits)},
			{do: "pending_transfer_not_found", transfers: one(void("t3", "nohold")), want: sts(chobotb.PendingTransferNotFound)},
			{do: "every one is id_already_failed, whatever the content", transfers: []chobotb.Transfer{
				mv("t1", "supplier", "cust", 1), mv("t2", "supplier", "cust", 1), mv("t3", "supplier", "cust", 1)},
				want: repeat(chobotb.IDAlreadyFailed, 3), missing: []string{"t1", "t2", "t3"}},
		}},
		{"other_refusals_leave_the_id_free", []step{
			{do: "put 5 into A; hold 3", transfers: []chobotb.Transfer{mv("f0", "supplier", "A", 5), hold("fh", "A", "B", 3, 0)},
				want: sts(created, created)},
			{do: "accounts_must_be_different, exceeds_pending_transfer_amount, pending_transfer_has_different_amount",
				transfers: []chobotb.Transfer{mv("f1", "A", "A", 1), post("f2", "fh", chobotb.U64(4)),
					func() chobotb.Transfer { v := void("f3", "fh"); v.Amount = chobotb.U64(1); return v }()},
				want: sts(chobotb.AccountsMustBeDifferent, chobotb.ExceedsPendingTransferAmount, PendingTransferHasDifferentAmount)},
			{do: "the same ids, right this time", transfers: []chobotb.Transfer{mv("f1", "A", "B", 1), post("f2", "fh", chobotb.U64(2)),
				void("f3", "f2")},
				want: sts(created, created, PendingTransferNotPending), bal: []bal{{"A", 2, 0, 0}, {"B", 3, 0, 0}}},
		}},
		{"post_takes_zero_fields_from_the_hold", []step{
			{do: "hold with user data", transfers: one(withUD(hold("z1", "supplier", "cust", 5, 0), "ud")), want: sts(created)},
			{do: "post 2 with zero fields", transfers: one(post("z2", "z1", chobotb.U64(2))), want: sts(created),
				bal: []bal{{"cust", 2, 0, 0}, {"supplier", -2, 0, 0}},
				check: func(t *testing.T, m *Model) {
					got, _ := m.Transfer(id("z2"))
					want := chobotb.Transfer{ID: id("z2"), DebitAccountID: id("supplier"), CreditAccountID: id("cust"),
						Amount: chobotb.U64(2), PendingID: id("z1"), UserData128: id("ud"), Ledger: ledger, Code: code,
						Flags: chobotb.TransferPostPending, Timestamp: got.Timestamp}
					if got != want || got.Timestamp == 0 {
						t.Fatalf("post = %+v, want %+v", got, want)
					}
				}},
			{do: "retry with the accounts written out", transfers: one(func() chobotb.Transfer {
				p := post("z2", "z1", chobotb.U64(2))
				p.DebitAccountID, p.CreditAccountID, p.Ledger, p.Code = id("supplier"), id("cust"), ledger, code
				return p
			}()), want: sts(exists)},
			{do: "retry naming another debit account", transfers: one(func() chobotb.Transfer {
				p := post("z2", "z1", chobotb.U64(2))
				p.DebitAccountID = id("A")
				return p
			}()), want: sts(chobotb.ExistsWithDifferentDebitAccount)},
			{do: "a new post naming another account", transfers: one(func() chobotb.Transfer {
				p := post("z3", "z1", chobotb.U64(2))
				p.CreditAccountID = id("A")
				return p
			}()), want: sts(PendingTransferHasDifferentCreditAccount)},
		}},
		{"post_amount_zero_posts_nothing", []step{
			{do: "hold 5", transfers: one(hold("z1", "supplier", "cust", 5, 0)), want: sts(created)},
			{do: "post 0", transfers: one(post("z2", "z1", chobotb.U64(0))), want: sts(created),
				bal: []bal{{"cust", 0, 0, 0}, {"supplier", 0, 0, 0}}},
		}},
		{"retry_compared_in_tigerbeetles_order", []step{
			{do: "a transfer", transfers: one(mv("y1", "supplier", "cust", 5)), want: sts(created)},
			{do: "flags before everything", transfers: one(func() chobotb.Transfer {
				t := withUD(mv("y1", "B", "C", 6), "x")
				t.Flags = chobotb.TransferPending
				return t
			}()), want: sts(chobotb.ExistsWithDifferentFlags)},
			{do: "debit account before amount", transfers: one(mv("y1", "B", "cust", 6)), want: sts(chobotb.ExistsWithDifferentDebitAccount)},
			{do: "credit account before amount", transfers: one(mv("y1", "supplier", "C", 6)), want: sts(chobotb.ExistsWithDifferentCreditAccount)},
			{do: "amount before user data", transfers: one(withUD(mv("y1", "supplier", "cust", 6), "x")), want: sts(chobotb.ExistsWithDifferentAmount)},
			{do: "user data before ledger", transfers: one(func() chobotb.Transfer {
				t := withUD(mv("y1", "supplier", "cust", 5), "x")
				t.Ledger = 2
				return t
			}()), want: sts(chobotb.ExistsWithDifferentUserData128)},
			{do: "ledger before code", transfers: one(func() chobotb.Transfer {
				t := mv("y1", "supplier", "cust", 5)
				t.Ledger, t.Code = 2, 2
				return t
			}()), want: sts(chobotb.ExistsWithDifferentLedger)},
			{do: "code", transfers: one(func() chobotb.Transfer {
				t := mv("y1", "supplier", "cust", 5)
				t.Code = 2
				return t
			}()), want: sts(chobotb.ExistsWithDifferentCode)},
			{do: "an existing id is compared before the accounts are checked", transfers: one(mv("y1", "A", "A", 5)),
				want: sts(chobotb.ExistsWithDifferentDebitAccount)},
		}},
		{"hold_retry_timeout_and_pending_id", []step{
			{do: "hold", transfers: one(hold("y1", "supplier", "cust", 5, 10)), want: sts(created)},
			{do: "timeout differs", transfers: one(hold("y1", "supplier", "cust", 6, 11)), want: sts(chobotb.ExistsWithDifferentTimeout)},
			{do: "post, then its pending id differs", transfers: one(postAll("y2", "y1")), want: sts(created)},
			{do: "pending id differs", transfers: one(postAll("y2", "y9")), want: sts(chobotb.ExistsWithDifferentPendingID)},
		}},
		{"overflow", []step{
			{do: "amount_max into cust", transfers: one(func() chobotb.Transfer {
				t := mv("ov1", "supplier", "cust", 0)
				t.Amount = chobotb.AmountMax
				return t
			}()), want: sts(created)},
			{do: "1 more", transfers: one(mv("ov2", "supplier", "cust", 1)), want: sts(OverflowsDebitsPosted)},
			{do: "1 more, pending: posted is checked for pending transfers too", transfers: one(hold("ov3", "supplier", "cust", 1, 0)),
				want: sts(OverflowsDebitsPosted)},
			{do: "B: 2^127 held out, 2^127-1 posted out", transfers: []chobotb.Transfer{
				func() chobotb.Transfer {
					t := hold("ov4", "B", "C", 0, 0)
					t.Amount = chobotb.U128{Hi: 1 << 63}
					return t
				}(),
				func() chobotb.Transfer {
					t := mv("ov5", "B", "C", 0)
					t.Amount = chobotb.U128{Hi: 1<<63 - 1, Lo: ^uint64(0)}
					return t
				}(),
			}, want: sts(created, created)},
			{do: "1 more out of B", transfers: one(mv("ov6", "B", "sink", 1)), want: sts(OverflowsDebits)},
		}},
		{"validation", []step{
			{do: "zero ids, zero ledger, pending id on a plain transfer, void of itself", transfers: []chobotb.Transfer{
				mv("", "supplier", "cust", 1),
				{ID: id("v1"), CreditAccountID: id("cust"), Amount: chobotb.U64(1), Ledger: ledger, Code: code},
				func() chobotb.Transfer { t := mv("v2", "supplier", "cust", 1); t.Ledger = 0; return t }(),
				func() chobotb.Transfer { t := mv("v3", "supplier", "cust", 1); t.PendingID = id("x"); return t }(),
				void("v4", "v4"),
				func() chobotb.Transfer { t := mv("v5", "supplier", "cust", 1); t.Timestamp = 1; return t }(),
				func() chobotb.Transfer { t := mv("v6", "supplier", "cust", 1); t.Flags = 1 << 12; return t }(),
				func() chobotb.Transfer { t := mv("v7", "supplier", "cust", 1); t.Ledger = 2; return t }(),
			}, want: sts(created, DebitAccountIDMustNotBeZero, LedgerMustNotBeZero, PendingIDMustBeZero,
				PendingIDMustBeDifferent, TimestampMustBeZero, ReservedFlag, TransferMustHaveTheSameLedgerAsAccounts)},
		}},
	})
}

// mv("") has the id of the empty name, not zero; the zero id is checked here.
func TestZeroAndMaxIDs(t *testing.T) {
	m := newUniverse(t)
	zero := mv("z", "supplier", "cust", 1)
	zero.ID = ids.ID{}
	max := mv("z", "supplier", "cust", 1)
	max.ID = intMax
	got, err := m.CreateTransfers(context.Background(), []chobotb.Transfer{zero, max})
	if err != nil || !slices.Equal(got, sts(IDMustNotBeZero, IDMustNotBeIntMax)) {
		t.Fatalf("got %v %v", got, err)
	}
}

func TestCreateAccountsRules(t *testing.T) {
	withBal := func(name string, f func(*chobotb.Account)) chobotb.Account {
		a := acct(name, 0)
		f(&a)
		return a
	}
	runCases(t, []obsCase{
		{"exists_with_different_in_tigerbeetles_order", []step{
			{do: "create", accounts: []chobotb.Account{acct("n", dnec)}, want: sts(created)},
			{do: "flags first", accounts: []chobotb.Account{func() chobotb.Account {
				a := acct("n", 0)
				a.UserData128, a.Ledger, a.Code = id("u"), 2, 2
				return a
			}()}, want: sts(chobotb.ExistsWithDifferentFlags)},
			{do: "user data before ledger", accounts: []chobotb.Account{func() chobotb.Account {
				a := acct("n", dnec)
				a.UserData128, a.Ledger, a.Code = id("u"), 2, 2
				return a
			}()}, want: sts(chobotb.ExistsWithDifferentUserData128)},
			{do: "ledger before code", accounts: []chobotb.Account{func() chobotb.Account {
				a := acct("n", dnec)
				a.Ledger, a.Code = 2, 2
				return a
			}()}, want: sts(chobotb.ExistsWithDifferentLedger)},
			{do: "code", accounts: []chobotb.Account{func() chobotb.Account {
				a := acct("n", dnec)
				a.Code = 2
				return a
			}()}, want: sts(chobotb.ExistsWithDifferentCode)},
			{do: "an existing account is compared before its balances", accounts: []chobotb.Account{
				withBal("n", func(a *chobotb.Account) { a.Flags = dnec; a.CreditsPosted = chobotb.U64(1) })},
				want: sts(exists)},
		}},
		{"balances_timestamp_and_flags_on_create", []step{
			{do: "non-zero fields", accounts: []chobotb.Account{
				withBal("b1", func(a *chobotb.Account) { a.DebitsPending = chobotb.U64(1) }),
				withBal("b2", func(a *chobotb.Account) { a.DebitsPosted = chobotb.U64(1) }),
				withBal("b3", func(a *chobotb.Account) { a.CreditsPending = chobotb.U64(1) }),
				withBal("b4", func(a *chobotb.Account) { a.CreditsPosted = chobotb.U64(1) }),
				withBal("b5", func(a *chobotb.Account) { a.Timestamp = 1 }),
				withBal("b6", func(a *chobotb.Account) { a.Flags = dnec | cned }),
				withBal("b7", func(a *chobotb.Account) { a.Ledger = 0 }),
				withBal("b8", func(a *chobotb.Account) { a.Code = 0 }),
				withBal("b9", func(a *chobotb.Account) { a.Flags = 1 << 9 }),
			}, want: sts(DebitsPendingMustBeZero, DebitsPostedMustBeZero, CreditsPendingMustBeZero,
				CreditsPostedMustBeZero, TimestampMustBeZero, FlagsAreMutuallyExclusive, LedgerMustNotBeZero,
				CodeMustNotBeZero, ReservedFlag)},
			{do: "none was created", accounts: []chobotb.Account{acct("b1", 0), acct("b5", 0)}, want: sts(created, created)},
		}},
		{"linked_accounts", []step{
			{do: "a chain with a failing account", accounts: []chobotb.Account{
				func() chobotb.Account { a := acct("k1", 0); a.Flags |= chobotb.AccountLinked; return a }(),
				withBal("k2", func(a *chobotb.Account) { a.Code = 0 }),
			}, want: sts(lef, CodeMustNotBeZero)},
			{do: "k1 was not created", accounts: []chobotb.Account{acct("k1", 0)}, want: sts(created)},
		}},
	})
}

func TestLookups(t *testing.T) {
	ctx := context.Background()
	m := newUniverse(t)
	if _, err := m.CreateTransfers(ctx, []chobotb.Transfer{mv("t1", "supplier", "cust", 1), mv("t2", "supplier", "B", 2)}); err != nil {
		t.Fatal(err)
	}
	as, err := m.LookupAccounts(ctx, []ids.ID{id("B"), id("nobody"), id("cust"), id("B")})
	if err != nil || len(as) != 3 || as[0].ID != id("B") || as[1].ID != id("cust") || as[2].ID != id("B") ||
		as[0].CreditsPosted != chobotb.U64(2) || as[0].Timestamp == 0 {
		t.Fatalf("lookup_accounts = %+v %v", as, err)
	}
	ts, err := m.LookupTransfers(ctx, []ids.ID{id("t2"), id("nothing"), id("t1")})
	if err != nil || len(ts) != 2 || ts[0].ID != id("t2") || ts[1].ID != id("t1") {
		t.Fatalf("lookup_transfers = %+v %v", ts, err)
	}
	if !(ts[1].Timestamp < ts[0].Timestamp) {
		t.Fatalf("timestamps not increasing: %d then %d", ts[1].Timestamp, ts[0].Timestamp)
	}
	if got, err := m.LookupTransfers(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("empty lookup: %v %v", got, err)
	}
}

func TestClock(t *testing.T) {
	m := New()
	if m.Now() != Start {
		t.Fatalf("Now = %d, want %d", m.Now(), Start)
	}
	m.Advance(time.Second)
	if m.Now() != Start+uint64(time.Second) {
		t.Fatalf("Now = %d", m.Now())
	}
	if _, err := m.CreateAccounts(context.Background(), []chobotb.Account{acct("a", 0), acct("b", 0)}); err != nil {
		t.Fatal(err)
	}
	a, _ := m.Account(id("a"))
	b, _ := m.Account(id("b"))
	if a.Timestamp != Start+uint64(time.Second)+1 || b.Timestamp != a.Timestamp+1 || m.Now() != b.Timestamp {
		t.Fatalf("timestamps %d %d, clock %d", a.Timestamp, b.Timestamp, m.Now())
	}
}

func TestContextDoneAndNotModelled(t *testing.T) {
	m := newUniverse(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.CreateTransfers(ctx, one(mv("c1", "supplier", "cust", 1))); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if _, ok := m.Transfer(id("c1")); ok {
		t.Fatal("applied with a done context")
	}
	bal := chobotb.Transfer{ID: id("c2"), PendingID: id("c1"), Flags: chobotb.TransferVoidPending | 1<<4} // balancing_debit
	if _, err := m.CreateTransfers(context.Background(), one(bal)); !errors.Is(err, ErrNotModelled) {
		t.Fatalf("err = %v", err)
	}
}

func TestRecordingAndHook(t *testing.T) {
	ctx := context.Background()
	m := newUniverse(t)
	var hooked []Op
	m.SetHook(func(r Request) { hooked = append(hooked, r.Op) })
	rec := NewRecorder(m)
	if _, err := rec.CreateTransfers(ctx, chain(mv("r1", "supplier", "cust", 1), mv("r2", "A", "cust", 1))); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.LookupAccounts(ctx, []ids.ID{id("cust")}); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.LookupTransfers(ctx, []ids.ID{id("r1")}); err != nil {
		t.Fatal(err)
	}
	for _, log := range [][]Request{m.Requests(), rec.Requests()} {
		if len(log) != 3 || log[0].Op != OpCreateTransfers || log[0].Events() != 2 ||
			!slices.Equal(log[0].Statuses, sts(lef, chobotb.ExceedsCredits)) ||
			log[0].Transfers[1].ID != id("r2") || len(log[1].FoundAccounts) != 1 || len(log[2].FoundTransfers) != 0 {
			t.Fatalf("log = %+v", log)
		}
	}
	if m.Count(OpCreateTransfers) != 1 || m.Count("") != 3 || rec.Count(OpLookupAccounts) != 1 {
		t.Fatal("counts")
	}
	if !slices.Equal(hooked, []Op{OpCreateTransfers, OpLookupAccounts, OpLookupTransfers}) {
		t.Fatalf("hook saw %v", hooked)
	}
	rec.Reset()
	m.ResetRequests()
	if rec.Count("") != 0 || m.Count("") != 0 {
		t.Fatal("reset")
	}
}

// TigerBeetle applies requests one at a time; so does the model.
func TestConcurrentRequests(t *testing.T) {
	ctx := context.Background()
	m := newUniverse(t)
	if _, err := m.CreateTransfers(ctx, one(mv("seed", "supplier", "A", 100))); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	createdN := 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				st, err := m.CreateTransfers(ctx, chain(
					mv(fmt.Sprint("g", g, "-", i, "a"), "A", "B", 1),
					mv(fmt.Sprint("g", g, "-", i, "b"), "B", "cust", 1)))
				if err != nil {
					t.Error(err)
					return
				}
				if st[0] == created {
					mu.Lock()
					createdN++
					mu.Unlock()
				}
				if _, err := m.LookupAccounts(ctx, []ids.ID{id("A")}); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	a, _ := m.Account(id("A"))
	if createdN != 100 || a.DebitsPosted != chobotb.U64(100) || a.CreditsPosted != chobotb.U64(100) {
		t.Fatalf("created %d chains, A = %+v", createdN, a)
	}
}
