package gazelle

import (
	"reflect"
	"strings"
	"testing"

	"fmt"
	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/rule"
	"github.com/chobo-lang/chobo/gazelle/registry"
)

func TestDirectives(t *testing.T) {
	md := []string{"markdown"}
	for _, tc := range []struct {
		name, key, value string
		want             choboConfig
		wantErr          bool
	}{
		{name: "off", key: "chobo", value: "off",
			want: choboConfig{docs: md, clients: []string{"postgres-go"}, conformance: true}},
		{name: "on", key: "chobo", value: "true",
			want: choboConfig{docs: md, enabled: true, clients: []string{"postgres-go"}, conformance: true}},
		{name: "bad on/off", key: "chobo", value: "maybe", wantErr: true,
			want: *defaultConfig()},
		{name: "conformance off", key: "chobo_conformance", value: "off",
			want: choboConfig{docs: md, enabled: true, clients: []string{"postgres-go"}}},
		{name: "two clients in order", key: "chobo_client", value: "tigerbeetle-go postgres-go",
			want: choboConfig{docs: md, enabled: true, clients: []string{"tigerbeetle-go", "postgres-go"}, conformance: true}},
		{name: "a client twice", key: "chobo_client", value: "postgres-go postgres-go",
			want: choboConfig{docs: md, enabled: true, clients: []string{"postgres-go"}, conformance: true}},
		{name: "no client", key: "chobo_client", value: "none",
			want: choboConfig{docs: md, enabled: true, clients: []string{}, conformance: true}},
		{name: "unknown client", key: "chobo_client", value: "postgres-rust", wantErr: true,
			want: *defaultConfig()},
		{name: "empty client list", key: "chobo_client", value: "", wantErr: true,
			want: *defaultConfig()},
		{name: "pages in order", key: "chobo_doc", value: "html markdown html",
			want: choboConfig{enabled: true, clients: []string{"postgres-go"}, conformance: true, docs: []string{"html", "markdown"}}},
		{name: "no pages", key: "chobo_doc", value: "off",
			want: choboConfig{enabled: true, clients: []string{"postgres-go"}, conformance: true, docs: []string{}}},
		{name: "no pages, none", key: "chobo_doc", value: "none",
			want: choboConfig{enabled: true, clients: []string{"postgres-go"}, conformance: true, docs: []string{}}},
		{name: "pages on", key: "chobo_doc", value: "on",
			want: choboConfig{enabled: true, clients: []string{"postgres-go"}, conformance: true, docs: md}},
		{name: "unknown page format", key: "chobo_doc", value: "markdown pdf", wantErr: true,
			want: *defaultConfig()},
		{name: "empty page list", key: "chobo_doc", value: "", wantErr: true,
			want: *defaultConfig()},
		{name: "import path", key: "chobo_importpath", value: "example.com/books/",
			want: choboConfig{docs: md, enabled: true, clients: []string{"postgres-go"}, conformance: true,
				importPath: "example.com/books", importPathRel: "ledger", importPathSet: true}},
		{name: "import path reset", key: "chobo_importpath", value: "",
			want: choboConfig{docs: md, enabled: true, clients: []string{"postgres-go"}, conformance: true, importPathRel: "ledger"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc := defaultConfig()
			err := cc.apply(tc.key, tc.value, "ledger")
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if !reflect.DeepEqual(*cc, tc.want) {
				t.Errorf("got %+v, want %+v", *cc, tc.want)
			}
		})
	}
}

