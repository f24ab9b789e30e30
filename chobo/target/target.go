// Package target is the one registry of what `chobo build` can write:
// each target's name, backend, language and files, and the generator
// behind it. The command line, the tests and the Bazel rules
// (rules/private/targets.bzl, checked against this list by a test) all
// read it.
package target

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/client/golang"
	"github.com/chobo-lang/chobo/chobo/client/typescript"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// Target is one value of --target.
type Target struct {
	Name     string
	Backend  string // the database the output runs on or calls
	Language string // of the files: "sql", "go"
	// Files are the paths written under --out; <book> stands for the
	// book's name and <package> for the client's package.
	Files   []string
	Summary diag.Text
	build   func(*book.Book, gen.Source, gen.Options) ([]gen.File, diag.List)
}

// All lists the targets in the order help shows them.
var All = []Target{
	{
		Name: "postgres", Backend: "postgres", Language: "sql",
		Files:   []string{"<book>.sql"},
		Summary: diag.T("PostgreSQL schema, tables and functions", "PostgreSQL のスキーマ、テーブル、関数"),
		build:   postgres.Build,
	},
	{
		Name: "postgres-go", Backend: "postgres", Language: "go",
		Files:   []string{"<package>/book.go"},
		Summary: diag.T("a Go package that calls the PostgreSQL functions through pgx", "PostgreSQL の関数を pgx で呼ぶ Go のパッケージ"),
		build:   golang.BuildPostgres,
	},
	{
		Name: "tigerbeetle-go", Backend: "tigerbeetle", Language: "go",
		Files:   []string{"<package>/book.go"},
		Summary: diag.T("a Go package that sends each operation to TigerBeetle as one linked chain, through tigerbeetle-go", "操作ごとに一つのチェーンを tigerbeetle-go で TigerBeetle に送る Go のパッケージ"),
		build:   golang.BuildTigerBeetle,
	},
	{
		Name: "postgres-typescript", Backend: "postgres", Language: "typescript",
		Files:   []string{"<book>.ts"},
		Summary: diag.T("one TypeScript file that calls the PostgreSQL functions through pg, or anything with query(text, values)", "PostgreSQL の関数を pg(か query(text, values) を持つもの)で呼ぶ TypeScript のファイル一つ"),
		build:   typescript.BuildPostgres,
	},
	{
		Name: "tigerbeetle-typescript", Backend: "tigerbeetle", Language: "typescript",
		Files:   []string{"<book>.ts"},
		Summary: diag.T("one TypeScript file that sends each operation to TigerBeetle as one linked chain, through tigerbeetle-node", "操作ごとに一つのチェーンを tigerbeetle-node で TigerBeetle に送る TypeScript のファイル一つ"),
		build:   typescript.BuildTigerBeetle,
	},
}

// Names lists the targets' names, in order.
func Names() []string {
	var out []string
	for _, t := range All {
		out = append(out, t.Name)
	}
	return out
}

// Lookup finds a target by name.
func Lookup(name string) (Target, bool) {
	for _, t := range All {
		if t.Name == name {
			return t, true
		}
	}
	return Target{}, false
}

// Build writes the target's files, or returns the diagnostics that stop
// the book from going to its backend (E061 for PostgreSQL). A book that
// checks clean always builds; the error is a generator that could not
// write valid output (a bug in chobo, never in the book), and then no
// file is returned. A generator that panics is such an error too, so that
// no input ends the program with a trace.
func (t Target) Build(b *book.Book, src gen.Source, opt gen.Options) (files []gen.File, ds diag.List, err error) {
	if ds := backendCheck(t.Backend, b); len(ds) > 0 {
		return nil, ds, nil
	}
	defer func() {
		if r := recover(); r != nil {
			files, ds, err = nil, nil, fmt.Errorf("the %s generator failed on %s: %v", t.Name, src.File, r)
		}
	}()
	files, ds = t.build(b, src, opt)
	return files, ds, nil
}

// Check reports what the target's backend cannot take of a book (E060,
// E061), as Build would, without writing anything.
func (t Target) Check(b *book.Book) diag.List { return backendCheck(t.Backend, b) }

// backendCheck reports what a backend cannot hold of a book.
func backendCheck(backend string, b *book.Book) diag.List {
	switch backend {
	case "postgres":
		return postgres.Check(b)
	case "tigerbeetle":
		return tigerbeetle.Check(b)
	}
	return nil
}
