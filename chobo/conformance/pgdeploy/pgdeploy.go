// Package pgdeploy sets up a test cluster the way docs/targets.md tells
// an operator to deploy a book: one role owns the book's schema and loads
// its SQL, and the application's role is given USAGE on the schema and
// EXECUTE on its functions, nothing more. The tests then make every call
// as the application's role and read what the tables hold as the
// superuser, so that a call needing any other right fails.
//
// Plant (lookalike.go) adds the hostile part: a schema of lookalikes of
// the built-ins the SQL uses, placed before pg_catalog on the path of
// both roles.
package pgdeploy

import (
	"context"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
)

// The roles of a deployment. Owner loads the SQL, and so owns the schema
// and runs the functions that call the book; App is the application.
const (
	Owner = "chobo_owner"
	App   = "chobo_app"
)

// DB is what a connection, a transaction and a pool have in common.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// CreateRoles makes Owner and App on admin's cluster (admin is a
// superuser): both can log in, and Owner can create schemas in the
// database db. Neither is a superuser, and App can create nothing.
func CreateRoles(ctx context.Context, admin DB, db string) error {
	for _, stmt := range []string{
		"create role " + postgres.Ident(Owner) + " login",
		"create role " + postgres.Ident(App) + " login",
		"grant create on database " + postgres.Ident(db) + " to " + postgres.Ident(Owner),
	} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("pgdeploy: %s: %w", stmt, err)
		}
	}
	return nil
}

// Grants returns what the owner of the book named book runs so that role
// can call it: USAGE on its schema, EXECUTE on its functions. It is what
// docs/targets.md shows.
func Grants(book, role string) string {
	s, r := postgres.Ident(book), role
	if !plainName.MatchString(role) {
		r = postgres.Ident(role)
	}
	return fmt.Sprintf("grant usage on schema %s to %s;\ngrant execute on all functions in schema %s to %s;\n", s, r, s, r)
}

// plainName is a name that SQL reads as itself without quotes (a keyword
// aside).
var plainName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// Grant runs Grants on db.
func Grant(ctx context.Context, db DB, book, role string) error {
	if _, err := db.Exec(ctx, Grants(book, role)); err != nil {
		return fmt.Errorf("pgdeploy: granting %s to %s: %w", book, role, err)
	}
	return nil
}

// SetPath makes path the search_path that every later session of role
// starts with.
func SetPath(ctx context.Context, admin DB, role, path string) error {
	stmt := fmt.Sprintf("alter role %s set search_path = %s", postgres.Ident(role), path)
	if _, err := admin.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("pgdeploy: %s: %w", stmt, err)
	}
	return nil
}

// Book is the SQL of one book, as `chobo build --target postgres` writes
// it, and the book's name (its schema).
type Book struct {
	Name, SQL string
}

// Options say how Deploy sets the cluster up.
type Options struct {
	// Trap plants lookalikes of every built-in the books' SQL uses
	// (Plant), before the SQL is loaded, and puts them before pg_catalog
	// on the path of both roles: of the owner loading the SQL, and of
	// the application calling it. Deploy then fails when loading bound
	// anything to a lookalike (Bound).
	Trap bool
	// Conns is the most connections of the application's pool.
	Conns int
	// DB is the database the books go to; "" is the default one
	// (pgtest.DefaultDB). Another is made, and only Owner and App may
	// connect to it (PUBLIC gets nothing): a cluster can then hold the
	// same book twice, each loaded and reloaded apart from the other.
	// The roles are made by the first Deploy on the cluster, and given
	// their rights on each database the next ones make.
	DB string
}

// database is the database opts deploy to.
func (opts Options) database() string {
	if opts.DB == "" {
		return pgtest.DefaultDB
	}
	return opts.DB
}

// newDatabase makes the database db on admin's cluster for a deployment
// whose roles exist already: they may connect, Owner may create schemas,
// and PUBLIC gets none of the rights PostgreSQL gives it on a new
// database.
func newDatabase(ctx context.Context, admin DB, db string) error {
	d := postgres.Ident(db)
	for _, stmt := range []string{
		"create database " + d,
		"revoke all on database " + d + " from public",
		"grant connect on database " + d + " to " + postgres.Ident(Owner) + ", " + postgres.Ident(App),
		"grant create on database " + d + " to " + postgres.Ident(Owner),
	} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("pgdeploy: %s: %w", stmt, err)
		}
	}
	return nil
}

