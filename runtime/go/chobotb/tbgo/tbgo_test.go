package tbgo

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	tb "github.com/tigerbeetle/tigerbeetle-go"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// fake is a tigerbeetle_go.Client whose four operations chobo uses answer
// what the test says; the others are not called.
type fake struct {
	tb.Client // nil: any other method panics

	mu        sync.Mutex
	accounts  [][]tb.Account
	transfers [][]tb.Transfer
	lookups   [][]tb.Uint128

	accountResults  func([]tb.Account) ([]tb.CreateAccountResult, error)
	transferResults func([]tb.Transfer) ([]tb.CreateTransferResult, error)
	foundAccounts   []tb.Account
	foundTransfers  []tb.Transfer
	block           chan struct{} // when set, every call waits for it to close
}

func (f *fake) wait() {
	if f.block != nil {
		<-f.block
	}
}

func (f *fake) CreateAccounts(a []tb.Account) ([]tb.CreateAccountResult, error) {
	f.mu.Lock()
	f.accounts = append(f.accounts, a)
	f.mu.Unlock()
	f.wait()
	if f.accountResults != nil {
		return f.accountResults(a)
	}
	out := make([]tb.CreateAccountResult, len(a))
	for i := range out {
		out[i] = tb.CreateAccountResult{Timestamp: 1, Status: tb.AccountCreated}
	}
	return out, nil
}

func (f *fake) CreateTransfers(t []tb.Transfer) ([]tb.CreateTransferResult, error) {
	f.mu.Lock()
	f.transfers = append(f.transfers, t)
	f.mu.Unlock()
	f.wait()
	if f.transferResults != nil {
		return f.transferResults(t)
	}
	out := make([]tb.CreateTransferResult, len(t))
	for i := range out {
		out[i] = tb.CreateTransferResult{Timestamp: 1, Status: tb.TransferCreated}
	}
	return out, nil
}

func (f *fake) LookupAccounts(list []tb.Uint128) ([]tb.Account, error) {
	f.mu.Lock()
	f.lookups = append(f.lookups, list)
	f.mu.Unlock()
	f.wait()
	return f.foundAccounts, nil
}

func (f *fake) LookupTransfers(list []tb.Uint128) ([]tb.Transfer, error) {
	f.mu.Lock()
	f.lookups = append(f.lookups, list)
	f.mu.Unlock()
	f.wait()
	return f.foundTransfers, nil
}

func (f *fake) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.accounts) + len(f.transfers) + len(f.lookups)
}

var someID = ids.ID{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10}

// The same number on both sides: compared through math/big, not through
// the conversion under test.
func TestIDIsTheSameNumber(t *testing.T) {
	for _, id := range []ids.ID{{}, someID, ids.Sum("account", "b", "t", "k"), {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}} {
		u := IDToTB(id)
		want := new(big.Int).SetBytes(id[:])
		if got := u.BigInt(); got.Cmp(want) != 0 {
			t.Errorf("%s: official value %s, want %s", id.Hex(), got, want)
		}
		if back := IDFromTB(u); back != id {
			t.Errorf("%s: back as %s", id.Hex(), back.Hex())
		}
	}
	// ids.ID 0x…0001 is the official client's ToUint128(1).
	if got := IDToTB(ids.ID{15: 1}); got != tb.ToUint128(1) {
		t.Errorf("id 1: %v, want ToUint128(1)", got)
	}
}

