package golang

import (
	"go/parser"
	"go/token"
)

// Valid reads a Go file of a client as go/parser does, which is cheap
// enough for the registry's fuzz tests (chobo/target) to run on every
// input: a client that does not parse is one the Go compiler refuses.
func Valid(data []byte) error {
	_, err := parser.ParseFile(token.NewFileSet(), "book.go", data, parser.AllErrors)
	return err
}
