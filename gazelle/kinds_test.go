package gazelle

import (
	"reflect"
	"testing"
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

func TestKnownClientTargets(t *testing.T) {
	if got, want := knownClientTargets(), []string{"postgres-go", "postgres-typescript", "tigerbeetle-go", "tigerbeetle-typescript"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
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
