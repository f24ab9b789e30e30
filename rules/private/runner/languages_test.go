package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/runtime/driverkits"
)

// Every client target of the registry has a driver kit, so a new target
// of a known language needs nothing here; a target the runner
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
		if err != nil || d.backend != tg.Backend || d.path != "/x" || d.kit.Language() != tg.Language {
			t.Errorf("%s: got %+v, %v", tg.Name, d, err)
		}
	}
	if _, err := newDriver("postgres-cobol", "/x"); err == nil {
		t.Error("a target chobo build does not know was taken")
	}
}

// bzlLanguage is one entry of LANGUAGES in rules/private/targets.bzl, up
// to its `model`, which says whether the rule puts the language's
// TigerBeetle clients in the part on chobo's model.
var bzlLanguage = regexp.MustCompile(`(?s)\n    "([a-z]+)": struct\(.*?\n        model = (True|False),\n    \),`)

// The rule sorts TigerBeetle clients into the part on the model by
// LANGUAGES' `model`; the runner drives on the model exactly the clients
// whose language's kit reaches TigerBeetle through it (ViaWire). A language on
// one side only would be a part that runs nothing, or a client the model
// part never gets.
func TestModelAgreesWithRules(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "targets.bzl"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "LANGUAGES = {")
	if start < 0 {
		t.Fatal("targets.bzl has no LANGUAGES table")
	}
	seen := map[string]bool{}
	for _, m := range bzlLanguage.FindAllStringSubmatch(text[start:], -1) {
		kit, ok := driverkits.Of(m[1])
		if !ok {
			t.Errorf("targets.bzl has the language %s, runtime/driverkits does not", m[1])
			continue
		}
		seen[m[1]] = true
		if model := m[2] == "True"; model != kit.ViaWire() {
			t.Errorf("%s: targets.bzl says model = %s, its kit's ViaWire is %v", m[1], m[2], kit.ViaWire())
		}
	}
	for _, kit := range driverkits.All {
		if !seen[kit.Language()] {
			t.Errorf("the runner drives %s clients; targets.bzl's LANGUAGES has no model for it", kit.Language())
		}
	}
}
