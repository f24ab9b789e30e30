package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tb "github.com/tigerbeetle/tigerbeetle-go"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbmodel"
)

// What a reader of a ledger's history gets from TigerBeetle: the
// transfers get_account_transfers answers for a book's account after a
// call of each kind, and the balances get_account_balances answers when
// the account has the history flag. These are the records the reads of
// chobotb decode (docs/targets.md, "Reading history on TigerBeetle");
// the test holds the facts they rest on.

// historyTBBook has a wallet whose bounds need every kind of helper
// event a move of chobo's can bring: a probe for its lower bound above 0
// and a room for its upper bound; and a hold that expires after a second.
const historyTBBook = `book hist v1

unit USD scale 2

account wallet(card: string) : USD
  at least 1 refused as keep_a_dollar
  at most 1000 refused as card_limit
account bank : USD outside
account merchants : USD outside
account fees : USD outside

transfer top_up(top_up_id: string, card: string, amount: USD)
  key top_up_id
  move amount from bank to wallet(card)

transfer payment(payment_id: string, card: string, price: USD, fee: USD)
  key payment_id
  pending expires after 1 second
  move price from wallet(card) to merchants
  move fee from wallet(card) to fees
`

// historyFlag is TigerBeetle's account flag that keeps an account's
// balance after every transfer, for get_account_balances.
var historyFlag = tb.AccountFlags{History: true}.ToUint16()

// tbRecorder sends chobo's requests for one tenant as a book would
// (accounts, openings, the chain and its key guard in one request), with
// or without the history flag on every account it creates, and names
// each account it created, so that a record can be written with names.
type tbRecorder struct {
	t       *testing.T
	ctx     context.Context
	c       chobotb.Client
	def     *chobotb.Def
	tenant  string
	history bool
	names   map[ids.ID]string
}

func (r *tbRecorder) call(kind int, op string, vals ...any) []chobotb.Status {
	r.t.Helper()
	p, err := r.def.Build(r.tenant, kind, op, chobotb.Values(vals))
	if err != nil {
		r.t.Fatal(err)
	}
	accounts := append([]chobotb.Account(nil), p.Accounts...)
	for i := range accounts {
		if r.history {
			accounts[i].Flags |= historyFlag
		}
		r.names[accounts[i].ID] = p.Names[i]
	}
	if st, err := r.c.CreateAccounts(r.ctx, accounts); err != nil {
		r.t.Fatal(err)
	} else {
		for i, s := range st {
			if s != chobotb.Created && s != chobotb.Exists {
				r.t.Fatalf("account %s: %s", p.Names[i], s)
			}
		}
	}
	if len(p.Openings) > 0 {
		if _, err := r.c.CreateTransfers(r.ctx, p.Openings); err != nil {
			r.t.Fatal(err)
		}
	}
	return r.send(p.Chain)
}

func (r *tbRecorder) finish(kind int, op string, key []string, amounts []uint64) []chobotb.Status {
	r.t.Helper()
	chain, err := r.def.Finish(r.tenant, kind, op, key, amounts)
	if err != nil {
		r.t.Fatal(err)
	}
	return r.send(chain)
}

func (r *tbRecorder) send(chain []chobotb.Event) []chobotb.Status {
	r.t.Helper()
	ts := make([]chobotb.Transfer, len(chain))
	for i, e := range chain {
		ts[i] = e.Transfer
	}
	st, err := r.c.CreateTransfers(r.ctx, ts)
	if err != nil {
		r.t.Fatal(err)
	}
	return st
}

func (r *tbRecorder) name(id tb.Uint128) string {
	if n, ok := r.names[tbgo.IDFromTB(id)]; ok {
		return n
	}
	if id == (tb.Uint128{}) {
		return "-"
	}
	return "?" + tbgo.IDFromTB(id).Hex()[:8]
}

