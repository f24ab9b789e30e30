package pgdeploy

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
)

func TestScan(t *testing.T) {
	for _, c := range []struct {
		sql        string
		words, ops []string
	}{
		{`select convert_to(x, 'UTF8') || y`, []string{"convert_to", "select", "x", "y"}, []string{"||"}},
		{"-- count(*) in a comment\nselect 1", []string{"select"}, nil},
		{`select "sha256"('a = b'), $fn$ begin v := a <> b; end $fn$`, []string{"a", "b", "begin", "end", "select", "v"}, []string{"<>", "="}},
		{`/* min(x) */ SELECT Sum(a)`, []string{"a", "select", "sum"}, nil},
	} {
		words, ops := scan([]string{c.sql})
		if !reflect.DeepEqual(words, c.words) || !reflect.DeepEqual(ops, orEmpty(c.ops)) {
			t.Errorf("scan(%q) = %q, %q; want %q, %q", c.sql, words, ops, c.words, c.ops)
		}
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TestLookalikesAreReachedWithoutAFixedPath arms the trap the way the
// tests of the book do and shows that it catches what it is meant to: a
// function without a path of its own, a view made on the trap path, and
// the one lookalike PL/pgSQL cannot declare. If these pass and a book's
// calls still succeed on the same path, the book's SQL reached no
// lookalike.
func TestLookalikesAreReachedWithoutAFixedPath(t *testing.T) {
	srv := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := srv.Pool(t, 2)
	const sql = `
create function public.naive(x text) returns text language plpgsql as $$
begin
  return encode(sha256(convert_to(x, 'UTF8')), 'hex') || json_build_array(x, 1)::text;
end $$;
create function public.counted(n integer) returns bigint language plpgsql as $$
begin
  return (select count(*) from generate_series(1, n));
end $$;`
	p, err := Plant(ctx, admin, sql)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("planted %s", p)
	if p.Functions == 0 || p.Aggregates == 0 || p.Operators == 0 || p.Types == 0 {
		t.Fatalf("planted %s: every kind should be there", p)
	}
	if len(p.Skipped) > 0 {
		t.Errorf("skipped: %q", p.Skipped)
	}
	if _, err := admin.Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
	if err := CreateRoles(ctx, admin, pgtest.DefaultDB); err != nil {
		t.Fatal(err)
	}
	if err := SetPath(ctx, admin, App, TrapPath); err != nil {
		t.Fatal(err)
	}
	app := srv.PoolAs(t, App, 1)

	// Every call resolves built-ins on the trap path: each of these
	// reaches a lookalike.
	for _, q := range []string{
		`select public.naive('a')`,
		`select public.counted(0)`, // an aggregate over no rows still fails
		`select json_build_array(1, 'a')`,
		`select '1'::text`,
	} {
		_, err := app.Exec(ctx, q)
		if !Reached(err) {
			t.Errorf("%s on the trap path: %v, want a lookalike reached", q, err)
		}
	}
	// The same with a fixed path reaches nothing.
	if _, err := admin.Exec(ctx, `alter function public.naive(text) set search_path = pg_catalog, pg_temp;
alter function public.counted(integer) set search_path = pg_catalog, pg_temp`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`select public.naive('a')`, `select public.counted(3)`} {
		if _, err := app.Exec(ctx, q); err != nil {
			t.Errorf("%s with the path fixed: %v", q, err)
		}
	}

	// A view made on the trap path is bound to the lookalikes for good.
	if bound, err := Bound(ctx, admin); err != nil || len(bound) != 0 {
		t.Fatalf("before any view: %q, %v", bound, err)
	}
	owner := srv.Connect(t)
	if _, err := owner.Exec(ctx, "set search_path = "+TrapPath+`;
create view public.v as select 'a'::text || 'b'::text as ab;
reset search_path`); err != nil {
		t.Fatal(err)
	}
	bound, err := Bound(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(bound, "\n"), "view v") {
		t.Errorf("a view made on the trap path: Bound found %q", bound)
	}
}

func TestReached(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: ReachedCode, Message: "lookalike of x reached"}, true},
		{&pgconn.PgError{Code: "0A000", Message: `cannot accept a value of type any`}, true},
		{&pgconn.PgError{Code: "0A000", Message: "something else"}, false},
		{&pgconn.PgError{Code: "42501", Message: "permission denied"}, false},
		{errors.New("lookalike"), false},
		{nil, false},
	} {
		if got := Reached(c.err); got != c.want {
			t.Errorf("Reached(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
