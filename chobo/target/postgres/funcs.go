package postgres

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
)

func moveText(m *book.Move) string {
	amount := fmt.Sprint(m.Amount.Literal)
	if m.Amount.Param != nil {
		amount = m.Amount.Param.Name
	}
	return fmt.Sprintf("move %s from %s to %s", amount, m.From, m.To)
}

// moveFunc writes do or hold: same account, the key, the accounts locked
// in id order, the moves checked in order on the locked values, then
// every write at once.
func (g *gen) moveFunc(t *book.Transfer, op book.Op) {
	hold := op == book.Hold
	g.signature(t, FuncName(t, string(op)), t.Params, false, g.q("result"))
	g.line("declare")
	g.line("  v_now timestamptz := clock_timestamp();")
	g.line("  v_key text[] := %s;", g.keyArray(t))
	var all []string
	for _, p := range t.Params {
		all = append(all, Ident(ParamName(p.Name)))
	}
	g.line("  v_content text := json_build_array(%s)::text;", strings.Join(all, ", "))
	g.line("  v_definition constant text := %s;", Lit(t.Definition()))
	g.line("  v_prev record;")
	g.line("  v_ids uuid[];")
	g.line("  v_posted bigint[];")
	g.line("  v_held_in bigint[];")
	g.line("  v_held_out bigint[];")
	g.line("  v_lower bigint[];")
	g.line("  v_upper bigint[];")
	g.line("  v_from integer;")
	g.line("  v_to integer;")
	for _, m := range t.Moves {
		g.line("  v_from_%d uuid;", m.Index)
		g.line("  v_to_%d uuid;", m.Index)
	}
	g.line("begin")
	g.requireArgs(t.Params, false)
	for _, m := range t.Moves {
		g.line("  v_from_%d := %s;", m.Index, g.accountID(m.From))
		g.line("  v_to_%d := %s;", m.Index, g.accountID(m.To))
	}
	g.line("")
	g.line("  -- (0) a move between one account and itself: refused before the key is touched")
	for _, m := range t.Moves {
		if m.From.Account == m.To.Account {
			g.line("  if v_from_%[1]d = v_to_%[1]d then", m.Index)
			g.line("    %s", g.result("refused", book.SameAccount))
			g.line("  end if;")
		}
	}
	g.line("")
	g.line("  -- (1) the key: a second call with it waits here for the first to commit")
	g.line("  insert into %s (tenant, kind, op, key, content, definition, result)", g.q("keys"))
	g.line("  values (p_tenant, %s, %s, v_key, v_content, v_definition, 'done')", Lit(t.Name), Lit(string(op)))
	g.line("  on conflict do nothing;")
	g.line("  if not found then")
	g.line("    select k.content, k.definition, k.result into v_prev from %s k", g.q("keys"))
	g.line("     where k.tenant = p_tenant and k.kind = %s and k.op = %s and k.key = v_key;", Lit(t.Name), Lit(string(op)))
	g.line("    if v_prev.result = 'refused' then")
	g.line("      %s", g.result("refused", book.AlreadyRefused))
	g.line("    elsif v_prev.content = v_content and v_prev.definition = v_definition then")
	g.line("      %s", g.result("done_before", ""))
	g.line("    end if;")
	g.line("    %s", g.result("refused", book.KeyConflict))
	g.line("  end if;")
	g.line("")
	g.line("  -- (2) the accounts, locked in id order; made first when missing")
	var rows, present, mismatch, idList []string
	for _, m := range t.Moves {
		for _, side := range []struct {
			v string
			r book.AccountRef
		}{{fmt.Sprintf("v_from_%d", m.Index), m.From}, {fmt.Sprintf("v_to_%d", m.Index), m.To}} {
			a := side.r.Account
			var args []string
			for _, p := range side.r.Args {
				args = append(args, Ident(ParamName(p.Name)))
			}
			rows = append(rows, fmt.Sprintf("(%s, %s, array[%s]::text[], %s, %s, %s)",
				side.v, Lit(a.Name), strings.Join(args, ", "), Lit(a.Unit.Name), boundLit(a.Lower), boundLit(a.Upper)))
			present = append(present, side.v+" = any(v_ids)")
			mismatch = append(mismatch,
				fmt.Sprintf("v_lower[array_position(v_ids, %s)] is distinct from %s", side.v, boundLit(a.Lower)),
				fmt.Sprintf("v_upper[array_position(v_ids, %s)] is distinct from %s", side.v, boundLit(a.Upper)))
			idList = append(idList, side.v)
		}
	}
	ids := "array[" + strings.Join(idList, ", ") + "]"
	g.lockAccounts(ids)
	g.line("  if not (%s) then", strings.Join(present, " and "))
	g.line("    insert into %s (tenant, id, kind, args, unit, lower_bound, upper_bound)", g.q("accounts"))
	g.line("    select distinct on (x.id) p_tenant, x.id, x.kind, x.args, x.unit, x.lower_bound, x.upper_bound")
	g.line("      from (values %s)", strings.Join(rows, ",\n                   "))
	g.line("           as x (id, kind, args, unit, lower_bound, upper_bound)")
	g.line("     order by x.id")
	g.line("    on conflict do nothing;")
	g.lockAccounts(ids)
	g.line("  end if;")
	g.line("  if %s then", strings.Join(mismatch, "\n     or "))
	g.line("    raise exception 'chobo: an account of %s keeps bounds other than the book has now', %s", "%", Lit(g.b.Name))
	g.line("      using errcode = 'CB001', hint = 'bounds of existing accounts cannot change: make a new account kind and move the balance';")
	g.line("  end if;")
	g.line("")
	g.line("  -- (3) every move, in the order written, on the locked values")
	for _, m := range t.Moves {
		amt := amountExpr(m)
		g.line("  -- %s", moveText(m))
		g.line("  v_from := array_position(v_ids, v_from_%d);", m.Index)
		g.line("  v_to := array_position(v_ids, v_to_%d);", m.Index)
		refuse := func(reason string) {
			g.line("    -- refused by a bound: nothing has moved, and the key stays used")
			g.line("    update %s k set result = 'refused', reason = %s", g.q("keys"), Lit(reason))
			g.line("     where k.tenant = p_tenant and k.kind = %s and k.op = %s and k.key = v_key;", Lit(t.Name), Lit(string(op)))
			g.line("    %s", g.result("refused", reason))
		}
		if lo := m.From.Account.Lower; lo != nil {
			g.line("  if v_posted[v_from]::numeric - v_held_out[v_from] - %s < %d then", amt, lo.Value)
			refuse(lo.Reason)
			g.line("  end if;")
		}
		if up := m.To.Account.Upper; up != nil {
			g.line("  if v_posted[v_to]::numeric + v_held_in[v_to] + %s > %d then", amt, up.Value)
			refuse(up.Reason)
			g.line("  end if;")
		}
		if hold {
			g.line("  v_held_out[v_from] := v_held_out[v_from] + %s;", amt)
			g.line("  v_held_in[v_to] := v_held_in[v_to] + %s;", amt)
		} else {
			g.line("  v_posted[v_from] := v_posted[v_from] - %s;", amt)
			g.line("  v_posted[v_to] := v_posted[v_to] + %s;", amt)
		}
	}
	g.line("")
	g.line("  -- (4) every move went through: the rows take what the moves left,")
	g.line("  -- in one statement with the entries (and the hold)")
	var extra []string
	if hold {
		var froms, tos, amts []string
		for _, m := range t.Moves {
			froms = append(froms, fmt.Sprintf("v_from_%d", m.Index))
			tos = append(tos, fmt.Sprintf("v_to_%d", m.Index))
			amts = append(amts, amountExpr(m))
		}
		deadline := "null::timestamptz"
		if t.Pending.Expires {
			deadline = fmt.Sprintf("v_now + interval '%d seconds'", t.Pending.Seconds)
		}
		extra = append(extra, fmt.Sprintf("made as (\n    insert into %s (tenant, id, kind, key, from_ids, to_ids, amounts, state, created_at, deadline)\n    values (p_tenant, %s, %s, v_key, array[%s], array[%s], array[%s]::bigint[], 'held', v_now, %s)\n  )",
			g.q("holds"), g.holdID(t), Lit(t.Name), strings.Join(froms, ", "), strings.Join(tos, ", "), strings.Join(amts, ", "), deadline))
	}
	g.writeAccounts(extra...)
	var entries []string
	for _, m := range t.Moves {
		amt := amountExpr(m)
		if hold {
			entries = append(entries,
				fmt.Sprintf("(v_from_%d, 0::bigint, 0::bigint, %s)", m.Index, amt),
				fmt.Sprintf("(v_to_%d, 0::bigint, %s, 0::bigint)", m.Index, amt))
		} else {
			entries = append(entries,
				fmt.Sprintf("(v_from_%d, -%s, 0::bigint, 0::bigint)", m.Index, amt),
				fmt.Sprintf("(v_to_%d, %s, 0::bigint, 0::bigint)", m.Index, amt))
		}
	}
	g.line("  insert into %s (tenant, account, kind, op, key, posted, held_in, held_out)", g.q("entries"))
	g.line("  select p_tenant, x.account, %s, %s, v_key, x.posted, x.held_in, x.held_out", Lit(t.Name), Lit(string(op)))
	g.line("    from (values %s)", strings.Join(entries, ",\n                 "))
	g.line("         as x (account, posted, held_in, held_out);")
	g.line("  %s", g.result("done", ""))
	g.line("end")
	g.line("$fn$;")
}

