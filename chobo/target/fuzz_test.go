package target

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// validators check what a target wrote, by the language of its files. A
// target of a language that has none here fails FuzzBuild: a new
// language joins by adding its validator, a new target by being in All.
var validators = map[string]func(data []byte) error{
	"go":         validGo,
	"sql":        validSQL,
	"typescript": validTS,
}

// FuzzBuild feeds arbitrary text to the checker and, when it checks
// clean, to every target of the registry: a build must answer with files
// or diagnostics, never panic or fail, and what it writes must be valid
// in its language (Go parsed with go/parser; SQL read statement by
// statement, every literal, identifier, comment and function body closed
// where it should be, and only the statements chobo writes at the top
// level; tests/fuzz_sql_test.go loads the SQL of the corpus into a real
// server). Two builds of one book are the same bytes. The seeds are
// every test case and example book, and the corpus under
// testdata/fuzz/FuzzBuild.
func FuzzBuild(f *testing.F) {
	for _, src := range seedBooks(f) {
		f.Add(src)
	}
	for _, tg := range All {
		if validators[tg.Language] == nil {
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
			if err := validators[tg.Language](file.Data); err != nil {
				t.Fatalf("%s: %s: %v", tg.Name, file.Path, err)
			}
			if i >= len(again) || !bytes.Equal(file.Data, again[i].Data) {
				t.Fatalf("%s: %s differs from one build to the next", tg.Name, file.Path)
			}
		}
	}
}

func validGo(data []byte) error {
	_, err := parser.ParseFile(token.NewFileSet(), "book.go", data, parser.AllErrors)
	return err
}

// sqlStatements are the first words of the statements chobo writes at
// the top level of a file, between its begin and its commit.
var sqlStatements = map[string]bool{"do": true, "create": true, "revoke": true}

// validSQL reads the SQL as PostgreSQL's lexer does, as far as chobo's
// SQL needs: it must be UTF-8 without NUL; every string, quoted
// identifier, comment and dollar-quoted body must close; and every
// statement at the top level must start with a word chobo writes there,
// so that no text of the book can have ended a literal or a body early
// and started a statement of its own. Function bodies are read the same
// way, as PL/pgSQL and SQL functions are.
func validSQL(data []byte) error {
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return fmt.Errorf("not UTF-8 text without NUL")
	}
	stmts, err := splitSQL(string(data))
	if err != nil {
		return err
	}
	// The file is one transaction: it opens it and sets its path first,
	// and commits last; nothing else may begin, set or commit.
	frame := []string{"begin", "set local search_path = pg_catalog, pg_temp"}
	if len(stmts) < len(frame)+1 || strings.TrimSpace(stmts[len(stmts)-1].text) != "commit" {
		return fmt.Errorf("the SQL does not end with its commit")
	}
	for i, want := range frame {
		if got := strings.TrimSpace(stmts[i].text); got != want {
			return fmt.Errorf("statement %d is %.80q, want %q", i+1, got, want)
		}
	}
	for _, st := range stmts[len(frame) : len(stmts)-1] {
		word := strings.ToLower(firstWord(st.text))
		if !sqlStatements[word] {
			return fmt.Errorf("a statement at the top level starts with %q: %.80q", word, st.text)
		}
		for _, body := range st.bodies {
			if _, err := splitSQL(body); err != nil {
				return fmt.Errorf("in a body: %v", err)
			}
		}
	}
	return nil
}

type sqlStatement struct {
	text   string   // without comments
	bodies []string // the dollar-quoted strings in it
}

// splitSQL splits SQL text into statements at the semicolons outside
// literals, identifiers, comments and dollar quotes.
func splitSQL(s string) ([]sqlStatement, error) {
	var out []sqlStatement
	var cur sqlStatement
	var text strings.Builder
	flush := func() {
		cur.text = strings.TrimSpace(text.String())
		if cur.text != "" {
			out = append(out, cur)
		}
		cur, text = sqlStatement{}, strings.Builder{}
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case strings.HasPrefix(s[i:], "--"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s) - i
			}
			i += end
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("a comment is not closed")
			}
			i += 2 + end + 2
		case c == '\'' || c == '"':
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], c)
				if k < 0 {
					return nil, fmt.Errorf("%c opened at byte %d is not closed", c, i)
				}
				j += k + 1
				if j < len(s) && s[j] == c {
					j++ // doubled: part of the text
					continue
				}
				break
			}
			text.WriteString(s[i:j])
			i = j
		case c == '$':
			tag := dollarTag(s[i:])
			if tag == "" {
				text.WriteByte(c)
				i++
				continue
			}
			end := strings.Index(s[i+len(tag):], tag)
			if end < 0 {
				return nil, fmt.Errorf("the body opened by %s is not closed", tag)
			}
			cur.bodies = append(cur.bodies, s[i+len(tag):i+len(tag)+end])
			text.WriteString(" $body$ ")
			i += len(tag) + end + len(tag)
		case c == ';':
			flush()
			i++
		default:
			text.WriteByte(c)
			i++
		}
	}
	flush()
	return out, nil
}

// dollarTag returns the dollar-quote tag at the start of s ($$, $fn$),
// or "" when s does not start with one ($1 is a parameter).
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1]
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 1 && c >= '0' && c <= '9':
		default:
			return ""
		}
	}
	return ""
}

func firstWord(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " \n\t("); i >= 0 {
		return s[:i]
	}
	return s
}

func TestValidSQL(t *testing.T) {
	for _, c := range []struct {
		sql string
		ok  bool
	}{
		{"create table x (a text); do $$ begin perform 1; end $$;", true},
		{"create function f() returns text as $fn$ select 'a;b'; $fn$;", true},
		{"-- a comment; drop table x\ncreate table x (a text);", true},
		{"create table x (a text default 'it''s');", true},
		{"create table x (a text default 'open);", false},
		{"create function f() returns text as $fn$ select 1;", false},
		{"create table x (a text default 'x'); drop table x;", false},
		{"create function f() returns text as $fn$ select 'x$fn$; drop table y; --'; $fn$;", false},
		{"create function f() returns text as $fn$ select 'x; $fn$;", false},
		{"create table \"a\"\"b\" (c text);", true},
		{"create table x (a text);\x00", false},
		// the frame of one transaction, and nothing else begins or commits
		{"begin; create table x (a text); commit;", false},
		{"begin; set local search_path = public; create table x (a text); commit;", false},
		{"begin; set local search_path = pg_catalog, pg_temp; create table x (a text);", false},
		{"begin; set local search_path = pg_catalog, pg_temp; create table x (a text); commit; create table y (a text); commit;", false},
	} {
		sql := c.sql
		if !strings.HasPrefix(sql, "begin") {
			sql = "begin; set local search_path = pg_catalog, pg_temp;\n" + sql + "\ncommit;\n"
		}
		if err := validSQL([]byte(sql)); (err == nil) != c.ok {
			t.Errorf("validSQL(%q) = %v, want ok %v", c.sql, err, c.ok)
		}
	}
}
