// Package postgres writes a book as PostgreSQL: one schema per book, the
// tables that hold balances, holds, used keys and entries, and one
// function per transfer and operation. Every bound is kept inside one
// function call: the rows are locked in id order, every move is checked
// on the locked values in the order written, and nothing is written
// unless all of them pass.
package postgres

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
)

// Generate returns the SQL of b. header is written first as comment lines.
// The text is safe to run again on a database that has it already.
func Generate(b *book.Book, header []string) string {
	g := &gen{b: b, s: Ident(b.Name)}
	for _, h := range header {
		g.line("-- %s", h)
	}
	g.schema()
	g.idFunction()
	for _, t := range b.Transfers {
		if t.Pending == nil {
			g.moveFunc(t, book.Do)
			continue
		}
		g.moveFunc(t, book.Hold)
		g.postFunc(t)
		g.voidFunc(t)
		g.statusFunc(t)
	}
	for _, a := range b.Accounts {
		g.balanceFunc(a)
	}
	g.expireFunc()
	return g.out.String()
}

type gen struct {
	b   *book.Book
	s   string // the quoted schema
	out strings.Builder
}

func (g *gen) line(format string, args ...any) {
	fmt.Fprintf(&g.out, format, args...)
	g.out.WriteString("\n")
}

// q qualifies a name with the book's schema.
func (g *gen) q(name string) string { return g.s + "." + name }

func (g *gen) schema() {
	g.line(`
create schema if not exists %[1]s;

-- What every operation answers: done, done_before or refused with a reason.
do $$ begin
  create type %[1]s.result as (result text, reason text);
exception when duplicate_object then null;
end $$;

do $$ begin
  create type %[1]s.balance as (posted bigint, held_in bigint, held_out bigint);
exception when duplicate_object then null;
end $$;

-- One row per account, created on first use. The bounds are those of the
-- book when the row was made; a function finding others stops (CB001).
-- The checks are the last guard against writes that bypass the functions.
create table if not exists %[1]s.accounts (
  tenant      text not null,
  id          uuid not null,
  kind        text not null,
  args        text[] not null,
  unit        text not null,
  lower_bound bigint,
  upper_bound bigint,
  posted      bigint not null default 0,
  held_in     bigint not null default 0,
  held_out    bigint not null default 0,
  primary key (tenant, id),
  constraint within_lower check (lower_bound is null or posted - held_out >= least(lower_bound, 0)),
  constraint within_upper check (upper_bound is null or posted + held_in <= greatest(upper_bound, 0))
);

-- One row per hold: what each move holds, and where the hold stands.
create table if not exists %[1]s.holds (
  tenant         text not null,
  id             uuid not null,
  kind           text not null,
  key            text[] not null,
  from_ids       uuid[] not null,
  to_ids         uuid[] not null,
  amounts        bigint[] not null,
  state          text not null check (state in ('held', 'posted', 'voided', 'expired')),
  created_at     timestamptz not null,
  deadline       timestamptz,
  posted_amounts bigint[],
  primary key (tenant, id)
);
create index if not exists holds_due on %[1]s.holds (deadline, tenant, id) where state = 'held';

-- One row per key used, in the namespace of a transfer kind and an
-- operation, with what it was used for.
create table if not exists %[1]s.keys (
  tenant     text not null,
  kind       text not null,
  op         text not null,
  key        text[] not null,
  content    text not null,
  definition text not null,
  result     text not null,
  reason     text,
  at         timestamptz not null default clock_timestamp(),
  primary key (tenant, kind, op, key)
);

-- Every change of every balance: a balance is the sum of its entries.
create table if not exists %[1]s.entries (
  seq      bigserial primary key,
  tenant   text not null,
  account  uuid not null,
  kind     text not null,
  op       text not null,
  key      text[] not null,
  posted   bigint not null,
  held_in  bigint not null,
  held_out bigint not null,
  at       timestamptz not null default clock_timestamp()
);
create index if not exists entries_account on %[1]s.entries (tenant, account);`, g.s)
}

func (g *gen) idFunction() {
	g.line(`
-- The id of an account or a transfer, the same in every backend and
-- language: SHA-256 over length-prefixed UTF-8 parts, first 16 bytes.
create or replace function %[1]s.chobo_id(parts text[]) returns uuid
language plpgsql immutable strict as $fn$
declare
  v_buf bytea := int4send(7) || convert_to('chobo/1', 'UTF8');
  v_part text;
  v_bytes bytea;
  v_id bytea;
begin
  foreach v_part in array parts loop
    v_bytes := convert_to(v_part, 'UTF8');
    v_buf := v_buf || int4send(octet_length(v_bytes)) || v_bytes;
  end loop;
  v_id := substring(sha256(v_buf) from 1 for 16);
  if v_id = '\x00000000000000000000000000000000'::bytea then
    v_id := '\x00000000000000000000000000000001'::bytea;
  elsif v_id = '\xffffffffffffffffffffffffffffffff'::bytea then
    v_id := '\xfffffffffffffffffffffffffffffffe'::bytea;
  end if;
  return encode(v_id, 'hex')::uuid;
end
$fn$;`, g.s)
}

