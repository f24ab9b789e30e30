package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
)

// TestApplicationRole deploys every book of the cases as docs/targets.md
// tells an operator to (startPostgres: an owner role loads the SQL, the
// application's role gets USAGE on the schema and EXECUTE on its
// functions, lookalikes of the built-ins come first on both paths). The
// conformance tests make every scenario's calls as that role; here it
// also calls what the scenarios do not: every status and balance
// function and expire(), each of which must answer without reaching a
// lookalike. Then, still as that role, every statement on every table and
// view of every book (select, insert, update, delete, truncate) is
// refused, and so is a direct call of chobo_unbounded, the helper that
// changes the shards of accounts without bounds. A role with USAGE on
// a schema and no EXECUTE cannot call the book at all: PUBLIC is given
// nothing.
func TestApplicationRole(t *testing.T) {
	var books []loaded
	for _, c := range conformanceCases(t) {
		books = append(books, loadForBackends(t, c))
	}
	d := startPostgres(t, books)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := d.admin.Exec(ctx, `create role chobo_bystander login`); err != nil {
		t.Fatal(err)
	}
	bystander := d.srv.PoolAs(t, "chobo_bystander", 1)
	calls, refused := 0, 0
	for _, l := range books {
		m, err := model.New(l.Copy, model.Postgres)
		if err != nil {
			t.Fatal(err)
		}
		s := postgres.Ident(l.Copy.Name)
		calls += callEveryFunction(t, ctx, d.app, m, "roles", l.path)

		// A write to a view that could not take one even from its owner
		// fails before its rights are looked at (55000): as good a refusal.
		refuseAs := func(who string, db pgdeploy.DB, view bool, stmt string, args ...any) {
			t.Helper()
			refused++
			_, err := db.Exec(ctx, stmt, args...)
			if got := sqlState(err); got != "42501" && !(view && got == "55000") {
				t.Errorf("%s: %s as %s: %v (SQLSTATE %q), want it refused with 42501", l.path, stmt, who, err, got)
			}
		}
		refuse := func(who string, db pgdeploy.DB, stmt string, args ...any) {
			t.Helper()
			refuseAs(who, db, false, stmt, args...)
		}
		rows, err := d.admin.Query(ctx, `
select c.relname, c.relkind::text, a.attname
  from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attnum = 1
 where c.relnamespace = $1::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f')
 order by c.relname`, l.Copy.Name)
		if err != nil {
			t.Fatal(err)
		}
		rels, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Name, Kind, Col string }])
		if err != nil {
			t.Fatal(err)
		}
		if len(rels) < 5 {
			t.Fatalf("%s: only %d tables and views in the schema: %v", l.path, len(rels), rels)
		}
		for _, r := range rels {
			name, col := s+"."+postgres.Ident(r.Name), postgres.Ident(r.Col)
			view := r.Kind == "v"
			refuse(pgdeploy.App, d.app, "select * from "+name+" limit 1")
			refuseAs(pgdeploy.App, d.app, view, "insert into "+name+" default values")
			refuseAs(pgdeploy.App, d.app, view, fmt.Sprintf("update %s set %s = %s", name, col, col))
			refuseAs(pgdeploy.App, d.app, view, "delete from "+name)
			if r.Kind == "r" {
				refuse(pgdeploy.App, d.app, "truncate "+name)
			}
		}
		refuse(pgdeploy.App, d.app, "select "+s+".chobo_unbounded($1, $2, $3, true)",
			"roles", []string{"00000000-0000-0000-0000-000000000002"}, []int64{1, 0, 1, 0, 0, 0, 0, 0, 0})
		if _, err := d.admin.Exec(ctx, "grant usage on schema "+s+" to chobo_bystander"); err != nil {
			t.Fatal(err)
		}
		refuse("a role with USAGE alone", bystander, m.Expire, 1000, chobopg.NewCallID())
	}
	t.Logf("%d books: %d calls as the application's role answered, %d statements refused", len(books), calls, refused)
}

// callEveryFunction calls, as db, every operation, status and balance
// function and expire() of the book m, for tenant, with made-up values;
// each must answer, refused or not, and not fail. It returns how many
// calls it made; what names the book in messages.
func callEveryFunction(t *testing.T, ctx context.Context, db pgdeploy.DB, m *model.Model, tenant, what string) int {
	t.Helper()
	calls := 0
	call := func(name, stmt string, args ...any) {
		t.Helper()
		calls++
		rows, err := db.Query(ctx, stmt, args...)
		if err == nil {
			for rows.Next() {
			}
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			t.Errorf("%s: %s as the application's role: %v", what, name, err)
		}
	}
	for _, tr := range m.Transfers {
		for _, op := range tr.Operations {
			args := []any{tenant}
			for _, p := range op.Params {
				if p.Amount {
					args = append(args, int64(1))
				} else {
					args = append(args, "x")
				}
			}
			if op.CallID {
				args = append(args, chobopg.NewCallID())
			}
			call(tr.Name+"."+op.Name, op.Statement, args...)
		}
	}
	for _, a := range m.Accounts {
		args := []any{tenant}
		for range a.Params {
			args = append(args, "x")
		}
		call("balance of "+a.Name, a.Statement, args...)
	}
	call("expire()", m.Expire, 1000, chobopg.NewCallID())
	return calls
}

