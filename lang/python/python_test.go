package python

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	pyruntime "github.com/chobo-lang/chobo/lang/python/runtime"
)

const shop = `book shop v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out
account world : pcs outside
transfer receive(id: string, sku: string, qty: pcs)
  key id
  move qty from world to stock(sku)
transfer reserve(id: string, sku: string, qty: pcs)
  key id
  pending expires after 1 minute
  move qty from stock(sku) to world
`

func shopModel(t *testing.T, backend string) *model.Model {
	t.Helper()
	res := check.Check("shop.book", []byte(shop))
	if res.Book == nil {
		t.Fatalf("%v", res.Diags)
	}
	m, err := model.New(res.Book, backend)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRuntimeMarker: every runtime module a client carries starts on the
// line after RuntimeMarker, and nothing written from the book comes after
// the first one, so that a reader of the book's part may stop there.
func TestRuntimeMarker(t *testing.T) {
	for _, backend := range []string{model.Postgres, model.TigerBeetle} {
		src, err := Generate(shopModel(t, backend), []string{"header"})
		if err != nil {
			t.Fatal(err)
		}
		files, err := pyruntime.Files(backend)
		if err != nil {
			t.Fatal(err)
		}
		text := string(src)
		if got := strings.Count(text, "\n"+RuntimeMarker+" "); got != len(files) {
			t.Errorf("%s: the marker starts %d lines, want one for each of the %d runtime modules", backend, got, len(files))
		}
		first := strings.Index(text, "\n"+RuntimeMarker)
		if first < 0 {
			continue
		}
		book, rest := text[:first], text[first:]
		for _, name := range []string{"class Receive", "class AsyncReserve", "def " + backend, `"shop`} {
			if !strings.Contains(book, name) || strings.Contains(rest, name) {
				t.Errorf("%s: %q is not only above the first marker", backend, name)
			}
		}
	}
}

// TestGenerateIsStable: two clients of one model are the same bytes,
// whatever order the maps behind the imports are read in.
func TestGenerateIsStable(t *testing.T) {
	for _, backend := range []string{model.Postgres, model.TigerBeetle} {
		a, err := Generate(shopModel(t, backend), []string{"h"})
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			if b, _ := Generate(shopModel(t, backend), []string{"h"}); string(a) != string(b) {
				t.Fatalf("%s: two clients of one book differ", backend)
			}
		}
	}
}

var importStatement = regexp.MustCompile(`(?m)^(?:import\s|from\s+\S+\s+import\b)`)

// TestRuntimeLosesOnlyItsHead: each module's body keeps no import, no
// __all__ and no future import; the imports gathered at the top name
// each module once, none of chobo's own; and the names the runtime
// declares are found, so that the book's classes avoid them.
func TestRuntimeLosesOnlyItsHead(t *testing.T) {
	for _, backend := range []string{model.Postgres, model.TigerBeetle} {
		p, err := runtimeOf(backend)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range p.files {
			if importStatement.MatchString(f.Body) || strings.Contains(f.Body, "__all__") || strings.Contains(f.Body, "__future__") {
				t.Errorf("%s: %s keeps part of its head", backend, f.Name)
			}
			if len(f.Doc) == 0 || !strings.HasPrefix(f.Doc[0], "# ") {
				t.Errorf("%s: %s lost its docstring: %q", backend, f.Name, f.Doc)
			}
		}
		lines := p.imports.lines()
		seen := map[string]bool{}
		for _, l := range lines {
			f := strings.Fields(l)
			if seen[f[1]] || strings.HasPrefix(f[1], ".") || f[1] == "__future__" || f[1] == "chobo" {
				t.Errorf("%s: the import %q", backend, l)
			}
			seen[f[1]] = true
		}
		want := []string{"Result", "Balance", "ChoboError", "check_text", "check_amount", "HoldState", "Literal", "TypeAlias"}
		if backend == model.Postgres {
			want = append(want, "PostgresBook", "AsyncPostgresBook", "backoff", "Any")
		} else {
			want = append(want, "TigerBeetleBook", "AsyncTigerBeetleBook", "Def", "Transfer", "plan", "tb", "cache", "hashlib", "_fixed_ids", "Sequence")
		}
		for _, n := range want {
			if !slices.Contains(p.names, n) {
				t.Errorf("%s: the runtime's names lack %s: %v", backend, n, p.names)
			}
		}
		// What the book's part declares itself must not be the
		// runtime's: the later definition would replace the other.
		for _, n := range append([]string{BookClass, AsyncBookClass, BalancesClass, AsyncBalancesClass, ReasonType,
			PostgresConstructor, PostgresAsyncConstructor, TigerBeetleConstructor, TigerBeetleAsyncConstructor}, functions...) {
			if slices.Contains(p.names, n) {
				t.Errorf("%s: the runtime declares %s, which the book's part declares too", backend, n)
			}
		}
	}
	if _, err := runtimeOf("none"); err == nil {
		t.Error("a runtime for no backend")
	}
}

func TestReadModule(t *testing.T) {
	src := `"""One line,
and another:

    indented.
"""

from __future__ import annotations

import hashlib
import tigerbeetle as tb
from collections.abc import Sequence
from typing import (
    Literal,  # a comment
    TypeAlias,
)

from .chobo import Balance, Result
from .ids import (
    account_id,
)

__all__ = [
    "A", "B",
    "C",
]

A = 1
"""A's doc."""


def b(x: int) -> int:
    return x


class C:
    pass
`
	var im imports
	f, err := readModule("m.py", src, &im)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"# One line,", "# and another:", "#", "#     indented."}; !slices.Equal(f.Doc, want) {
		t.Errorf("doc %q, want %q", f.Doc, want)
	}
	if !strings.HasPrefix(f.Body, "A = 1\n") || !strings.HasSuffix(f.Body, "    pass") {
		t.Errorf("body %q", f.Body)
	}
	want := []string{"import hashlib", "import tigerbeetle as tb", "from collections.abc import Sequence", "from typing import Literal, TypeAlias"}
	if got := im.lines(); !slices.Equal(got, want) {
		t.Errorf("imports %q, want %q", got, want)
	}
	if got, want := im.bound(), []string{"Literal", "Sequence", "TypeAlias", "hashlib", "tb"}; !slices.Equal(got, want) {
		t.Errorf("bound %q, want %q", got, want)
	}
	if got, want := declared(f.Body), []string{"A", "b", "C"}; !slices.Equal(got, want) {
		t.Errorf("declared %q, want %q", got, want)
	}
	for what, bad := range map[string]string{
		"an import below the head": "\"\"\"d\"\"\"\nx = 1\nimport os\n",
		"an open docstring":        "\"\"\"d\n",
		"an open import":           "from a import (\n  b,\n",
	} {
		var im imports
		if _, err := readModule("m.py", bad, &im); err == nil {
			t.Errorf("%s: read", what)
		}
	}
}
