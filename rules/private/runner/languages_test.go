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
// TigerBeetle clients in the part on chobo's model; bzlFolder is the load
// of a language's own lang/<language>/defs.bzl, whose LANGUAGE
// (bzlFolderLanguage) is such an entry too.
var (
	bzlLanguage       = regexp.MustCompile(`(?s)\n    "([a-z]+)": struct\(.*?\n        model = (True|False),\n    \),`)
	bzlFolder         = regexp.MustCompile(`(?m)^load\("//(lang/[a-z]+):defs\.bzl"`)
	bzlFolderLanguage = regexp.MustCompile(`(?s)\nLANGUAGE = struct\(\n    name = "([a-z]+)",.*?\n    model = (True|False),\n`)
)

// readModels reads each language's `model` from the registry of the
// Bazel rules: the entries of LANGUAGES in targets.bzl, and the LANGUAGE
// of each defs.bzl it loads.
func readModels(t *testing.T) map[string]string {
	t.Helper()
	read := func(path string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	text := read("rules/private/targets.bzl")
	start := strings.Index(text, "LANGUAGES = {")
	if start < 0 {
		t.Fatal("targets.bzl has no LANGUAGES table")
	}
	out := map[string]string{}
	for _, m := range bzlLanguage.FindAllStringSubmatch(text[start:], -1) {
		out[m[1]] = m[2]
	}
	for _, f := range bzlFolder.FindAllStringSubmatch(text, -1) {
		m := bzlFolderLanguage.FindStringSubmatch(read(f[1] + "/defs.bzl"))
		if m == nil {
			t.Fatalf("%s/defs.bzl has no LANGUAGE with a name and a model", f[1])
		}
		out[m[1]] = m[2]
	}
	return out
}

// The rule sorts TigerBeetle clients into the part on the model by
// LANGUAGES' `model`; the runner drives on the model exactly the clients
// whose language's kit reaches TigerBeetle through it (ViaWire). A language on
// one side only would be a part that runs nothing, or a client the model
// part never gets.
func TestModelAgreesWithRules(t *testing.T) {
	models := readModels(t)
	for lang, model := range models {
		kit, ok := driverkits.Of(lang)
		if !ok {
			t.Errorf("targets.bzl has the language %s, runtime/driverkits does not", lang)
			continue
		}
		if (model == "True") != kit.ViaWire() {
			t.Errorf("%s: targets.bzl says model = %s, its kit's ViaWire is %v", lang, model, kit.ViaWire())
		}
	}
	for _, kit := range driverkits.All {
		if _, ok := models[kit.Language()]; !ok {
			t.Errorf("the runner drives %s clients; targets.bzl's LANGUAGES has no model for it", kit.Language())
		}
	}
}