// holdPreamble reads the hold named by the key, locked, and answers
// no_such_hold when there is none.
func (g *gen) holdPreamble(t *book.Transfer, op string, params []*book.Param) {
	g.line("declare")
	g.line("  v_now timestamptz := clock_timestamp();")
	g.line("  v_key text[] := %s;", g.keyArray(t))
	g.line("  v_definition constant text := %s;", Lit(t.Definition()))
	g.line("  v_hold record;")
	g.line("  v_prev record;")
	g.line("  v_amounts bigint[];")
	g.line("  v_ids uuid[];")
	g.line("  v_posted bigint[];")
	g.line("  v_held_in bigint[];")
	g.line("  v_held_out bigint[];")
	g.line("  v_lower bigint[];")
	g.line("  v_upper bigint[];")
	g.line("  v_from integer;")
	g.line("  v_to integer;")
	g.line("begin")
	g.requireArgs(params, true)
	g.line("  select * into v_hold from %s h where h.tenant = p_tenant and h.id = %s for update;", g.q("holds"), g.holdID(t))
	g.line("  if not found then")
	g.line("    %s", g.result("refused", book.NoSuchHold))
	g.line("  end if;")
}

func (g *gen) expiredCheck() {
	g.line("  if v_hold.state = 'expired' or (v_hold.state = 'held' and v_hold.deadline is not null and v_hold.deadline <= v_now) then")
	g.line("    %s", g.result("refused", book.Expired))
	g.line("  end if;")
}

