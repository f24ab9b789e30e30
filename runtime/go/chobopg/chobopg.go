// Package chobopg is how generated Go clients call a chobo book kept in
// PostgreSQL: one statement per operation through pgx, retried when the
// server says the transaction could not be serialized, with the answer
// read into the types of package chobo.
package chobopg

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// Querier sends one statement and reads one row: *pgx.Conn,
// *pgxpool.Pool and pgx.Tx all are. A client never commits or rolls back:
// called inside a transaction, its writes commit with the caller's.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// MaxAttempts bounds how often one call is sent when the server keeps
// answering with a retryable failure.
const MaxAttempts = 30

// Backoff is the longest wait before attempt n+1 (n from 0): 1, 2, 4 …
// 128 ms, then 128 ms. The wait itself is drawn at random up to it, so
// callers that collided do not collide again in step.
func Backoff(n int) time.Duration {
	if n >= 7 {
		return 128 * time.Millisecond
	}
	return time.Millisecond << n
}

// SQLState is the SQLSTATE of a PostgreSQL error anywhere in err's
// chain, or "".
func SQLState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// The SQLSTATEs the runtime acts on.
const (
	// SerializationFailure comes only under REPEATABLE READ or
	// SERIALIZABLE; nothing was written, so the same call may go again.
	SerializationFailure = "40001"
	// DeadlockDetected: the server broke a cycle of waiting transactions
	// by failing this one. The book's functions lock in one order and
	// should never meet it; it is retried all the same, and counted, so
	// that a test can show it never happens.
	DeadlockDetected = "40P01"
	// InFailedTransaction: the caller's transaction failed earlier; every
	// later statement gets this, and the first error is the telling one.
	InFailedTransaction = "25P02"
	// BoundsChanged is chobo's own: an account's row keeps bounds other
	// than those of the book calling it.
	BoundsChanged = "CB001"
)

// Retryable reports whether a call that failed with SQLSTATE code may be
// sent again unchanged. The key of the call makes a second sending safe.
func Retryable(code string) bool { return code == SerializationFailure || code == DeadlockDetected }

// retried counts the retries of this process, by SQLSTATE.
var retried = map[string]*atomic.Int64{SerializationFailure: {}, DeadlockDetected: {}}

// Retries says how often, in this process, a call was sent again after
// failing with SQLSTATE code (a retryable one; 0 for any other).
func Retries(code string) int64 {
	if n, ok := retried[code]; ok {
		return n.Load()
	}
	return 0
}

var (
	// ErrBoundsChanged is wrapped by the error of a call that met an
	// account whose stored bounds differ from the book's (CB001).
	ErrBoundsChanged = errors.New("chobo: an account keeps bounds other than the book has now")
	// ErrBadCall is wrapped by the error of a call the book's function
	// rejected as malformed: a null value, a negative amount, or a
	// partial post that gives only some of its amounts (SQLSTATE class 22).
	ErrBadCall = errors.New("chobo: the function rejected the call")
	// ErrNoAnswer: the function answered no outcome.
	ErrNoAnswer = errors.New("chobo: the function answered no result")
)

// classify wraps err with the runtime's error for its SQLSTATE, keeping
// the PostgreSQL error reachable through errors.As.
func classify(err error) error {
	code := SQLState(err)
	switch {
	case code == BoundsChanged:
		return wrapped{ErrBoundsChanged, err}
	case len(code) == 5 && code[:2] == "22":
		return wrapped{ErrBadCall, err}
	}
	return err
}

type wrapped struct{ kind, err error }

func (w wrapped) Error() string   { return w.err.Error() }
func (w wrapped) Unwrap() []error { return []error{w.kind, w.err} }

// QueryRow sends one statement and scans its one row into dest. A
// retryable failure is sent again after a random wait, up to MaxAttempts
// times in all; inside a transaction the caller let fail, the
// first error is returned rather than the 25P02 that follows it.
func QueryRow(ctx context.Context, q Querier, sql string, args []any, dest ...any) error {
	var first error
	for n := 0; ; n++ {
		err := q.QueryRow(ctx, sql, args...).Scan(dest...)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
		code := SQLState(err)
		if code == InFailedTransaction {
			return classify(first)
		}
		if !Retryable(code) || n+1 >= MaxAttempts {
			return classify(err)
		}
		retried[code].Add(1)
		wait := time.Duration(rand.Int64N(int64(Backoff(n)) + 1))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// checkSize refuses, before anything is sent, a call whose tenant (its
// first argument) or text values are longer than every backend stores.
func checkSize(args []any) error {
	if len(args) == 0 {
		return nil
	}
	tenant, _ := args[0].(string)
	var texts []string
	for _, a := range args[1:] {
		if s, ok := a.(string); ok {
			texts = append(texts, s)
		}
	}
	return chobo.CheckSize(tenant, texts...)
}

// Call sends an operation (do, hold, post, void), whose statement answers
// one row of (result, reason).
func Call(ctx context.Context, q Querier, sql string, args ...any) (chobo.Result, error) {
	if err := checkSize(args); err != nil {
		return chobo.Result{}, err
	}
	var outcome, reason *string
	if err := QueryRow(ctx, q, sql, args, &outcome, &reason); err != nil {
		return chobo.Result{}, err
	}
	if outcome == nil {
		return chobo.Result{}, ErrNoAnswer
	}
	o, err := chobo.ParseOutcome(*outcome)
	if err != nil {
		return chobo.Result{}, err
	}
	r := chobo.Result{Outcome: o}
	if reason != nil {
		r.Reason = *reason
	}
	return r, nil
}

// Status sends a status statement, which answers the state of a hold or
// null when there is none.
func Status(ctx context.Context, q Querier, sql string, args ...any) (chobo.HoldState, error) {
	if err := checkSize(args); err != nil {
		return "", err
	}
	var s *string
	if err := QueryRow(ctx, q, sql, args, &s); err != nil {
		return "", err
	}
	if s == nil {
		return "", nil
	}
	return chobo.ParseHoldState(*s)
}

// ReadBalance sends a balance statement: posted, held in, held out.
func ReadBalance(ctx context.Context, q Querier, sql string, args ...any) (chobo.Balance, error) {
	if err := checkSize(args); err != nil {
		return chobo.Balance{}, err
	}
	var b chobo.Balance
	err := QueryRow(ctx, q, sql, args, &b.Posted, &b.HeldIn, &b.HeldOut)
	return b, err
}

// Expire sends the book's expire statement, which gives back up to max
// holds past their deadline and answers how many it gave back.
func Expire(ctx context.Context, q Querier, sql string, max int) (int, error) {
	var n int
	err := QueryRow(ctx, q, sql, []any{max}, &n)
	return n, err
}
