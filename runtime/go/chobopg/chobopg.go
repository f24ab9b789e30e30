// Package chobopg is how generated Go clients call a chobo book kept in
// PostgreSQL: one statement per operation through pgx, retried when the
// server says the transaction could not be serialized, with the answer
// read into the types of package chobo.
//
// # Contexts
//
// A call whose context has ended (cancelled, or past its deadline) before
// the call is sent sends nothing: its error wraps ErrNotSent and the
// context's error, and the call was not applied. A context that ends while
// the call is out makes an error that wraps ErrOutcomeUnknown and the
// context's error (errors.Is finds both): the server may have committed
// the call, or may still; sending it again with the same arguments is
// safe, and its answer (done or done_before) says which. pgx gives up on
// the connection when a context ends during a statement: it closes the
// socket rather than wait for the server. A *pgx.Conn is closed from then
// on, every later call on it fails marked ErrNotSent, and the program
// opens another; a pool drops the connection and the next call takes a
// new one.
//
// # One connection, many goroutines
//
// A *pgx.Conn serves one statement at a time. Calls from several
// goroutines through books over the same *pgx.Conn (or over a pgx.Tx or a
// *pgxpool.Conn of it) take turns: each call, its retries included, and
// each pipeline of a Bulk has the connection to itself, and the others
// wait, each no longer than its context allows (a call that stops waiting
// was not sent: ErrNotSent). A *pgxpool.Pool runs calls side by side.
package chobopg

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// Querier sends one statement and reads one row: *pgx.Conn,
// *pgxpool.Pool and pgx.Tx all are. A client never commits or rolls back:
// called inside a transaction, its writes commit with the caller's. The
// first argument it is given is pgx.QueryExecModeExec, which pgx reads as
// how to send the statement (unnamed): a Querier of one's own passes the
// arguments on to pgx as they come.
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
	// BoundsChanged is chobo's own: an account made outside met a book
	// in which its kind has bounds.
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
	// account made outside, its kind having bounds in the book (CB001).
	ErrBoundsChanged = errors.New("chobo: an account keeps bounds other than the book has now")
	// ErrBadCall is wrapped by the error of a call the book's function
	// rejected as malformed: a null value, a negative amount, or a
	// partial post that gives only some of its amounts (SQLSTATE class 22).
	ErrBadCall = errors.New("chobo: the function rejected the call")
	// ErrNoAnswer: the function answered no outcome.
	ErrNoAnswer = errors.New("chobo: the function answered no result")
	// ErrOutcomeUnknown is wrapped by the error of a call whose connection
	// broke, or whose server shut down, after the call was sent: it may
	// have been applied or not. Sending it again with the same arguments
	// is safe (its key makes a second sending change nothing) and its
	// answer says which: done_before when the first sending was applied.
	// Outside a transaction of the caller's, a client sends it again
	// itself for a while first (Resend), with the call's own id, and the
	// answer is then what the first sending answered if it was applied.
	ErrOutcomeUnknown = errors.New("chobo: the connection was lost after the call was sent, so it may or may not have been applied; sending it again with the same arguments is safe, and its answer says which")
	// ErrNotSent is wrapped by the error of a call that never reached the
	// server: no connection could be made or used. Nothing was applied.
	ErrNotSent = errors.New("chobo: the call was not sent: no connection to the server could be used")
)

// resends counts, by kind, the sendings again after a lost connection.
var resends = map[error]*atomic.Int64{ErrOutcomeUnknown: {}, ErrNotSent: {}}

// Resent says how often, in this process, a call was sent again after its
// connection was lost while it was out (ErrOutcomeUnknown) or before it
// went (ErrNotSent).
func Resent(kind error) int64 {
	if n, ok := resends[kind]; ok {
		return n.Load()
	}
	return 0
}

// DefaultResendFor is how long a client keeps sending a call again after
// its connection was lost, unless told otherwise (Resend): long enough
// for a standby to be promoted, short enough that a caller waiting on an
// answer hears of a server that is gone.
const DefaultResendFor = 30 * time.Second

// Option changes how a book's calls are sent; a generated constructor
// takes any number.
type Option func(*options)

type options struct {
	resendFor time.Duration
}

