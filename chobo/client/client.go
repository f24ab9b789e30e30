// Package client says what a client language gives chobo: its name, the
// files it writes, its generator, the checks of the names it hands out,
// and what `chobo api` says of its clients, its targets' summaries and the
// check the fuzz tests run on its files. The registry of targets
// (chobo/target) pairs every language with every backend, so a new
// language is one value of this type in its own folder, lang/<language>,
// and one line of chobo/target/languages.go, not an edit in each place
// that lists targets.
package client

import (
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// Language is one client language.
type Language struct {
	// Name is the second half of its targets' names (postgres-go) and
	// what the Bazel rules and the tests call the language.
	Name string
	// Files are the paths a client is written to under --out, the same on
	// every backend; <book> stands for the book's name and <package> for
	// the client's package.
	Files []string
	// Generate writes the client of a model. The book has passed its
	// backend's checks and Collisions found nothing; an error is a bug of
	// the generator, never of the book.
	Generate func(m *model.Model, src gen.Source, opt gen.Options) ([]gen.File, error)
	// ValidPackage says why a name cannot be a client's package (--package),
	// or nothing when it can. Nil for a language whose clients have no
	// package name, which then leaves --package unread.
	ValidPackage func(name string) diag.Text
	// Collisions lists the names two things of a book would both take in
	// the language's client (E062).
	Collisions func(m *model.Model) []model.Collision
	// Describe says what the client of a model names, for `chobo api`;
	// Read reads that JSON back, as a deployed version printed it.
	Describe func(m *model.Model) Described
	Read     func(data []byte) (Described, error)
	// Summary says, by backend, what the language's client on it is, for
	// help's list of targets.
	Summary map[string]diag.Text
	// Naming says what the language's clients make of the book's names
	// where two could become one or one cannot be written, in a few
	// sentences that `chobo explain E062` reads after its own (the codes
	// marked PerLanguage, by chobo/target).
	Naming diag.Text
	// Valid reads a file of a client, cheaply enough for the registry's
	// fuzz tests (chobo/target) to run it on every input: nil when the
	// error is only what the language itself would refuse of the file.
	Valid func(data []byte) error
}

// Described is what `chobo api` says of one client: the names it gives,
// as a value that encodes to the JSON the language documents.
type Described interface {
	// Names lists every name the client gives the book's transfer and
	// account kinds and their parameters, transfers first, in the book's
	// order, so that the names of two versions can be compared.
	Names() []Name
}

// Name is one name a client gives a part of a book.
type Name struct {
	Kind  string // "transfer" or "account"
	Owner string // the transfer or account kind, by its name in the book
	What  string // what of the client it names: "type", "key field of sku", …
	// WhatJa says What in Japanese, for the diagnostics that name it.
	WhatJa string
	Name   string
}
