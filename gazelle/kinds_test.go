package gazelle

import (
	"reflect"
	"sort"
	"testing"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/rule"
)

// Every kind is loaded, and every attribute people set by hand (size,
// visibility, tags, timeout) is theirs: Gazelle never merges it.
func TestKinds(t *testing.T) {
	loads := loadsFor("chobo")
	if len(loads) != 1 || loads[0].Name != "@chobo//rules:defs.bzl" {
		t.Fatalf("loads %+v", loads)
	}
	loaded := map[string]bool{}
	for _, s := range loads[0].Symbols {
		loaded[s] = true
	}
	for kind, info := range choboKinds {
		if !loaded[kind] {
			t.Errorf("%s is not loaded", kind)
		}
		for _, a := range []string{"name", "size", "timeout", "visibility", "tags", "testonly"} {
			if info.MergeableAttrs[a] {
				t.Errorf("%s: %s is mergeable; it is the user's", kind, a)
			}
		}
		for a := range info.NonEmptyAttrs {
			if !info.MergeableAttrs[a] {
				t.Errorf("%s: non-empty attribute %s is not mergeable, so an empty rule never empties it", kind, a)
			}
		}
	}
}

func TestLoadsFor(t *testing.T) {
	for _, tc := range []struct {
		apparent func(string) string
		want     string
	}{
		{nil, "@chobo//rules:defs.bzl"},
		{func(string) string { return "" }, "@chobo//rules:defs.bzl"},
		{func(m string) string { return map[string]string{"chobo": "my_chobo"}[m] }, "@my_chobo//rules:defs.bzl"},
	} {
		got := (&choboLang{}).ApparentLoads(tc.apparent)
		if got[0].Name != tc.want {
			t.Errorf("got %s, want %s", got[0].Name, tc.want)
		}
	}
	if got := loadsFor(""); got[0].Name != "//rules:defs.bzl" {
		t.Errorf("chobo's own repository: %s", got[0].Name)
	}
}

// The registry's names and languages are held to chobo/target by a test
// there; what is Gazelle's own is that no two targets of a book get one
// rule name, nor two Go clients one import path.
func TestClientTargets(t *testing.T) {
	known := knownClientTargets()
	if len(known) != len(clientTargets) || !sort.StringsAreSorted(known) {
		t.Errorf("knownClientTargets() = %v, for %d targets", known, len(clientTargets))
	}
	if _, ok := clientTargets[defaultClient]; !ok {
		t.Errorf("the default client %s is not in the table", defaultClient)
	}
	names := map[string]string{}
	imports := map[string]string{}
	for _, name := range known {
		ct := clientTargets[name]
		if ct.short == "" || ct.language == "" {
			t.Errorf("%s: %+v lacks a short name or a language", name, ct)
		}
		b := book{name: "stock"}
		cn := clientName(b, name)
		if other, ok := names[cn]; ok {
			t.Errorf("%s and %s are both named %s", other, name, cn)
		}
		names[cn] = name
		l, ok := clientLanguages[ct.language]
		if !ok {
			t.Errorf("%s: its language %s has no row in clientLanguages", name, ct.language)
			continue
		}
		r := rule.NewRule(clientKind, clientName(b, name))
		if l.setAttrs != nil {
			l.setAttrs(r, config.New(), "ledger", b, name)
		}
		imp := r.AttrString("importpath")
		if imp == "" {
			continue
		}
		if other, ok := imports[imp]; ok {
			t.Errorf("%s and %s both import as %s", other, name, imp)
		}
		imports[imp] = name
	}
}

func TestDocNames(t *testing.T) {
	if got, want := knownDocFormats(), []string{"html", "markdown"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for f, want := range map[string]string{"markdown": "stock_doc", "html": "stock_html_doc"} {
		if got := docName("stock", f); got != want {
			t.Errorf("docName(stock, %s) = %s, want %s", f, got, want)
		}
	}
}

// Every language of the client targets has a row, every row a target;
// a row whose clients are indexed says how they are imported, and no two
// rows answer the same Gazelle language, since CrossResolve picks the
// row by it.
func TestClientLanguages(t *testing.T) {
	used := map[string]bool{}
	for _, ct := range clientTargets {
		used[ct.language] = true
	}
	answers := map[string]string{}
	for name, l := range clientLanguages {
		if !used[name] {
			t.Errorf("clientLanguages has %s, which no client target is written in", name)
		}
		if l.importLang == "" {
			if l.importOf != nil || l.builtin != nil {
				t.Errorf("%s: says how its clients are imported, but by no Gazelle language", name)
			}
			continue
		}
		if l.importOf == nil {
			t.Errorf("%s: indexed under %s, but with no rule for the import", name, l.importLang)
		}
		if other, ok := answers[l.importLang]; ok {
			t.Errorf("%s and %s both answer the Gazelle language %s", other, name, l.importLang)
		}
		answers[l.importLang] = name
		if got, ok := languageImportedBy(l.importLang); !ok || got.importLang != l.importLang {
			t.Errorf("languageImportedBy(%s) does not find %s", l.importLang, name)
		}
	}
	if _, ok := languageImportedBy(""); ok {
		t.Error("a row answers the Gazelle language with no name")
	}
}