// Resend sets how long a call whose connection was lost is sent again,
// with the same arguments and call id, before its error is returned; 0
// returns the error at once. The answer that settles it is returned with
// Result.Resent set. Inside a transaction of the caller's a call is never
// sent again. The context's deadline, when sooner, ends the resending.
func Resend(d time.Duration) Option {
	return func(o *options) { o.resendFor = max(d, 0) }
}

// With returns q with opts, for a generated constructor to keep.
func With(q Querier, opts ...Option) Querier {
	o := optionsOf(q)
	for _, f := range opts {
		f(&o)
	}
	return configured{unwrap(q), o}
}

type configured struct {
	Querier
	o options
}

func optionsOf(q Querier) options {
	if c, ok := q.(configured); ok {
		return c.o
	}
	return options{resendFor: DefaultResendFor}
}

func unwrap(q Querier) Querier {
	if c, ok := q.(configured); ok {
		return c.Querier
	}
	return q
}

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

// lost is the error of a call whose connection failed: it says what
// that means for the call, then what the driver said.
type lost struct{ kind, err error }

func (l lost) Error() string   { return l.kind.Error() + ": " + l.err.Error() }
func (l lost) Unwrap() []error { return []error{l.kind, l.err} }

type wrapped struct{ kind, err error }

func (w wrapped) Error() string   { return w.err.Error() }
func (w wrapped) Unwrap() []error { return []error{w.kind, w.err} }

// QueryRow sends one statement and scans its one row into dest. A
// retryable failure is sent again after a random wait, up to MaxAttempts
// times in all; inside a transaction the caller let fail, the
// first error is returned rather than the 25P02 that follows it. A
// statement whose connection was lost is sent again as the options of q
// say (With, Resend).
func QueryRow(ctx context.Context, q Querier, sql string, args []any, dest ...any) error {
	_, err := send(ctx, q, sql, args, dest...)
	return err
}

// send is QueryRow, saying also whether the answer is that of a
// statement sent again after its connection was lost.
func send(ctx context.Context, q Querier, sql string, args []any, dest ...any) (resent bool, err error) {
	return sendWith(ctx, q, args, func(q Querier, args []any) error {
		return q.QueryRow(ctx, sql, args...).Scan(dest...)
	})
}

// sendWith is send for any one sending of a statement: attempt sends it
// with args over q and reads its answer, and is called again as send
// says a failed sending goes again.
func sendWith(ctx context.Context, q Querier, args []any, attempt func(q Querier, args []any) error) (resent bool, err error) {
	o := optionsOf(q)
	q = unwrap(q)
	release, err := takeTurn(ctx, q) // turns.go
	if err != nil {
		return false, err
	}
	defer release()
	// A lost connection takes the caller's transaction with it: no
	// sending again there, the error is the caller's to handle.
	if inTransaction(q) {
		o.resendFor = 0
	}
	var until time.Time
	if o.resendFor > 0 {
		until = now().Add(o.resendFor)
	}
	// Every statement goes unnamed, whatever the caller's pgx config says:
	// pgx's default prepares it under a name kept per client connection,
	// and behind a pooler in transaction mode the server connection that
	// runs it may hold another client's statement of that name, of another
	// function, which would then run instead. Exec mode sends the text
	// with its arguments in one round trip (Parse, Bind, Execute), the
	// server typing them from the function it calls.
	args = append([]any{pgx.QueryExecModeExec}, args...)
	var first error
	lostOnce := false
	for n, lostTries := 0, 0; ; n++ {
		err := attempt(q, args)
		if err == nil {
			return lostOnce, nil
		}
		if first == nil {
			first = err
		}
		code := SQLState(err)
		if code == InFailedTransaction {
			return false, classify(first)
		}
		if kind := connectionFailure(err); kind != nil {
			lostOnce = lostOnce || kind == ErrOutcomeUnknown
			// A single connection (*pgx.Conn) that broke stays closed:
			// only a pool has another to send the call on.
			c, single := q.(interface{ IsClosed() bool })
			if until.IsZero() || ctx.Err() != nil || !now().Before(until) || single && c.IsClosed() {
				if lostOnce {
					kind = ErrOutcomeUnknown // an earlier sending may have been applied
				}
				return false, lost{kind, err}
			}
			resends[kind].Add(1)
			if !pause(ctx, Backoff(lostTries)) {
				return false, lost{ErrOutcomeUnknown, err}
			}
			lostTries++
			continue
		}
		if !Retryable(code) || n+1 >= MaxAttempts {
			if lostOnce {
				return false, lost{ErrOutcomeUnknown, classify(err)}
			}
			return false, classify(err)
		}
		retried[code].Add(1)
		if !pause(ctx, Backoff(n)) {
			return false, ctx.Err()
		}
	}
}

