package pgdeploy

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
)

// Lookalikes is the schema Plant fills. TrapPath puts it before the
// catalog, so that a name resolved on the path finds a lookalike of the
// same name and argument types before the built-in: the strongest path a
// caller could be given, stronger than an attacker's schema placed after
// the catalog, where only a closer match wins.
const (
	Lookalikes = "lookalike"
	TrapPath   = Lookalikes + ", pg_catalog, public"
)

// ReachedCode is the SQLSTATE a lookalike raises.
const ReachedCode = "CHLKA"

// Planted says what Plant made.
type Planted struct {
	Functions, Aggregates, Operators, Types int
	// Borrowed are the lookalikes PL/pgSQL cannot declare (an argument of
	// type "any" or internal): they are made of the catalog's any_in,
	// which fails with "cannot accept a value of type any" whatever it is
	// called with.
	Borrowed []string
	// Skipped are the built-ins no lookalike could be made for, each with
	// the reason.
	Skipped []string
}

func (p Planted) String() string {
	return fmt.Sprintf("%d functions, %d aggregates, %d operators and %d types (%d of them borrowing any_in, %d built-ins skipped)",
		p.Functions, p.Aggregates, p.Operators, p.Types, len(p.Borrowed), len(p.Skipped))
}

// Reached reports whether err is the failure of a lookalike.
func Reached(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	return pe.Code == ReachedCode || pe.Code == "0A000" && strings.HasPrefix(pe.Message, "cannot accept a value of type any")
}

// Plant makes the schema Lookalikes, usable by every role, and fills it
// with a lookalike of every function, aggregate, operator and base type
// of pg_catalog whose name the SQL texts use (outside comments and
// literals), with the same argument types. Each one fails when reached,
// with ReachedCode and its own signature in the message; a type is a
// domain over the built-in whose check fails. An aggregate fails in its
// final function, which runs even over no rows. admin must be a
// superuser and have the catalog first on its path.
func Plant(ctx context.Context, admin DB, sqls ...string) (Planted, error) {
	var p Planted
	words, ops := scan(sqls)
	s := postgres.Ident(Lookalikes)
	for _, stmt := range []string{
		"create schema " + s,
		"grant usage on schema " + s + " to public",
		"create function " + s + `.chobo_reached(what text) returns boolean language plpgsql as $lk$
begin
  raise exception 'lookalike of % reached', what using errcode = '` + ReachedCode + `';
end
$lk$`,
	} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			return p, fmt.Errorf("pgdeploy: %s: %w", stmt, err)
		}
	}
	if err := plantFunctions(ctx, admin, words, &p); err != nil {
		return p, err
	}
	if err := plantOperators(ctx, admin, ops, &p); err != nil {
		return p, err
	}
	if err := plantTypes(ctx, admin, words, &p); err != nil {
		return p, err
	}
	return p, nil
}

// raising is the body of a PL/pgSQL lookalike.
func raising(what string) string {
	return fmt.Sprintf("$lk$\nbegin\n  perform %s.chobo_reached(%s);\nend\n$lk$", postgres.Ident(Lookalikes), postgres.Lit(what))
}

// makeFunction creates a lookalike function head (name and arguments,
// already written) returning result: in PL/pgSQL, or else borrowing
// any_in. It reports whether it borrowed.
func makeFunction(ctx context.Context, admin DB, head, result, what string) (borrowed bool, err error) {
	_, err = admin.Exec(ctx, fmt.Sprintf("create function %s returns %s language plpgsql as %s", head, result, raising(what)))
	if err == nil {
		return false, nil
	}
	_, err2 := admin.Exec(ctx, fmt.Sprintf("create function %s returns %s language internal as 'any_in'", head, result))
	if err2 != nil {
		return false, fmt.Errorf("%v; borrowing any_in: %v", err, err2)
	}
	return true, nil
}