// release writes the loop that gives back what the hold held and posts
// v_amounts (when post is true), on the locked accounts.
func (g *gen) settle(t *book.Transfer, op string, post bool, extra ...string) {
	g.lockAccounts("v_hold.from_ids || v_hold.to_ids")
	g.line("  for i in 1 .. array_length(v_hold.amounts, 1) loop")
	g.line("    v_from := array_position(v_ids, v_hold.from_ids[i]);")
	g.line("    v_to := array_position(v_ids, v_hold.to_ids[i]);")
	g.line("    v_held_out[v_from] := v_held_out[v_from] - v_hold.amounts[i];")
	g.line("    v_held_in[v_to] := v_held_in[v_to] - v_hold.amounts[i];")
	if post {
		g.line("    v_posted[v_from] := v_posted[v_from] - v_amounts[i];")
		g.line("    v_posted[v_to] := v_posted[v_to] + v_amounts[i];")
	}
	g.line("  end loop;")
	g.writeAccounts(extra...)
	posted := "0::bigint"
	if post {
		posted = "v_amounts[i]"
	}
	g.line("  insert into %s (tenant, account, kind, op, key, posted, held_in, held_out)", g.q("entries"))
	g.line("  select p_tenant, x.account, %s, %s, v_key, x.posted, x.held_in, x.held_out", Lit(t.Name), Lit(op))
	g.line("    from generate_series(1, array_length(v_hold.amounts, 1)) as i,")
	g.line("         lateral (values (v_hold.from_ids[i], -%s, 0::bigint, -v_hold.amounts[i]),", posted)
	g.line("                         (v_hold.to_ids[i], %s, -v_hold.amounts[i], 0::bigint))", posted)
	g.line("         as x (account, posted, held_in, held_out);")
}

