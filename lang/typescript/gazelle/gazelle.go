// Package gazelle is what chobo's Gazelle language knows of TypeScript
// clients: chobo_client's library is the .ts file itself, a source of the
// user's own rule, and no Gazelle language that can run beside chobo's
// resolves a program's import of it (docs/bazel.md, "Gazelle").
package gazelle

import "github.com/chobo-lang/chobo/gazelle/clientlang"

// Language is the TypeScript row of chobo's Gazelle language
// (gazelle/registry).
var Language = clientlang.Language{
	Name: "typescript",
	Targets: map[string]string{
		"postgres-typescript":    "ts",
		"tigerbeetle-typescript": "tb_ts",
	},
}
