package tests

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// Changing the bounds of an account kind whose accounts exist, on a real
// server: the owner loads v1, the application makes calls, the owner
// loads v2 with a bound changed, and the application goes on. Every
// answer, and every balance at the end, is the reference interpreter's
// for the same calls, those before the load under v1 and those after it
// under v2, on one ledger.

// boundsBook is the wallet with the bound lines of its kinds given:
// wallet has both sides, pocket a floor at 0, tab a ceiling at 0. Their
// transfers cover each path of the functions: one bounded side and an
// outside one (give, take, fill, owe), two bounded rows (pay, a hold),
// and two moves (spend, a hold that takes the general path every time).
func boundsBook(version int, wallet, pocket, tab string) string {
	return fmt.Sprintf(`book wallet v%d
unit pts
account wallet(member: string) : pts
%s
account pocket(member: string) : pts
%s
account tab(member: string) : pts
%s
account bank : pts outside
transfer give(ref: string, member: string, amount: pts)
  key ref
  move amount from bank to wallet(member)
transfer take(ref: string, member: string, amount: pts)
  key ref
  move amount from wallet(member) to bank
transfer fill(ref: string, member: string, amount: pts)
  key ref
  move amount from bank to pocket(member)
transfer owe(ref: string, member: string, amount: pts)
  key ref
  move amount from tab(member) to bank
transfer repay(ref: string, member: string, amount: pts)
  key ref
  move amount from bank to tab(member)
transfer pay(ref: string, payer: string, payee: string, amount: pts)
  key ref
  pending expires after 10 minutes
  move amount from wallet(payer) to wallet(payee)
transfer spend(ref: string, member: string, cash: pts, coins: pts)
  key ref
  pending expires after 10 minutes
  move cash from wallet(member) to bank
  move coins from pocket(member) to bank
`, version, wallet, pocket, tab)
}

const (
	walletBounds = "  at least -100 refused as wallet_short\n  at most 1000 refused as wallet_full"
	pocketBounds = "  at least 0 refused as pocket_empty"
	tabBounds    = "  at most 0 refused as tab_paid"
)

// boundsV1 is the first version every case starts from.
var boundsV1 = boundsBook(1, walletBounds, pocketBounds, tabBounds)

// boundsStep is one call, written `transfer[.op] name=value …`, with the
// answer it must give when want is set (the interpreter must give it too).
type boundsStep struct {
	call, want string
}

// before are the calls under v1 of every case: balances a 500, b 900,
// c -80, pocket(a) 150, tab(a) -80 (on its shards), two holds of pay
// and one of spend open, and a key refused by a bound.
var boundsBefore = []boundsStep{
	{"give ref=g1 member=a amount=500", "done"},
	{"give ref=g2 member=b amount=900", "done"},
	{"take ref=t1 member=c amount=80", "done"},
	{"fill ref=f1 member=a amount=150", "done"},
	{"owe ref=o1 member=a amount=30", "done"},
	{"owe ref=o2 member=a amount=50", "done"},
	{"take ref=t2 member=c amount=30", "refused: wallet_short"},
	{"pay.hold ref=h1 payer=a payee=b amount=40", "done"},
	{"pay.hold ref=h2 payer=a payee=b amount=60", "done"},
	{"spend.hold ref=h3 member=a cash=10 coins=20", "done"},
	{"pay.hold ref=h4 payer=b payee=a amount=5", "done"},
}

// boundsCase is one change: v2's bound lines, and the calls after the
// load with the answers that show the change took effect.
type boundsCase struct {
	name                string
	wallet, pocket, tab string
	after               []boundsStep
	// stored are accounts the case writes under v2 and the bounds their
	// rows then store: `kind member lower upper`
	stored []string
}

// Calls every case makes after its own: retries of keys used under v1,
// and the holds made under v1 ended.
var boundsRetries = []boundsStep{
	{"give ref=g1 member=a amount=500", "done_before"},
	{"take ref=t2 member=c amount=30", "refused: already_refused"},
	{"pay.post ref=h1", ""},
	{"pay.void ref=h2", ""},
	{"spend.post ref=h3", ""},
	{"pay.post ref=h1", ""},
}

