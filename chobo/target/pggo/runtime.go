package pggo

// runtimeSource is the part of every generated package that does not
// depend on the book: the types, the call with its retries, expire. It
// is the same text for every book but the package name.
const runtimeSource = `package %s

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Querier sends one statement and reads one row: *pgx.Conn, *pgxpool.Pool
// and pgx.Tx all are. The client never commits or rolls back; called
// inside a transaction, its writes commit with the caller's.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Outcome is how an operation ended.
type Outcome string

const (
	// Done: it took effect now.
	Done Outcome = "done"
	// DoneBefore: the same call, same key and content, took effect before.
	DoneBefore Outcome = "done_before"
	// Refused: nothing changed; Reason says why.
	Refused Outcome = "refused"
)

// Result is the answer to an operation. A refusal is an answer, not an
// error: errors are for calls that could not be made.
type Result struct {
	Outcome Outcome
	Reason  string
}

// HoldState is where a hold stands.
type HoldState string

const (
	Held    HoldState = "held"
	Posted  HoldState = "posted"
	Voided  HoldState = "voided"
	Expired HoldState = "expired"
)

// Balance is what an account holds.
type Balance struct {
	Posted  int64
	HeldIn  int64
	HeldOut int64
}

// maxAttempts bounds the retries of a serialization failure, which only
// REPEATABLE READ and SERIALIZABLE give.
const maxAttempts = 30

// backoff is the longest wait before attempt n+1: 1, 2, 4 … 128 ms.
func backoff(n int) time.Duration {
	if n >= 7 {
		return 128 * time.Millisecond
	}
	return time.Millisecond << n
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// queryRow runs one statement. A serialization failure (40001) is
// retried with the same arguments after a random wait, up to maxAttempts
// times; the key makes a retry safe. Inside a transaction the caller
// aborted (25P02), the first error is the one that says what happened.
func queryRow(ctx context.Context, q Querier, sql string, args []any, dest ...any) error {
	var first error
	for n := 0; ; n++ {
		err := q.QueryRow(ctx, sql, args...).Scan(dest...)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
		switch sqlState(err) {
		case "25P02":
			return first
		case "40001":
			if n+1 < maxAttempts {
				wait := time.Duration(rand.Int64N(int64(backoff(n)) + 1))
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(wait):
				}
				continue
			}
		}
		return err
	}
}

func call(ctx context.Context, q Querier, sql string, args ...any) (Result, error) {
	var outcome, reason *string
	if err := queryRow(ctx, q, sql, args, &outcome, &reason); err != nil {
		return Result{}, err
	}
	if outcome == nil {
		return Result{}, errors.New("chobo: the function answered no result")
	}
	r := Result{Outcome: Outcome(*outcome)}
	if reason != nil {
		r.Reason = *reason
	}
	return r, nil
}

func status(ctx context.Context, q Querier, sql string, args ...any) (HoldState, error) {
	var s *string
	if err := queryRow(ctx, q, sql, args, &s); err != nil {
		return "", err
	}
	if s == nil {
		return "", nil
	}
	return HoldState(*s), nil
}

func balance(ctx context.Context, q Querier, sql string, args ...any) (Balance, error) {
	var b Balance
	err := queryRow(ctx, q, sql, args, &b.Posted, &b.HeldIn, &b.HeldOut)
	return b, err
}

// amount checks an amount before it is sent: amounts run from 0 up.
func amount(name string, v int64) error {
	if v < 0 {
		return fmt.Errorf("chobo: the amount %%s is %%d; amounts run from 0 to 9223372036854775807", name, v)
	}
	return nil
}
`
