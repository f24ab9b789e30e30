package chobopg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// Op is one call of a Bulk: the statement of an operation and what it is
// given, as Call and Status take them.
type Op struct {
	SQL  string
	Args []any
	// Status marks a status statement, answered with a hold state.
	Status bool
	// Err, when set, is why the client would not send the call: its
	// Answer is this error, and nothing is sent.
	Err error
}

// Answer is what one call of a Bulk got: a Result, a State (status; ""
// when there is no hold), or Err, as the call alone would have got them.
type Answer struct {
	Result chobo.Result
	State  chobo.HoldState
	Err    error
}

// PipelineMax is how many calls go in one pipeline at most: enough to
// keep the server busy for a round trip, few enough that the answers
// waiting to be read stay small.
const PipelineMax = 1000

// pipelined counts the calls this process sent in a pipeline of more than
// one, so that a test can show a bulk did not fall back to one by one.
var pipelined atomic.Int64

// Pipelined says how many calls, in this process, went in a pipeline
// together with others.
func Pipelined() int64 { return pipelined.Load() }

// Bulk sends many calls and answers each as it would be answered alone,
// in order. Over a *pgxpool.Pool, or a *pgx.Conn outside a transaction,
// the calls go in pipeline mode: all written before any answer is read,
// with a Sync after each, so that every call is its own transaction and
// the failure of one leaves the others alone. The calls that failed with
// a retryable SQLSTATE go again, together, after a random wait, up to
// MaxAttempts times; such a call is then applied after those that
// followed it. Over anything else (a pgx.Tx, a connection inside a
// transaction) the calls go one by one through Call and Status, so that
// they commit or roll back with the caller's transaction and are retried
// only as a single call would be. A call of a pipeline whose connection
// broke is answered as a single call would be (ErrOutcomeUnknown, or
// ErrNotSent for one that never went); over a pool that resends (Resend)
// such calls go again one by one. Each call of an operation gets an id of
// its own (callid.go) when the Bulk is sent, which goes with every sending
// of that call, alone or in a pipeline; the same Op in another Bulk is
// another call, with another id.
func Bulk(ctx context.Context, q Querier, ops []Op) []Answer {
	out := make([]Answer, len(ops))
	var send []int
	withIDs := make([]Op, len(ops))
	for i, op := range ops {
		if op.Err == nil {
			op.Err = checkSize(op.Args)
		}
		if op.Err != nil {
			out[i].Err = op.Err
			continue
		}
		if !op.Status {
			op.Args = append(op.Args[:len(op.Args):len(op.Args)], NewCallID())
		}
		withIDs[i] = op
		send = append(send, i)
	}
	ops = withIDs
	switch c := unwrap(q).(type) {
	case *pgxpool.Pool:
		if len(send) < 2 {
			break
		}
		if err := pipelinedOnPool(ctx, c, ops, send, out); err != nil {
			for _, i := range send {
				out[i].Err = lost{ErrNotSent, err}
			}
		}
		// After the pool has its connection back: it may have no other.
		if optionsOf(q).resendFor > 0 {
			resendLost(ctx, q, ops, send, out)
		}
		return out
	case *pgx.Conn:
		if len(send) > 1 && pipelinedOnConn(ctx, c, ops, send, out) {
			return out
		}
	}
	for _, i := range send {
		out[i] = one(ctx, q, ops[i])
	}
	return out
}

// pipelinedOnPool sends the calls at send in pipelines on one connection
// of pool, which it gives back before it returns.
func pipelinedOnPool(ctx context.Context, pool *pgxpool.Pool, ops []Op, send []int, out []Answer) error {
	pc, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer pc.Release()
	sendPipelined(ctx, pc.Conn(), ops, send, out)
	return nil
}

// pipelinedOnConn sends the calls at send in pipelines on conn, in its
// turn (turns.go), when conn is outside a transaction; it reports false,
// having sent nothing, when it is inside one. A Bulk whose context ends
// while it waits for its turn sent nothing: each call's error says so.
func pipelinedOnConn(ctx context.Context, conn *pgx.Conn, ops []Op, send []int, out []Answer) bool {
	release, err := takeTurn(ctx, conn)
	if err != nil {
		for _, i := range send {
			out[i].Err = err
		}
		return true
	}
	defer release()
	if conn.PgConn().TxStatus() != 'I' {
		return false
	}
	sendPipelined(ctx, conn, ops, send, out)
	return true
}

// sendPipelined sends the calls at send in pipelines on conn, PipelineMax a
// pipeline, and sends those that failed with a retryable SQLSTATE again,
// together, after a random wait, until MaxAttempts.
func sendPipelined(ctx context.Context, conn *pgx.Conn, ops []Op, send []int, out []Answer) {
	for n := 0; len(send) > 0; n++ {
		var again []int
		for start := 0; start < len(send); start += PipelineMax {
			part := send[start:min(start+PipelineMax, len(send))]
			again = append(again, pipeline(ctx, conn.PgConn(), ops, part, out, n+1 >= MaxAttempts)...)
		}
		send = again
		if len(send) > 0 && !pause(ctx, Backoff(n)) {
			for _, i := range send {
				out[i].Err = ctx.Err()
			}
			return
		}
	}
}