// transferLine writes one record as a reader sees it: times from the
// first record, accounts by name, every field chobo could read a meaning
// from.
func (r *tbRecorder) transferLine(t tb.Transfer, t0 uint64) string {
	f := t.TransferFlags()
	var flags []string
	for _, x := range []struct {
		on   bool
		name string
	}{{f.Linked, "linked"}, {f.Pending, "pending"}, {f.PostPendingTransfer, "post"}, {f.VoidPendingTransfer, "void"}} {
		if x.on {
			flags = append(flags, x.name)
		}
	}
	pending := "-"
	if t.PendingID != (tb.Uint128{}) {
		pending = tbgo.IDFromTB(t.PendingID).Hex()[:8]
	}
	return fmt.Sprintf("+%13dns id=%s %s -> %s amount=%s pending_id=%s ud128=%s ud64=%x ud32=%d timeout=%d ledger=%d code=%d flags=[%s]",
		t.Timestamp-t0, tbgo.IDFromTB(t.ID).Hex()[:8], r.name(t.DebitAccountID), r.name(t.CreditAccountID),
		tbgo.ToU128(t.Amount), pending, tbgo.IDFromTB(t.UserData128).Hex()[:8], t.UserData64, t.UserData32,
		t.Timeout, t.Ledger, t.Code, strings.Join(flags, ","))
}

