package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
)

// TestPlpgsqlCheck runs the plpgsql_check extension, every kind of warning
// on, over every PL/pgSQL function of every SQL golden in sql/ (what
// `chobo build --target postgres` writes for each test book). Each golden
// is loaded into a fresh database of one cluster. Any warning or error
// fails the test, listed with its function, line and statement.
//
// The extension is Debian's postgresql-<major>-plpgsql-check, which
// tests/setup.sh installs for the host's server (and for the server of the
// Bazel chroot). When the server in use has Debian's layout but no
// extension, the test fails under CI=true and is skipped otherwise. When
// the server is not Debian's (CHOBO_PG_VERSION's pinned binaries, or a
// CHOBO_PG_BIN of another build), no package can put the extension into it,
// and the test is skipped.
//
// It runs in `bazel test //...` too (tests_test): there the server is the
// one of the Bazel chroot (Debian sid's, newer than the host's), and so is
// plpgsql_check, whose newer versions check more (the volatility of the
// expressions in an IMMUTABLE function, for one). Both runs must be clean.
func TestPlpgsqlCheck(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join(casesDir, "*", "expected", "postgres", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(goldens) == 0 {
		t.Fatal("no SQL goldens in the cases")
	}
	srv := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	admin := srv.Connect(t)
	requirePlpgsqlCheck(t, ctx, admin)

	total, functions := 0, 0
	kinds := map[string]int{}
	for i, path := range goldens {
		name := strings.TrimSuffix(filepath.Base(path), ".sql")
		t.Run(name, func(t *testing.T) {
			sql, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			db := fmt.Sprintf("plpgsql_check_%d", i)
			if _, err := admin.Exec(ctx, "create database "+db); err != nil {
				t.Fatal(err)
			}
			conn, err := pgx.Connect(ctx, srv.ConnString(db))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			if _, err := conn.Exec(ctx, string(sql)); err != nil {
				t.Fatalf("%s: loading the SQL: %v", path, err)
			}
			if _, err := conn.Exec(ctx, "create extension plpgsql_check"); err != nil {
				t.Fatal(err)
			}
			n, findings := checkFunctions(t, ctx, conn)
			functions += n
			total += len(findings)
			for _, f := range findings {
				kinds[f.level]++
			}
			if len(findings) > 0 {
				var b strings.Builder
				for _, f := range findings {
					b.WriteString("\n  " + f.String())
				}
				t.Errorf("%s: plpgsql_check: %d findings in %d PL/pgSQL functions (lines counted from the function body's start):%s", path, len(findings), n, b.String())
			}
		})
	}
	summary := fmt.Sprintf("plpgsql_check: %d findings in %d PL/pgSQL functions of %d SQL goldens", total, functions, len(goldens))
	if total > 0 {
		var levels []string
		for k, n := range kinds {
			levels = append(levels, fmt.Sprintf("%d %s", n, k))
		}
		sort.Strings(levels)
		summary += " (" + strings.Join(levels, ", ") + ")"
	}
	t.Log(summary)
}

// requirePlpgsqlCheck skips or fails the test when the server cannot load
// plpgsql_check (see TestPlpgsqlCheck).
func requirePlpgsqlCheck(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	t.Helper()
	var available bool
	if err := conn.QueryRow(ctx, "select exists (select from pg_available_extensions where name = 'plpgsql_check')").Scan(&available); err != nil {
		t.Fatal(err)
	}
	if available {
		return
	}
	var version, sharedir string
	if err := conn.QueryRow(ctx, "select (current_setting('server_version_num')::int / 10000)::text, (select setting from pg_config where name = 'SHAREDIR')").Scan(&version, &sharedir); err != nil {
		t.Fatal(err)
	}
	bin, _ := pgtest.Bin()
	if sharedir != "/usr/share/postgresql/"+version {
		t.Skipf("SKIP: plpgsql_check cannot be installed for the PostgreSQL %s server in %s (its share directory %s is not Debian's, so no package can add the extension)", version, bin, sharedir)
	}
	msg := fmt.Sprintf("the plpgsql_check extension is not installed for PostgreSQL %s in %s (run tests/setup.sh, which installs postgresql-%s-plpgsql-check)", version, bin, version)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI=true, where it must be", msg)
	}
	t.Skip("SKIP: " + msg)
}

// plpgsqlFinding is one row of plpgsql_check_function_tb.
type plpgsqlFinding struct {
	function, statement, sqlstate, message, detail, hint, level, query string
	line                                                               *int32
}

func (f plpgsqlFinding) String() string {
	var b strings.Builder
	b.WriteString(f.function)
	if f.line != nil {
		fmt.Fprintf(&b, " line %d", *f.line)
	}
	if f.statement != "" {
		fmt.Fprintf(&b, " (%s)", f.statement)
	}
	fmt.Fprintf(&b, ": %s %s: %s", f.level, f.sqlstate, f.message)
	if f.detail != "" {
		b.WriteString("; detail: " + f.detail)
	}
	if f.hint != "" {
		b.WriteString("; hint: " + f.hint)
	}
	if f.query != "" {
		b.WriteString("; query: " + strings.Join(strings.Fields(f.query), " "))
	}
	return b.String()
}

// checkFunctions runs plpgsql_check_function_tb, every warning on, over
// every PL/pgSQL function outside the system schemas, and returns how many
// functions it checked and what it found.
func checkFunctions(t *testing.T, ctx context.Context, conn *pgx.Conn) (int, []plpgsqlFinding) {
	t.Helper()
	var n int
	if err := conn.QueryRow(ctx, plpgsqlFunctions("count(*)")).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no PL/pgSQL functions found")
	}
	rows, err := conn.Query(ctx, `
select p.oid::regprocedure::text, c.lineno, coalesce(c.statement, ''), coalesce(c.sqlstate, ''),
       coalesce(c.message, ''), coalesce(c.detail, ''), coalesce(c.hint, ''), coalesce(c.level, ''),
       coalesce(c.query, '')
from (`+plpgsqlFunctions("p.oid")+`) p(oid)
cross join lateral plpgsql_check_function_tb(p.oid::regprocedure,
  fatal_errors => false,
  other_warnings => true,
  extra_warnings => true,
  performance_warnings => true,
  security_warnings => true,
  compatibility_warnings => true) c
order by 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	findings, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (plpgsqlFinding, error) {
		var f plpgsqlFinding
		err := r.Scan(&f.function, &f.line, &f.statement, &f.sqlstate, &f.message, &f.detail, &f.hint, &f.level, &f.query)
		return f, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, findings
}

// plpgsqlFunctions is a query of the PL/pgSQL functions outside the system
// schemas, selecting what.
func plpgsqlFunctions(what string) string {
	return `select ` + what + ` from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_language l on l.oid = p.prolang
where l.lanname = 'plpgsql' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\_%'`
}
