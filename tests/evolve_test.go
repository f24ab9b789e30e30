package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/cli"
)

// TestAgainstFormsAgree: for every case compared with a book, the same
// previous version given as its `chobo api` JSON yields the same check
// output, byte for byte, in each language and in JSON.
func TestAgainstFormsAgree(t *testing.T) {
	n := 0
	for _, c := range cases(t) {
		if c.Against != "against.book" {
			continue
		}
		n++
		doc, errOut, code := run(c.Dir, nil, "api", c.Against)
		if code != cli.ExitOK {
			t.Fatalf("%s: chobo api %s: exit %d: %s", c.Name, c.Against, code, errOut)
		}
		file := filepath.Join(t.TempDir(), "deployed.json")
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, extra := range [][]string{nil, {"--lang", "ja"}, {"--format", "json"}} {
			fromBook, _, codeBook := run(c.Dir, nil, c.checkArgs(extra...)...)
			args := append(append([]string{"check"}, extra...), c.Book, "--against", file)
			fromAPI, errOut, codeAPI := run(c.Dir, nil, args...)
			if fromBook != fromAPI || codeBook != codeAPI {
				t.Errorf("%s %v: against.book (exit %d) and its api JSON (exit %d) differ:\n%s\n---\n%s%s", c.Name, extra, codeBook, codeAPI, fromBook, fromAPI, errOut)
			}
		}
	}
	if n == 0 {
		t.Fatal("no case compares with against.book")
	}
}

const deployedBook = `book shop v1
unit pcs
account shelf(sku: string) : pcs
  at least 0 refused as out_of_stock
  at most 100 refused as shelf_full
account world : pcs outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to shelf(sku)
transfer sell(order: string, sku: string, qty: pcs)
  key order, sku
  move qty from shelf(sku) to world
`

// gitRepo makes a git work tree in a temporary folder, or skips the test
// with a line saying why when git is missing.
func gitRepo(t *testing.T) (dir string, git func(args ...string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP: git is not installed: " + err.Error())
	}
	dir = t.TempDir()
	// Neither the user's nor the system's git configuration takes part,
	// and git looks for no repository above the folder.
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	git = func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=chobo", "-c", "user.email=chobo@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	return dir, git
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDiffBase runs `check --diff-base` in a real repository: a book
// committed, then changed in the work tree.
func TestDiffBase(t *testing.T) {
	dir, git := gitRepo(t)
	write(t, filepath.Join(dir, "books", "shop.book"), deployedBook)
	write(t, filepath.Join(dir, "books", "在庫", "棚.book"), deployedBook)
	git("add", ".")
	git("commit", "-q", "-m", "v1")
	// A lower bound across 0 is one change of a bound the accounts
	// already made cannot take (E050).
	crossed := strings.Replace(deployedBook, "at least 0", "at least -5", 1)
	write(t, filepath.Join(dir, "books", "shop.book"), crossed)
	write(t, filepath.Join(dir, "books", "在庫", "棚.book"), strings.Replace(deployedBook, "transfer sell", "transfer sell_2", 1))
	write(t, filepath.Join(dir, "books", "new.book"), crossed)
	write(t, filepath.Join(dir, "old.book"), deployedBook)
	git("commit", "-q", "--allow-empty", "-m", "nothing")

	tests := []struct {
		name   string
		dir    string // where chobo runs, under the repository
		args   []string
		code   int
		stdout []string // substrings of stdout
		stderr string
	}{
		{name: "a lower bound across 0", dir: "", args: []string{"check", "books/shop.book", "--diff-base", "HEAD"}, code: 1,
			stdout: []string{"error[E050]: books/shop.book:4:3: the account kind `shelf` changed its lower bound across 0, `at least 0` → `at least -5`", "     4 |   at least -5 refused as out_of_stock", "note: before: `account shelf(sku: string) : pcs` … `at least 0 refused as out_of_stock`"}},
		{name: "in japanese", dir: "", args: []string{"check", "--lang", "ja", "books/shop.book", "--diff-base", "HEAD~1"}, code: 1,
			stdout: []string{"エラー[E050]: books/shop.book:4:3: 勘定の種類 `shelf` の下限が 0 をまたいで変わりました(`at least 0` → `at least -5`)"}},
		{name: "run from the book's folder", dir: "books", args: []string{"check", "shop.book", "--diff-base", "HEAD"}, code: 1,
			stdout: []string{"error[E050]: shop.book:4:3:"}},
		{name: "a folder and file named in Japanese", dir: "books/在庫", args: []string{"check", "棚.book", "--diff-base", "HEAD"}, code: 0,
			stdout: []string{"warning[W107]: 棚.book:1:1: the transfer kind `sell` is gone from the book"}},
		{name: "a book the revision lacks is new", dir: "books", args: []string{"check", "new.book", "--diff-base", "HEAD"}, code: 0,
			stdout: []string{"new.book: ok"}},
		{name: "every book against the revision", dir: "", args: []string{"check", "books/new.book", "books/shop.book", "--diff-base", "HEAD", "--format", "json"}, code: 1,
			stdout: []string{`"file": "books/new.book",` + "\n      \"ok\": true", `"code": "E050"`}},
		{name: "an unknown revision", dir: "", args: []string{"check", "books/shop.book", "--diff-base", "no-such-branch"}, code: 2,
			stderr: "chobo check: --diff-base no-such-branch: no such revision in the git repository of books/shop.book"},
		{name: "an unknown revision in japanese", dir: "", args: []string{"check", "--lang", "ja", "books/shop.book", "--diff-base", "no-such-branch"}, code: 2,
			stderr: "chobo check: --diff-base no-such-branch: books/shop.book の git リポジトリに、そのリビジョンはありません"},
		{name: "a revision that looks like a flag", dir: "", args: []string{"check", "books/shop.book", "--diff-base", "-p"}, code: 2,
			stderr: "chobo check: --diff-base -p: no such revision"},
		{name: "a revision that is not a commit", dir: "", args: []string{"check", "books/shop.book", "--diff-base", "HEAD:books"}, code: 2,
			stderr: "no such revision"},
		{name: "both flags", dir: "", args: []string{"check", "books/shop.book", "--diff-base", "HEAD", "--against", "old.book"}, code: 2,
			stderr: "give --against or --diff-base, not both"},
		{name: "the same as --against the committed file", dir: "", args: []string{"check", "books/shop.book", "--against", "old.book"}, code: 1,
			stdout: []string{"error[E050]: books/shop.book:4:3:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(filepath.Join(dir, tt.dir), nil, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
			if tt.code == cli.ExitUsage && stdout != "" {
				t.Errorf("a wrong use prints no report:\n%s", stdout)
			}
		})
	}
	// --diff-base and --against with the committed text say the same.
	viaGit, _, _ := run(dir, nil, "check", "books/shop.book", "--diff-base", "HEAD")
	viaFile, _, _ := run(dir, nil, "check", "books/shop.book", "--against", "old.book")
	if viaGit != viaFile {
		t.Errorf("--diff-base and --against differ:\n%s\n---\n%s", viaGit, viaFile)
	}
}

// TestDiffBaseOutsideGit: a book in no git work tree is a wrong use, said
// in both languages.
func TestDiffBaseOutsideGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP: git is not installed: " + err.Error())
	}
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	write(t, filepath.Join(dir, "shop.book"), deployedBook)
	for _, v := range []struct{ lang, want string }{
		{"en", "chobo check: --diff-base compares with git, but shop.book is not inside a git work tree"},
		{"ja", "chobo check: --diff-base は git と比べますが、shop.book は git の作業ツリーの中にありません"},
	} {
		stdout, stderr, code := run(dir, nil, "check", "--lang", v.lang, "shop.book", "--diff-base", "HEAD")
		if code != cli.ExitUsage || stdout != "" || !strings.Contains(stderr, v.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", v.lang, code, stdout, stderr, v.want)
		}
	}
}