// resendLost sends again, one by one on the pool, the calls of a Bulk
// whose connection broke: those that were out are marked Resent, since
// the pipeline may have applied them.
func resendLost(ctx context.Context, q Querier, ops []Op, at []int, out []Answer) {
	for _, i := range at {
		var l lost
		if !errors.As(out[i].Err, &l) {
			continue
		}
		resends[l.kind].Add(1)
		a := one(ctx, q, ops[i])
		if l.kind == ErrOutcomeUnknown {
			if a.Err == nil {
				a.Result.Resent = true
			} else if errors.Is(a.Err, ErrNotSent) {
				a.Err = lost{ErrOutcomeUnknown, a.Err}
			}
		}
		out[i] = a
	}
}

// one sends a call of a Bulk alone, with the call id it has in the Bulk.
func one(ctx context.Context, q Querier, op Op) Answer {
	var a Answer
	if op.Status {
		a.State, a.Err = Status(ctx, q, op.SQL, op.Args...)
	} else {
		a.Result, a.Err = call(ctx, q, op.SQL, op.Args)
	}
	return a
}

// pipeline sends the calls at (indexes of ops) in one pipeline on c and
// writes their answers into out; it returns those that failed with a
// retryable SQLSTATE, to go again unless last.
func pipeline(ctx context.Context, c *pgconn.PgConn, ops []Op, at []int, out []Answer, last bool) []int {
	if c.IsClosed() {
		// Broken by an earlier pipeline: nothing of these goes.
		for _, i := range at {
			if out[i].Err == nil {
				out[i].Err = lost{ErrNotSent, net.ErrClosed}
			}
		}
		return nil
	}
	p := c.StartPipeline(ctx)
	for _, i := range at {
		params, err := textParams(ops[i].Args)
		if err != nil {
			// Nothing is sent yet: refuse the call and leave it out.
			out[i].Err = err
			continue
		}
		p.SendQueryParams(ops[i].SQL, params, nil, nil, nil)
		p.SendPipelineSync()
	}
	var again []int
	// broke fails every call not yet answered, the ones due to go
	// again among them: the connection is gone, and each may have been
	// applied.
	broke := func(from int, err error) []int {
		kind := ErrOutcomeUnknown
		if SQLState(err) != "" && connectionFailure(err) == ErrNotSent {
			// A pooler that held the statement for a server it never
			// got: neither it nor any after it went further.
			kind = ErrNotSent
		}
		for _, i := range append(again, at[from:]...) {
			if out[i].Err == nil {
				out[i].Err = lost{kind, err}
			}
		}
		_ = p.Close()
		return nil
	}
	if err := p.Flush(); err != nil {
		return broke(0, err)
	}
	if len(at) > 1 {
		pipelined.Add(int64(len(at)))
	}
	for k, i := range at {
		if out[i].Err != nil {
			continue // refused above, never sent
		}
		vals, err := readOne(p)
		code := SQLState(err)
		switch {
		case err == nil:
			out[i] = answerOf(ops[i].Status, vals)
		case Retryable(code) && !last:
			retried[code].Add(1)
			again = append(again, i)
		case code != "" && connectionFailure(err) == nil:
			out[i].Err = classify(err)
		default:
			// Not the server's answer to this call (or its notice that
			// it ends the session): the connection broke, and no later
			// answer can be read.
			return broke(k, err)
		}
		if !syncOf(p) {
			return broke(k+1, errors.New("chobo: the pipeline lost its place after a call"))
		}
	}
	_ = p.Close()
	return again
}

// readOne reads the answer to one statement of a pipeline: the values of
// its one row, or the error.
func readOne(p *pgconn.Pipeline) ([][]byte, error) {
	res, err := p.GetResults()
	if err != nil {
		return nil, err
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		return nil, fmt.Errorf("chobo: the pipeline answered %T where a statement's rows were due", res)
	}
	var vals [][]byte
	for rr.NextRow() {
		if vals == nil {
			for _, v := range rr.Values() {
				vals = append(vals, append([]byte(nil), v...))
			}
		}
	}
	if _, err := rr.Close(); err != nil {
		return nil, err
	}
	if vals == nil {
		return nil, pgx.ErrNoRows
	}
	return vals, nil
}

// syncOf reads the end of one call's transaction in a pipeline.
func syncOf(p *pgconn.Pipeline) bool {
	res, err := p.GetResults()
	if err != nil {
		return false
	}
	_, ok := res.(*pgconn.PipelineSync)
	return ok
}

// answerOf reads the text values of a call's row as Call and Status do.
func answerOf(status bool, vals [][]byte) Answer {
	var a Answer
	if status {
		if len(vals) != 1 {
			a.Err = fmt.Errorf("chobo: a status row of %d values", len(vals))
		} else if vals[0] != nil {
			a.State, a.Err = chobo.ParseHoldState(string(vals[0]))
		}
		return a
	}
	if len(vals) != 2 {
		a.Err = fmt.Errorf("chobo: a result row of %d values", len(vals))
		return a
	}
	if vals[0] == nil {
		a.Err = ErrNoAnswer
		return a
	}
	o, err := chobo.ParseOutcome(string(vals[0]))
	if err != nil {
		a.Err = err
		return a
	}
	a.Result = chobo.Result{Outcome: o, Reason: string(vals[1])}
	return a
}

// textParams writes the arguments of a call in PostgreSQL's text format;
// the server takes their types from the function the statement calls.
func textParams(args []any) ([][]byte, error) {
	out := make([][]byte, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case nil:
		case string:
			out[i] = []byte(v)
		case int64:
			out[i] = strconv.AppendInt(nil, v, 10)
		case int:
			out[i] = strconv.AppendInt(nil, int64(v), 10)
		default:
			return nil, fmt.Errorf("chobo: a bulk call cannot carry a %T", a)
		}
	}
	return out, nil
}