// Configure copies the parent's settings, so a directive holds below its
// directory and not beside it.
func TestConfigureInherits(t *testing.T) {
	lang := NewLanguage()
	c := config.New()
	lang.RegisterFlags(nil, "update", c)
	f, err := rule.LoadData("BUILD.bazel", "", []byte("# gazelle:chobo_client tigerbeetle-go\n# gazelle:chobo_importpath example.com/b\n"))
	if err != nil {
		t.Fatal(err)
	}
	parent := c.Clone()
	lang.Configure(parent, "", f)
	child := parent.Clone()
	lang.Configure(child, "x/y", nil)
	sibling := c.Clone()
	lang.Configure(sibling, "z", nil)
	if got := getConfig(child).clients; !reflect.DeepEqual(got, []string{"tigerbeetle-go"}) {
		t.Errorf("child clients %v", got)
	}
	if got := baseImportPath(child, "x/y"); got != "example.com/b/x/y" {
		t.Errorf("child import path %q", got)
	}
	if got := getConfig(sibling).clients; !reflect.DeepEqual(got, []string{"postgres-go"}) {
		t.Errorf("sibling clients %v", got)
	}
	if got := baseImportPath(sibling, "z"); got != "z" {
		t.Errorf("sibling import path %q (no Go language, no directive: the directory)", got)
	}
}

func TestJoinBelow(t *testing.T) {
	for _, tc := range []struct{ base, baseRel, rel, want string }{
		{"example.com/b", "", "", "example.com/b"},
		{"example.com/b", "", "ledger", "example.com/b/ledger"},
		{"example.com/b", "ledger", "ledger", "example.com/b"},
		{"example.com/b", "ledger", "ledger/sub", "example.com/b/sub"},
	} {
		if got := joinBelow(tc.base, tc.baseRel, tc.rel); got != tc.want {
			t.Errorf("joinBelow(%q, %q, %q) = %q, want %q", tc.base, tc.baseRel, tc.rel, got, tc.want)
		}
	}
}

// A mistyped word of a directive is named with the word it was most
// likely meant as; a language alone stands for its client of the default
// backend.
func TestDirectiveValueSuggestions(t *testing.T) {
	type suggestion struct{ key, value, want string }
	// Every language of the registry: alone, it stands for its PostgreSQL
	// client; with two letters swapped, for the target it misspells.
	var each []suggestion
	for _, l := range registry.Folders {
		pg, tb := "postgres-"+l.Name, "tigerbeetle-"+l.Name
		each = append(each,
			suggestion{"chobo_client", l.Name, fmt.Sprintf("unknown client target %q; did you mean %s?", l.Name, pg)},
			suggestion{"chobo_client", "postgres-go " + swapLast(tb), "did you mean " + tb + "?"})
	}
	for _, tc := range append(each, []suggestion{
		{"chobo_client", "postgres_go", "did you mean postgres-go?"},
		{"chobo_client", "Postgres-Go", "did you mean postgres-go?"},
		{"chobo_doc", "markdwn", `unknown page format "markdwn"; did you mean markdown?`},
		{"chobo_doc", "markdown htm", "did you mean html?"},
		{"chobo_doc", "nnoe", "did you mean none?"},
		{"chobo", "of", `"of" is neither on nor off`},
		{"chobo_conformance", "offf", `"offf" is neither on nor off; did you mean off?`},
		{"chobo", "flase", "did you mean false?"},
		{"chobo_importpath", "example.com/books chobo_client none", `"example.com/books chobo_client none" is not one import path`},
	}...) {
		t.Run(tc.key+" "+tc.value, func(t *testing.T) {
			cc := defaultConfig()
			err := cc.apply(tc.key, tc.value, "ledger")
			if err == nil {
				t.Fatalf("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to say %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "gazelle:"+tc.key+": ") {
				t.Errorf("error %q does not name the directive", err)
			}
			if !reflect.DeepEqual(cc, defaultConfig()) {
				t.Errorf("a refused directive changed the settings: %+v", *cc)
			}
		})
	}
	// Neither on nor off is the nearer of the two.
	if err := defaultConfig().apply("chobo", "of", ""); strings.Contains(err.Error(), "did you mean") {
		t.Errorf("%v: a guess between on and off", err)
	}
	// Nothing near: the known words, and no guess.
	err := defaultConfig().apply("chobo_client", "rust", "")
	if err == nil || strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), "known: postgres-go, ") {
		t.Errorf("rust: %v", err)
	}
}

