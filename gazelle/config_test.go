package gazelle

import (
	"reflect"
	"testing"

	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/rule"
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