func TestU128IsTheSameNumber(t *testing.T) {
	for _, v := range []chobotb.U128{{}, chobotb.U64(1), chobotb.U64(1 << 63), {Hi: 1}, {Hi: 0x0102030405060708, Lo: 0x090a0b0c0d0e0f10}, chobotb.AmountMax} {
		u := FromU128(v)
		want := new(big.Int).Lsh(new(big.Int).SetUint64(v.Hi), 64)
		want.Or(want, new(big.Int).SetUint64(v.Lo))
		if got := u.BigInt(); got.Cmp(want) != 0 {
			t.Errorf("%v: official value %s, want %s", v, got, want)
		}
		lo, hi := u.Uint64()
		if lo != v.Lo || hi != v.Hi {
			t.Errorf("%v: Uint64() = %x, %x", v, lo, hi)
		}
		if back := ToU128(u); back != v {
			t.Errorf("%v: back as %v", v, back)
		}
	}
	if FromU128(chobotb.AmountMax) != tb.AmountMax {
		t.Error("chobotb.AmountMax is not the official AmountMax")
	}
	if FromU128(chobotb.U64(42)) != tb.ToUint128(42) {
		t.Error("42 is not ToUint128(42)")
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	a := chobotb.Account{
		ID:             someID,
		DebitsPending:  chobotb.U64(1),
		DebitsPosted:   chobotb.U128{Hi: 2, Lo: 3},
		CreditsPending: chobotb.U64(4),
		CreditsPosted:  chobotb.AmountMax,
		UserData128:    ids.Sum("x", "y"),
		Ledger:         7,
		Code:           8,
		Flags:          chobotb.AccountLinked | chobotb.AccountDebitsMustNotExceedCredits,
		Timestamp:      99,
	}
	if back := AccountFromTB(AccountToTB(a)); back != a {
		t.Errorf("account: %+v came back as %+v", a, back)
	}
	o := AccountToTB(a)
	if o.Ledger != 7 || o.Code != 8 || o.Flags != 3 || o.Timestamp != 99 || o.UserData64 != 0 || o.UserData32 != 0 {
		t.Errorf("account fields: %+v", o)
	}
	if !o.AccountFlags().Linked || !o.AccountFlags().DebitsMustNotExceedCredits || o.AccountFlags().CreditsMustNotExceedDebits {
		t.Errorf("account flags read by the official client: %+v", o.AccountFlags())
	}

	tr := chobotb.Transfer{
		ID:              someID,
		DebitAccountID:  ids.Sum("d"),
		CreditAccountID: ids.Sum("c"),
		Amount:          chobotb.U64(500),
		PendingID:       ids.Sum("p"),
		UserData128:     ids.Sum("u"),
		UserData64:      0x0102030405060708,
		Timeout:         60,
		Ledger:          1,
		Code:            2,
		Flags:           chobotb.TransferLinked | chobotb.TransferPostPending,
		Timestamp:       5,
	}
	if back := TransferFromTB(TransferToTB(tr)); back != tr {
		t.Errorf("transfer: %+v came back as %+v", tr, back)
	}
	ot := TransferToTB(tr)
	if f := ot.TransferFlags(); !f.Linked || !f.PostPendingTransfer || f.Pending || f.VoidPendingTransfer {
		t.Errorf("transfer flags read by the official client: %+v", f)
	}
	if ot.Timeout != 60 || ot.Amount != tb.ToUint128(500) || ot.DebitAccountID != IDToTB(tr.DebitAccountID) || ot.UserData64 != 0x0102030405060708 || ot.UserData32 != 0 {
		t.Errorf("transfer fields: %+v", ot)
	}
	f := tb.TransferFlags{Pending: true}.ToUint16()
	if f != chobotb.TransferPending {
		t.Errorf("pending flag: official %d, chobo %d", f, chobotb.TransferPending)
	}
	if v := (tb.TransferFlags{VoidPendingTransfer: true}).ToUint16(); v != chobotb.TransferVoidPending {
		t.Errorf("void flag: official %d, chobo %d", v, chobotb.TransferVoidPending)
	}
	if v := (tb.AccountFlags{CreditsMustNotExceedDebits: true}).ToUint16(); v != chobotb.AccountCreditsMustNotExceedDebits {
		t.Errorf("credits flag: official %d, chobo %d", v, chobotb.AccountCreditsMustNotExceedDebits)
	}
}

// snake turns an official String() name, without its prefix, into
// TigerBeetle's snake_case: words at case changes, an acronym a word
// (IDMust → id_must), digits a word (UserData128 → user_data_128).
func snake(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if i > 0 {
			p := r[i-1]
			if unicode.IsUpper(c) && (unicode.IsLower(p) || unicode.IsDigit(p)) ||
				unicode.IsUpper(c) && unicode.IsUpper(p) && i+1 < len(r) && unicode.IsLower(r[i+1]) ||
				unicode.IsDigit(c) && !unicode.IsDigit(p) ||
				unicode.IsLetter(c) && unicode.IsDigit(p) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// candidates are the values an official status constant may have: the
// enums are small numbers, and "created" is 0xFFFFFFFF.
func candidates() []uint32 {
	out := []uint32{0xFFFFFFFF}
	for v := uint32(0); v < 4096; v++ {
		out = append(out, v)
	}
	return out
}

func TestAccountStatusCoversEveryConstant(t *testing.T) {
	n := 0
	for _, v := range candidates() {
		s := tb.CreateAccountStatus(v)
		name := s.String()
		got, ok := AccountStatus(s)
		if strings.HasPrefix(name, "CreateAccountStatus(") {
			if ok {
				t.Errorf("%d is no constant but maps to %q", v, got)
			}
			continue
		}
		n++
		want := chobotb.Status(snake(strings.TrimPrefix(name, "Account")))
		if !ok || got != want {
			t.Errorf("%s (%d): got %q, %v; want %q", name, v, got, ok, want)
		}
	}
	if n != len(accountStatuses) || n < 27 {
		t.Errorf("%d constants, %d in the table", n, len(accountStatuses))
	}
}

func TestTransferStatusCoversEveryConstant(t *testing.T) {
	n := 0
	for _, v := range candidates() {
		s := tb.CreateTransferStatus(v)
		name := s.String()
		got, ok := TransferStatus(s)
		if strings.HasPrefix(name, "CreateTransferStatus(") {
			if ok {
				t.Errorf("%d is no constant but maps to %q", v, got)
			}
			continue
		}
		n++
		want := chobotb.Status(snake(strings.TrimPrefix(name, "Transfer")))
		if !ok || got != want {
			t.Errorf("%s (%d): got %q, %v; want %q", name, v, got, ok, want)
		}
	}
	if n != len(transferStatuses) || n < 68 {
		t.Errorf("%d constants, %d in the table", n, len(transferStatuses))
	}
}

func TestStatusNames(t *testing.T) {
	for s, want := range map[tb.CreateTransferStatus]chobotb.Status{
		tb.TransferCreated:                           chobotb.Created,
		tb.TransferExistsWithDifferentAmount:         chobotb.ExistsWithDifferentAmount,
		tb.TransferExistsWithDifferentUserData128:    chobotb.ExistsWithDifferentUserData128,
		tb.TransferExistsWithDifferentDebitAccountID: chobotb.ExistsWithDifferentDebitAccount,
		tb.TransferIDAlreadyFailed:                   chobotb.IDAlreadyFailed,
		tb.TransferLinkedEventFailed:                 chobotb.LinkedEventFailed,
		tb.TransferPendingTransferExpired:            chobotb.PendingTransferExpired,
		tb.TransferExceedsCredits:                    chobotb.ExceedsCredits,
		tb.TransferDebitAccountNotFound:              chobotb.DebitAccountNotFound,
	} {
		if got, _ := TransferStatus(s); got != want {
			t.Errorf("%s: %q, want %q", s, got, want)
		}
	}
	if got, _ := AccountStatus(tb.AccountExistsWithDifferentFlags); got != chobotb.ExistsWithDifferentFlags {
		t.Errorf("AccountExistsWithDifferentFlags: %q", got)
	}
	// Every status chobo reads is a name TigerBeetle gives.
	known := map[chobotb.Status]bool{}
	for _, s := range transferStatuses {
		known[s] = true
	}
	for _, s := range accountStatuses {
		known[s] = true
	}
	for _, s := range []chobotb.Status{
		chobotb.Created, chobotb.LinkedEventFailed, chobotb.Exists, chobotb.IDAlreadyFailed,
		chobotb.ExceedsCredits, chobotb.ExceedsDebits, chobotb.AccountsMustBeDifferent,
		chobotb.PendingTransferNotFound, chobotb.PendingTransferAlreadyPosted,
		chobotb.PendingTransferAlreadyVoided, chobotb.PendingTransferExpired,
		chobotb.ExceedsPendingTransferAmount, chobotb.ExistsWithDifferentFlags,
		chobotb.ExistsWithDifferentAmount, chobotb.ExistsWithDifferentUserData128,
		chobotb.ExistsWithDifferentLedger, chobotb.ExistsWithDifferentCode,
		chobotb.ExistsWithDifferentPendingID, chobotb.ExistsWithDifferentTimeout,
		chobotb.ExistsWithDifferentDebitAccount, chobotb.ExistsWithDifferentCreditAccount,
		chobotb.DebitAccountNotFound, chobotb.CreditAccountNotFound,
	} {
		if !known[s] {
			t.Errorf("chobotb.Status %q is no status of the official client", s)
		}
	}
}

func TestCreateTransfersOneStatusPerEvent(t *testing.T) {
	f := &fake{transferResults: func(tr []tb.Transfer) ([]tb.CreateTransferResult, error) {
		return []tb.CreateTransferResult{
			{Status: tb.TransferLinkedEventFailed},
			{Status: tb.TransferExceedsCredits},
			{Status: tb.TransferCreated, Timestamp: 3},
		}, nil
	}}
	c := New(f)
	in := []chobotb.Transfer{{ID: ids.Sum("1"), Flags: chobotb.TransferLinked}, {ID: ids.Sum("2")}, {ID: ids.Sum("3"), Amount: chobotb.U64(9)}}
	got, err := c.CreateTransfers(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := []chobotb.Status{chobotb.LinkedEventFailed, chobotb.ExceedsCredits, chobotb.Created}
	if len(got) != len(want) {
		t.Fatalf("%v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %q, want %q", i, got[i], want[i])
		}
	}
	sent := f.transfers[0]
	for i := range in {
		if TransferFromTB(sent[i]) != in[i] {
			t.Errorf("event %d sent as %+v", i, sent[i])
		}
	}

	// A short answer is an error, not a guess.
	f.transferResults = func([]tb.Transfer) ([]tb.CreateTransferResult, error) {
		return []tb.CreateTransferResult{{Status: tb.TransferCreated}}, nil
	}
	if _, err := c.CreateTransfers(context.Background(), in); err == nil || !strings.Contains(err.Error(), "1 results for 3 events") {
		t.Errorf("short answer: %v", err)
	}
	// So is a status the client does not know.
	f.transferResults = func([]tb.Transfer) ([]tb.CreateTransferResult, error) {
		return []tb.CreateTransferResult{{Status: 4000}}, nil
	}
	if _, err := c.CreateTransfers(context.Background(), in[:1]); err == nil || !strings.Contains(err.Error(), "unknown result") {
		t.Errorf("unknown status: %v", err)
	}
	// The official client's errors come through, wrapped.
	f.transferResults = func([]tb.Transfer) ([]tb.CreateTransferResult, error) { return nil, tb.ErrTooMuchData }
	if _, err := c.CreateTransfers(context.Background(), in); !errors.Is(err, tb.ErrTooMuchData) {
		t.Errorf("client error: %v", err)
	}
}

func TestCreateAccounts(t *testing.T) {
	f := &fake{accountResults: func(a []tb.Account) ([]tb.CreateAccountResult, error) {
		return []tb.CreateAccountResult{{Status: tb.AccountExists}, {Status: tb.AccountExistsWithDifferentFlags}}, nil
	}}
	got, err := New(f).CreateAccounts(context.Background(), []chobotb.Account{{ID: ids.Sum("a")}, {ID: ids.Sum("b")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != chobotb.Exists || got[1] != chobotb.ExistsWithDifferentFlags {
		t.Errorf("%v", got)
	}
}

func TestLookups(t *testing.T) {
	a := chobotb.Account{ID: someID, CreditsPosted: chobotb.U64(5), Ledger: 1, Code: 1, Timestamp: 10}
	tr := chobotb.Transfer{ID: ids.Sum("t"), Amount: chobotb.U64(5), Ledger: 1, Code: 1, Timestamp: 11}
	f := &fake{foundAccounts: []tb.Account{AccountToTB(a)}, foundTransfers: []tb.Transfer{TransferToTB(tr), {}}}
	c := New(f)
	accs, err := c.LookupAccounts(context.Background(), []ids.ID{ids.Sum("missing"), someID})
	if err != nil {
		t.Fatal(err)
	}
	if len(accs) != 1 || accs[0] != a {
		t.Errorf("accounts: %+v", accs)
	}
	if got := f.lookups[0]; len(got) != 2 || got[1] != IDToTB(someID) {
		t.Errorf("asked for %v", got)
	}
	trs, err := c.LookupTransfers(context.Background(), []ids.ID{tr.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 1 || trs[0] != tr {
		t.Errorf("transfers (a zeroed slot must be left out): %+v", trs)
	}
}

func TestEmptyRequestsSendNothing(t *testing.T) {
	f := &fake{}
	c := New(f)
	ctx := context.Background()
	if s, err := c.CreateAccounts(ctx, nil); err != nil || len(s) != 0 || s == nil {
		t.Errorf("CreateAccounts(nil) = %v, %v", s, err)
	}
	if s, err := c.CreateTransfers(ctx, nil); err != nil || len(s) != 0 {
		t.Errorf("CreateTransfers(nil) = %v, %v", s, err)
	}
	if s, err := c.LookupAccounts(ctx, nil); err != nil || len(s) != 0 {
		t.Errorf("LookupAccounts(nil) = %v, %v", s, err)
	}
	if s, err := c.LookupTransfers(ctx, nil); err != nil || len(s) != 0 {
		t.Errorf("LookupTransfers(nil) = %v, %v", s, err)
	}
	if f.calls() != 0 {
		t.Errorf("%d requests sent", f.calls())
	}
}

func TestMaxRequestEvents(t *testing.T) {
	f := &fake{}
	c := New(f)
	ctx := context.Background()
	if _, err := c.CreateTransfers(ctx, make([]chobotb.Transfer, chobotb.MaxRequestEvents)); err != nil {
		t.Errorf("%d transfers: %v", chobotb.MaxRequestEvents, err)
	}
	if _, err := c.CreateAccounts(ctx, make([]chobotb.Account, chobotb.MaxRequestEvents)); err != nil {
		t.Errorf("%d accounts: %v", chobotb.MaxRequestEvents, err)
	}
	sent := f.calls()
	over := chobotb.MaxRequestEvents + 1
	for name, err := range map[string]error{
		"create_transfers": second(c.CreateTransfers(ctx, make([]chobotb.Transfer, over))),
		"create_accounts":  second(c.CreateAccounts(ctx, make([]chobotb.Account, over))),
		"lookup_accounts":  second(c.LookupAccounts(ctx, make([]ids.ID, over))),
		"lookup_transfers": second(c.LookupTransfers(ctx, make([]ids.ID, over))),
	} {
		if !errors.Is(err, ErrTooManyEvents) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s of %d: %v", name, over, err)
		}
	}
	if f.calls() != sent {
		t.Errorf("a request over the limit was sent")
	}
}

func second[T any](_ T, err error) error { return err }

// The official client waits for ever when no replica answers; the adapter
// must not.
func TestDeadlineBoundsEveryCall(t *testing.T) {
	f := &fake{block: make(chan struct{})}
	defer close(f.block) // lets the abandoned goroutines end
	c := New(f)
	calls := map[string]func(context.Context) error{
		"create_accounts": func(ctx context.Context) error {
			return second(c.CreateAccounts(ctx, []chobotb.Account{{ID: someID}}))
		},
		"create_transfers": func(ctx context.Context) error {
			return second(c.CreateTransfers(ctx, []chobotb.Transfer{{ID: someID}}))
		},
		"lookup_accounts":  func(ctx context.Context) error { return second(c.LookupAccounts(ctx, []ids.ID{someID})) },
		"lookup_transfers": func(ctx context.Context) error { return second(c.LookupTransfers(ctx, []ids.ID{someID})) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			const deadline = 50 * time.Millisecond
			start := time.Now() // before the context, whose deadline counts from its making
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- call(ctx) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the call did not return after its deadline")
			}
			if took := time.Since(start); took < deadline {
				t.Errorf("returned after %v, before the deadline", took)
			}
			if !errors.Is(err, ErrNoAnswer) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error %v does not wrap ErrNoAnswer and the deadline", err)
			}
			for _, part := range []string{name, "may still be applied later", "same events again is safe", "deterministic"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not say %q", err, part)
				}
			}
		})
	}

	// A context that is already done sends nothing.
	sent := f.calls()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.CreateTransfers(ctx, []chobotb.Transfer{{ID: someID}})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "not sent") {
		t.Errorf("done context: %v", err)
	}
	if f.calls() != sent {
		t.Error("a request was sent with a done context")
	}
}

// An answer that comes in time is the answer, even with a deadline set.
func TestAnswerBeforeDeadline(t *testing.T) {
	f := &fake{block: make(chan struct{})}
	c := New(f)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		time.Sleep(20 * time.Millisecond)
		close(f.block)
	}()
	got, err := c.CreateTransfers(ctx, []chobotb.Transfer{{ID: someID}})
	if err != nil || len(got) != 1 || got[0] != chobotb.Created {
		t.Errorf("%v, %v", got, err)
	}
}

// A panic in the official client becomes an error of the call.
func TestPanicBecomesError(t *testing.T) {
	f := &fake{transferResults: func([]tb.Transfer) ([]tb.CreateTransferResult, error) { panic("unreachable") }}
	_, err := New(f).CreateTransfers(context.Background(), []chobotb.Transfer{{ID: someID}})
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("%v", err)
	}
}

// The adapter's results do not alias the caller's slices, and calls from
// many goroutines are fine (the official client is shared across them).
func TestConcurrentCalls(t *testing.T) {
	f := &fake{}
	c := New(f)
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := []chobotb.Transfer{{ID: someID}}
			if _, err := c.CreateTransfers(context.Background(), in); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if f.calls() != 32 {
		t.Errorf("%d calls", f.calls())
	}
}

// Dial links the official client (cgo) and makes a client without
// waiting for a cluster; a call to an address nobody answers ends at its
// deadline, and Close ends the abandoned request.
func TestDialWithoutServer(t *testing.T) {
	conn, err := Dial(chobotb.U128{}, "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = conn.LookupAccounts(ctx, []ids.ID{someID})
	if !errors.Is(err, ErrNoAnswer) {
		t.Errorf("no server: %v", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %v", took)
	}
	conn.Close()
	if _, err := Dial(chobotb.U128{}); err == nil {
		t.Error("Dial with no address succeeded")
	}
}