// accountID writes the expression of the id of an account a move names.
func (g *gen) accountID(r book.AccountRef) string {
	parts := []string{Lit("account"), Lit(g.b.Name), "p_tenant", Lit(r.Account.Name)}
	for _, p := range r.Args {
		parts = append(parts, Ident(ParamName(p.Name)))
	}
	return fmt.Sprintf("%s(array[%s])", g.q("chobo_id"), strings.Join(parts, ", "))
}

// holdID writes the expression of a hold's id: the id of the first
// transfer of its chain in TigerBeetle.
func (g *gen) holdID(t *book.Transfer) string {
	parts := []string{Lit("transfer"), Lit(g.b.Name), "p_tenant", Lit(t.Name), Lit("hold")}
	for _, p := range t.Key {
		parts = append(parts, Ident(ParamName(p.Name)))
	}
	parts = append(parts, Lit("0"))
	return fmt.Sprintf("%s(array[%s])", g.q("chobo_id"), strings.Join(parts, ", "))
}

func sqlType(p *book.Param) string {
	if p.IsAmount() {
		return "bigint"
	}
	return "text"
}

func (g *gen) keyArray(t *book.Transfer) string {
	var ks []string
	for _, p := range t.Key {
		ks = append(ks, Ident(ParamName(p.Name)))
	}
	return "array[" + strings.Join(ks, ", ") + "]::text[]"
}

func amountExpr(m *book.Move) string {
	if m.Amount.Param != nil {
		return Ident(ParamName(m.Amount.Param.Name))
	}
	return fmt.Sprintf("%d::bigint", m.Amount.Literal)
}

func boundLit(b *book.Bound) string {
	if b == nil {
		return "null::bigint"
	}
	return fmt.Sprintf("%d::bigint", b.Value)
}

// requireArgs writes the checks that make a malformed call fail rather
// than answer: missing values and negative amounts.
func (g *gen) requireArgs(params []*book.Param, amountsMayBeNull bool) {
	g.line("  if p_tenant is null then")
	g.line("    raise exception 'chobo: the tenant is null' using errcode = '22004';")
	g.line("  end if;")
	for _, p := range params {
		n := Ident(ParamName(p.Name))
		if p.IsAmount() {
			if !amountsMayBeNull {
				g.line("  if %s is null then", n)
				g.line("    raise exception 'chobo: the amount %s is null' using errcode = '22004';", p.Name)
				g.line("  end if;")
			}
			g.line("  if %s < 0 then", n)
			g.line("    raise exception 'chobo: the amount %s is %%, below 0', %s using errcode = '22003';", p.Name, n)
			g.line("  end if;")
			continue
		}
		g.line("  if %s is null then", n)
		g.line("    raise exception 'chobo: the value of %s is null' using errcode = '22004';", p.Name)
		g.line("  end if;")
	}
}

func (g *gen) signature(t *book.Transfer, name string, params []*book.Param, amountDefaults bool, returns string) {
	args := []string{"p_tenant text"}
	for _, p := range params {
		a := Ident(ParamName(p.Name)) + " " + sqlType(p)
		if amountDefaults && p.IsAmount() {
			a += " default null"
		}
		args = append(args, a)
	}
	g.line("")
	g.line("create or replace function %s(%s)", g.q(Ident(name)), strings.Join(args, ", "))
	g.line("returns %s language plpgsql as $fn$", returns)
}

func (g *gen) result(res, reason string) string {
	r := "null"
	if reason != "" {
		r = Lit(reason)
	}
	return fmt.Sprintf("return row(%s, %s)::%s;", Lit(res), r, g.q("result"))
}

// lockAccounts writes the statement that locks the rows of ids (a uuid[]
// expression) in id order and reads them into arrays, in id order too.
func (g *gen) lockAccounts(ids string) {
	g.line("  select coalesce(array_agg(a.id order by a.id), '{}'), coalesce(array_agg(a.posted order by a.id), '{}'),")
	g.line("         coalesce(array_agg(a.held_in order by a.id), '{}'), coalesce(array_agg(a.held_out order by a.id), '{}'),")
	g.line("         coalesce(array_agg(a.lower_bound order by a.id), '{}'), coalesce(array_agg(a.upper_bound order by a.id), '{}')")
	g.line("    into v_ids, v_posted, v_held_in, v_held_out, v_lower, v_upper")
	g.line("    from (select * from %s where tenant = p_tenant and id = any(%s) order by id for update) a;", g.q("accounts"), ids)
}

// writeAccounts opens the one statement that writes everything a call
// changed: a data-modifying WITH that updates the locked rows from the
// arrays. Callers add their own CTEs (extra) and end with the insert of
// the entries; one statement costs less than one per row and table.
func (g *gen) writeAccounts(extra ...string) {
	g.line("  with written as (")
	g.line("    update %s a set posted = x.posted, held_in = x.held_in, held_out = x.held_out", g.q("accounts"))
	g.line("      from unnest(v_ids, v_posted, v_held_in, v_held_out) as x (id, posted, held_in, held_out)")
	g.line("     where a.tenant = p_tenant and a.id = x.id")
	g.line("  )")
	for _, e := range extra {
		g.line("  , %s", e)
	}
}