func TestTigerBeetleHistoryRawRecords(t *testing.T) {
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	conn, err := srv.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	raw := conn.Raw()
	res := check.Check("hist.book", []byte(historyTBBook))
	if res.Book == nil {
		t.Fatalf("the book does not check: %v", res.Diags)
	}
	def := tigerbeetle.Def(res.Book)
	topUp, payment := kindIndex(t, def, "top_up"), kindIndex(t, def, "payment")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	for _, history := range []bool{false, true} {
		tenant := "plain"
		if history {
			tenant = "history"
		}
		r := &tbRecorder{t: t, ctx: ctx, c: conn, def: def, tenant: tenant, history: history, names: map[ids.ID]string{}}
		wallet := tbgo.IDToTB(ids.Account(def.Book, tenant, "wallet", "c-1"))
		want := func(what string, got []chobotb.Status, first chobotb.Status) {
			t.Helper()
			if len(got) == 0 || got[0] != first {
				t.Fatalf("%s: %v, want %s first", what, got, first)
			}
		}
		want("top_up t-1", r.call(topUp, "do", "t-1", "c-1", int64(1000)), chobotb.Created)
		want("hold p-1", r.call(payment, "hold", "p-1", "c-1", int64(300), int64(5)), chobotb.Created)
		want("post p-1 in part", r.finish(payment, "post", []string{"p-1"}, []uint64{200, 5}), chobotb.Created)
		want("hold p-2", r.call(payment, "hold", "p-2", "c-1", int64(100), int64(1)), chobotb.Created)
		want("void p-2", r.finish(payment, "void", []string{"p-2"}, nil), chobotb.Created)
		// A refused call leaves nothing a reader can see.
		want("hold p-9 refused", r.call(payment, "hold", "p-9", "c-1", int64(5000), int64(1)), chobotb.ExceedsCredits)
		want("hold p-3", r.call(payment, "hold", "p-3", "c-1", int64(50), int64(1)), chobotb.Created)
		if a, err := raw.LookupAccounts([]tb.Uint128{wallet}); err != nil || len(a) != 1 || tbgo.ToU128(a[0].DebitsPending) != chobotb.U64(51) {
			t.Fatalf("wallet before p-3 expires: %v, %v; want 51 pending", a, err)
		}
		// p-3 expires after 1 s; the replica releases it within its pulse.
		deadline := time.Now().Add(10 * time.Second)
		for {
			time.Sleep(200 * time.Millisecond)
			a, err := raw.LookupAccounts([]tb.Uint128{wallet})
			if err != nil || len(a) != 1 {
				t.Fatalf("wallet: %v, %v", a, err)
			}
			if tbgo.ToU128(a[0].DebitsPending).IsZero() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("p-3 was not released 10 s after it was held")
			}
		}
		want("top_up t-2 after the expiry", r.call(topUp, "do", "t-2", "c-1", int64(10)), chobotb.Created)

		filter := tb.AccountFilter{AccountID: wallet, Limit: 8000,
			Flags: tb.AccountFilterFlags{Debits: true, Credits: true}.ToUint32()}
		transfers, err := raw.GetAccountTransfers(filter)
		if err != nil {
			t.Fatal(err)
		}
		balances, err := raw.GetAccountBalances(filter)
		if err != nil {
			t.Fatal(err)
		}
		var t0 uint64
		if len(transfers) > 0 {
			t0 = transfers[0].Timestamp
		}
		var b strings.Builder
		fmt.Fprintf(&b, "tenant %s, history flag %v: %d transfers, %d balances\n", tenant, history, len(transfers), len(balances))
		for _, x := range transfers {
			fmt.Fprintln(&b, "  "+r.transferLine(x, t0))
		}
		for _, x := range balances {
			fmt.Fprintf(&b, "  balance +%13dns debits posted %s pending %s, credits posted %s pending %s\n", x.Timestamp-t0,
				tbgo.ToU128(x.DebitsPosted), tbgo.ToU128(x.DebitsPending), tbgo.ToU128(x.CreditsPosted), tbgo.ToU128(x.CreditsPending))
		}
		t.Log("\n" + b.String())

		// The facts the design rests on.
		// t-1 and t-2 write their move; each hold its two moves, each with
		// a probe of the lower bound and the probe's void; the post and
		// the void end two moves each; the refused hold writes nothing,
		// and neither does the expiry of p-3. The room events never touch
		// the wallet.
		if len(transfers) != 2+3*6+2+2 {
			t.Fatalf("%d transfers on the wallet, want 24", len(transfers))
		}
		sink := tbgo.IDToTB(ids.Sink(def.Book, tenant, "USD"))
		var moves, helpers, ends int
		byID := map[tb.Uint128]tb.Transfer{}
		for i, x := range transfers {
			byID[x.ID] = x
			if i > 0 && x.Timestamp <= transfers[i-1].Timestamp {
				t.Errorf("timestamps do not grow: %d after %d", x.Timestamp, transfers[i-1].Timestamp)
			}
			f := x.TransferFlags()
			switch {
			case x.DebitAccountID == sink || x.CreditAccountID == sink:
				helpers++
			case f.PostPendingTransfer || f.VoidPendingTransfer:
				ends++
				// A post or a void is kept with what it takes from its
				// hold: accounts, ledger, code and user_data_64.
				h, ok := byID[x.PendingID]
				if !ok || x.DebitAccountID != h.DebitAccountID || x.CreditAccountID != h.CreditAccountID ||
					x.Ledger != h.Ledger || x.Code != h.Code || x.UserData64 != h.UserData64 || x.UserData64 == 0 {
					t.Errorf("an end not kept with its hold's fields: %s", r.transferLine(x, t0))
				}
				if f.VoidPendingTransfer && x.Amount != h.Amount {
					t.Errorf("a void kept with amount %s, its hold %s", tbgo.ToU128(x.Amount), tbgo.ToU128(h.Amount))
				}
			default:
				moves++
			}
		}
		if moves != 8 || helpers != 12 || ends != 4 {
			t.Errorf("moves and holds %d, helpers %d, ends %d; want 8, 12, 4", moves, helpers, ends)
		}
		// The post in part is kept with the part it posts.
		post := byID[tbgo.IDToTB(ids.Transfer(def.Book, tenant, "payment", "post", []string{"p-1"}, 0))]
		if tbgo.ToU128(post.Amount) != chobotb.U64(200) {
			t.Errorf("the post of p-1's first move: amount %s, want 200", tbgo.ToU128(post.Amount))
		}
		// p-3 expired: its moves are there as holds, and nothing refers to them.
		held, err := def.MoveIDs(tenant, payment, []string{"p-3"})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range held {
			h, ok := byID[tbgo.IDToTB(id)]
			if !ok || !h.TransferFlags().Pending || h.Timeout != 1 {
				t.Errorf("p-3's move %s: %+v", id.Hex()[:8], h)
			}
			for _, x := range transfers {
				if x.PendingID == tbgo.IDToTB(id) {
					t.Errorf("a record refers to p-3's expired move: %s", r.transferLine(x, t0))
				}
			}
		}
		// The history flag: balances only with it, one per transfer, and
		// none for the expiry.
		if !history && len(balances) != 0 {
			t.Errorf("balances without the history flag: %d", len(balances))
		}
		if history && len(balances) != len(transfers) {
			t.Errorf("balances with the history flag: %d for %d transfers", len(balances), len(transfers))
		}
		for i := range balances {
			if history && i < len(transfers) && balances[i].Timestamp != transfers[i].Timestamp {
				t.Errorf("balance %d kept at %d, its transfer at %d", i, balances[i].Timestamp, transfers[i].Timestamp)
			}
		}
		// The balance after t-2, the first transfer after the expiry, has
		// p-3 released already.
		if history && len(balances) > 0 {
			last := balances[len(balances)-1]
			if !tbgo.ToU128(last.DebitsPending).IsZero() {
				t.Errorf("after the expiry and t-2: debits pending %s, want 0", tbgo.ToU128(last.DebitsPending))
			}
			if p := tbgo.ToU128(balances[len(balances)-2].DebitsPending); p.IsZero() {
				t.Errorf("the balance kept with p-3 held: debits pending 0, want p-3's 51")
			}
		}
	}
}

