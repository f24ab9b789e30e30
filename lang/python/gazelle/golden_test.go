package gazelle_test

import (
	"testing"

	"github.com/chobo-lang/chobo/gazelle"
	"github.com/chobo-lang/chobo/gazelle/gazelletest"
)

// TestGoldens runs this language's generation goldens (testdata/) with
// the Go and chobo languages, as gazelle/'s own run.
func TestGoldens(t *testing.T) {
	gazelletest.Goldens(t, "testdata", gazelle.NewLanguage())
}