func (g *gen) postFunc(t *book.Transfer) {
	amounts := t.PostAmounts()
	params := append(append([]*book.Param{}, t.Key...), amounts...)
	g.signature(t, FuncName(t, "post"), params, true, g.q("result"))
	g.holdPreamble(t, "post", params)
	if len(amounts) > 0 {
		var nulls, given []string
		for _, p := range amounts {
			nulls = append(nulls, Ident(ParamName(p.Name))+" is null")
			given = append(given, Ident(ParamName(p.Name))+" is not null")
		}
		g.line("  if not ((%s) or (%s)) then", strings.Join(nulls, " and "), strings.Join(given, " and "))
		g.line("    raise exception 'chobo: give every amount of a partial post, or none for the full hold' using errcode = '22023';")
		g.line("  end if;")
	}
	g.line("  if v_hold.state = 'voided' then")
	g.line("    %s", g.result("refused", book.AlreadyVoided))
	g.line("  end if;")
	g.expiredCheck()
	var per []string
	for i, m := range t.Moves {
		if m.Amount.Param != nil {
			per = append(per, fmt.Sprintf("coalesce(%s, v_hold.amounts[%d])", Ident(ParamName(m.Amount.Param.Name)), i+1))
		} else {
			per = append(per, fmt.Sprintf("v_hold.amounts[%d]", i+1))
		}
	}
	g.line("  -- what each move posts: the amounts given, or the full hold")
	g.line("  v_amounts := array[%s]::bigint[];", strings.Join(per, ", "))
	g.line("  if v_hold.state = 'posted' then")
	g.line("    select k.content, k.definition into v_prev from %s k", g.q("keys"))
	g.line("     where k.tenant = p_tenant and k.kind = %s and k.op = 'post' and k.key = v_key;", Lit(t.Name))
	g.line("    if v_prev.content = v_amounts::text and v_prev.definition = v_definition then")
	g.line("      %s", g.result("done_before", ""))
	g.line("    end if;")
	g.line("    %s", g.result("refused", book.KeyConflict))
	g.line("  end if;")
	g.line("  if exists (select 1 from unnest(v_amounts, v_hold.amounts) as x (post, held) where x.post > x.held) then")
	g.line("    %s", g.result("refused", book.OverHold))
	g.line("  end if;")
	g.settle(t, "post", true,
		fmt.Sprintf("ended as (update %s h set state = 'posted', posted_amounts = v_amounts where h.tenant = p_tenant and h.id = v_hold.id)", g.q("holds")),
		fmt.Sprintf("used as (insert into %s (tenant, kind, op, key, content, definition, result) values (p_tenant, %s, 'post', v_key, v_amounts::text, v_definition, 'done'))", g.q("keys"), Lit(t.Name)))
	g.line("  %s", g.result("done", ""))
	g.line("end")
	g.line("$fn$;")
}

func (g *gen) voidFunc(t *book.Transfer) {
	g.signature(t, FuncName(t, "void"), t.Key, false, g.q("result"))
	g.holdPreamble(t, "void", t.Key)
	g.line("  if v_hold.state = 'posted' then")
	g.line("    %s", g.result("refused", book.AlreadyPosted))
	g.line("  elsif v_hold.state = 'voided' then")
	g.line("    select k.definition into v_prev from %s k", g.q("keys"))
	g.line("     where k.tenant = p_tenant and k.kind = %s and k.op = 'void' and k.key = v_key;", Lit(t.Name))
	g.line("    if v_prev.definition = v_definition then")
	g.line("      %s", g.result("done_before", ""))
	g.line("    end if;")
	g.line("    %s", g.result("refused", book.KeyConflict))
	g.line("  end if;")
	g.expiredCheck()
	g.settle(t, "void", false,
		fmt.Sprintf("ended as (update %s h set state = 'voided' where h.tenant = p_tenant and h.id = v_hold.id)", g.q("holds")),
		fmt.Sprintf("used as (insert into %s (tenant, kind, op, key, content, definition, result) values (p_tenant, %s, 'void', v_key, '', v_definition, 'done'))", g.q("keys"), Lit(t.Name)))
	g.line("  %s", g.result("done", ""))
	g.line("end")
	g.line("$fn$;")
}

