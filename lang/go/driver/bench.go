package driver

import (
	"context"
	"crypto/rand"
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// bench times req.Times calls (protocol.Bench): through the client, with
// req.SQL through pgx alone, or with req.Raw as transfers of the
// TigerBeetle client itself (benchRaw). Every call's arguments are made before
// the clock starts, so the figure holds the client's work and the
// round trips, not the driver's.
func (s *server) bench(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	if req.Times < 1 {
		return protocol.Response{}, fmt.Errorf("bench: times %d", req.Times)
	}
	if req.Raw {
		return s.benchRaw(ctx, req.Times)
	}
	book := s.client(req.Tenant)
	t, method, err := s.method(book, req.Transfer, req.Operation, "")
	if err != nil {
		return protocol.Response{}, err
	}
	argsOf := func(i int) map[string]string {
		a := maps.Clone(req.Args)
		a[req.KeyParam] += "-" + strconv.Itoa(i)
		return a
	}
	if _, ok := req.Args[req.KeyParam]; !ok {
		return protocol.Response{}, fmt.Errorf("bench: no value of the key parameter %q", req.KeyParam)
	}
	if req.SQL != "" {
		pool, ok := s.first.Interface().(*pgxpool.Pool)
		if !ok {
			return protocol.Response{}, fmt.Errorf("bench: raw SQL needs a PostgreSQL client")
		}
		types := map[string]string{}
		for _, f := range t.Args.Fields {
			types[f.Param] = f.Type
		}
		calls := make([][]any, req.Times)
		for i := range calls {
			a := argsOf(i)
			vals := []any{req.Tenant}
			for _, p := range req.Params {
				v, ok := a[p]
				if !ok {
					return protocol.Response{}, fmt.Errorf("bench: no value of %q", p)
				}
				if types[p] == "int64" {
					n, err := protocol.ParseAmount(v)
					if err != nil {
						return protocol.Response{}, fmt.Errorf("bench: %s: %v", p, err)
					}
					vals = append(vals, n)
				} else {
					vals = append(vals, v)
				}
			}
			calls[i] = append(vals, newCallID())
			if !req.Prepared {
				// as the client sends it (chobopg): unnamed
				calls[i] = append([]any{pgx.QueryExecModeExec}, calls[i]...)
			}
		}
		start := time.Now()
		for _, vals := range calls {
			var result string
			var reason *string
			if err := pool.QueryRow(ctx, req.SQL, vals...).Scan(&result, &reason); err != nil {
				return protocol.Response{}, err
			}
			if result != "done" {
				return protocol.Response{}, fmt.Errorf("bench: the statement answered %s %v", result, reason)
			}
		}
		return protocol.Response{Nanos: time.Since(start).Nanoseconds()}, nil
	}
	calls := make([][]reflect.Value, req.Times)
	for i := range calls {
		in, err := callArgs(method.Type(), 1, t, req.Operation, argsOf(i))
		if err != nil {
			return protocol.Response{}, err
		}
		calls[i] = append([]reflect.Value{reflect.ValueOf(ctx)}, in...)
	}
	start := time.Now()
	for _, in := range calls {
		out := method.Call(in)
		if err := asError(out[1]); err != nil {
			return protocol.Response{}, err
		}
		if o := out[0].FieldByName("Outcome").String(); o != "done" {
			return protocol.Response{}, fmt.Errorf("bench: the client answered %s %s", o, out[0].FieldByName("Reason").String())
		}
	}
	return protocol.Response{Nanos: time.Since(start).Nanoseconds()}, nil
}

// benchRaw sends n requests of one transfer each through the TigerBeetle
// client itself, between two accounts it makes first.
func (s *server) benchRaw(ctx context.Context, n int) (protocol.Response, error) {
	c, ok := s.first.Interface().(chobotb.Client)
	if !ok {
		return protocol.Response{}, fmt.Errorf("bench: raw transfers need a TigerBeetle client")
	}
	random := func() ids.ID {
		var id ids.ID
		rand.Read(id[:])
		return id
	}
	from, to := random(), random()
	st, err := c.CreateAccounts(ctx, []chobotb.Account{{ID: from, Ledger: 1, Code: 1}, {ID: to, Ledger: 1, Code: 1}})
	if err != nil {
		return protocol.Response{}, err
	}
	for _, x := range st {
		if x != chobotb.Created {
			return protocol.Response{}, fmt.Errorf("bench: an account: %s", x)
		}
	}
	ts := make([]chobotb.Transfer, n)
	for i := range ts {
		ts[i] = chobotb.Transfer{ID: random(), DebitAccountID: from, CreditAccountID: to, Amount: chobotb.U64(1), Ledger: 1, Code: 1}
	}
	start := time.Now()
	for i := range ts {
		st, err := c.CreateTransfers(ctx, ts[i:i+1])
		if err != nil {
			return protocol.Response{}, err
		}
		if len(st) != 1 || st[0] != chobotb.Created {
			return protocol.Response{}, fmt.Errorf("bench: a transfer: %v", st)
		}
	}
	return protocol.Response{Nanos: time.Since(start).Nanoseconds()}, nil
}

// newCallID is a random UUID (version 4) in text, as a client makes one
// for every call.
func newCallID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
