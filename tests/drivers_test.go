package tests

import (
	"os"
	"testing"
)

// The drivers of every language's clients (languages_test.go) are built
// once per test binary, in folders that go when the tests end.

func TestMain(m *testing.M) {
	code := m.Run()
	removeDrivers()
	os.Exit(code)
}
