// Package api holds every JSON shape chobo prints for tools, and the one
// version number they share:
//
//   - Check: `chobo check --format json`, the diagnostics of each file and
//     the refusal report of a book without errors;
//   - Run: `chobo run --format json`, the outcomes of each scenario;
//   - Book: `chobo api`, everything a tool needs to call a book without
//     reading the book or the code generated from it.
//
// The package sits at the end of the pipeline: it reads what the stages
// computed (book, diag, report, search, scenario, interp, ids) and turns
// it into plain structs with English keys. No stage imports it; the
// command line calls it to encode, and the comparison with a deployed
// version (evolve) decodes a Book to read that version back.
//
// Slices keep the book's order, and no shape holds a map, so the same
// input always gives the same bytes.
package api

import (
	"encoding/json"
	"io"
)

// Version is the "v" of every JSON document chobo prints. It goes up only
// when a key is removed or changes meaning; a new key may appear without
// it changing.
const Version = 2

// Write encodes v the way every chobo JSON document is written: indented
// by two spaces, with a final newline, and without escaping <, > and &
// (books and messages may quote them).
func Write(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
