package tests

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// TestHistoryWholeProgram follows the whole programs of docs/history.md
// and of its Japanese twin as the targets' programs are followed: the
// page's book, then each program (one in each language) with the
// commands after it, each in an empty folder, all on one database of
// the page's own (DATABASE_URL), each transcript compared line by line.
// The programs call as tenants of their own, so each prints the same
// statement.
func TestHistoryWholeProgram(t *testing.T) {
	pages := []struct{ page, readme string }{{"history.md", "README.md"}, {"history.ja.md", "README.ja.md"}}
	// The statement in every client language on PostgreSQL, in this order:
	// the Go program loads the SQL the others call.
	want := []string{"main.go", "statement.ts", "statement.py"}
	books := map[string]fence{}
	programs := map[string][]docProgram{}
	for _, p := range pages {
		src, err := os.ReadFile(filepath.Join("..", "docs", p.page))
		if err != nil {
			t.Fatal(err)
		}
		fences, err := parseFences(string(src))
		if err != nil {
			t.Fatalf("docs/%s: %v", p.page, err)
		}
		book, progs := historyPrograms(fences)
		var names []string
		for _, prog := range progs {
			names = append(names, prog.name)
		}
		if book.info == "" || strings.Join(names, " ") != strings.Join(want, " ") {
			t.Errorf("docs/%s shows the book card.book and then the whole programs %v, each with its commands and a transcript; want %v",
				p.page, names, want)
		}
		books[p.page], programs[p.page] = book, progs
	}
	if t.Failed() {
		return
	}
	if !historySQLReadsEntries(t, books["history.md"]) {
		t.Skip("SKIP: the book's history_statement does not yet give the rows the clients read (args, move, out, account, account_args)")
	}
	pg := pgtest.Start(t)
	for _, p := range pages {
		t.Run(p.page, func(t *testing.T) {
			db := "hist_" + strings.TrimSuffix(strings.ReplaceAll(p.page, ".", "_"), "_md")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := pg.OpenConn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			_, err = conn.Exec(ctx, "create database "+db)
			conn.Close(ctx)
			if err != nil {
				t.Fatal(err)
			}
			w := newWalker(t, p.readme)
			w.file = "docs/" + p.page
			w.setenv("DATABASE_URL", fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable",
				pgtest.User, db, url.QueryEscape(pg.SocketDir), pg.Port))
			if psql := pg.Psql(); psql != "" {
				w.setenv("PATH", filepath.Dir(psql)+string(os.PathListSeparator)+w.getenv("PATH"))
			}
			for _, prog := range programs[p.page] {
				ok := t.Run(prog.name, func(t *testing.T) {
					w.t, w.dir = t, t.TempDir()
					commands, transcripts := w.follow(append([]fence{books[p.page]}, prog.fences...))
					if commands == 0 || transcripts != 1 {
						t.Errorf("%d commands and %d transcripts followed, want some and 1", commands, transcripts)
					}
					w.checkProgram(prog.name)
				})
				if !ok {
					// The programs after it call the SQL it loads.
					break
				}
			}
		})
	}
}

// historyPrograms is the book block of a page and the whole programs
// after it, each with the blocks up to the transcript of its run; a
// program without a transcript is left out, so that the caller names it
// missing.
func historyPrograms(fences []fence) (book fence, programs []docProgram) {
	i := 0
	for ; i < len(fences) && fences[i].info != "book card.book"; i++ {
	}
	if i == len(fences) {
		return fence{}, nil
	}
	book = fences[i]
	for i++; i < len(fences); i++ {
		name := namedFile(fences[i].info)
		if name == "" {
			continue
		}
		p := docProgram{name: name, fences: []fence{fences[i]}}
		for i+1 < len(fences) && namedFile(fences[i+1].info) == "" {
			i++
			f := fences[i]
			p.fences = append(p.fences, f)
			if f.info == "text" && len(f.body) > 0 && strings.HasPrefix(f.body[0], "$ ") {
				programs = append(programs, p)
				break
			}
		}
	}
	return book, programs
}

// historySQLReadsEntries says whether the SQL chobo writes for the page's
// book answers a statement with the columns the Go client scans.
func historySQLReadsEntries(t *testing.T, book fence) bool {
	t.Helper()
	src := []byte(strings.Join(book.body, "\n") + "\n")
	res := check.Check("card.book", src)
	if res.Book == nil {
		t.Fatalf("the book of docs/history.md: %v", res.Diags)
	}
	files, ds := postgres.Build(res.Book, gen.NewSource("card.book", src), gen.Options{})
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	sql := string(files[0].Data)
	return declares(sql, "history_statement", "account_args") && declares(sql, "history_open_holds", "from_args")
}
