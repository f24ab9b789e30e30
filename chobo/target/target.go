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
	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// Target is one value of --target.
type Target struct {
	Name    string
	Backend string // the database the output runs on or calls
	// Language is "sql" for the schema, else the client language's Name.
	Language string
	// Files are the paths written under --out; <book> stands for the
	// book's name and <package> for the client's package.
	Files   []string
	Summary diag.Text
	client  *client.Language // nil for the schema
	build   func(*book.Book, gen.Source, gen.Options) ([]gen.File, diag.List, error)
}

// backends are the databases a book can go to, in the order help lists
// each language's targets.
var backends = []struct {
	name  string
	check func(*book.Book) diag.List
}{
	{model.Postgres, postgres.Check},
	{model.TigerBeetle, tigerbeetle.Check},
}

// summaries say what each target writes, for help, for the schema and
// the languages whose description has no Summary.
var summaries = map[string]diag.Text{
	"postgres": diag.T("PostgreSQL schema, tables and functions", "PostgreSQL のスキーマ、テーブル、関数"),
}

// All lists the targets in the order help shows them: the schema, then
// every language's client on every backend.
var All = registry()

func registry() []Target {
	all := []Target{{
		Name: "postgres", Backend: model.Postgres, Language: "sql",
		Files:   []string{"<book>.sql"},
		Summary: summaries["postgres"],
		build: func(b *book.Book, src gen.Source, opt gen.Options) ([]gen.File, diag.List, error) {
			files, ds := postgres.Build(b, src, opt)
			return files, ds, nil
		},
	}}
	for _, l := range languages {
		for _, be := range backends {
			name := be.name + "-" + l.Name
			summary, ok := l.Summary[be.name]
			if !ok {
				summary = summaries[name]
			}
			all = append(all, Target{Name: name, Backend: be.name, Language: l.Name,
				Files: l.Files, Summary: summary, client: l, build: clientBuild(l, be.name)})
		}
	}
	return all
}

// clientBuild writes a language's client of a book on a backend.
func clientBuild(l *client.Language, backend string) func(*book.Book, gen.Source, gen.Options) ([]gen.File, diag.List, error) {
	return func(b *book.Book, src gen.Source, opt gen.Options) ([]gen.File, diag.List, error) {
		m, err := model.New(b, backend)
		if err != nil {
			return nil, nil, err
		}
		files, err := l.Generate(m, src, opt)
		return files, nil, err
	}
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
	if ds := t.Check(b); len(ds) > 0 {
		return nil, ds, nil
	}
	defer func() {
		if r := recover(); r != nil {
			files, ds, err = nil, nil, fmt.Errorf("the %s generator failed on %s: %v", t.Name, src.File, r)
		}
	}()
	files, ds, err = t.build(b, src, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("the %s generator failed on %s: %v", t.Name, src.File, err)
	}
	return files, ds, nil
}

// Client is the language of a client target; nil for the schema.
func (t Target) Client() *client.Language { return t.client }

// ValidPackage says why name cannot be the package of the target's
// client, or nothing when it can or when the target's files have no
// package name.
func (t Target) ValidPackage(name string) diag.Text {
	if t.client == nil || t.client.ValidPackage == nil {
		return diag.Text{}
	}
	return t.client.ValidPackage(name)
}

// Check reports what the target's backend and language cannot take of a
// book (E060, E061, E062), as Build would, without writing anything.
func (t Target) Check(b *book.Book) diag.List {
	return append(BackendCheck(t.Backend, b), clientCheck(t, b)...)
}

