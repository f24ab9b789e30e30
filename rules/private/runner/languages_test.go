package main

import (
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/target"
)

// Every client target of the registry has a row in languages, so a new
// target of a known language needs nothing here; a target the runner
// cannot drive fails at the rule's entry, not in the middle of a run.
func TestNewDriver(t *testing.T) {
	for _, tg := range target.All {
		d, err := newDriver(tg.Name, "/x")
		if tg.Language == "sql" {
			if err == nil || !strings.Contains(err.Error(), "no driver") {
				t.Errorf("%s: got %+v, %v; want no driver for sql", tg.Name, d, err)
			}
			continue
		}
		if err != nil || d.backend != tg.Backend || d.language != tg.Language || d.path != "/x" {
			t.Errorf("%s: got %+v, %v", tg.Name, d, err)
		}
	}
	if _, err := newDriver("postgres-cobol", "/x"); err == nil {
		t.Error("a target chobo build does not know was taken")
	}
}
