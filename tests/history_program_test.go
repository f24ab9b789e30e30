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

// TestHistoryWholeProgram follows the whole program of docs/history.md
// and of its Japanese twin as the targets' programs are followed: the
// page's book, its program and the commands after it in an empty folder,
// on a database of its own (DATABASE_URL), the transcript compared line
// by line.
func TestHistoryWholeProgram(t *testing.T) {
	pages := []struct{ page, readme string }{{"history.md", "README.md"}, {"history.ja.md", "README.ja.md"}}
	walks := map[string][]fence{}
	for _, p := range pages {
		src, err := os.ReadFile(filepath.Join("..", "docs", p.page))
		if err != nil {
			t.Fatal(err)
		}
		fences, err := parseFences(string(src))
		if err != nil {
			t.Fatalf("docs/%s: %v", p.page, err)
		}
		walk := historyWalk(fences)
		if len(walk) == 0 {
			t.Fatalf("docs/%s: no book, program, commands and transcript in that order", p.page)
		}
		walks[p.page] = walk
	}
	if !historySQLReadsEntries(t, walks["history.md"][0]) {
		t.Skip("SKIP: the book's history_statement does not yet give the rows the Go client reads (args, move, out, account, account_args)")
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
			w.dir = t.TempDir()
			commands, transcripts := w.follow(walks[p.page])
			if commands == 0 || transcripts != 1 {
				t.Errorf("%d commands and %d transcripts followed, want some and 1", commands, transcripts)
			}
		})
	}
}

// historyWalk is the book block of a page, its Go program, the commands
// after it and the transcript of its run; nil when the page does not
// hold them in that order.
func historyWalk(fences []fence) []fence {
	var out []fence
	for _, f := range fences {
		switch {
		case len(out) == 0 && f.info == "book card.book",
			len(out) == 1 && f.info == "go main.go",
			len(out) == 2 && f.info == "sh":
			out = append(out, f)
		case len(out) == 3 && f.info == "text" && len(f.body) > 0 && strings.HasPrefix(f.body[0], "$ "):
			return append(out, f)
		}
	}
	return nil
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
