package python

// A client is one file: the runtime's modules are written into it after
// the book's part, each as its source has it but for what only makes
// sense in a package (the future import, the imports of one module by
// another, __all__), and their imports are gathered at the top of the
// file with the book part's own. The runtime's modules keep a shape that
// makes this a matter of lines rather than of parsing Python: a
// docstring, the imports, then the body, with no import below.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/chobo-lang/chobo/chobo/client/model"
	pyruntime "github.com/chobo-lang/chobo/lang/python/runtime"
)

// RuntimeMarker starts the line above each of the runtime's modules in a
// client. What comes after it is chobo's own text, checked by chobo's
// tests, so a reader of what a book made of a client may stop there.
const RuntimeMarker = "# ---- chobo's Python runtime:"

// ownImports are what the book's part of a client imports for itself:
// the types of its signatures, and on TigerBeetle the official client's
// module and the cache that makes the book's definition once.
var ownImports = map[string][]string{
	model.Postgres:    {"from datetime import datetime", "from functools import cache", "from typing import Any, Literal, Never, TypeAlias"},
	model.TigerBeetle: {"import tigerbeetle as tb", "from datetime import datetime", "from functools import cache", "from typing import Literal, Never, TypeAlias"},
}

// runtimeFile is one module of the runtime as a client carries it.
type runtimeFile struct {
	Name string
	Doc  []string // its docstring, as the lines of a comment
	Body string
}

// runtimeParts is the runtime as a client of one backend carries it.
type runtimeParts struct {
	files   []runtimeFile
	imports imports
	names   []string // the module-level names it declares or imports
	err     error
}

// runtimes holds the runtime's parts by backend, worked out once: the
// sources are compiled in, and every client of a backend carries the same.
var runtimes = sync.OnceValue(func() map[string]runtimeParts {
	out := map[string]runtimeParts{}
	for _, backend := range []string{model.Postgres, model.TigerBeetle} {
		out[backend] = readRuntime(backend)
	}
	return out
})

func runtimeOf(backend string) (runtimeParts, error) {
	p, ok := runtimes()[backend]
	if !ok {
		return runtimeParts{}, fmt.Errorf("no Python runtime for the backend %q", backend)
	}
	return p, p.err
}

func readRuntime(backend string) runtimeParts {
	var p runtimeParts
	names, err := pyruntime.Files(backend)
	if err != nil {
		p.err = err
		return p
	}
	for _, name := range names {
		src, err := pyruntime.Source(name)
		if err != nil {
			p.err = fmt.Errorf("the Python runtime has no %s: %v", name, err)
			return p
		}
		f, err := readModule(name, string(src), &p.imports)
		if err != nil {
			p.err = fmt.Errorf("the Python runtime's %s: %v", name, err)
			return p
		}
		p.files = append(p.files, f)
		p.names = append(p.names, declared(f.Body)...)
	}
	for _, stmt := range ownImports[backend] {
		if err := p.imports.add(stmt); err != nil {
			p.err = err
			return p
		}
	}
	p.names = append(p.names, p.imports.bound()...)
	slices.Sort(p.names)
	p.names = slices.Compact(p.names)
	return p
}

var (
	// declaration matches what a line at the left margin binds at module
	// level: a def or class, or an assignment, annotated or not, of one
	// name or several. Lines of a string or a bracket that happen to
	// start at the margin would only add names to avoid.
	declaration = regexp.MustCompile(`(?m)^(?:(?:async\s+def|def|class)\s+([A-Za-z_][A-Za-z0-9_]*)|([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*(?::|=[^=]))`)
	// importAtMargin is an import statement; the modules write none below
	// their heads.
	importAtMargin = regexp.MustCompile(`(?m)^(?:import\s|from\s+\S+\s+import\b)`)
)

// declared lists the module-level names a body binds.
func declared(body string) []string {
	var out []string
	for _, m := range declaration.FindAllStringSubmatch(body, -1) {
		if m[1] != "" {
			out = append(out, m[1])
			continue
		}
		for _, n := range strings.Split(m[2], ",") {
			out = append(out, strings.TrimSpace(n))
		}
	}
	return out
}