// TestTigerBeetleHistoryFlagCost measures what the history flag costs:
// requests of 253 transfers between accounts that have it, against
// accounts that have not, taking turns request by request on the same
// replica. It prints the medians, the means and their ratios, and
// asserts nothing about time.
func TestTigerBeetleHistoryFlagCost(t *testing.T) {
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	conn, err := srv.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	raw := conn.Raw()
	const accounts, batches, rounds = 64, 10, 8
	ledger := uint32(7)
	open := func(base uint64, flags uint16) []tb.Uint128 {
		var list []tb.Account
		var out []tb.Uint128
		for i := uint64(0); i < accounts; i++ {
			id := tb.ToUint128(base + i)
			list = append(list, tb.Account{ID: id, Ledger: ledger, Code: 1, Flags: flags})
			out = append(out, id)
		}
		res, err := raw.CreateAccounts(list)
		if err != nil || len(res) != len(list) {
			t.Fatalf("accounts: %v, %v", res, err)
		}
		return out
	}
	plain, kept := open(1_000_000, 0), open(2_000_000, historyFlag)
	next := uint64(10_000_000)
	// request sends one request of 253 transfers between the accounts
	// and answers how long it took.
	request := func(acc []tb.Uint128) time.Duration {
		ts := make([]tb.Transfer, chobotb.MaxEvents)
		for i := range ts {
			next++
			ts[i] = tb.Transfer{ID: tb.ToUint128(next), DebitAccountID: acc[i%accounts],
				CreditAccountID: acc[(i*7+1)%accounts], Amount: tb.ToUint128(1), Ledger: ledger, Code: 1}
			if ts[i].DebitAccountID == ts[i].CreditAccountID {
				ts[i].CreditAccountID = acc[(i+1)%accounts]
			}
		}
		start := time.Now()
		res, err := raw.CreateTransfers(ts)
		elapsed := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Status != tb.TransferCreated {
				t.Fatalf("transfer: %v", r)
			}
		}
		return elapsed
	}
	for range batches { // warm up both kinds of account
		request(plain)
		request(kept)
	}
	// The answer of a create gives each transfer created its timestamp,
	// the one a later read of the account is ordered and filtered by.
	one := tb.Transfer{ID: tb.ToUint128(next + 1), DebitAccountID: plain[0], CreditAccountID: plain[1],
		Amount: tb.ToUint128(1), Ledger: ledger, Code: 1}
	next++
	res, err := raw.CreateTransfers([]tb.Transfer{one})
	if err != nil || len(res) != 1 || res[0].Status != tb.TransferCreated {
		t.Fatalf("one transfer: %v, %v", res, err)
	}
	if got, err := raw.LookupTransfers([]tb.Uint128{one.ID}); err != nil || len(got) != 1 || got[0].Timestamp != res[0].Timestamp || res[0].Timestamp == 0 {
		t.Errorf("the answer's timestamp %d; the record's %v, %v", res[0].Timestamp, got, err)
	}
	// The two kinds take turns request by request, each pair in the other
	// order from the last, so that neither always pays for what the other
	// left behind (a compaction, a checkpoint); the medians of the
	// requests' times leave out what other work on the machine adds to
	// a few of them.
	var tPlain, tKept []time.Duration
	for r := 0; r < rounds*batches; r++ {
		if r%2 == 0 {
			tPlain = append(tPlain, request(plain))
			tKept = append(tKept, request(kept))
		} else {
			tKept = append(tKept, request(kept))
			tPlain = append(tPlain, request(plain))
		}
	}
	perTransfer := func(d []time.Duration) (median, mean float64) {
		slices.Sort(d)
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		n := float64(chobotb.MaxEvents)
		return d[len(d)/2].Seconds() / n * 1e6, sum.Seconds() / float64(len(d)) / n * 1e6
	}
	medPlain, meanPlain := perTransfer(tPlain)
	medKept, meanKept := perTransfer(tKept)
	msg := fmt.Sprintf("history flag: median %.2f µs a transfer with it, %.2f µs without, ratio %.2f× (means %.2f and %.2f µs, %.2f×; %d requests of %d transfers each way, taking turns)",
		medKept, medPlain, medKept/medPlain, meanKept, meanPlain, meanKept/meanPlain, rounds*batches, chobotb.MaxEvents)
	fmt.Println(msg)
	t.Log(msg)
	// The balances were kept for the flagged accounts only.
	f := tb.AccountFilter{AccountID: kept[0], Limit: 10, Flags: tb.AccountFilterFlags{Debits: true, Credits: true}.ToUint32()}
	if b, err := raw.GetAccountBalances(f); err != nil || len(b) == 0 {
		t.Errorf("balances of an account with the flag: %d, %v", len(b), err)
	}
	f.AccountID = plain[0]
	if b, err := raw.GetAccountBalances(f); err != nil || len(b) != 0 {
		t.Errorf("balances of an account without the flag: %d, %v", len(b), err)
	}
}