// TestAgainstErrors: what --against refuses, with exit 2 and nothing on
// standard output.
func TestAgainstErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "shop.book"), deployedBook)
	write(t, filepath.Join(dir, "broken.book"), "book shop v1\naccount shelf : pieces\n")
	write(t, filepath.Join(dir, "newer.json"), `{"v": 99, "book": {"name": "shop"}}`)
	write(t, filepath.Join(dir, "odd.json"), `{"v": 1, "units": "pcs"}`)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "shop.book", "--against", "missing.book"}, "chobo check: cannot read missing.book"},
		{[]string{"check", "--lang", "ja", "shop.book", "--against", "missing.book"}, "chobo check: missing.book を読めません"},
		{[]string{"check", "shop.book", "shop.book", "--against", "shop.book"}, "--against compares one book with one previous version; 2 books are given"},
		{[]string{"check", "shop.book", "--against", "broken.book"}, "chobo check: the previous version broken.book has 2 errors, so it cannot be what is deployed and there is nothing to compare with; the first: broken.book:2:17: E002"},
		{[]string{"check", "--lang", "ja", "shop.book", "--against", "broken.book"}, "chobo check: 前のバージョン broken.book にはエラーが 2 件あり"},
		{[]string{"check", "shop.book", "--against", "newer.json"}, "chobo check: the previous version newer.json is `chobo api` output of version 99; this chobo reads versions 1 to 2"},
		{[]string{"check", "shop.book", "--against", "odd.json"}, "chobo check: the previous version odd.json is JSON but not the output of `chobo api`"},
	} {
		stdout, stderr, code := run(dir, nil, tt.args...)
		if code != cli.ExitUsage || stdout != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
	// The book against itself: nothing to say, exit 0.
	if stdout, stderr, code := run(dir, nil, "check", "shop.book", "--against", "shop.book"); code != cli.ExitOK || !strings.HasPrefix(stdout, "shop.book: ok\n") {
		t.Errorf("the book against itself: exit %d\n%s%s", code, stdout, stderr)
	}
	// A new book with errors stops before the comparison: its own errors
	// only, exit 1.
	if stdout, _, code := run(dir, nil, "check", "broken.book", "--against", "shop.book"); code != cli.ExitError || strings.Contains(stdout, "W107") || !strings.Contains(stdout, "E002") {
		t.Errorf("a broken book against a good one: exit %d\n%s", code, stdout)
	}
}
