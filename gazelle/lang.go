// Package gazelle is chobo's language for Gazelle: it writes the chobo
// targets of every .book file (chobo_book, chobo_sql, chobo_client,
// chobo_doc, chobo_conformance_test) and lets the rules of another
// Gazelle language (a client language's own) that import a generated
// client depend on its chobo_client. Add it to a gazelle_binary next to those
// languages (docs/bazel.md, "Gazelle").
//
// The files follow Gazelle's own language/proto: config.go (directives),
// kinds.go (kinds and loads), names.go (target names), languages.go
// (what each client language needs: one row per language), generate.go,
// resolve.go, and this file.
package gazelle

import (
	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/language"
	"github.com/bazelbuild/bazel-gazelle/rule"
)

// languageName is the language's name: its kinds start with it, its
// settings are stored under it, and `gazelle -lang chobo` selects it.
const languageName = "chobo"

type choboLang struct{}

// NewLanguage returns the chobo language; gazelle_binary calls it.
func NewLanguage() language.Language { return &choboLang{} }

func (*choboLang) Name() string { return languageName }

// Fix has nothing to migrate.
func (*choboLang) Fix(c *config.Config, f *rule.File) {}

var (
	_ language.Language            = (*choboLang)(nil)
	_ language.ModuleAwareLanguage = (*choboLang)(nil)
)
