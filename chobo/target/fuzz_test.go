package target

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// validators check what a target wrote, by the language of its files,
// for the languages whose description has no Valid. A target whose
// language has neither fails FuzzBuild: a new language joins by its
// Valid, a new target by being in All.
var validators = map[string]func(data []byte) error{
	"sql": validSQL,
}

// validator is what checks the files of target tg.
func validator(tg Target) func(data []byte) error {
	if c := tg.Client(); c != nil && c.Valid != nil {
		return c.Valid
	}
	return validators[tg.Language]
}

// FuzzBuild feeds arbitrary text to the checker and, when it checks
// clean, to every target of the registry: a build must answer with files
// or diagnostics, never panic or fail, and what it writes must be valid
// in its language (a language's own Valid; SQL read statement by
// statement, every literal, identifier, comment and function body closed
// where it should be, and only the statements chobo writes at the top
// level; fuzz_postgres_test.go loads the SQL of the corpus into a real
// server). Two builds of one book are the same bytes. The seeds are
// every test case and example book, and the corpus under
// testdata/fuzz/FuzzBuild.
func FuzzBuild(f *testing.F) {
	for _, src := range seedBooks(f) {
		f.Add(src)
	}
	for _, tg := range All {
		if validator(tg) == nil {
			f.Fatalf("target %s writes %s, which no validator reads", tg.Name, tg.Language)
		}
	}
	f.Fuzz(buildAll)
}

// seedBooks are the books of every test case and example.
func seedBooks(tb testing.TB) [][]byte {
	var out [][]byte
	for _, glob := range []string{"../../tests/testdata/*/*.book", "../../examples/*/*.book", "../../examples/*/*/*.book"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, src)
		}
	}
	return out
}

// FuzzBuildText puts arbitrary text where a book holds text of its own
// (the book's description, an account's and a transfer's) and an
// arbitrary name where it holds names (a unit, a parameter, a refusal
// reason), in a book that otherwise always checks clean, so that nearly
// every input reaches every generator, as FuzzBuild's rarely do.
func FuzzBuildText(f *testing.F) {
	for _, s := range textSeeds {
		for _, name := range seedNames {
			f.Add(s, name)
		}
	}
	f.Fuzz(func(t *testing.T, text, name string) {
		buildAll(t, textBook(text, name))
	})
}

// textSeeds are the delimiters of the languages a book is written into.
var textSeeds = []string{"*/ /* `x` ${x} {{.X}} %s", `it's "q" \ $$ $fn$ -- ;`, "<!-- </script> ]]> &amp;", "全角　の空白 😀 שקל", ""}

// seedNames are names in scripts that Go's identifiers do not all take:
// Thai and Devanagari letters come with marks (Mn, Mc).
var seedNames = []string{"reason", "理由", "สินค้า", "मूल्य"}

// textBook is the book FuzzBuildText builds: text in every description
// (written as a book string: \ and \" escaped), name in every name.
func textBook(text, name string) []byte {
	quoted := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(text)
	return []byte(fmt.Sprintf(`book fuzz v1
description "%[1]s"
unit u%[2]s
account stock(k%[2]s: string) : u%[2]s
  description "%[1]s"
  at least 0 refused as r%[2]s
account other : u%[2]s outside
transfer put(id: string, k%[2]s: string, n: u%[2]s)
  description "%[1]s"
  key id
  move n from other to stock(k%[2]s)
transfer take(id: string, k%[2]s: string, n: u%[2]s)
  key id
  pending expires after 1 minute
  move n from stock(k%[2]s) to other
`, quoted, name))
}

// TestTextSeedsCheckClean: the seeds of FuzzBuildText reach the
// generators, so what it mutates starts from books that build.
func TestTextSeedsCheckClean(t *testing.T) {
	for _, s := range textSeeds {
		for _, name := range seedNames {
			if res := check.Check("fuzz.book", textBook(s, name)); res.Book == nil {
				t.Errorf("text %q, name %q: %+v", s, name, res.Diags)
			}
		}
	}
}

// buildAll checks src and, when it checks clean, builds it for every
// target and validates what each wrote.
func buildAll(t *testing.T, src []byte) {
	res := check.Check("fuzz.book", src)
	if res.Book == nil {
		return
	}
	for _, tg := range All {
		files, ds, err := tg.Build(res.Book, gen.NewSource("fuzz.book", src), gen.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tg.Name, err)
		}
		if len(ds) > 0 {
			if ds.Errors() == 0 {
				t.Fatalf("%s: diagnostics without an error, and no files: %+v", tg.Name, ds)
			}
			continue
		}
		if len(files) == 0 {
			t.Fatalf("%s: no files and no diagnostics", tg.Name)
		}
		again, _, _ := tg.Build(res.Book, gen.NewSource("fuzz.book", src), gen.Options{})
		for i, file := range files {
			if err := validator(tg)(file.Data); err != nil {
				t.Fatalf("%s: %s: %v", tg.Name, file.Path, err)
			}
			if i >= len(again) || !bytes.Equal(file.Data, again[i].Data) {
				t.Fatalf("%s: %s differs from one build to the next", tg.Name, file.Path)
			}
		}
	}
}