// deploymentDocs are the pages that show an operator how to deploy, each
// with the inventory example in its language and the names of that book.
var deploymentDocs = []struct {
	file, heading, asOwner, book, schema string
	receive, reserve, stock              string
}{
	{"targets.md", "### Deploying with an application role", "-- as ledger_owner", "inventory.book", "inventory", "receive", "reserve", "stock"},
	{"targets.ja.md", "### 呼び出ししかできないアプリケーションのロールでデプロイする", "-- ledger_owner として", "inventory.ja.book", "在庫管理", "入荷", "引当", "在庫"},
}

// TestDeploymentInDocs runs the statements docs/targets.md (and its
// Japanese twin) gives an operator, as it says to run them, on the
// inventory example: the roles, the load as the owner, the two grants.
// The application's role can then reserve stock and read it, and not
// write the stock itself. The grants shown are the ones every other test
// deploys with (pgdeploy.Grants).
func TestDeploymentInDocs(t *testing.T) {
	for _, d := range deploymentDocs {
		t.Run(d.file, func(t *testing.T) {
			testDeploymentInDoc(t, d.file, d.heading, d.asOwner, d.book, d.schema, d.receive, d.reserve, d.stock)
		})
	}
}

func testDeploymentInDoc(t *testing.T, file, heading, ownerLine, bookFile, schema, receive, reserve, stock string) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", file))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, heading)
	if i < 0 {
		t.Fatalf("docs/%s has no section %q", file, heading)
	}
	block := text[i:]
	start := strings.Index(block, "```sql\n")
	end := strings.Index(block[start+1:], "```\n")
	if start < 0 || end < 0 {
		t.Fatal("the section has no sql block")
	}
	block = block[start+len("```sql\n") : start+1+end]
	asOwner := strings.Index(block, ownerLine)
	if asOwner < 0 {
		t.Fatalf("the block does not say what runs as ledger_owner:\n%s", block)
	}
	setup, grants := block[:asOwner], block[asOwner:]
	if !strings.Contains(grants, pgdeploy.Grants(schema, "app")) {
		t.Errorf("the grants in the docs:\n%s\nare not those the tests deploy with:\n%s", grants, pgdeploy.Grants(schema, "app"))
	}

	b, src := loadBook(t, filepath.Join("..", "examples", "inventory", bookFile))
	sql := bookSQL(t, b, src)
	srv := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := srv.Connect(t).Exec(ctx, "create database shop"); err != nil {
		t.Fatal(err)
	}
	as := func(role string) *pgx.Conn {
		conn, err := pgx.Connect(ctx, srv.ConnStringAs(role, "shop"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		return conn
	}
	if _, err := as(pgtest.User).Exec(ctx, setup); err != nil {
		t.Fatalf("the setup in the docs: %v", err)
	}
	owner := as("ledger_owner")
	if _, err := owner.Exec(ctx, sql); err != nil {
		t.Fatalf("loading the SQL as ledger_owner: %v", err)
	}
	if _, err := owner.Exec(ctx, grants); err != nil {
		t.Fatalf("the grants in the docs: %v", err)
	}

	app := as("app")
	m, err := model.New(b, model.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stmt string
		args []any
		want string
	}{
		{m.Transfer(receive).Operation("do").Statement, []any{"shop-1", "d-1", "A-1", int64(3), chobopg.NewCallID()}, "done"},
		{m.Transfer(reserve).Operation("hold").Statement, []any{"shop-1", "o-1", "A-1", int64(5), chobopg.NewCallID()}, "refused"},
		{m.Transfer(reserve).Operation("hold").Statement, []any{"shop-1", "o-2", "A-1", int64(2), chobopg.NewCallID()}, "done"},
	} {
		var result string
		var reason *string
		if err := app.QueryRow(ctx, c.stmt, c.args...).Scan(&result, &reason); err != nil || result != c.want {
			t.Errorf("%s %v as app: %q %v; want %s", c.stmt, c.args, result, err, c.want)
		}
	}
	var posted, heldOut int64
	if err := app.QueryRow(ctx, m.Account(stock).Statement, "shop-1", "A-1").Scan(&posted, new(int64), &heldOut); err != nil || posted != 3 || heldOut != 2 {
		t.Errorf("the stock as app: posted %d, held out %d, %v; want 3 and 2", posted, heldOut, err)
	}
	_, err = app.Exec(ctx, `update "`+schema+`".accounts set posted = posted + 100`)
	if sqlState(err) != "42501" {
		t.Errorf("app setting the stock itself: %v; want it refused (42501)", err)
	}
}