// now and pause are the runtime's clock: when a resending ends, and the
// wait before a sending again, drawn at random up to upTo, which reports
// false when ctx ended first. The tests that replay the shared
// connection vectors run them on a scripted clock.
var (
	now   = time.Now
	pause = func(ctx context.Context, upTo time.Duration) bool {
		return sleep(ctx, time.Duration(rand.Int64N(int64(upTo)+1)))
	}
)

func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// connectionFailure says how a statement failed when the connection,
// not the server's answer to it, was the cause: ErrNotSent when nothing
// of it reached the server (a connection that could not be made, one
// found closed before use), ErrOutcomeUnknown when it may have (the
// connection broke, or the server shut down, while it was out). nil for
// an answer of the server's or an error of the caller's.
func connectionFailure(err error) error {
	// First: a connection that could not be made may carry the server's
	// (or a pooler's) refusal as its cause, with a SQLSTATE of class 08.
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return ErrNotSent
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe.Code == ProtocolViolation && PoolerNotSent(pe.Message) {
			return ErrNotSent
		}
		// 57P01-57P05: the server or an administrator ended the session.
		// Class 08: the connection failed.
		if strings.HasPrefix(pe.Code, "57P") || strings.HasPrefix(pe.Code, "08") {
			return ErrOutcomeUnknown
		}
		return nil
	}
	if pgconn.SafeToRetry(err) {
		return ErrNotSent
	}
	var ne net.Error
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.As(err, &ne) ||
		pgconn.Timeout(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ErrOutcomeUnknown
	}
	return nil
}

// ProtocolViolation is the SQLSTATE PgBouncer gives every error of its
// own, whatever its cause.
const ProtocolViolation = "08P01"

// poolerNotSent are the messages with which PgBouncer closes a client
// whose statement waited for a server connection that never came: the
// server could not be reached (while it restarts, or for
// server_login_retry after a failed attempt), none was free in time
// (query_wait_timeout), or the client was not let in. The statement was
// held by PgBouncer and never reached the server.
var poolerNotSent = []string{
	"pgbouncer cannot connect to server",
	"server login has been failing",
	"query_wait_timeout",
	"no more connections allowed",
}

// PoolerNotSent reports whether message, of an error with SQLSTATE 08P01,
// is one with which PgBouncer says a statement never reached the server.
// Every other error of PgBouncer's (such as "server conn crashed?", sent
// when the server went away while the statement was out) leaves the
// outcome unknown.
func PoolerNotSent(message string) bool {
	for _, m := range poolerNotSent {
		if strings.HasPrefix(message, m) {
			return true
		}
	}
	return false
}

// inTransaction reports whether q sends inside a transaction of the
// caller's: a pgx.Tx, or a connection on which one was begun.
func inTransaction(q Querier) bool {
	switch c := q.(type) {
	case pgx.Tx:
		return true
	case interface{ PgConn() *pgconn.PgConn }:
		return c.PgConn() != nil && c.PgConn().TxStatus() != 'I'
	}
	return false
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
// one row of (result, reason). args are the tenant and the parameters: the
// call's id (callid.go), new for this call, goes after them, the same on
// every sending of it.
func Call(ctx context.Context, q Querier, sql string, args ...any) (chobo.Result, error) {
	if err := checkSize(args); err != nil {
		return chobo.Result{}, err
	}
	return call(ctx, q, sql, append(args[:len(args):len(args)], NewCallID()))
}

// call sends an operation whose args end with its call id.
func call(ctx context.Context, q Querier, sql string, args []any) (chobo.Result, error) {
	var outcome, reason *string
	again, err := send(ctx, q, sql, args, &outcome, &reason)
	if err != nil {
		return chobo.Result{}, err
	}
	if outcome == nil {
		return chobo.Result{}, ErrNoAnswer
	}
	o, err := chobo.ParseOutcome(*outcome)
	if err != nil {
		return chobo.Result{}, err
	}
	r := chobo.Result{Outcome: o, Resent: again}
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
