package tests

import (
	"testing"

	tsdriver "github.com/chobo-lang/chobo/lang/typescript/driver"
)

// What the tests here that run TypeScript programs find of it: the
// runtime's folder and node and tsc as its driver kit finds them. The
// runtime's and the clients' own tests are in lang/typescript.

// tsRuntimeDir is the TypeScript runtime's package, from tests/.
const tsRuntimeDir = "../lang/typescript/runtime"

// typeScript returns node and the runtime's pinned tsc, or skips t (with
// a SKIP line) when they are not installed; under CI they must be.
func typeScript(t *testing.T) (node, tsc string) {
	t.Helper()
	_, lang := languageOf(t, "postgres-typescript")
	tools := useLanguage(t, lang).(*tsdriver.Tools)
	return tools.Node.Program, tools.TSC
}
