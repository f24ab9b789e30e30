package chobopg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// script is a Querier whose rows answer in turn: an error, or values
// copied into the destinations.
type script struct {
	answers []any // error, or []any of values
	sent    int
	sql     string
	args    []any
	sends   [][]any // the args of every sending, in order
}

type row struct {
	err  error
	vals []any
}

func (s *script) QueryRow(_ context.Context, sql string, args ...any) pgx.Row {
	s.sql, s.args = sql, args
	s.sends = append(s.sends, args)
	a := s.answers[min(s.sent, len(s.answers)-1)]
	s.sent++
	if err, ok := a.(error); ok {
		return row{err: err}
	}
	return row{vals: a.([]any)}
}

func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	if len(dest) != len(r.vals) {
		return fmt.Errorf("scan into %d, row has %d", len(dest), len(r.vals))
	}
	for i, v := range r.vals {
		switch d := dest[i].(type) {
		case **string:
			if v == nil {
				*d = nil
			} else {
				s := v.(string)
				*d = &s
			}
		case *int64:
			*d = v.(int64)
		case **int64:
			if v == nil {
				*d = nil
			} else {
				n := v.(int64)
				*d = &n
			}
		case *int:
			*d = v.(int)
		default:
			return fmt.Errorf("cannot scan into %T", d)
		}
	}
	return nil
}

func pgErr(code string) error { return &pgconn.PgError{Code: code, Message: "test " + code} }

func str(s string) any { return s }

// bouncerErr is an error as PgBouncer sends its own: FATAL, 08P01.
func bouncerErr(message string) error {
	return &pgconn.PgError{Severity: "FATAL", Code: "08P01", Message: message}
}

func TestCallRetriesSerializationFailures(t *testing.T) {
	q := &script{answers: []any{pgErr("40001"), pgErr("40001"), []any{str("done"), nil}}}
	r, err := Call(context.Background(), q, "select 1", "t", int64(3))
	if err != nil || r != (chobo.Result{Outcome: chobo.Done}) {
		t.Fatalf("Call = %v, %v", r, err)
	}
	if q.sent != 3 {
		t.Errorf("sent %d times, want 3", q.sent)
	}
	// Exec mode first: the statement goes unnamed, never prepared. The
	// call id last, the same on every try.
	if len(q.args) != 4 || q.args[0] != pgx.QueryExecModeExec || q.args[1] != "t" || q.args[2] != int64(3) || !isCallID(q.args[3]) {
		t.Errorf("args %v", q.args)
	}
	sameID(t, q.sends, 3)
}

// isCallID says whether v is a call id as the statements take it: a
// version 4 UUID in lowercase text.
func isCallID(v any) bool {
	s, ok := v.(string)
	return ok && callIDForm.MatchString(s)
}

var callIDForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// sameID fails unless every sending carried the same call id, last
// among its values.
func sameID(t *testing.T, sends [][]any, want int) {
	t.Helper()
	if len(sends) != want {
		t.Errorf("%d sendings, want %d", len(sends), want)
	}
	for i, a := range sends {
		if id := a[len(a)-1]; !isCallID(id) || id != sends[0][len(sends[0])-1] {
			t.Errorf("sending %d carried the id %v, the first %v", i+1, id, sends[0][len(sends[0])-1])
		}
	}
}

// Every call gets an id of its own, however alike the calls; status and
// balance reads take none.
func TestCallIDs(t *testing.T) {
	ctx := context.Background()
	seen := map[any]bool{}
	for range 100 {
		q := &script{answers: []any{[]any{str("done"), nil}}}
		if _, err := Call(ctx, q, "select 1", "t", "k", int64(1)); err != nil {
			t.Fatal(err)
		}
		id := q.args[len(q.args)-1]
		if !isCallID(id) || seen[id] {
			t.Fatalf("call id %v: not a version 4 UUID, or given twice", id)
		}
		seen[id] = true
	}
	args := []any{"t", "k"}
	q := &script{answers: []any{[]any{str("done"), nil}}}
	Call(ctx, q, "select 1", args...)
	if len(args) != 2 || len(q.args) != 4 {
		t.Errorf("the caller's args became %v; sent %v", args, q.args)
	}
	q = &script{answers: []any{[]any{str("held")}}}
	if _, err := Status(ctx, q, "select 1", "t", "k"); err != nil || len(q.args) != 3 {
		t.Errorf("status sent %v (%v)", q.args, err)
	}
	q = &script{answers: []any{[]any{int64(1), int64(0), int64(0)}}}
	if _, err := ReadBalance(ctx, q, "select 1", "t", "a"); err != nil || len(q.args) != 3 {
		t.Errorf("balance sent %v (%v)", q.args, err)
	}
}

func TestCallGivesUpAfterMaxAttempts(t *testing.T) {
	q := &script{answers: []any{pgErr("40001")}}
	_, err := Call(context.Background(), q, "select 1")
	if SQLState(err) != "40001" {
		t.Fatalf("err %v, want the serialization failure", err)
	}
	if q.sent != MaxAttempts {
		t.Errorf("sent %d times, want %d", q.sent, MaxAttempts)
	}
}

