package chobopg

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// historySchema stands in for a book's history functions: the same
// arguments and row types, answering from what they are given, so that
// the reads are held to PostgreSQL's types and to pgx's scanning. An
// account has five entries; bank has no bounds, so no balance after its
// entries and none at a time.
const historySchema = `
create schema h;
create function h.history_statement(p_tenant text, p_account text, p_args text[], p_from timestamptz, p_to timestamptz,
    p_kinds text[], p_newest boolean, p_limit integer, p_after bigint)
returns table (cursor bigint, kind text, op text, key text[], args text[], move integer, "out" boolean, account text,
    account_args text[], posted bigint, held_in bigint, held_out bigint, after_posted bigint, after_held_in bigint,
    after_held_out bigint, at timestamptz)
language sql as $$
  select g::bigint, 'payment', 'hold', array['p-' || g], array['p-' || g, p_tenant, (100 * g)::text, '1'], 1, true,
         p_account, p_args, 0::bigint, 0::bigint, (100 * g)::bigint,
         case when p_account = 'bank' then null else 1000::bigint end, case when p_account = 'bank' then null else 0::bigint end,
         case when p_account = 'bank' then null else (100 * g)::bigint end,
         coalesce(p_from, '2026-12-06 12:00:00+00'::timestamptz) + g * interval '1 second'
    from generate_series(coalesce(p_after, 0) + 1, least(5, coalesce(p_after, 0) + p_limit)) g
   where p_kinds is null or 'payment' = any(p_kinds)
$$;
create function h.history_call(p_tenant text, p_kind text, p_key text[])
returns table (cursor bigint, kind text, op text, key text[], args text[], move integer, "out" boolean, account text,
    account_args text[], posted bigint, held_in bigint, held_out bigint, after_posted bigint, after_held_in bigint,
    after_held_out bigint, at timestamptz)
language sql as $$
  values (7::bigint, p_kind, 'post', p_key, p_key || array['90', '1'], 2, false, 'fees', '{}'::text[], 1::bigint, -1::bigint, 0::bigint,
          null::bigint, null::bigint, null::bigint, '2026-12-06 12:00:00.123456+09'::timestamptz)
$$;
create function h.history_open_holds(p_tenant text, p_account text, p_args text[], p_kind text)
returns table (kind text, key text[], move integer, from_account text, from_args text[], to_account text,
    to_args text[], amount bigint, created timestamptz, deadline timestamptz)
language sql as $$
  values ('payment', array['p-1'], 1, coalesce(p_account, 'wallet'), coalesce(p_args, array['any']), 'merchants', '{}'::text[], 500::bigint,
          '2026-12-06 12:00:00+00'::timestamptz, '2026-12-06 12:30:00+00'::timestamptz),
         ('payment', array['p-1'], 2, coalesce(p_account, 'wallet'), coalesce(p_args, array['any']), 'fees', '{}'::text[], 20::bigint,
          '2026-12-06 12:00:00+00'::timestamptz, '2026-12-06 12:30:00+00'::timestamptz),
         (coalesce(p_kind, 'payment'), array['p-2'], 1, 'wallet', array['c-2'], 'merchants', '{}'::text[], 7::bigint,
          '2026-12-06 12:01:00+00'::timestamptz, null::timestamptz)
$$;
create function h.history_balance(p_tenant text, p_account text, p_args text[], p_at timestamptz)
returns table (posted bigint, held_in bigint, held_out bigint)
language sql as $$
  select case when p_account = 'bank' then null else extract(epoch from p_at)::bigint end, 0::bigint, cardinality(p_args)::bigint
$$;
`

var serverHistory = &History{
	Statement: "select cursor, kind, op, key, args, move, out, account, account_args, posted, held_in, held_out, after_posted, after_held_in, after_held_out, at from h.history_statement($1, $2, $3::text[], $4::timestamptz, $5::timestamptz, $6::text[], $7::boolean, $8::integer, $9::bigint)",
	Call:      "select cursor, kind, op, key, args, move, out, account, account_args, posted, held_in, held_out, after_posted, after_held_in, after_held_out, at from h.history_call($1, $2, $3::text[])",
	OpenHolds: "select kind, key, move, from_account, from_args, to_account, to_args, amount, created, deadline from h.history_open_holds($1, $2, $3::text[], $4)",
	BalanceAt: "select posted, held_in, held_out from h.history_balance($1, $2, $3::text[], $4::timestamptz)",
	Kinds:     testHistory.Kinds,
}