var boundsCases = []boundsCase{
	{name: "widened", stored: []string{"wallet c -500 5000", "wallet a -500 5000", "pocket a 0 none"},
		wallet: "  at least -500 refused as wallet_short\n  at most 5000 refused as wallet_full",
		after: []boundsStep{
			{"take ref=w1 member=c amount=300", "done"},  // to -380: past the old floor
			{"give ref=w2 member=b amount=3000", "done"}, // to 3900 (held in 40+60)
			{"take ref=w3 member=c amount=200", "refused: wallet_short"},
			{"pay.hold ref=w4 payer=c payee=b amount=100", "done"},
			{"pay.hold ref=w5 payer=c payee=b amount=100", "refused: wallet_short"},
			// two moves, two kinds: the general path widens wallet(a) alone
			{"spend.hold ref=w6 member=a cash=550 coins=1", "done"}, // a to -160 available
			{"spend.hold ref=w7 member=a cash=341 coins=1", "refused: wallet_short"},
		}},
	{name: "narrowed inside", stored: []string{"wallet c -100 1000"},
		wallet: "  at least -90 refused as wallet_short\n  at most 1000 refused as wallet_full",
		after: []boundsStep{
			{"take ref=n1 member=c amount=10", "done"}, // to -90
			{"take ref=n2 member=c amount=1", "refused: wallet_short"},
			{"pay.hold ref=n3 payer=c payee=a amount=1", "refused: wallet_short"},
			{"give ref=n4 member=c amount=5", "done"},
			{"pay.hold ref=n5 payer=c payee=a2 amount=5", "done"},
			{"pay.hold ref=n6 payer=c payee=a2 amount=1", "refused: wallet_short"},
		}},
	{name: "narrowed outside", stored: []string{"wallet c -100 1000"},
		wallet: "  at least -20 refused as wallet_short\n  at most 300 refused as wallet_full",
		after: []boundsStep{
			// c at -80, below the new floor: further out refused, back
			// toward allowed while still outside, then inside and held
			{"take ref=o1 member=c amount=1", "refused: wallet_short"},
			{"give ref=o2 member=c amount=30", "done"}, // -50, still outside
			{"take ref=o3 member=c amount=1", "refused: wallet_short"},
			{"give ref=o4 member=c amount=40", "done"}, // -10, inside
			{"take ref=o5 member=c amount=10", "done"}, // -20
			{"take ref=o6 member=c amount=1", "refused: wallet_short"},
			// b at 900 with 100 held in, above the new ceiling
			{"give ref=o7 member=b amount=1", "refused: wallet_full"},
			{"pay.hold ref=o8 payer=a payee=b amount=1", "refused: wallet_full"},
			{"take ref=o9 member=b amount=500", "done"}, // 400 + 100 held in
			{"give ref=o10 member=b amount=1", "refused: wallet_full"},
			{"take ref=o11 member=b amount=300", "done"}, // 100 + 100
			{"give ref=o12 member=b amount=100", "done"},
			{"give ref=o13 member=b amount=1", "refused: wallet_full"},
		}},
	{name: "added",
		pocket: pocketBounds + "\n  at most 100 refused as pocket_full",
		tab:    tabBounds + "\n  at least -60 refused as tab_short",
		stored: []string{"tab a none 0", "pocket z 0 100"},
		after: []boundsStep{
			// pocket(a) at 150, over the new ceiling
			{"fill ref=a1 member=a amount=1", "refused: pocket_full"},
			{"fill ref=a2 member=z amount=100", "done"},
			{"fill ref=a3 member=z amount=1", "refused: pocket_full"},
			// tab(a) at -80, under the new floor
			{"owe ref=a4 member=a amount=1", "refused: tab_short"},
			{"repay ref=a5 member=a amount=10", "done"}, // -70, still outside
			{"owe ref=a6 member=a amount=1", "refused: tab_short"},
			{"repay ref=a7 member=a amount=20", "done"}, // -50
			{"owe ref=a8 member=a amount=10", "done"},   // -60
			{"owe ref=a9 member=a amount=1", "refused: tab_short"},
		}},
	{name: "removed", stored: []string{"wallet b -100 none"},
		wallet: "  at least -100 refused as wallet_short",
		after: []boundsStep{
			{"give ref=r1 member=b amount=5000", "done"},
			{"take ref=r2 member=c amount=30", "refused: wallet_short"},
			{"pay.hold ref=r3 payer=a payee=b amount=100", "done"},
		}},
	{name: "other side",
		tab:    "  at least -60 refused as tab_short",
		stored: []string{"tab a none 9223372036854775807"},
		after: []boundsStep{
			// tab(a) at -80: its ceiling at 0 gone, a floor at -60 now
			{"owe ref=s1 member=a amount=1", "refused: tab_short"},
			{"repay ref=s2 member=a amount=100", "done"}, // 20, over the old ceiling
			{"owe ref=s3 member=a amount=80", "done"},    // -60
			{"owe ref=s4 member=a amount=1", "refused: tab_short"},
		}},
	{name: "reason renamed", stored: []string{"wallet c -100 1000"},
		wallet: "  at least -100 refused as wallet_low\n  at most 1000 refused as wallet_over",
		after: []boundsStep{
			{"take ref=m1 member=c amount=30", "refused: wallet_low"},
			{"give ref=m2 member=b amount=200", "refused: wallet_over"},
			{"take ref=m3 member=c amount=20", "done"},
		}},
}

