package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/codes"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/syntax"
	"github.com/chobo-lang/chobo/tests/golden"
)

// TestCodesPage keeps docs/codes.md (and its Japanese twin) equal to what
// `chobo explain --all --format markdown` prints.
func TestCodesPage(t *testing.T) {
	for _, v := range []struct{ lang, file string }{{"en", "codes.md"}, {"ja", "codes.ja.md"}} {
		out, errOut, code := run(".", nil, "explain", "--all", "--format", "markdown", "--lang", v.lang)
		if code != 0 {
			t.Fatalf("explain: exit %d: %s", code, errOut)
		}
		golden.Check(t, filepath.Join("..", "docs", v.file), []byte(out))
	}
}

// TestCodesLinkConcepts holds every link from a code to the concepts
// page to a heading the page has, in both languages.
func TestCodesLinkConcepts(t *testing.T) {
	n := 0
	for _, lang := range []diag.Lang{diag.English, diag.Japanese} {
		page, err := os.ReadFile(filepath.Join("..", codes.ConceptPage(lang)))
		if err != nil {
			t.Fatal(err)
		}
		anchors := map[string]bool{}
		fenced := false // a `#` line inside a code block is a comment, not a heading
		for _, line := range strings.Split(string(page), "\n") {
			if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
				fenced = !fenced
			}
			if h := strings.TrimLeft(line, "#"); !fenced && h != line && strings.HasPrefix(h, " ") {
				anchors[codes.Anchor(strings.TrimSpace(h))] = true
			}
		}
		for _, c := range codes.All {
			h := c.Concept.In(lang)
			if h == "" {
				continue
			}
			n++
			if !anchors[codes.Anchor(h)] {
				t.Errorf("%s links %s#%s, a heading the page does not have", c.Code, codes.ConceptPage(lang), codes.Anchor(h))
			}
		}
	}
	if n == 0 {
		t.Fatal("no code links the concepts page")
	}
}

// TestHelpGoldens keeps the help of every command in both languages.
func TestHelpGoldens(t *testing.T) {
	cases := [][]string{{"--help"}, {"check", "--help"}, {"run", "--help"}, {"scenarios", "--help"}, {"api", "--help"}, {"build", "--help"}, {"doc", "--help"}, {"explain", "--help"}}
	for _, args := range cases {
		name := strings.ReplaceAll(strings.Join(args, "_"), "--", "")
		for _, lang := range []string{"en", "ja"} {
			out, _, code := run(".", nil, append(args, "--lang", lang)...)
			if code != 0 {
				t.Fatalf("%v: exit %d", args, code)
			}
			golden.Check(t, filepath.Join("cli", name+"."+lang+".txt"), []byte(out))
		}
	}
}

const keywordsBegin = "<!-- keywords: begin -->"
const keywordsEnd = "<!-- keywords: end -->"

// placeJa is where a keyword is one, as the Japanese reference says it.
var placeJa = map[syntax.Place]string{
	syntax.LineStart: "行の頭",
	syntax.Modifier:  "修飾",
	syntax.TypeWord:  "型",
	syntax.TimeWord:  "時間の単位",
}

// keywordTable renders syntax.Keywords as the Markdown table the language
// reference of lang shows.
func keywordTable(t *testing.T, lang string) string {
	var b strings.Builder
	if lang == "ja" {
		b.WriteString("| キーワード | キーワードになる場所 |\n|---|---|\n")
	} else {
		b.WriteString("| keyword | where it is a keyword |\n|---|---|\n")
	}
	for _, k := range syntax.Keywords {
		place := k.Place.String()
		if lang == "ja" {
			if place = placeJa[k.Place]; place == "" {
				t.Fatalf("no Japanese word for the place %q of %q", k.Place, k.Phrase)
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", k.Phrase, place)
	}
	return b.String()
}

// TestKeywordTableInDocs keeps the keyword tables of docs/language.md and
// docs/language.ja.md equal to the one the parser uses.
func TestKeywordTableInDocs(t *testing.T) {
	for _, v := range []struct{ lang, file string }{{"en", "language.md"}, {"ja", "language.ja.md"}} {
		path := filepath.Join("..", "docs", v.file)
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(doc)
		i, j := strings.Index(s, keywordsBegin), strings.Index(s, keywordsEnd)
		if i < 0 || j < i {
			t.Fatalf("%s lacks the keyword markers", path)
		}
		want := s[:i+len(keywordsBegin)] + "\n" + keywordTable(t, v.lang) + s[j:]
		golden.Check(t, path, []byte(want))
	}
}

// TestExamplesAreClean checks every example book: no diagnostic at all,
// so the first line is the summary.
func TestExamplesAreClean(t *testing.T) {
	books, _ := filepath.Glob(filepath.Join("..", "examples", "*", "*.book"))
	if len(books) == 0 {
		t.Fatal("no example books")
	}
	for _, b := range books {
		out, errOut, code := run(".", nil, "check", b)
		first, _, _ := strings.Cut(out, "\n")
		if code != 0 || !strings.HasSuffix(first, ": ok") {
			t.Errorf("%s is not clean (exit %d):\n%s%s", b, code, out, errOut)
		}
	}
}

// TestReadmeBookIsClean checks the book the README shows first: a new
// user copies it, so chobo must not call it useless.
func TestReadmeBookIsClean(t *testing.T) {
	path := filepath.Join(t.TempDir(), "readme.book")
	if err := os.WriteFile(path, []byte(readmeBook(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(".", nil, "check", path)
	first, _, _ := strings.Cut(out, "\n")
	if code != 0 || !strings.HasSuffix(first, ": ok") {
		t.Errorf("the README's book is not clean (exit %d):\n%s%s", code, out, errOut)
	}
}

// readmeFences is every fenced block of the README, in order.
func readmeFences(t *testing.T) []fence {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	fences, err := parseFences(string(doc))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	return fences
}

// readmeBook is the book the README shows first: the first fenced block
// whose text starts with a `book` line.
func readmeBook(t *testing.T) string {
	t.Helper()
	for _, f := range readmeFences(t) {
		if len(f.body) > 0 && strings.HasPrefix(f.body[0], "book ") {
			return strings.Join(f.body, "\n") + "\n"
		}
	}
	t.Fatal("README.md shows no book")
	return ""
}