// clientCheck reports the names a client language cannot tell apart but
// by their order (E062).
func clientCheck(t Target, b *book.Book) diag.List {
	if t.client == nil {
		return nil
	}
	m, err := model.New(b, t.Backend)
	if err != nil {
		return nil
	}
	var l diag.List
	seen := map[[2]model.Owner]bool{} // one diagnostic for each two things, at its first name
	for _, c := range t.client.Collisions(m) {
		pair := [2]model.Owner{c.First, c.Second}
		pair[0].What, pair[0].WhatJa, pair[1].What, pair[1].WhatJa = "", "", "", ""
		if seen[pair] {
			continue
		}
		seen[pair] = true
		if c.Alone() && c.First.Kind == "book" {
			l.Add(diag.Diagnostic{Code: "E062", Severity: diag.Error, File: b.File, Line: b.Pos.Line, Col: b.Pos.Col,
				Message: diag.T(
					fmt.Sprintf("the %s client of book `%s` cannot be imported by its name: %s", c.Language, c.Name, c.Why),
					fmt.Sprintf("book `%s` の %s クライアントを、その名前で読み込めません。%s", c.Name, c.Language, c.WhyJa)),
				Hint: diag.T(
					fmt.Sprintf("rename the book (`book %s`, and the file a client is written to with it) to a name %s can import as it is written", c.Name, c.Language),
					fmt.Sprintf("book の名前(`book %s`。クライアントのファイル名もこれに従います)を、%s が書いたとおりに読み込める名前に変えてください", c.Name, c.Language)),
			})
			continue
		}
		if c.Alone() {
			pos := ownerPos(b, c.First)
			l.Add(diag.Diagnostic{Code: "E062", Severity: diag.Error, File: b.File, Line: pos.Line, Col: pos.Col,
				Message: diag.T(
					fmt.Sprintf("in the %s client, %s cannot be written: %s", c.Language, ownerText(c.First).En, c.Why),
					fmt.Sprintf("%s のクライアントで、%sを書けません。%s", c.Language, ownerText(c.First).Ja, c.WhyJa)),
				Hint: diag.T(
					fmt.Sprintf("rename `%s` to a name that %s reads as it is written", c.First.Name, c.Language),
					fmt.Sprintf("`%s` の名前を、%s が書いたとおりに読む名前に変えてください", c.First.Name, c.Language)),
			})
			continue
		}
		// At the later of the two declarations: the one that came second.
		pos := ownerPos(b, c.Second)
		if p := ownerPos(b, c.First); p.Line > pos.Line {
			pos = p
		}
		hint := diag.T(
			fmt.Sprintf("rename `%s` or `%s`: chobo never tells two names apart by the order they are declared in, so that a declaration added later can never take a name code already calls", c.First.Name, c.Second.Name),
			fmt.Sprintf("`%s` か `%s` の名前を変えてください。chobo は二つの名前を宣言の順で区別しません。あとから足した宣言が、コードがすでに呼んでいる名前を取ることがないようにするためです", c.First.Name, c.Second.Name))
		if c.Why != "" {
			// The language itself cannot tell the two apart, whatever
			// their order: saying so is the whole of the advice.
			hint = diag.T(
				fmt.Sprintf("%s: rename `%s` or `%s`", c.Why, c.First.Name, c.Second.Name),
				fmt.Sprintf("%s。`%s` か `%s` の名前を変えてください", c.WhyJa, c.First.Name, c.Second.Name))
		}
		l.Add(diag.Diagnostic{Code: "E062", Severity: diag.Error, File: b.File, Line: pos.Line, Col: pos.Col,
			Message: diag.T(
				fmt.Sprintf("in the %s client, `%s` would be both %s and %s", c.Language, c.Name, ownerText(c.First).En, ownerText(c.Second).En),
				fmt.Sprintf("%s のクライアントで、`%s` が%sと%sの両方になります", c.Language, c.Name, ownerText(c.First).Ja, ownerText(c.Second).Ja)),
			Hint: hint,
		})
	}
	return l
}

// ownerText says what of a book a generated name stands for.
func ownerText(o model.Owner) diag.Text {
	switch o.Kind {
	case "account":
		return diag.T(fmt.Sprintf("the %s of account `%s`", o.What, o.Name), fmt.Sprintf("勘定 `%s` の%s", o.Name, o.WhatJa))
	case "parameter":
		return diag.T(fmt.Sprintf("the %s for parameter `%s`", o.What, o.Name), fmt.Sprintf("%s(引数 `%s`)", o.WhatJa, o.Name))
	}
	return diag.T(fmt.Sprintf("the %s of transfer `%s`", o.What, o.Name), fmt.Sprintf("振替 `%s` の%s", o.Name, o.WhatJa))
}

// ownerPos is where the book declares what o stands for.
func ownerPos(b *book.Book, o model.Owner) book.Pos {
	switch o.Kind {
	case "transfer":
		if t := b.Transfer(o.Name); t != nil {
			return t.Pos
		}
	case "account":
		if a := b.Account(o.Name); a != nil {
			return a.Pos
		}
	case "parameter":
		if t := b.Transfer(o.Of); t != nil {
			if p := t.Param(o.Name); p != nil {
				return p.Pos
			}
		}
		if a := b.Account(o.Of); a != nil {
			for i, p := range a.Params {
				if p == o.Name {
					return a.ParamPos[i]
				}
			}
		}
	}
	return b.Pos
}

// BackendCheck reports what a backend cannot hold of a book (E060,
// E061): where it says anything, no target of the backend is built.
func BackendCheck(backend string, b *book.Book) diag.List {
	for _, be := range backends {
		if be.name == backend {
			return be.check(b)
		}
	}
	return nil
}