func plantFunctions(ctx context.Context, admin DB, words []string, p *Planted) error {
	rows, err := admin.Query(ctx, `
select p.oid::regprocedure::text, p.proname, p.prokind, p.oid::text,
       pg_get_function_arguments(p.oid), pg_get_function_identity_arguments(p.oid),
       pg_get_function_result(p.oid), format_type(p.prorettype, null)
  from pg_proc p left join pg_aggregate a on a.aggfnoid = p.oid
 where p.pronamespace = 'pg_catalog'::regnamespace and p.proname = any($1)
   and (p.prokind = 'f' or p.prokind = 'a' and a.aggkind = 'n')
   -- CREATE AGGREGATE cannot make an aggregate of anyenum or of record
   -- (not even the catalog's min and max); the books' SQL has no enum or
   -- record to call one on
   and not (p.prokind = 'a' and p.proargtypes::oid[] && array['anyenum'::regtype, 'record'::regtype]::oid[])
 order by p.oid`, words)
	if err != nil {
		return fmt.Errorf("pgdeploy: reading the catalog's functions: %w", err)
	}
	fns, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Sig, Name, Kind, OID, Args, Identity, Result, Rettype string }])
	if err != nil {
		return err
	}
	s := postgres.Ident(Lookalikes)
	for _, f := range fns {
		what := "pg_catalog." + f.Sig
		if f.Kind == "f" {
			borrowed, err := makeFunction(ctx, admin, fmt.Sprintf("%s.%s(%s)", s, postgres.Ident(f.Name), f.Args), f.Result, what)
			if err != nil {
				p.Skipped = append(p.Skipped, what+": "+err.Error())
				continue
			}
			if borrowed {
				p.Borrowed = append(p.Borrowed, what)
			}
			p.Functions++
			continue
		}
		// An aggregate: its state is of its result type; the step passes
		// over the rows (or fails), and the final function always fails.
		stepArgs := f.Rettype
		if f.Identity != "" {
			stepArgs += ", " + f.Identity
		}
		step := fmt.Sprintf("%s.%s", s, postgres.Ident("chobo_step_"+f.OID))
		borrowed, err := makeFunction(ctx, admin, step+"("+stepArgs+")", f.Rettype, what)
		if err != nil {
			p.Skipped = append(p.Skipped, what+": "+err.Error())
			continue
		}
		final := fmt.Sprintf("%s.%s", s, postgres.Ident("chobo_final_"+f.OID))
		if _, err := admin.Exec(ctx, fmt.Sprintf("create function %s(%s) returns %s language plpgsql as %s", final, f.Rettype, f.Rettype, raising(what))); err != nil {
			p.Skipped = append(p.Skipped, what+": "+err.Error())
			continue
		}
		args := f.Identity
		if args == "" {
			args = "*"
		}
		if _, err := admin.Exec(ctx, fmt.Sprintf("create aggregate %s.%s(%s) (sfunc = %s, stype = %s, finalfunc = %s)",
			s, postgres.Ident(f.Name), args, step, f.Rettype, final)); err != nil {
			p.Skipped = append(p.Skipped, what+": "+err.Error())
			continue
		}
		if borrowed {
			p.Borrowed = append(p.Borrowed, what)
		}
		p.Aggregates++
	}
	return nil
}

func plantOperators(ctx context.Context, admin DB, ops []string, p *Planted) error {
	rows, err := admin.Query(ctx, `
select o.oid::regoperator::text, o.oprname, o.oid::text, o.oprleft <> 0,
       format_type(o.oprleft, null), format_type(o.oprright, null), format_type(o.oprresult, null)
  from pg_operator o
 where o.oprnamespace = 'pg_catalog'::regnamespace and o.oprname = any($1)
 order by o.oid`, ops)
	if err != nil {
		return fmt.Errorf("pgdeploy: reading the catalog's operators: %w", err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		Sig, Name, OID      string
		Infix               bool
		Left, Right, Result string
	}])
	if err != nil {
		return err
	}
	s := postgres.Ident(Lookalikes)
	for _, o := range list {
		what := "pg_catalog." + o.Sig
		fn := fmt.Sprintf("%s.%s", s, postgres.Ident("chobo_op_"+o.OID))
		args, spec := o.Right, "rightarg = "+o.Right
		if o.Infix {
			args, spec = o.Left+", "+o.Right, "leftarg = "+o.Left+", "+spec
		}
		borrowed, err := makeFunction(ctx, admin, fn+"("+args+")", o.Result, what)
		if err == nil {
			_, err = admin.Exec(ctx, fmt.Sprintf("create operator %s.%s (%s, function = %s)", s, o.Name, spec, fn))
		}
		if err != nil {
			p.Skipped = append(p.Skipped, what+": "+err.Error())
			continue
		}
		if borrowed {
			p.Borrowed = append(p.Borrowed, what)
		}
		p.Operators++
	}
	return nil
}