func TestCallDoesNotRetryOtherErrors(t *testing.T) {
	for _, code := range []string{"23505", "XX000", "53300"} {
		q := &script{answers: []any{pgErr(code), []any{str("done"), nil}}}
		if _, err := Call(context.Background(), q, "select 1"); SQLState(err) != code {
			t.Errorf("%s: err %v", code, err)
		}
		if q.sent != 1 {
			t.Errorf("%s: sent %d times, want 1", code, q.sent)
		}
	}
}

func TestFailedTransactionReturnsTheFirstError(t *testing.T) {
	q := &script{answers: []any{pgErr("40001"), pgErr("25P02")}}
	_, err := Call(context.Background(), q, "select 1")
	if SQLState(err) != "40001" {
		t.Fatalf("err %v, want the first error (40001)", err)
	}
}

func TestErrorsAreClassified(t *testing.T) {
	for _, c := range []struct {
		code string
		kind error
	}{
		{"CB001", ErrBoundsChanged},
		{"22003", ErrBadCall},
		{"22004", ErrBadCall},
		{"22023", ErrBadCall},
	} {
		q := &script{answers: []any{pgErr(c.code)}}
		_, err := Call(context.Background(), q, "select 1")
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v is not %v", c.code, err, c.kind)
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != c.code {
			t.Errorf("%s: the PostgreSQL error is lost: %v", c.code, err)
		}
		if err.Error() != pgErr(c.code).Error() {
			t.Errorf("%s: message %q changed", c.code, err)
		}
	}
	q := &script{answers: []any{pgErr("23505")}}
	if _, err := Call(context.Background(), q, "x"); errors.Is(err, ErrBadCall) || errors.Is(err, ErrBoundsChanged) {
		t.Errorf("23505 classified as %v", err)
	}
}

func TestCallReadsAnswers(t *testing.T) {
	for _, c := range []struct {
		row  []any
		want chobo.Result
		err  bool
	}{
		{[]any{str("refused"), str("out_of_stock")}, chobo.Result{Outcome: chobo.Refused, Reason: "out_of_stock"}, false},
		{[]any{str("done_before"), nil}, chobo.Result{Outcome: chobo.DoneBefore}, false},
		{[]any{nil, nil}, chobo.Result{}, true},
		{[]any{str("maybe"), nil}, chobo.Result{}, true},
	} {
		r, err := Call(context.Background(), &script{answers: []any{c.row}}, "x")
		if r != c.want || (err != nil) != c.err {
			t.Errorf("row %v: %v, %v", c.row, r, err)
		}
	}
}

func TestStatusAndBalance(t *testing.T) {
	ctx := context.Background()
	if s, err := Status(ctx, &script{answers: []any{[]any{nil}}}, "x"); s != "" || err != nil {
		t.Errorf("no hold: %q, %v", s, err)
	}
	if s, err := Status(ctx, &script{answers: []any{[]any{str("posted")}}}, "x"); s != chobo.Posted || err != nil {
		t.Errorf("posted: %q, %v", s, err)
	}
	if _, err := Status(ctx, &script{answers: []any{[]any{str("lost")}}}, "x"); err == nil {
		t.Error("unknown state read without error")
	}
	b, err := ReadBalance(ctx, &script{answers: []any{[]any{int64(5), int64(2), int64(1)}}}, "x")
	if err != nil || b != (chobo.Balance{Posted: 5, HeldIn: 2, HeldOut: 1}) {
		t.Errorf("balance %v, %v", b, err)
	}
	n, err := Expire(ctx, &script{answers: []any{[]any{7}}}, "x", 1000)
	if err != nil || n != 7 {
		t.Errorf("expire %d, %v", n, err)
	}
}

func TestRetryStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := &script{answers: []any{pgErr("40001")}}
	_, err := Call(ctx, q, "x")
	// A zero wait may be drawn before the context is seen: at most a
	// few sendings, never all of them.
	if !errors.Is(err, context.Canceled) && SQLState(err) != "40001" {
		t.Fatalf("err %v", err)
	}
	if q.sent >= MaxAttempts {
		t.Errorf("sent %d times after the context ended", q.sent)
	}
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 128, 128, 128}
	for n, w := range want {
		if got := Backoff(n); got != w*time.Millisecond {
			t.Errorf("Backoff(%d) = %v, want %v", n, got, w*time.Millisecond)
		}
	}
}

func TestRetryable(t *testing.T) {
	if !Retryable("40001") || !Retryable("40P01") || Retryable("") || Retryable("25P02") {
		t.Error("only 40001 and 40P01 are retried")
	}
}

func TestRetriesAreCounted(t *testing.T) {
	for _, code := range []string{SerializationFailure, DeadlockDetected} {
		before := Retries(code)
		q := &script{answers: []any{pgErr(code), pgErr(code), []any{str("done"), nil}}}
		if r, err := Call(context.Background(), q, "x"); err != nil || r.Outcome != chobo.Done {
			t.Fatalf("%s: %v %v", code, r, err)
		}
		if got := Retries(code) - before; got != 2 {
			t.Errorf("%s: %d retries counted, want 2", code, got)
		}
	}
	if Retries("23505") != 0 {
		t.Error("a code that is not retried has retries")
	}
}

