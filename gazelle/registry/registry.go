// Package registry lists what chobo's Gazelle language is told by each
// client language that lives in a folder of its own, lang/<language>: a
// new language of that kind is one line here. It is a package of its own,
// linking only the languages' small gazelle packages, so that the test of
// the registry of targets (chobo/target) can read it without linking
// Gazelle.
package registry

import (
	"github.com/chobo-lang/chobo/gazelle/clientlang"
	gogazelle "github.com/chobo-lang/chobo/lang/go/gazelle"
	pygazelle "github.com/chobo-lang/chobo/lang/python/gazelle"
	tsgazelle "github.com/chobo-lang/chobo/lang/typescript/gazelle"
)

// Folders are the languages of lang/, in the order of the registry of
// targets.
var Folders = []clientlang.Language{
	gogazelle.Language,
	tsgazelle.Language,
	pygazelle.Language,
}

// DefaultClient is the target of a chobo_client that names none, as
// chobo_client's own default in rules/private/client.bzl says (a test in
// chobo/target holds the two together), and the client Gazelle writes
// for each book unless a directive names others: the PostgreSQL client of
// the registry's first language.
var DefaultClient = "postgres-" + Folders[0].Name