// A directive whose name starts like chobo's and is none of them is an
// error naming the nearest; the directives of Gazelle and of the other
// languages are theirs.
func TestUnknownDirectives(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"chobo_clients", "did you mean # gazelle:chobo_client?"},
		{"chobo_clinet", "did you mean # gazelle:chobo_client?"},
		{"chobo-client", "did you mean # gazelle:chobo_client?"},
		{"Chobo_Client", "did you mean # gazelle:chobo_client?"},
		{"chobo_import_path", "did you mean # gazelle:chobo_importpath?"},
		{"chobo_docs", "did you mean # gazelle:chobo_doc?"},
		{"chobo_conformence", "did you mean # gazelle:chobo_conformance?"},
		{"choboo", "did you mean # gazelle:chobo?"},
		{"chobo_targets", "chobo's are chobo, chobo_client, chobo_importpath, chobo_conformance, chobo_doc"},
		// The first word a letter off chobo: still chobo's.
		{"chobbo_client", "did you mean # gazelle:chobo_client?"},
		{"chob_doc", "did you mean # gazelle:chobo_doc?"},
		{"cobo_conformance", "did you mean # gazelle:chobo_conformance?"},
		{"chbo_clinet", "did you mean # gazelle:chobo_client?"},
		{"Chobbo", "did you mean # gazelle:chobo?"},
		{"chbo_targets", "chobo's are chobo, "},
	} {
		err := unknownDirective(tc.key)
		if err == nil {
			t.Errorf("%s: no error", tc.key)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "gazelle:"+tc.key+" ") {
			t.Errorf("%s: %q, want it to name the directive and say %q", tc.key, err, tc.want)
		}
	}
	// Two letters off chobo is a word of its own, perhaps another
	// language's.
	for _, key := range []string{"prefix", "go_naming_convention", "proto", "resolve", "exclude", "clients", "combo", "cobol_version", "chobbbo", "js_root"} {
		if err := unknownDirective(key); err != nil {
			t.Errorf("%s is not chobo's, yet: %v", key, err)
		}
	}
}

// Every directive of a file is checked, after one that is wrong too, and
// the ones that are right still apply.
func TestApplyAllReportsEach(t *testing.T) {
	f, err := rule.LoadData("BUILD.bazel", "", []byte(`# gazelle:prefix example.com/x
# gazelle:chobo_clients tigerbeetle-go
# gazelle:chobo_doc html
# gazelle:go-naming-convention import
# gazelle:chobo_client postgres-go tigerbeetle-og
# gazelle:chobo-client tigerbeetle-go
# gazelle:chobo.conformance on
# gazelle:chobo_conformance off
`))
	if err != nil {
		t.Fatal(err)
	}
	cc := defaultConfig()
	errs := cc.applyAll(f.Directives, "")
	want := []string{
		"gazelle:chobo_clients is not a directive of chobo; did you mean # gazelle:chobo_client?",
		`gazelle:chobo_client: unknown client target "tigerbeetle-og"; did you mean tigerbeetle-go?`,
		// Gazelle reads a name up to its first letter that is not one of
		// a word: these are the directive chobo, valued "-client ...".
		"gazelle:chobo-client is not a directive of chobo; did you mean # gazelle:chobo_client?",
		"gazelle:chobo.conformance is not a directive of chobo; did you mean # gazelle:chobo_conformance?",
	}
	if len(errs) != len(want) {
		t.Fatalf("errors %v, want %d", errs, len(want))
	}
	for i, err := range errs {
		if !strings.HasPrefix(err.Error(), want[i]) {
			t.Errorf("error %d: %q, want %q", i, err, want[i])
		}
	}
	if !reflect.DeepEqual(cc.docs, []string{"html"}) || cc.conformance {
		t.Errorf("the right directives were not applied: %+v", *cc)
	}
}

// swapLast swaps the last two letters of a word: a typing slip.
func swapLast(w string) string {
	r := []rune(w)
	r[len(r)-1], r[len(r)-2] = r[len(r)-2], r[len(r)-1]
	return string(r)
}