// readModule splits one module of the runtime into its docstring, its
// imports (added to im; those of its sibling modules and of the future
// go) and its body, dropping __all__.
func readModule(name, src string, im *imports) (runtimeFile, error) {
	f := runtimeFile{Name: name}
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i < len(lines) && strings.HasPrefix(lines[i], `"""`) {
		doc := strings.TrimPrefix(lines[i], `"""`)
		for !strings.Contains(doc, `"""`) {
			i++
			if i == len(lines) {
				return f, fmt.Errorf("the docstring never ends")
			}
			doc += "\n" + lines[i]
		}
		doc, rest, _ := strings.Cut(doc, `"""`)
		if strings.TrimSpace(rest) != "" {
			return f, fmt.Errorf("code after the docstring on its last line")
		}
		for _, l := range strings.Split(strings.TrimSpace(doc), "\n") {
			f.Doc = append(f.Doc, strings.TrimRight("# "+l, " "))
		}
		i++
	}
	// The head: imports, __all__ and blank lines, up to the first line
	// that is none of those.
	for i < len(lines) {
		l := lines[i]
		switch {
		case strings.TrimSpace(l) == "":
			i++
		case strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "from "):
			stmt := stripComment(l)
			for strings.Count(stmt, "(") > strings.Count(stmt, ")") {
				i++
				if i == len(lines) {
					return f, fmt.Errorf("an import that never closes its parenthesis")
				}
				stmt += " " + stripComment(lines[i])
			}
			i++
			if err := im.add(stmt); err != nil {
				return f, err
			}
		case strings.HasPrefix(l, "__all__"):
			depth := strings.Count(l, "[") - strings.Count(l, "]")
			for i++; depth > 0; i++ {
				if i == len(lines) {
					return f, fmt.Errorf("__all__ never closes")
				}
				depth += strings.Count(lines[i], "[") - strings.Count(lines[i], "]")
			}
		default:
			f.Body = strings.Trim(strings.Join(lines[i:], "\n"), "\n")
			if loc := importAtMargin.FindStringIndex(f.Body); loc != nil {
				return f, fmt.Errorf("an import below the module's head: %q", strings.SplitN(f.Body[loc[0]:], "\n", 2)[0])
			}
			return f, nil
		}
	}
	return f, nil
}

func stripComment(l string) string {
	if i := strings.Index(l, "#"); i >= 0 {
		l = l[:i]
	}
	return strings.TrimSpace(l)
}

// imports are the import statements of a client, each name once.
type imports struct {
	plain map[string]bool            // "x" or "x as y", of import statements
	from  map[string]map[string]bool // by module: "a" or "a as b"
}

// add reads one statement. The future import and imports of the
// runtime's own modules go: the file is one module, and the future import
// is written first of all by the template.
func (im *imports) add(stmt string) error {
	if im.plain == nil {
		im.plain, im.from = map[string]bool{}, map[string]map[string]bool{}
	}
	items := func(list string) []string {
		var out []string
		for _, it := range strings.Split(strings.Trim(strings.TrimSpace(list), "()"), ",") {
			if it = strings.Join(strings.Fields(it), " "); it != "" {
				out = append(out, it)
			}
		}
		return out
	}
	if rest, ok := strings.CutPrefix(stmt, "import "); ok {
		for _, it := range items(rest) {
			im.plain[it] = true
		}
		return nil
	}
	rest, _ := strings.CutPrefix(stmt, "from ")
	mod, names, ok := strings.Cut(rest, " import ")
	mod = strings.TrimSpace(mod)
	if !ok || mod == "" {
		return fmt.Errorf("an import chobo cannot read: %q", stmt)
	}
	if strings.HasPrefix(mod, ".") || mod == "__future__" {
		return nil
	}
	if im.from[mod] == nil {
		im.from[mod] = map[string]bool{}
	}
	for _, it := range items(names) {
		im.from[mod][it] = true
	}
	return nil
}

// lines writes the statements in one order whatever order they came in:
// the import statements, then the from-imports, each sorted by module,
// with one statement per module.
func (im imports) lines() []string {
	var out []string
	for _, it := range sortedKeys(im.plain) {
		out = append(out, "import "+it)
	}
	mods := make([]string, 0, len(im.from))
	for m := range im.from {
		mods = append(mods, m)
	}
	slices.Sort(mods)
	for _, m := range mods {
		out = append(out, "from "+m+" import "+strings.Join(sortedKeys(im.from[m]), ", "))
	}
	return out
}

// modules lists the top-level modules the statements import, and the
// future import the template writes: a client named as one of them
// would be imported in its place.
func (im imports) modules() []string {
	out := []string{"__future__"}
	top := func(mod string) string {
		mod, _, _ = strings.Cut(mod, " as ")
		first, _, _ := strings.Cut(strings.TrimSpace(mod), ".")
		return first
	}
	for it := range im.plain {
		out = append(out, top(it))
	}
	for mod := range im.from {
		out = append(out, top(mod))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// bound lists the names the statements bind in the module.
func (im imports) bound() []string {
	var out []string
	name := func(it string) string {
		if _, as, ok := strings.Cut(it, " as "); ok {
			return strings.TrimSpace(as)
		}
		first, _, _ := strings.Cut(it, ".")
		return first
	}
	for it := range im.plain {
		out = append(out, name(it))
	}
	for _, names := range im.from {
		for it := range names {
			out = append(out, name(it))
		}
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