func (c boundsCase) v2() string {
	or := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	return boundsBook(2, or(c.wallet, walletBounds), or(c.pocket, pocketBounds), or(c.tab, tabBounds))
}

// boundsLedger is one case's server and its reference interpreter.
type boundsLedger struct {
	u   *upgradeServer
	b   *book.Book
	ref *interp.State
}

func checkedBook(t *testing.T, src string) *book.Book {
	t.Helper()
	res := check.Check("wallet.book", []byte(src))
	if res.Book == nil {
		t.Fatalf("the book does not check: %v\n%s", res.Diags, src)
	}
	return res.Book
}

// parse turns a step into a call of b.
func parseBoundsCall(t *testing.T, b *book.Book, s string) interp.Call {
	t.Helper()
	f := strings.Fields(s)
	name, op, _ := strings.Cut(f[0], ".")
	if op == "" {
		op = "do"
	}
	tr := b.Transfer(name)
	if tr == nil {
		t.Fatalf("no transfer %s", name)
	}
	c := interp.Call{Transfer: tr, Op: book.Op(op), Strings: map[string]string{}}
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, "=")
		p := tr.Param(k)
		if p == nil {
			t.Fatalf("%s: no parameter %s", s, k)
		}
		if p.IsAmount() {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if c.Amounts == nil {
				c.Amounts = map[string]int64{}
			}
			c.Amounts[k] = n
		} else {
			c.Strings[k] = v
		}
	}
	return c
}

// pgArgs are the call's arguments as its function takes them.
func pgArgs(c interp.Call) []any {
	args := []any{""}
	for _, p := range postgres.Params(c.Transfer, string(c.Op)) {
		switch {
		case !p.IsAmount():
			args = append(args, c.Strings[p.Name])
		case c.Amounts == nil:
			args = append(args, nil)
		default:
			args = append(args, c.Amounts[p.Name])
		}
	}
	return args
}

func pgCall(ctx context.Context, db pgdeploy.DB, b *book.Book, c interp.Call) string {
	stmt := fmt.Sprintf(`select * from "wallet".%q(%s)`, postgres.FuncName(c.Transfer, string(c.Op)), placeholderList(len(pgArgs(c))))
	return call(ctx, db, stmt, pgArgs(c)...)
}

func placeholderList(n int) string {
	var ps []string
	for i := 1; i <= n; i++ {
		ps = append(ps, fmt.Sprintf("$%d", i))
	}
	return strings.Join(ps, ", ")
}

// run makes each step on the server and in the interpreter, and holds
// both to each other and to the step's answer.
func (l *boundsLedger) run(t *testing.T, ctx context.Context, steps []boundsStep) {
	t.Helper()
	for _, s := range steps {
		c := parseBoundsCall(t, l.b, s.call)
		res, err := l.ref.Apply(c)
		if err != nil {
			t.Fatalf("%s: the interpreter fails: %v", s.call, err)
		}
		got := pgCall(ctx, l.u.app, l.b, c)
		if got != res.Short() {
			t.Errorf("%s (v%d): PostgreSQL answers %q, the interpreter %q", s.call, l.b.Version, got, res.Short())
		}
		if s.want != "" && res.Short() != s.want {
			t.Errorf("%s (v%d): the interpreter answers %q, the case says %q", s.call, l.b.Version, res.Short(), s.want)
		}
	}
}