func plantTypes(ctx context.Context, admin DB, words []string, p *Planted) error {
	rows, err := admin.Query(ctx, `
select t.typname from pg_type t
 where t.typnamespace = 'pg_catalog'::regnamespace and t.typtype = 'b' and t.typcategory <> 'A' and t.typname = any($1)
 order by t.typname`, words)
	if err != nil {
		return fmt.Errorf("pgdeploy: reading the catalog's types: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	s := postgres.Ident(Lookalikes)
	for _, n := range names {
		what := "type pg_catalog." + n
		if _, err := admin.Exec(ctx, fmt.Sprintf("create domain %s.%s as pg_catalog.%s check (%s.chobo_reached(%s))",
			s, postgres.Ident(n), postgres.Ident(n), s, postgres.Lit(what))); err != nil {
			p.Skipped = append(p.Skipped, what+": "+err.Error())
			continue
		}
		p.Types++
	}
	return nil
}

// Bound lists the objects outside the lookalike schema that depend on a
// lookalike: a view, a column default, a constraint or a function's
// signature bound to one when it was made. The bodies of PL/pgSQL and
// SQL functions are bound only when they run, so they are not listed
// here; a lookalike they reach fails the call instead.
func Bound(ctx context.Context, db DB) ([]string, error) {
	rows, err := db.Query(ctx, `
with lk (classid, objid) as (
  select 'pg_proc'::regclass, p.oid from pg_proc p where p.pronamespace = $1::regnamespace
  union all
  select 'pg_operator'::regclass, o.oid from pg_operator o where o.oprnamespace = $1::regnamespace
  union all
  select 'pg_type'::regclass, t.oid from pg_type t where t.typnamespace = $1::regnamespace
  union all
  select 'pg_constraint'::regclass, c.oid from pg_constraint c join pg_type t on t.oid = c.contypid
   where t.typnamespace = $1::regnamespace
)
select distinct pg_describe_object(d.classid, d.objid, d.objsubid) || ' uses ' || pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid)
  from pg_depend d
 where (d.refclassid, d.refobjid) in (select classid, objid from lk)
   and (d.classid, d.objid) not in (select classid, objid from lk)
 order by 1`, Lookalikes)
	if err != nil {
		return nil, fmt.Errorf("pgdeploy: reading what depends on the lookalikes: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

var (
	// What scan leaves out: comments, string literals, quoted
	// identifiers and the tags of dollar quotes (their bodies are the
	// code of the functions, and stay).
	unscanned = regexp.MustCompile(`(?s)--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|"(?:[^"]|"")*"|\$[A-Za-z_]*\$`)
	wordRE    = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	opRE      = regexp.MustCompile("[-+*/<>=~!@#%^&|`?]+")
)

// scan returns the words and the operators of the SQL texts, each once,
// sorted.
func scan(sqls []string) (words, ops []string) {
	w, o := map[string]bool{}, map[string]bool{}
	for _, sql := range sqls {
		code := unscanned.ReplaceAllString(sql, " ")
		for _, m := range wordRE.FindAllString(code, -1) {
			w[strings.ToLower(m)] = true
		}
		for _, m := range opRE.FindAllString(code, -1) {
			o[m] = true
		}
	}
	return sortedKeys(w), sortedKeys(o)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