// rolesMade reports whether Owner and App exist on admin's cluster.
func rolesMade(ctx context.Context, admin DB) (bool, error) {
	var n int
	if err := admin.QueryRow(ctx, `select count(*) from pg_roles where rolname = any($1)`, []string{Owner, App}).Scan(&n); err != nil {
		return false, fmt.Errorf("pgdeploy: reading the roles: %w", err)
	}
	return n == 2, nil
}

// Deploy sets up a database of srv (the default one, or opts.DB) as an
// operator deploys books: it makes the roles, loads every book's SQL as
// Owner, and runs Grants for App. admin is a pool of the superuser on
// the default database. It returns a pool whose connections are App's,
// on that database, for the calls; the caller closes it.
func Deploy(ctx context.Context, srv *pgtest.Server, admin DB, books []Book, opts Options) (*pgxpool.Pool, Planted, error) {
	var planted Planted
	db := opts.database()
	made, err := rolesMade(ctx, admin)
	if err != nil {
		return nil, planted, err
	}
	if !made {
		if err := CreateRoles(ctx, admin, pgtest.DefaultDB); err != nil {
			return nil, planted, err
		}
	}
	if db != pgtest.DefaultDB {
		if err := newDatabase(ctx, admin, db); err != nil {
			return nil, planted, err
		}
		// The lookalikes and what is bound to them are the database's
		// own: the superuser plants and looks there.
		conn, err := pgx.Connect(ctx, srv.ConnString(db))
		if err != nil {
			return nil, planted, fmt.Errorf("pgdeploy: connecting to %s: %w", db, err)
		}
		defer conn.Close(context.Background())
		admin = conn
	}
	if opts.Trap {
		var sqls []string
		for _, b := range books {
			sqls = append(sqls, b.SQL)
		}
		if planted, err = Plant(ctx, admin, sqls...); err != nil {
			return nil, planted, err
		}
		for _, role := range []string{Owner, App} {
			if err := SetPath(ctx, admin, role, TrapPath); err != nil {
				return nil, planted, err
			}
		}
	}
	owner, err := pgx.Connect(ctx, srv.ConnStringAs(Owner, db))
	if err != nil {
		return nil, planted, fmt.Errorf("pgdeploy: connecting as %s: %w", Owner, err)
	}
	defer owner.Close(context.Background())
	for _, b := range books {
		if _, err := owner.Exec(ctx, b.SQL); err != nil {
			return nil, planted, fmt.Errorf("pgdeploy: loading the SQL of %s as %s: %w", b.Name, Owner, err)
		}
		if err := Grant(ctx, owner, b.Name, App); err != nil {
			return nil, planted, err
		}
	}
	if opts.Trap {
		bound, err := Bound(ctx, admin)
		if err != nil {
			return nil, planted, err
		}
		if len(bound) > 0 {
			return nil, planted, fmt.Errorf("pgdeploy: loading the SQL bound it to lookalikes of built-ins: %q", bound)
		}
	}
	pool, err := srv.OpenPoolOn(ctx, App, db, max(opts.Conns, 1))
	return pool, planted, err
}

// Load loads the SQL of a new version of a book over the one deployed, as
// an operator deploys it: as Owner, the SQL in its own one transaction,
// then Grants for App, so that functions the new version adds can be
// called. admin checks, as Deploy does, that nothing was bound to a
// lookalike of a built-in.
func Load(ctx context.Context, srv *pgtest.Server, admin DB, b Book) error {
	return LoadIn(ctx, srv, admin, pgtest.DefaultDB, b)
}

// LoadIn is Load on the database db, which Deploy set up with Options.DB;
// admin is the superuser's, on db.
func LoadIn(ctx context.Context, srv *pgtest.Server, admin DB, db string, b Book) error {
	owner, err := pgx.Connect(ctx, srv.ConnStringAs(Owner, db))
	if err != nil {
		return fmt.Errorf("pgdeploy: connecting as %s: %w", Owner, err)
	}
	defer owner.Close(context.Background())
	if _, err := owner.Exec(ctx, b.SQL); err != nil {
		return fmt.Errorf("pgdeploy: loading the SQL of %s as %s: %w", b.Name, Owner, err)
	}
	if err := Grant(ctx, owner, b.Name, App); err != nil {
		return err
	}
	bound, err := Bound(ctx, admin)
	if err != nil {
		return err
	}
	if len(bound) > 0 {
		return fmt.Errorf("pgdeploy: loading the SQL of %s bound it to lookalikes of built-ins: %q", b.Name, bound)
	}
	return nil
}