// statusFunc answers the state of a hold, or null when there is none; a
// hold past its deadline is expired even before expire() gives it back.
func (g *gen) statusFunc(t *book.Transfer) {
	g.signature(t, FuncName(t, "status"), t.Key, false, "text")
	g.line("declare")
	g.line("  v_state text;")
	g.line("  v_deadline timestamptz;")
	g.line("begin")
	g.line("  select h.state, h.deadline into v_state, v_deadline from %s h where h.tenant = p_tenant and h.id = %s;", g.q("holds"), g.holdID(t))
	g.line("  if v_state = 'held' and v_deadline is not null and v_deadline <= clock_timestamp() then")
	g.line("    return 'expired';")
	g.line("  end if;")
	g.line("  return v_state;")
	g.line("end")
	g.line("$fn$;")
}

func (g *gen) balanceFunc(a *book.Account) {
	var params []*book.Param
	parts := []string{Lit("account"), Lit(g.b.Name), "p_tenant", Lit(a.Name)}
	for _, p := range a.Params {
		params = append(params, &book.Param{Name: p})
		parts = append(parts, Ident(ParamName(p)))
	}
	args := []string{"p_tenant text"}
	for _, p := range params {
		args = append(args, Ident(ParamName(p.Name))+" text")
	}
	g.line("")
	g.line("create or replace function %s(%s)", g.q(Ident(BalanceName(a))), strings.Join(args, ", "))
	g.line("returns %s language sql stable as $fn$", g.q("balance"))
	g.line("  select coalesce((select row(a.posted, a.held_in, a.held_out)::%s from %s a", g.q("balance"), g.q("accounts"))
	g.line("                    where a.tenant = p_tenant and a.id = %s(array[%s])),", g.q("chobo_id"), strings.Join(parts, ", "))
	g.line("                  row(0, 0, 0)::%s)", g.q("balance"))
	g.line("$fn$;")
}

// expireFunc gives back holds past their deadline, at most p_max at a
// time. Holds another transaction has locked are skipped, not waited for;
// the accounts of the holds taken are locked in tenant and id order.
func (g *gen) expireFunc() {
	g.line(`
create or replace function %[1]s.expire(p_max integer default 1000)
returns integer language plpgsql as $fn$
declare
  v_now timestamptz := clock_timestamp();
  v_hold record;
  v_tenants text[];
  v_ids uuid[];
  v_count integer := 0;
begin
  select coalesce(array_agg(due.tenant order by due.deadline, due.tenant, due.id), '{}'),
         coalesce(array_agg(due.id order by due.deadline, due.tenant, due.id), '{}')
    into v_tenants, v_ids
    from (select h.tenant, h.id, h.deadline from %[1]s.holds h
           where h.state = 'held' and h.deadline is not null and h.deadline <= v_now
           order by h.deadline, h.tenant, h.id
           limit p_max
           for update skip locked) due;
  perform 1 from %[1]s.accounts a
   where (a.tenant, a.id) in (select h.tenant, unnest(h.from_ids || h.to_ids)
                                from %[1]s.holds h, unnest(v_tenants, v_ids) as d (tenant, id)
                               where h.tenant = d.tenant and h.id = d.id)
   order by a.tenant, a.id
   for update;
  for v_hold in select h.* from unnest(v_tenants, v_ids) with ordinality as d (tenant, id, n)
                   join %[1]s.holds h on h.tenant = d.tenant and h.id = d.id
                 order by d.n loop
    for i in 1 .. array_length(v_hold.amounts, 1) loop
      update %[1]s.accounts a set held_out = a.held_out - v_hold.amounts[i]
       where a.tenant = v_hold.tenant and a.id = v_hold.from_ids[i];
      update %[1]s.accounts a set held_in = a.held_in - v_hold.amounts[i]
       where a.tenant = v_hold.tenant and a.id = v_hold.to_ids[i];
      insert into %[1]s.entries (tenant, account, kind, op, key, posted, held_in, held_out)
      values (v_hold.tenant, v_hold.from_ids[i], v_hold.kind, 'expire', v_hold.key, 0, 0, -v_hold.amounts[i]),
             (v_hold.tenant, v_hold.to_ids[i], v_hold.kind, 'expire', v_hold.key, 0, -v_hold.amounts[i], 0);
    end loop;
    update %[1]s.holds h set state = 'expired' where h.tenant = v_hold.tenant and h.id = v_hold.id;
    v_count := v_count + 1;
  end loop;
  return v_count;
end
$fn$;`, g.s)
}