// txScript is a script that is also a transaction of the caller's.
type txScript struct {
	pgx.Tx
	s *script
}

func (t txScript) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.s.QueryRow(ctx, sql, args...)
}

// Conn is nil: the script has no connection of pgx's to take turns on.
func (t txScript) Conn() *pgx.Conn { return nil }

func TestConnectionLost(t *testing.T) {
	lost := fmt.Errorf("reading the answer: %w", io.ErrUnexpectedEOF)
	refused := &pgconn.ConnectError{}
	done, doneBefore := []any{str("done"), nil}, []any{str("done_before"), nil}
	for _, c := range []struct {
		name    string
		answers []any
		opts    []Option
		tx      bool
		want    string // the result, or the kind of error
		sent    int
	}{
		{"lost, then applied by the second sending", []any{lost, done}, nil, false, "done resent", 2},
		{"lost after it was applied", []any{lost, doneBefore}, nil, false, "done_before resent", 2},
		{"the server shut down", []any{pgErr("57P01"), doneBefore}, nil, false, "done_before resent", 2},
		{"a refused connection, then sent", []any{refused, done}, nil, false, "done", 2},
		{"lost, then a refused connection, then sent", []any{lost, refused, doneBefore}, nil, false, "done_before resent", 3},
		{"lost, not sent again", []any{lost, done}, []Option{Resend(0)}, false, "unknown", 1},
		{"not sent, not sent again", []any{refused, done}, []Option{Resend(0)}, false, "not sent", 1},
		{"lost, then refused until the deadline", []any{lost, refused}, []Option{Resend(30 * time.Millisecond)}, false, "unknown", -1},
		{"inside the caller's transaction", []any{lost, done}, nil, true, "unknown", 1},
		{"a statement cancelled by the server is an answer", []any{pgErr("57014"), done}, nil, false, "57014", 1},
		// PgBouncer's own errors, all 08P01: those of a statement that
		// waited in the pooler for a server never reached it.
		{"PgBouncer: the server cannot be reached", []any{bouncerErr("pgbouncer cannot connect to server"), done}, []Option{Resend(0)}, false, "not sent", 1},
		{"PgBouncer: waiting out server_login_retry", []any{bouncerErr("server login has been failing, try again later (server_login_retry)"), done}, []Option{Resend(0)}, false, "not sent", 1},
		{"PgBouncer: no server connection free in time", []any{bouncerErr("query_wait_timeout"), done}, []Option{Resend(0)}, false, "not sent", 1},
		{"PgBouncer: then sent", []any{bouncerErr("query_wait_timeout"), done}, nil, false, "done", 2},
		{"PgBouncer: the server went away while the statement was out", []any{bouncerErr("server conn crashed?"), done}, []Option{Resend(0)}, false, "unknown", 1},
		{"PgBouncer: another error of its own", []any{bouncerErr("client_idle_timeout"), done}, []Option{Resend(0)}, false, "unknown", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &script{answers: c.answers}
			var q Querier = s
			if c.tx {
				q = txScript{s: s}
			}
			r, err := Call(context.Background(), With(q, c.opts...), "select 1", "t")
			var got string
			switch {
			case errors.Is(err, ErrOutcomeUnknown):
				got = "unknown"
			case errors.Is(err, ErrNotSent):
				got = "not sent"
			case err != nil:
				got = SQLState(err)
			default:
				got = string(r.Outcome)
				if r.Resent {
					got += " resent"
				}
			}
			if got != c.want {
				t.Errorf("got %s (%v), want %s", got, err, c.want)
			}
			if c.sent >= 0 && s.sent != c.sent {
				t.Errorf("sent %d times, want %d", s.sent, c.sent)
			}
			// Every sending again is the same call: the same id.
			sameID(t, s.sends, s.sent)
		})
	}
}

// cancelling cancels the call's context as the statement goes out, as a
// caller does while the call waits for its answer.
type cancelling struct {
	s      *script
	cancel func()
}

func (c cancelling) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	c.cancel()
	return c.s.QueryRow(ctx, sql, args...)
}

func TestCancelledWhileOut(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &script{answers: []any{context.Canceled}}
	_, err := Call(ctx, cancelling{s, cancel}, "select 1")
	if !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want ErrOutcomeUnknown wrapping the cancellation", err)
	}
	if s.sent != 1 {
		t.Errorf("sent %d times", s.sent)
	}
}

// A context that ended before the call sends nothing, over any Querier.
func TestCancelledBeforeTheCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &script{answers: []any{[]any{"done", nil}}}
	_, err := Call(ctx, s, "select 1")
	if !errors.Is(err, ErrNotSent) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want ErrNotSent wrapping the cancellation", err)
	}
	if s.sent != 0 {
		t.Errorf("sent %d times", s.sent)
	}
}
