// Package gazelle is what chobo's Gazelle language knows of Go clients:
// chobo_client makes a go_library with the import path Gazelle writes on
// the rule, Gazelle's Go language resolves a program's import of it, and
// an import of chobo's Go runtime (runtime/go, which stays there since
// the compiler itself imports it) resolves to the runtime's package in
// the chobo module.
package gazelle

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/gazelle/clientlang"
)

// Language is the Go row of chobo's Gazelle language (gazelle/registry).
var Language = clientlang.Language{
	Name: "go",
	Targets: map[string]string{
		"postgres-go":    "go",
		"tigerbeetle-go": "tb",
	},
	ImportLang: "go",
	ImportAttr: "importpath",
	Attrs:      Attrs,
	Builtin:    Builtin,
}

// importSuffixes are what a target's import path adds to the book's name,
// so that a book's clients on two backends are two packages.
var importSuffixes = map[string]string{
	"tigerbeetle-go": "tb",
}

// Attrs gives a Go client its import path, <base>/<book><suffix>, and
// the package name of the book when the path's last element would make
// another.
func Attrs(base, book, target string) map[string]string {
	imp := path.Join(base, book+importSuffixes[target])
	attrs := map[string]string{"importpath": imp}
	if pkg := Package(book); pkg != Package(imp) {
		attrs["package"] = pkg
	}
	return attrs
}

// RuntimePrefix is the import path of chobo's Go runtime, which generated
// clients and the programs using them import.
const RuntimePrefix = "github.com/chobo-lang/chobo/runtime/go"

// officialTigerBeetle is the import path of TigerBeetle's official Go
// client, which a program hands to a tigerbeetle-go book's TigerBeetle.
// It resolves to chobo's build of it, which links the client's native
// library; the build go_deps would make of the module does not.
const (
	officialTigerBeetle      = "github.com/tigerbeetle/tigerbeetle-go"
	officialTigerBeetlePkg   = "runtime/go/chobotb/tbgo"
	officialTigerBeetleLabel = "tigerbeetle-go"
)

// Builtin resolves an import of chobo's Go runtime to the runtime's
// package in the chobo module, and one of TigerBeetle's official client
// to chobo's build of it.
func Builtin(imp string) (pkg, name string, ok bool) {
	if imp == RuntimePrefix || strings.HasPrefix(imp, RuntimePrefix+"/") {
		pkg := "runtime/go" + strings.TrimPrefix(imp, RuntimePrefix)
		return pkg, pkg[strings.LastIndex(pkg, "/")+1:], true
	}
	if imp == officialTigerBeetle {
		return officialTigerBeetlePkg, officialTigerBeetleLabel, true
	}
	return "", "", false
}

// Package is the package name chobo_client writes by default for an
// import path: its last element, lower case, each character that is not a
// letter or digit made "_" (rules/private/client.bzl, _default_package).
func Package(importPath string) string {
	p := strings.TrimRight(importPath, "/")
	last := p[strings.LastIndex(p, "/")+1:]
	var b strings.Builder
	for _, r := range last {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return strings.ToLower(b.String())
}
