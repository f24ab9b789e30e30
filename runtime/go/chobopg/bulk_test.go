package chobopg

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// bulkSchema is a stand-in for a book's function: a key done once, a
// refusal above 10, a malformed call (SQLSTATE 22023) below 0, and a
// serialization failure on every other try of a key with "retry" in it.
const bulkSchema = `
create table done (k text primary key, amt bigint not null, id uuid);
-- a sequence, as its numbers stay taken when the transaction fails
create sequence tries;
-- A call that finds its key done by a call of the same id is answered
-- done, as the book's functions answer a call sent again.
create function op(t text, k text, amt bigint, id uuid) returns table(result text, reason text) language plpgsql as $$
begin
  if id is null then raise exception 'no call id' using errcode = '22004'; end if;
  if amt < 0 then raise exception 'negative' using errcode = '22023'; end if;
  if k like '%retry%' then
    if nextval('tries') % 2 = 1 then
      -- a failed call writes nothing: this write must not stay
      insert into done values (k || '-ghost', 0);
      raise exception 'try again' using errcode = '40001';
    end if;
  end if;
  if amt > 10 then return query select 'refused', 'too_much'; return; end if;
  insert into done values (k, amt, id) on conflict do nothing;
  if found or exists (select 1 from done where done.k = op.k and done.id = op.id) then
    return query select 'done', null::text;
  else
    return query select 'done_before', null::text;
  end if;
end $$;
create function st(t text, k text) returns text language sql as $$ select case when exists (select 1 from done where done.k = st.k) then 'posted' end $$;
`

func bulkOps(prefix string) ([]Op, []string) {
	call := func(k string, amt any) Op {
		return Op{SQL: `select result, reason from op($1, $2, $3, $4::uuid)`, Args: []any{"t", prefix + k, amt}}
	}
	status := func(k string) Op {
		return Op{SQL: `select st($1, $2)`, Args: []any{"t", prefix + k}, Status: true}
	}
	ops := []Op{
		call("a", int64(1)),
		call("a", int64(1)),
		call("big", int64(11)),
		call("neg", int64(-1)),
		call("retry", int64(2)),
		status("a"),
		status("none"),
		{Err: errors.New("refused by the client")},
		call("b", 3),
	}
	want := []string{"done", "done_before", "refused too_much", "error 22", "done", "state posted", "state ", "error client", "done"}
	return ops, want
}

func show(a Answer) string {
	switch {
	case errors.Is(a.Err, ErrBadCall):
		return "error 22"
	case a.Err != nil && a.Err.Error() == "refused by the client":
		return "error client"
	case a.Err != nil:
		return "error " + a.Err.Error()
	case a.Result.Outcome != "":
		if a.Result.Reason != "" {
			return string(a.Result.Outcome) + " " + a.Result.Reason
		}
		return string(a.Result.Outcome)
	}
	return "state " + string(a.State)
}

// Over a pool, a connection and a transaction, a bulk answers every call
// as it would be answered alone; only the first two send a pipeline, and
// inside the transaction the serialization failure is not retried.
func TestBulkOnServer(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	pool := srv.Pool(t, 2)
	if _, err := pool.Exec(ctx, bulkSchema); err != nil {
		t.Fatal(err)
	}
	conn := srv.Connect(t)
	for _, c := range []struct {
		name      string
		q         Querier
		pipelined bool
	}{{"pool", pool, true}, {"conn", conn, true}} {
		t.Run(c.name, func(t *testing.T) {
			ops, want := bulkOps(c.name + "-")
			before, retriedBefore := Pipelined(), Retries(SerializationFailure)
			got := Bulk(ctx, c.q, ops)
			for i := range ops {
				if s := show(got[i]); s != want[i] {
					t.Errorf("call %d: %s, want %s", i, s, want[i])
				}
			}
			if n := Pipelined() - before; c.pipelined && n == 0 {
				t.Errorf("no call went in a pipeline")
			}
			if n := Retries(SerializationFailure) - retriedBefore; n != 1 {
				t.Errorf("%d retries, want 1", n)
			}
			var ghosts int
			if err := pool.QueryRow(ctx, `select count(*) from done where k like $1`, c.name+"-%ghost").Scan(&ghosts); err != nil || ghosts != 0 {
				t.Errorf("the failed try left %d rows (%v)", ghosts, err)
			}
			// Each call its own id, a version 4 UUID: the second call of
			// "a" above answered done_before, not done.
			var rows, ids, v4 int
			if err := pool.QueryRow(ctx, `select count(*), count(distinct id), count(*) filter (where id::text ~ '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$')
				from done where k like $1`, c.name+"-%").Scan(&rows, &ids, &v4); err != nil || rows != 3 || ids != rows || v4 != rows {
				t.Errorf("%d calls done, with %d ids, %d of version 4 (%v)", rows, ids, v4, err)
			}
			// The same Op in another Bulk is another call.
			if again := Bulk(ctx, c.q, ops[:1]); show(again[0]) != "done_before" {
				t.Errorf("the first call in a second bulk: %s, want done_before", show(again[0]))
			}
		})
	}
	t.Run("transaction", func(t *testing.T) {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		before := Pipelined()
		ops := []Op{
			{SQL: `select result, reason from op($1, $2, $3, $4::uuid)`, Args: []any{"t", "tx-a", int64(1)}},
			{SQL: `select result, reason from op($1, $2, $3, $4::uuid)`, Args: []any{"t", "tx-retry", int64(1)}},
			{SQL: `select result, reason from op($1, $2, $3, $4::uuid)`, Args: []any{"t", "tx-b", int64(1)}},
		}
		got := Bulk(ctx, tx, ops)
		if Pipelined() != before {
			t.Errorf("a bulk inside a transaction went in a pipeline")
		}
		if s := show(got[0]); s != "done" {
			t.Errorf("first call: %s", s)
		}
		// The failure is the caller's to handle: it is not retried, and
		// the call after it meets the failed transaction.
		if SQLState(got[1].Err) != SerializationFailure {
			t.Errorf("second call: %v, want the serialization failure", got[1].Err)
		}
		if SQLState(got[2].Err) != InFailedTransaction {
			t.Errorf("third call: %v, want the failed transaction", got[2].Err)
		}
	})
}

// Thousands of calls, more than one pipeline holds, answer in order.
func TestBulkManyCalls(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	pool := srv.Pool(t, 2)
	if _, err := pool.Exec(ctx, bulkSchema); err != nil {
		t.Fatal(err)
	}
	n := 2*PipelineMax + 7
	ops := make([]Op, n)
	for i := range ops {
		ops[i] = Op{SQL: `select result, reason from op($1, $2, $3, $4::uuid)`, Args: []any{"t", fmt.Sprint("k", i/2), int64(i % 13)}}
	}
	got := Bulk(ctx, pool, ops)
	for i, a := range got {
		want := chobo.Done
		switch {
		case i%13 > 10:
			want = chobo.Refused
		case i%2 == 1 && (i-1)%13 <= 10:
			want = chobo.DoneBefore
		}
		if a.Err != nil || a.Result.Outcome != want {
			t.Fatalf("call %d: %v %v, want %s", i, a.Result, a.Err, want)
		}
	}
}
