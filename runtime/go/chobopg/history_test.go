package chobopg

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// rowsScript is a Querier with Query, whose sendings answer in turn: an
// error, or rows of values.
type rowsScript struct {
	answers []any // error, or [][]any
	sends   [][]any
}

func (s *rowsScript) QueryRow(_ context.Context, sql string, args ...any) pgx.Row {
	panic("a read of many rows went through QueryRow")
}

func (s *rowsScript) Query(_ context.Context, sql string, args ...any) (pgx.Rows, error) {
	s.sends = append(s.sends, args[1:]) // past the exec mode
	a := s.answers[min(len(s.sends)-1, len(s.answers)-1)]
	if err, ok := a.(error); ok {
		return nil, err
	}
	return &fakeRows{rows: a.([][]any), at: -1}, nil
}

type fakeRows struct {
	rows [][]any
	at   int
}

func (r *fakeRows) Close()                                       {}
func (r *fakeRows) Err() error                                   { return nil }
func (r *fakeRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (r *fakeRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (r *fakeRows) Values() ([]any, error)                       { return r.rows[r.at], nil }
func (r *fakeRows) RawValues() [][]byte                          { return nil }
func (r *fakeRows) Conn() *pgx.Conn                              { return nil }
func (r *fakeRows) TypeMap() *pgtype.Map                         { return nil }
func (r *fakeRows) Next() bool                                   { r.at++; return r.at < len(r.rows) }

// Scan sets each destination as pgx would: null leaves a pointer nil and
// anything else its zero value.
func (r *fakeRows) Scan(dest ...any) error {
	row := r.rows[r.at]
	if len(dest) != len(row) {
		return fmt.Errorf("scan into %d, row has %d", len(dest), len(row))
	}
	for i, v := range row {
		d := reflect.ValueOf(dest[i]).Elem()
		if v == nil {
			d.SetZero()
			continue
		}
		val := reflect.ValueOf(v)
		if d.Kind() == reflect.Pointer && val.Kind() != reflect.Pointer {
			p := reflect.New(d.Type().Elem())
			p.Elem().Set(val.Convert(d.Type().Elem()))
			d.Set(p)
			continue
		}
		d.Set(val.Convert(d.Type()))
	}
	return nil
}

var testHistory = &History{Statement: "statement", Call: "call", OpenHolds: "holds", BalanceAt: "balance at",
	Kinds: map[string]Kind{
		"top_up":  {Args: []string{"top_up_id", "card", "amount"}, Key: []string{"top_up_id"}},
		"payment": {Args: []string{"payment_id", "card", "price", "fee"}, Key: []string{"payment_id"}, Amounts: []string{"price", "fee"}},
	}}

var at0 = time.Date(2026, 12, 6, 15, 0, 0, 500, time.FixedZone("JST", 9*3600))

func i64(n int64) *int64 { return &n }

// entryRowOf is a row of a statement: cursor, kind, op, key, args, move,
// out, account, account_args, the changes, the balance after, at.
func entryRowOf(cursor int64, kind, op string, args []string, move int32, out bool, account string, accountArgs []string,
	posted, heldIn, heldOut int64, after []int64) []any {
	r := []any{cursor, kind, op, args[:1], args, move, out, account, accountArgs, posted, heldIn, heldOut, nil, nil, nil, at0}
	if after != nil {
		r[12], r[13], r[14] = after[0], after[1], after[2]
	}
	return r
}

func entryText(e chobo.Entry) string {
	s := fmt.Sprintf("%s %s.%s %v %v move %d out %v %s%v %d/%d/%d", e.Cursor, e.Transfer, e.Op, e.Key, e.Args, e.Move, e.Out,
		e.Account, e.AccountArgs, e.Posted, e.HeldIn, e.HeldOut)
	if e.After != nil {
		s += fmt.Sprintf(" -> %d/%d/%d", e.After.Posted, e.After.HeldIn, e.After.HeldOut)
	}
	return s + " at " + e.At.Format(time.RFC3339Nano)
}

// A page asks for one row past its limit, which says there is more and
// is left out; each row's values are named as its operation takes them.
func TestReadStatement(t *testing.T) {
	q := &rowsScript{answers: []any{[][]any{
		entryRowOf(6, "payment", "hold", []string{"p-1", "c-1", "500", "20"}, 1, true, "wallet", []string{"c-1"}, 0, 0, 500, []int64{1000, 0, 500}),
		entryRowOf(7, "payment", "post", []string{"p-1", "400", "20"}, 1, true, "wallet", []string{"c-1"}, -400, 0, -500, []int64{600, 0, 20}),
		entryRowOf(8, "payment", "post", []string{"p-2"}, 1, true, "wallet", []string{"c-1"}, 0, 0, 0, nil),
	}}}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st, err := ReadStatement(context.Background(), q, testHistory, "t", "wallet", []string{"c-1"},
		chobo.StatementQuery{From: from, Transfers: []string{"payment"}, Limit: 2, After: "5"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range st.Entries {
		got = append(got, entryText(e))
	}
	want := []string{
		"6 payment.hold [p-1] map[card:c-1 fee:20 payment_id:p-1 price:500] move 1 out true wallet[c-1] 0/0/500 -> 1000/0/500 at 2026-12-06T06:00:00.0000005Z",
		"7 payment.post [p-1] map[fee:20 payment_id:p-1 price:400] move 1 out true wallet[c-1] -400/0/-500 -> 600/0/20 at 2026-12-06T06:00:00.0000005Z",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st.Next != "7" || !st.More {
		t.Errorf("next %q more %v, want 7 and more", st.Next, st.More)
	}
	sent := fmt.Sprintf("%#v", q.sends[0])
	wantSent := fmt.Sprintf("%#v", []any{"t", "wallet", []string{"c-1"}, from, nil, []string{"payment"}, false, 3, int64(5)})
	if sent != wantSent {
		t.Errorf("sent %s\nwant %s", sent, wantSent)
	}
}

// A page that ends the statement says so, and an empty one keeps the
// cursor it was read after; a post in full is named by its key alone;
// an account without bounds has no balance after its entries.
func TestReadStatementLastPage(t *testing.T) {
	q := &rowsScript{answers: []any{
		[][]any{entryRowOf(3, "payment", "post", []string{"p-2"}, 2, false, "fees", nil, 20, -20, 0, nil)},
		[][]any{},
	}}
	st, err := ReadStatement(context.Background(), q, testHistory, "t", "fees", nil, chobo.StatementQuery{Newest: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Entries) != 1 || st.More || st.Next != "3" {
		t.Fatalf("%+v", st)
	}
	if got := entryText(st.Entries[0]); got != "3 payment.post [p-2] map[payment_id:p-2] move 2 out false fees[] 20/-20/0 at 2026-12-06T06:00:00.0000005Z" {
		t.Errorf("entry %s", got)
	}
	if sent := fmt.Sprintf("%#v", q.sends[0]); sent != fmt.Sprintf("%#v", []any{"t", "fees", []string{}, nil, nil, nil, true, 101, nil}) {
		t.Errorf("sent %s", sent)
	}
	st, err = ReadStatement(context.Background(), q, testHistory, "t", "fees", nil, chobo.StatementQuery{After: "3"})
	if err != nil || len(st.Entries) != 0 || st.More || st.Next != "3" {
		t.Errorf("an empty page: %+v %v", st, err)
	}
}

// What a query gets wrong is an error before anything is sent.
func TestReadStatementRefusesBeforeSending(t *testing.T) {
	for _, c := range []struct {
		q    chobo.StatementQuery
		want string
	}{
		{chobo.StatementQuery{Limit: 1001}, "limit is 1001"},
		{chobo.StatementQuery{Limit: -1}, "limit is -1"},
		{chobo.StatementQuery{After: "h3"}, `"h3" is not a cursor`},
		{chobo.StatementQuery{After: "0"}, `"0" is not a cursor`},
		{chobo.StatementQuery{After: "03"}, `"03" is not a cursor`},
		{chobo.StatementQuery{After: "-3"}, `"-3" is not a cursor`},
		{chobo.StatementQuery{Transfers: []string{"payment", "refund"}}, `no transfer "refund"`},
	} {
		q := &rowsScript{answers: []any{[][]any{}}}
		_, err := ReadStatement(context.Background(), q, testHistory, "t", "wallet", []string{"c-1"}, c.q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.q, err, c.want)
		}
		if len(q.sends) != 0 {
			t.Errorf("%+v: sent", c.q)
		}
	}
	if _, err := ReadStatement(context.Background(), &rowsScript{}, testHistory, strings.Repeat("t", chobo.MaxTenant+1), "wallet", nil, chobo.StatementQuery{}); err == nil {
		t.Error("a tenant too long went")
	}
}

// A sending that failed and went again keeps only the rows of the last.
func TestReadRetriesAndStartsOver(t *testing.T) {
	q := &rowsScript{answers: []any{
		pgErr(SerializationFailure),
		[][]any{entryRowOf(1, "top_up", "do", []string{"u-1", "c-1", "1000"}, 1, false, "wallet", []string{"c-1"}, 1000, 0, 0, []int64{1000, 0, 0})},
	}}
	es, err := ReadCallEntries(context.Background(), q, testHistory, "t", "top_up", []string{"u-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Args["amount"] != "1000" || len(q.sends) != 2 {
		t.Errorf("%+v after %d sendings", es, len(q.sends))
	}
	if sent := fmt.Sprintf("%#v", q.sends[1]); sent != fmt.Sprintf("%#v", []any{"t", "top_up", []string{"u-1"}}) {
		t.Errorf("sent %s", sent)
	}
}

// A row whose values the book cannot name is an error, not a guess.
func TestEntryValuesMustFit(t *testing.T) {
	q := &rowsScript{answers: []any{[][]any{entryRowOf(1, "top_up", "do", []string{"u-1", "c-1"}, 1, false, "wallet", []string{"c-1"}, 1000, 0, 0, nil)}}}
	if _, err := ReadCallEntries(context.Background(), q, testHistory, "t", "top_up", []string{"u-1"}); err == nil || !strings.Contains(err.Error(), "gives 2 values") {
		t.Errorf("%v", err)
	}
	// A kind the book no longer has keeps its entries, unnamed.
	q = &rowsScript{answers: []any{[][]any{entryRowOf(1, "gift", "do", []string{"g-1", "5"}, 1, false, "wallet", []string{"c-1"}, 5, 0, 0, nil)}}}
	es, err := ReadCallEntries(context.Background(), q, testHistory, "t", "gift", []string{"g-1"})
	if err != nil || len(es) != 1 || es[0].Args != nil {
		t.Errorf("%+v %v", es, err)
	}
}

// The reads need Query; a Querier with QueryRow alone is told so.
func TestReadsNeedQuery(t *testing.T) {
	q := &script{answers: []any{[]any{}}}
	if _, err := ReadCallEntries(context.Background(), q, testHistory, "t", "top_up", []string{"u-1"}); !errors.Is(err, ErrNoRows) {
		t.Errorf("%v", err)
	}
	if q.sent != 0 {
		t.Error("sent")
	}
}

// An open hold's moves, a row each, come together in one OpenHold.
func TestReadOpenHolds(t *testing.T) {
	deadline := at0.Add(30 * time.Minute)
	q := &rowsScript{answers: []any{[][]any{
		{"payment", []string{"p-1"}, int32(1), "wallet", []string{"c-1"}, "merchants", []string{}, int64(500), at0, deadline},
		{"payment", []string{"p-1"}, int32(2), "wallet", []string{"c-1"}, "fees", []string{}, int64(20), at0, deadline},
		{"payment", []string{"p-2"}, int32(1), "wallet", []string{"c-1"}, "merchants", nil, int64(7), at0, nil},
	}}}
	hs, err := ReadOpenHolds(context.Background(), q, testHistory, "t", "", nil, "payment")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", hs)
	want := "[{Transfer:payment Key:[p-1] ID: Moves:[{Move:1 From:wallet To:merchants FromArgs:[c-1] ToArgs:[] Amount:500} {Move:2 From:wallet To:fees FromArgs:[c-1] ToArgs:[] Amount:20}] Created:2026-12-06 06:00:00.0000005 +0000 UTC Deadline:2026-12-06 06:30:00.0000005 +0000 UTC} " +
		"{Transfer:payment Key:[p-2] ID: Moves:[{Move:1 From:wallet To:merchants FromArgs:[c-1] ToArgs:[] Amount:7}] Created:2026-12-06 06:00:00.0000005 +0000 UTC Deadline:0001-01-01 00:00:00 +0000 UTC}]"
	if got != want {
		t.Errorf("holds\n%s\nwant\n%s", got, want)
	}
	if sent := fmt.Sprintf("%#v", q.sends[0]); sent != fmt.Sprintf("%#v", []any{"t", nil, nil, "payment"}) {
		t.Errorf("sent %s", sent)
	}
	if _, err := ReadOpenHolds(context.Background(), q, testHistory, "t", "wallet", []string{"c-1"}, ""); err != nil {
		t.Fatal(err)
	}
	if sent := fmt.Sprintf("%#v", q.sends[1]); sent != fmt.Sprintf("%#v", []any{"t", "wallet", []string{"c-1"}, nil}) {
		t.Errorf("sent %s", sent)
	}
}

func TestReadBalanceAt(t *testing.T) {
	q := &script{answers: []any{[]any{int64(1000), int64(0), int64(520)}}}
	b, err := ReadBalanceAt(context.Background(), q, testHistory, "t", "wallet", []string{"c-1"}, at0)
	if err != nil || b != (chobo.Balance{Posted: 1000, HeldOut: 520}) {
		t.Errorf("%+v %v", b, err)
	}
	if sent := fmt.Sprintf("%#v", q.args[1:]); sent != fmt.Sprintf("%#v", []any{"t", "wallet", []string{"c-1"}, at0}) {
		t.Errorf("sent %s", sent)
	}
	if _, err := ReadBalanceAt(context.Background(), q, testHistory, "t", "wallet", []string{"c-1"}, time.Time{}); err == nil || q.sent != 1 {
		t.Errorf("a zero time: %v, %d sent", err, q.sent)
	}
	// No balance is an error, not zeros.
	q = &script{answers: []any{[]any{nil, nil, nil}}}
	if _, err := ReadBalanceAt(context.Background(), q, testHistory, "t", "bank", nil, at0); err == nil || !strings.Contains(err.Error(), "no balance of bank") {
		t.Errorf("no balance: %v", err)
	}
}
