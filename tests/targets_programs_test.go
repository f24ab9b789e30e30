package tests

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
)

// The whole programs of docs/targets.md and docs/targets.ja.md are held
// the way the README's walk is: each is a named block (`go main.go`),
// followed by the `sh` block of commands that build its client and ready
// its folder and by a `text` transcript of its runs. The test follows each
// in an empty folder that holds the README's book, with chobo and
// CHOBO_SRC from the README's "Install", on a PostgreSQL server and a
// TigerBeetle replica of its own (DATABASE_URL, TB_ADDRESS).

// docProgram is one whole program of a page: its block and the blocks up
// to its transcript.
type docProgram struct {
	name   string
	fences []fence
}

// docPrograms is every whole program of a page under docs/.
func docPrograms(t *testing.T, file string) []docProgram {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "docs", file))
	if err != nil {
		t.Fatal(err)
	}
	fences, err := parseFences(string(src))
	if err != nil {
		t.Fatalf("docs/%s: %v", file, err)
	}
	var out []docProgram
	for i := 0; i < len(fences); i++ {
		name := namedFile(fences[i].info)
		if name == "" {
			continue
		}
		p := docProgram{name: name, fences: []fence{fences[i]}}
		done := false
		for i++; i < len(fences) && !done; i++ {
			f := fences[i]
			if namedFile(f.info) != "" {
				break
			}
			p.fences = append(p.fences, f)
			done = f.info == "text" && len(f.body) > 0 && strings.HasPrefix(f.body[0], "$ ")
		}
		i--
		if !done {
			t.Errorf("docs/%s:%d: the program %s is not followed by a transcript of its run", file, fences[i].line, name)
			continue
		}
		out = append(out, p)
	}
	return out
}

// onTigerBeetle says whether a program's commands build a client for
// TigerBeetle.
func (p docProgram) onTigerBeetle() bool {
	for _, f := range p.fences {
		if f.info == "sh" && strings.Contains(strings.Join(f.body, "\n"), "--target tigerbeetle-") {
			return true
		}
	}
	return false
}

// readmeBookFence is the book a README's walk starts with.
func readmeBookFence(t *testing.T, readme, heading string) fence {
	t.Helper()
	for _, f := range walkSection(t, readme, heading) {
		if f.info == "book "+namedFile(f.info) {
			return f
		}
	}
	t.Fatalf("%s shows no book before %q", readme, heading)
	return fence{}
}

func TestTargetsWholePrograms(t *testing.T) {
	pages := []struct{ page, readme, heading string }{
		{"targets.md", "README.md", "## From a book to a call"},
		{"targets.ja.md", "README.ja.md", "## 帳簿から呼び出しまで"},
	}
	// What every page must show whole: each language on TigerBeetle, and
	// the async book on both backends.
	want := []string{"main.go", "shop_async.py", "shop_tb.py", "shop_tb.ts", "shop_tb_async.py"}
	programs := map[string][]docProgram{}
	for _, p := range pages {
		programs[p.page] = docPrograms(t, p.page)
		var names []string
		for _, prog := range programs[p.page] {
			names = append(names, prog.name)
		}
		sort.Strings(names)
		if strings.Join(names, " ") != strings.Join(want, " ") {
			t.Errorf("docs/%s shows the whole programs %v, not %v", p.page, names, want)
		}
	}
	if t.Failed() {
		return
	}

	pg := pgtest.Start(t)
	tb, haveTB := tbtest.Optional(t)
	if !haveTB {
		fmt.Println(tbtest.SkipMessage + " (for the whole programs on TigerBeetle of docs/targets.md and docs/targets.ja.md)")
	}
	for _, p := range pages {
		t.Run(p.page, func(t *testing.T) {
			w := newWalker(t, p.readme)
			w.file = "docs/" + p.page
			w.setenv("DATABASE_URL", fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable",
				pgtest.User, pgtest.DefaultDB, url.QueryEscape(pg.SocketDir), pg.Port))
			if psql := pg.Psql(); psql != "" {
				w.setenv("PATH", filepath.Dir(psql)+string(os.PathListSeparator)+w.getenv("PATH"))
			}
			if haveTB {
				w.setenv("TB_ADDRESS", tb.Address)
			}
			book := readmeBookFence(t, p.readme, p.heading)
			for _, prog := range programs[p.page] {
				t.Run(prog.name, func(t *testing.T) {
					if prog.onTigerBeetle() && !haveTB {
						t.Skip(tbtest.SkipMessage)
					}
					w.t, w.dir = t, t.TempDir()
					commands, transcripts := w.follow(append([]fence{book}, prog.fences...))
					w.checkProgram(prog.name)
					t.Logf("docs/%s, %s: %d commands and %d transcripts followed", p.page, prog.name, commands, transcripts)
				})
			}
		})
	}
}