// TestHistoryReadsOnServer reads a statement page by page, the entries
// of a call, open holds and balances at a time from a server, over a
// pool, a connection and a transaction.
func TestHistoryReadsOnServer(t *testing.T) {
	srv := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool := srv.Pool(t, 2)
	if _, err := pool.Exec(ctx, historySchema); err != nil {
		t.Fatal(err)
	}
	tx, err := srv.Connect(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, c := range []struct {
		name string
		q    Querier
	}{{"pool", pool}, {"conn", srv.Connect(t)}, {"tx", tx}} {
		t.Run(c.name, func(t *testing.T) {
			// Pages of two, each read past the Next of the one before.
			var pages []string
			sq := chobo.StatementQuery{Limit: 2}
			for range 4 {
				st, err := ReadStatement(ctx, c.q, serverHistory, "c-9", "wallet", []string{"c-9"}, sq)
				if err != nil {
					t.Fatal(err)
				}
				var cursors []string
				for _, e := range st.Entries {
					cursors = append(cursors, e.Cursor)
				}
				pages = append(pages, fmt.Sprintf("%v next %s more %v", cursors, st.Next, st.More))
				if !st.More {
					break
				}
				sq.After = st.Next
			}
			if got, want := strings.Join(pages, "; "), "[1 2] next 2 more true; [3 4] next 4 more true; [5] next 5 more false"; got != want {
				t.Errorf("pages %s, want %s", got, want)
			}
			from := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
			st, err := ReadStatement(ctx, c.q, serverHistory, "c-9", "bank", nil, chobo.StatementQuery{From: from, Transfers: []string{"payment"}, Limit: 1, After: "4"})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Entries) != 1 || st.More {
				t.Fatalf("%+v", st)
			}
			if got, want := entryText(st.Entries[0]), "5 payment.hold [p-5] map[card:c-9 fee:1 payment_id:p-5 price:500] move 1 out true bank[] 0/0/500 at 2027-01-01T00:00:05Z"; got != want {
				t.Errorf("entry %s\nwant  %s", got, want)
			}
			st, err = ReadStatement(ctx, c.q, serverHistory, "c-9", "bank", nil, chobo.StatementQuery{Transfers: []string{"top_up"}})
			if err != nil || len(st.Entries) != 0 || st.More || st.Next != "" {
				t.Errorf("no entry of top_up: %+v %v", st, err)
			}

			es, err := ReadCallEntries(ctx, c.q, serverHistory, "c-9", "payment", []string{"p-7"})
			if err != nil || len(es) != 1 {
				t.Fatalf("%+v %v", es, err)
			}
			if got, want := entryText(es[0]), "7 payment.post [p-7] map[fee:1 payment_id:p-7 price:90] move 2 out false fees[] 1/-1/0 at 2026-12-06T03:00:00.123456Z"; got != want {
				t.Errorf("entry %s\nwant  %s", got, want)
			}

			hs, err := ReadOpenHolds(ctx, c.q, serverHistory, "c-9", "", nil, "payment")
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%+v", hs)
			want := "[{Transfer:payment Key:[p-1] ID: Moves:[{Move:1 From:wallet To:merchants FromArgs:[any] ToArgs:[] Amount:500} {Move:2 From:wallet To:fees FromArgs:[any] ToArgs:[] Amount:20}] Created:2026-12-06 12:00:00 +0000 UTC Deadline:2026-12-06 12:30:00 +0000 UTC} " +
				"{Transfer:payment Key:[p-2] ID: Moves:[{Move:1 From:wallet To:merchants FromArgs:[c-2] ToArgs:[] Amount:7}] Created:2026-12-06 12:01:00 +0000 UTC Deadline:0001-01-01 00:00:00 +0000 UTC}]"
			if got != want {
				t.Errorf("holds\n%s\nwant\n%s", got, want)
			}
			hs, err = ReadOpenHolds(ctx, c.q, serverHistory, "c-9", "wallet", []string{"c-1"}, "")
			if err != nil || len(hs) != 2 || hs[0].Moves[0].FromArgs[0] != "c-1" {
				t.Errorf("holds of wallet(c-1): %+v %v", hs, err)
			}

			at := time.Unix(1_800_000_000, 0)
			b, err := ReadBalanceAt(ctx, c.q, serverHistory, "c-9", "wallet", []string{"c-1"}, at)
			if err != nil || b != (chobo.Balance{Posted: 1_800_000_000, HeldOut: 1}) {
				t.Errorf("balance at: %+v %v", b, err)
			}
			if _, err := ReadBalanceAt(ctx, c.q, serverHistory, "c-9", "bank", nil, at); err == nil {
				t.Error("bank answered a balance at a time")
			}
		})
	}
}