// TestTigerBeetleModelKeepsTheReplicasRecords makes the calls of
// TestTigerBeetleHistoryRawRecords on the model and on a real replica and
// compares what get_account_transfers answers for the wallet, and what
// query_transfers answers as the reads ask it, field by field but the
// timestamps: the model stands in for the replica where a
// read of history is tested without one.
func TestTigerBeetleModelKeepsTheReplicasRecords(t *testing.T) {
	res := check.Check("hist.book", []byte(historyTBBook))
	if res.Book == nil {
		t.Fatalf("the book does not check: %v", res.Diags)
	}
	def := tigerbeetle.Def(res.Book)
	topUp, payment := kindIndex(t, def, "top_up"), kindIndex(t, def, "payment")
	records := func(t *testing.T, c chobotb.HistoryClient, expire func(wallet ids.ID)) []string {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r := &tbRecorder{t: t, ctx: ctx, c: c, def: def, tenant: "model-or-replica", names: map[ids.ID]string{}}
		r.call(topUp, "do", "t-1", "c-1", int64(1000))
		r.call(payment, "hold", "p-1", "c-1", int64(300), int64(5))
		r.finish(payment, "post", []string{"p-1"}, []uint64{200, 5})
		r.call(payment, "hold", "p-2", "c-1", int64(100), int64(1))
		r.finish(payment, "void", []string{"p-2"}, nil)
		r.call(payment, "hold", "p-9", "c-1", int64(5000), int64(1))
		r.call(payment, "hold", "p-3", "c-1", int64(50), int64(1))
		wallet := ids.Account(def.Book, r.tenant, "wallet", "c-1")
		expire(wallet)
		r.call(topUp, "do", "t-2", "c-1", int64(10))
		got, err := c.GetAccountTransfers(ctx, chobotb.AccountFilter{AccountID: wallet, Limit: 100, Debits: true, Credits: true})
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		var hold chobotb.Transfer // p-1's first move
		for _, x := range got {
			if hold.Flags == 0 && x.Flags&chobotb.TransferPending != 0 {
				hold = x
			}
			x.Timestamp = 0
			lines = append(lines, r.transferLine(tbgo.TransferToTB(x), 0))
		}
		if len(lines) != 24 {
			t.Fatalf("%d records, want 24", len(lines))
		}
		// query_transfers, as the reads use it: a call's chain by its
		// content hash and code, in either order; every record of a code;
		// and by user_data_64.
		for _, f := range []chobotb.QueryFilter{
			{UserData128: hold.UserData128, Code: hold.Code, Limit: 100},
			{UserData128: hold.UserData128, Code: hold.Code, Limit: 2, Reversed: true},
			{Code: hold.Code, Limit: 100},
			{UserData64: hold.UserData64, Limit: 3},
		} {
			found, err := c.QueryTransfers(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("query %+v: %d", f, len(found)))
			for _, x := range found {
				x.Timestamp = 0
				lines = append(lines, r.transferLine(tbgo.TransferToTB(x), 0))
			}
		}
		return lines
	}
	m := tbmodel.New()
	onModel := records(t, m, func(ids.ID) { m.Advance(2 * time.Second) })
	realTigerBeetle(t)
	srv := tbtest.Replica(t)
	conn, err := srv.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	onReplica := records(t, conn, func(wallet ids.ID) {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			a, err := conn.LookupAccounts(context.Background(), []ids.ID{wallet})
			if err != nil || len(a) != 1 {
				t.Fatalf("wallet: %v, %v", a, err)
			}
			if a[0].DebitsPending.IsZero() {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("p-3 was not released 10 s after it was held")
			}
		}
	})
	if strings.Join(onModel, "\n") != strings.Join(onReplica, "\n") {
		t.Errorf("the model's records:\n%s\nthe replica's:\n%s", strings.Join(onModel, "\n"), strings.Join(onReplica, "\n"))
	}
}
