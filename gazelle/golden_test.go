package gazelle_test

import (
	"testing"

	"github.com/chobo-lang/chobo/gazelle"
	"github.com/chobo-lang/chobo/gazelle/gazelletest"
)

// TestGoldens runs the generation goldens of testdata/ with the Go and
// chobo languages (gazelletest.Goldens); each client language's own are
// in its folder, lang/<language>/gazelle/testdata. To rewrite the .out
// files after a change of the generator:
//
//	CHOBO_UPDATE_GOLDENS=1 go test ./gazelle/... ./lang/... -run TestGoldens
func TestGoldens(t *testing.T) {
	gazelletest.Goldens(t, "testdata", gazelle.NewLanguage())
}
