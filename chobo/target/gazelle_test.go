package target

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	gazelleregistry "github.com/chobo-lang/chobo/gazelle/registry"
)

// gazelleClient is one entry of clientTargets in gazelle/kinds.go.
type gazelleClient struct {
	short, language string
	// imports says the client's rule carries its import (ImportAttr).
	imports bool
}

// readGazelleKinds reads Gazelle's table of client targets from
// gazelle/kinds.go. Gazelle may not import the
// compiler, nor the compiler Gazelle, so the test reads the source: the
// table is a map literal of string literals, and any other shape fails
// here rather than reading nothing.
func readGazelleKinds(t *testing.T) map[string]gazelleClient {
	t.Helper()
	path := filepath.Join("..", "..", "gazelle", "kinds.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	unquote := func(e ast.Expr, what string) string {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			t.Fatalf("%s: %s is not a string literal", path, what)
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatalf("%s: %s: %v", path, what, err)
		}
		return s
	}
	var table *ast.CompositeLit
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range g.Specs {
			v, ok := spec.(*ast.ValueSpec)
			if !ok || len(v.Names) != 1 || len(v.Values) != 1 {
				continue
			}
			if v.Names[0].Name == "clientTargets" {
				if table, ok = v.Values[0].(*ast.CompositeLit); !ok {
					t.Fatalf("%s: clientTargets is not a map literal", path)
				}
			}
		}
	}
	if table == nil {
		t.Fatalf("%s: found no clientTargets table", path)
	}
	out := map[string]gazelleClient{}
	for _, e := range table.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			t.Fatalf("%s: an entry of clientTargets is not key: value", path)
		}
		name := unquote(kv.Key, "a key of clientTargets")
		fields, ok := kv.Value.(*ast.CompositeLit)
		if !ok {
			t.Fatalf("%s: clientTargets[%q] is not a literal", path, name)
		}
		var gc gazelleClient
		for _, fe := range fields.Elts {
			fkv, ok := fe.(*ast.KeyValueExpr)
			if !ok {
				t.Fatalf("%s: clientTargets[%q] has a field without its name", path, name)
			}
			id, ok := fkv.Key.(*ast.Ident)
			if !ok {
				t.Fatalf("%s: clientTargets[%q] has a field without its name", path, name)
			}
			value := unquote(fkv.Value, name+"."+id.Name)
			switch id.Name {
			case "short":
				gc.short = value
			case "language":
				gc.language = value
			default:
				t.Fatalf("%s: clientTargets[%q] has field %s, which this test does not know", path, name, id.Name)
			}
		}
		out[name] = gc
	}
	return out
}

// gazelleTargets are Gazelle's client targets: the table of
// gazelle/kinds.go, and those of each language of lang/, which Gazelle's
// registry of them lists (a package of data that links nothing of
// Gazelle).
func gazelleTargets(t *testing.T) map[string]gazelleClient {
	t.Helper()
	gz := readGazelleKinds(t)
	for _, l := range gazelleregistry.Folders {
		for name, short := range l.Targets {
			if _, ok := gz[name]; ok {
				t.Errorf("%s is both in gazelle/kinds.go and the %s language's gazelle package", name, l.Name)
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
			t.Errorf("Gazelle (gazelle/kinds.go, gazelle/registry) lacks %s", tg.Name)
			continue
		}
		if gc.language != tg.Language {
			t.Errorf("%s: gazelle/kinds.go has language %q; the registry %q", tg.Name, gc.language, tg.Language)
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
			t.Errorf("Gazelle (gazelle/kinds.go, gazelle/registry) has %s, which the registry does not", name)
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
	m := regexp.MustCompile(`(?s)def chobo_client\([^)]*?\btarget = "([^"]+)"`).FindSubmatch(data)
	if m == nil {
		t.Fatal("client.bzl: chobo_client has no default target")
	}
	if string(m[1]) != def {
		t.Errorf("chobo_client defaults to %s; Gazelle's (gazelle/registry's DefaultClient) is %s", m[1], def)
	}
	if tg, ok := Lookup(def); !ok || tg.Language == "sql" {
		t.Errorf("the default client %s is not a client target of the registry", def)
	}
}
