package target

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	gazelleregistry "github.com/chobo-lang/chobo/gazelle/registry"
)

// gazelleClient is one client target as Gazelle knows it.
type gazelleClient struct {
	short, language string
	// imports says the client's rule carries its import (ImportAttr).
	imports bool
}

// gazelleTargets are Gazelle's client targets: those of each language of
// lang/, which Gazelle's registry of them lists (a package of data that
// links nothing of Gazelle).
func gazelleTargets(t *testing.T) map[string]gazelleClient {
	t.Helper()
	gz := map[string]gazelleClient{}
	for _, l := range gazelleregistry.Folders {
		for name, short := range l.Targets {
			if had, ok := gz[name]; ok {
				t.Errorf("%s is in the gazelle packages of both %s and %s", name, had.language, l.Name)
			}
			gz[name] = gazelleClient{short: short, language: l.Name, imports: l.ImportAttr == "importpath"}
		}
	}
	return gz
}

// TestGazelleTargetsAgree checks that Gazelle's table has every client
// target of the registry and nothing else, each with the registry's
// language, and that the clients Gazelle gives an import path (their
// language's importpath) are exactly those whose files form a package
// directory.
func TestGazelleTargetsAgree(t *testing.T) {
	gz := gazelleTargets(t)
	clients := map[string]bool{}
	for _, tg := range All {
		if tg.Language == "sql" {
			continue // chobo_sql, not chobo_client
		}
		clients[tg.Name] = true
		gc, ok := gz[tg.Name]
		if !ok {
			t.Errorf("Gazelle (gazelle/registry) lacks %s", tg.Name)
			continue
		}
		if gc.language != tg.Language {
			t.Errorf("%s: Gazelle (gazelle/registry) has language %q; the registry %q", tg.Name, gc.language, tg.Language)
		}
		inPackage := len(tg.Files) > 0
		for _, f := range tg.Files {
			inPackage = inPackage && strings.HasPrefix(f, "<package>/")
		}
		if gc.imports != inPackage {
			t.Errorf("%s: Gazelle writes an import path: %v; the registry's files %v make a package: %v", tg.Name, gc.imports, tg.Files, inPackage)
		}
	}
	for name := range gz {
		if !clients[name] {
			t.Errorf("Gazelle (gazelle/registry) has %s, which the registry does not", name)
		}
	}
}

// TestDefaultClientAgrees checks that Gazelle reads a chobo_client
// without a target as the target chobo_client itself defaults to, and
// that it is a client target of the registry.
func TestDefaultClientAgrees(t *testing.T) {
	def := gazelleregistry.DefaultClient
	data, err := os.ReadFile(filepath.Join("..", "..", "rules", "private", "client.bzl"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?s)def chobo_client\([^)]*?\btarget = DEFAULT_TARGET\b`).Match(data) {
		t.Fatal("client.bzl: chobo_client's target does not default to DEFAULT_TARGET")
	}
	registry, err := os.ReadFile(filepath.Join("..", "..", "rules", "private", "targets.bzl"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^DEFAULT_TARGET = "postgres-" \+ FOLDERS\[0\]\.name$`).Match(registry) {
		t.Fatal(`targets.bzl: DEFAULT_TARGET is not "postgres-" + FOLDERS[0].name`)
	}
	// The first of FOLDERS is the registry's first language, by the
	// folder targets.bzl loads it from.
	_, folders, _ := strings.Cut(string(registry), "\nFOLDERS = [\n    ")
	first, _, _ := strings.Cut(folders, ",")
	var from string
	for _, m := range bzlFolder.FindAllStringSubmatch(string(registry), -1) {
		if m[2] == first {
			from = m[1]
		}
	}
	if from != "lang/"+languages[0].Name {
		t.Errorf("the first of targets.bzl's FOLDERS is %q, loaded from %q; the registry's first language is %s", first, from, languages[0].Name)
	}
	if want := "postgres-" + languages[0].Name; want != def {
		t.Errorf("chobo_client defaults to %s; Gazelle's (gazelle/registry's DefaultClient) is %s", want, def)
	}
	if tg, ok := Lookup(def); !ok || tg.Language == "sql" {
		t.Errorf("the default client %s is not a client target of the registry", def)
	}
}