// balances holds every account the interpreter knows to its balance on
// the server.
func (l *boundsLedger) balances(t *testing.T, ctx context.Context) {
	t.Helper()
	for _, ab := range l.ref.Accounts() {
		var args []string
		for range ab.Account.Args {
			args = append(args, "$"+strconv.Itoa(len(args)+2))
		}
		stmt := fmt.Sprintf(`select posted, held_in, held_out from "wallet".%q($1%s)`, postgres.BalanceName(ab.Account.Kind),
			strings.TrimSuffix(", "+strings.Join(args, ", "), ", "))
		vals := []any{""}
		for _, a := range ab.Account.Args {
			vals = append(vals, a)
		}
		var got interp.Balance
		if err := l.u.app.QueryRow(ctx, stmt, vals...).Scan(&got.Posted, &got.HeldIn, &got.HeldOut); err != nil {
			t.Fatalf("%s: %v", ab.Account, err)
		}
		if got != ab.Balance {
			t.Errorf("%s: PostgreSQL has %+v, the interpreter %+v", ab.Account, got, ab.Balance)
		}
	}
}

// accountRows is the accounts table, each row with the transaction that
// wrote it last.
func accountRows(t *testing.T, ctx context.Context, db pgdeploy.DB) []string {
	t.Helper()
	rows, err := db.Query(ctx, `select a.xmin::text || ' ' || a::text from "wallet".accounts a order by a.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// deploy loads v2 as the owner and makes the interpreter's later calls
// v2's; the load writes no account row.
func (l *boundsLedger) deploy(t *testing.T, ctx context.Context, src string) {
	t.Helper()
	before := accountRows(t, ctx, l.u.admin)
	l.u.load(t, ctx, walletSQL(t, src))
	if after := accountRows(t, ctx, l.u.admin); !slices.Equal(before, after) {
		t.Errorf("loading v2 wrote the accounts table:\nbefore %q\nafter  %q", before, after)
	}
	if got := publicRights(t, ctx, l.u.admin); len(got) > 0 {
		t.Errorf("PUBLIC may execute %v after the load", got)
	}
	l.b = checkedBook(t, src)
	l.ref.Book = l.b
}

func startBounds(t *testing.T, ctx context.Context) *boundsLedger {
	u := startUpgradeServerWith(t, ctx, walletSQL(t, boundsV1))
	b := checkedBook(t, boundsV1)
	return &boundsLedger{u: u, b: b, ref: interp.New(b)}
}

// TestBoundChanges: for each change, the calls under v1, the load, the
// calls under v2 with the answers the change gives, retries of v1's keys,
// holds of v1 posted and voided, and expire() of a hold of v1 past its
// deadline; answers and balances are the interpreter's.
func TestBoundChanges(t *testing.T) {
	for _, c := range boundsCases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			l := startBounds(t, ctx)
			l.run(t, ctx, boundsBefore)
			l.balances(t, ctx)
			l.deploy(t, ctx, c.v2())
			l.run(t, ctx, c.after)
			l.envelopes(t, ctx, c)
			l.run(t, ctx, boundsRetries)
			// the holds still open (h4 of v1 among them) expire under v2:
			// their deadlines are put in the past rather than waited for
			if _, err := l.u.admin.Exec(ctx, `update "wallet".keys set deadline = clock_timestamp() - interval '1 second'
 where op = 'hold' and state = 'held'`); err != nil {
				t.Fatal(err)
			}
			expired, err := l.ref.Pass(601)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(expired, func(h *interp.Hold) bool { return h.Key[0] == "h4" }) {
				t.Errorf("the interpreter did not expire h4")
			}
			var n int
			if err := l.u.app.QueryRow(ctx, `select "wallet".expire()`).Scan(&n); err != nil || n != len(expired) {
				t.Fatalf("expire() = %d, %v; the interpreter expired %d", n, err, len(expired))
			}
			l.balances(t, ctx)
		})
	}
}

// envelopes checks what a row stores: a bound of v2 looser than v1's is
// stored once a call wrote the row, a tighter one is not, and the table's
// check holds a write that bypasses the functions to what is stored.
func (l *boundsLedger) envelopes(t *testing.T, ctx context.Context, c boundsCase) {
	t.Helper()
	for _, st := range c.stored {
		l.envelope(t, ctx, st)
	}
}

func (l *boundsLedger) envelope(t *testing.T, ctx context.Context, stored string) {
	t.Helper()
	f := strings.Fields(stored)
	var lo, up *int64
	if err := l.u.admin.QueryRow(ctx, `select lower_bound, upper_bound from "wallet".accounts
 where kind = $1 and args = array[$2]`, f[0], f[1]).Scan(&lo, &up); err != nil {
		t.Fatalf("%s(%s): %v", f[0], f[1], err)
	}
	str := func(p *int64) string {
		if p == nil {
			return "none"
		}
		return strconv.FormatInt(*p, 10)
	}
	if got := str(lo) + " " + str(up); got != f[2]+" "+f[3] {
		t.Errorf("%s(%s) stores the bounds %s, want %s %s", f[0], f[1], got, f[2], f[3])
	}
	// past the stored floor or ceiling: refused by the table, whatever
	// the book says
	var err error
	switch {
	case lo != nil && *lo > -1<<63:
		_, err = l.u.admin.Exec(ctx, `update "wallet".accounts set posted = $1 - 1 + held_out
 where kind = $2 and args = array[$3]`, *lo, f[0], f[1])
	case up != nil && *up < 1<<63-1:
		_, err = l.u.admin.Exec(ctx, `update "wallet".accounts set posted = greatest($1, 0) + 1 - held_in
 where kind = $2 and args = array[$3]`, *up, f[0], f[1])
	default:
		return
	}
	if sqlState(err) != "23514" {
		t.Errorf("a write past what %s(%s) stores: want a check violation, got %v", f[0], f[1], err)
	}
}

// TestBoundChangeUnderLoad loads a narrowed bound while other sessions
// call in a loop: each answer is the old rule's or the new one's, never
// an error, and once a session has seen the new rule it never sees the
// old one again. Each session's wallet stands at 500, between the old
// ceiling (1000) and the new (300): a give of 100 is done under the old
// rule (and taken back) and refused under the new.
func TestBoundChangeUnderLoad(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	l := startBounds(t, ctx)
	const workers = 4
	for w := 0; w < workers; w++ {
		if got := call(ctx, l.u.app, `select * from "wallet".give_do('', $1, $2, 500)`, fmt.Sprint("seed-", w), fmt.Sprint("m", w)); got != "done" {
			t.Fatalf("seed: %s", got)
		}
	}
	v2 := boundsBook(2, "  at least -100 refused as wallet_short\n  at most 300 refused as wallet_full", pocketBounds, tabBounds)
	res := runDuringLoad(t, ctx, l, v2, workers, 300*time.Millisecond)
	t.Logf("load %v; calls %d (old rule %d, new %d); longest call during the load %v, before or after it %v",
		res.load, res.calls, res.old, res.new, res.longest, res.longestElse)
	if res.old == 0 || res.new == 0 {
		t.Errorf("the calls saw the old rule %d times and the new %d: the load did not land among them", res.old, res.new)
	}
}

type loadResult struct {
	load, longest   time.Duration
	longestElse     time.Duration // of the calls before and after the load
	calls, old, new int64
}

// runDuringLoad loads v2 while the workers call, each on its own wallet
// (m0, m1, …, standing at 500), and checks their answers.
func runDuringLoad(t *testing.T, ctx context.Context, l *boundsLedger, v2 string, workers int, around time.Duration) loadResult {
	t.Helper()
	sql := walletSQL(t, v2)
	var res loadResult
	var calls, old, new atomic.Int64
	// each call's start and end, per worker, to find those that overlap
	// the load once it is over
	spans := make([][][2]time.Time, workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			member := fmt.Sprint("m", w)
			seenNew := false
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				got := call(ctx, l.u.app, `select * from "wallet".give_do('', $1, $2, 100)`, fmt.Sprintf("w%d-%d", w, i), member)
				spans[w] = append(spans[w], [2]time.Time{start, time.Now()})
				calls.Add(1)
				switch got {
				case "done":
					if seenNew {
						errs <- fmt.Sprintf("%s: the old rule answered after the new one", member)
						return
					}
					old.Add(1)
					if back := call(ctx, l.u.app, `select * from "wallet".take_do('', $1, $2, 100)`, fmt.Sprintf("b%d-%d", w, i), member); back != "done" {
						errs <- fmt.Sprintf("%s: taking back: %s", member, back)
						return
					}
				case "refused: wallet_full":
					seenNew = true
					new.Add(1)
				default:
					errs <- fmt.Sprintf("%s: %s", member, got)
					return
				}
			}
		}()
	}
	time.Sleep(around)
	start := time.Now()
	l.u.load(t, ctx, sql)
	end := time.Now()
	res.load = end.Sub(start)
	time.Sleep(around)
	close(stop)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, ws := range spans {
		for _, sp := range ws {
			d := sp[1].Sub(sp[0])
			switch {
			case sp[0].Before(end) && sp[1].After(start):
				res.longest = max(res.longest, d)
			default:
				res.longestElse = max(res.longestElse, d)
			}
		}
	}
	res.calls, res.old, res.new = calls.Load(), old.Load(), new.Load()
	return res
}

// TestBoundChangeAtScale is TestBoundChangeUnderLoad over 1,000,000
// accounts, for the time the load takes and the longest a call waits
// during it.
func TestBoundChangeAtScale(t *testing.T) {
	if os.Getenv("CHOBO_BOUNDS_SCALE") == "" {
		t.Skip("SKIP: a bound change over 1,000,000 accounts: set CHOBO_BOUNDS_SCALE=1 to run it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	l := startBounds(t, ctx)
	const workers = 4
	for w := 0; w < workers; w++ {
		if got := call(ctx, l.u.app, `select * from "wallet".give_do('', $1, $2, 500)`, fmt.Sprint("seed-", w), fmt.Sprint("m", w)); got != "done" {
			t.Fatalf("seed: %s", got)
		}
	}
	start := time.Now()
	// the rows a million calls would have made, written at once
	if _, err := l.u.admin.Exec(ctx, `insert into "wallet".accounts (tenant, id, kind, args, unit, lower_bound, upper_bound, posted)
select '', "wallet".chobo_id(array['account', 'wallet', '', 'wallet', 'x' || n]), 'wallet', array['x' || n], 'pts', -100, 1000, n % 1000
  from generate_series(1, 1000000) as n`); err != nil {
		t.Fatal(err)
	}
	if _, err := l.u.admin.Exec(ctx, `vacuum analyze "wallet".accounts`); err != nil {
		t.Fatal(err)
	}
	t.Logf("1,000,000 accounts made in %v", time.Since(start))
	v2 := boundsBook(2, "  at least -100 refused as wallet_short\n  at most 300 refused as wallet_full", pocketBounds, tabBounds)
	res := runDuringLoad(t, ctx, l, v2, workers, time.Second)
	t.Logf("over 1,000,000 accounts: load %v; calls %d (old rule %d, new %d); longest call during the load %v, before or after it %v",
		res.load, res.calls, res.old, res.new, res.longest, res.longestElse)
	// an account among the million answers by the new bound
	if got := call(ctx, l.u.app, `select * from "wallet".give_do('', 'x-1', 'x999', 1)`); got != "refused: wallet_full" {
		t.Errorf("wallet(x999) at 999 under a ceiling of 300: %s", got)
	}
}

// TestBoundChangeWaitsForNoCall: the load takes no lock a call holds. A
// call's transaction is left open (its rows, key and entries locked, as
// a caller's transaction holds them until it commits) while the owner
// loads v2 with a lock timeout: the load commits all the same, and the
// call, made under v1, commits after it.
func TestBoundChangeWaitsForNoCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l := startBounds(t, ctx)
	l.run(t, ctx, boundsBefore[:3])
	tx, err := l.u.app.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	// a move with an outside account, and a hold between two bounded rows
	if got := call(ctx, tx, `select * from "wallet".give_do('', 'open-1', 'b', 50)`); got != "done" {
		t.Fatalf("the open call: %s", got)
	}
	if got := call(ctx, tx, `select * from "wallet".pay_hold('', 'open-2', 'a', 'b', 5)`); got != "done" {
		t.Fatalf("the open hold: %s", got)
	}
	if _, err := l.u.owner.Exec(ctx, `set lock_timeout = '5s'`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	l.u.load(t, ctx, walletSQL(t, boundsBook(2, "  at least -20 refused as wallet_short\n  at most 300 refused as wallet_full", pocketBounds, tabBounds)))
	t.Logf("loaded beside an open call in %v", time.Since(start))
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("the call made under v1, committed after the load: %v", err)
	}
	// b stands at 950 now, over the new ceiling
	if got := call(ctx, l.u.app, `select * from "wallet".give_do('', 'after-1', 'b', 1)`); got != "refused: wallet_full" {
		t.Errorf("after the load: %s", got)
	}
}
