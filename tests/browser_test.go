package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/cli"
)

// browserDir holds the Node scripts that drive Chromium (pages.mjs,
// mermaid.mjs) and their pinned packages.
const browserDir = "browser"

var browserTools struct {
	once     sync.Once
	node     string
	chromium string
	skip     string
}

var browserSkipOnce sync.Once

// browser finds node, Debian's Chromium and tests/browser's packages. A
// missing one skips the test with a visible SKIP line, and fails it under
// CI=true, where tests/setup.sh installs them all.
func browser(t *testing.T) (node, chromium string) {
	t.Helper()
	browserTools.once.Do(func() {
		if os.Getenv("TEST_SRCDIR") != "" {
			browserTools.skip = "under Bazel there is no browser in the sandbox; go test ./tests/ drives the pages"
			return
		}
		node, err := exec.LookPath("node")
		if err != nil {
			browserTools.skip = "no node command: install Node 20 (tests/setup.sh does)"
			return
		}
		chromium := os.Getenv("CHOBO_CHROMIUM")
		if chromium == "" {
			for _, name := range []string{"chromium", "chromium-browser"} {
				if p, err := exec.LookPath(name); err == nil {
					chromium = p
					break
				}
			}
		}
		if chromium == "" {
			browserTools.skip = "no chromium command: install Debian's chromium package (tests/setup.sh does) or set CHOBO_CHROMIUM"
			return
		}
		for _, pkg := range []string{"playwright-core", "mermaid"} {
			if _, err := os.Stat(filepath.Join(browserDir, "node_modules", pkg, "package.json")); err != nil {
				browserTools.skip = "tests/browser's packages are not installed: run npm ci in tests/browser (tests/setup.sh does)"
				return
			}
		}
		browserTools.node, browserTools.chromium = node, chromium
	})
	if browserTools.skip != "" {
		browserSkipOnce.Do(func() { fmt.Println("SKIP: browser tests: " + browserTools.skip) })
		if os.Getenv("CI") == "true" && os.Getenv("TEST_SRCDIR") == "" {
			t.Fatalf("the browser tests are not set up: %s", browserTools.skip)
		}
		t.Skip("SKIP: " + browserTools.skip)
	}
	return browserTools.node, browserTools.chromium
}

// examplePages lists the example books that have a Japanese twin, the
// ones whose pages are kept beside them (see TestExampleDocs).
func examplePages(t *testing.T) (books []string) {
	t.Helper()
	all, err := filepath.Glob(filepath.Join("..", "examples", "*", "*.book"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		twin := strings.TrimSuffix(strings.TrimSuffix(p, ".book"), ".ja") + ".ja.book"
		if strings.HasSuffix(p, ".ja.book") {
			twin = strings.TrimSuffix(p, ".ja.book") + ".book"
		}
		if _, err := os.Stat(twin); err == nil {
			books = append(books, p)
		}
	}
	sort.Strings(books)
	if len(books) < 2 {
		t.Fatalf("only %d example books with pages", len(books))
	}
	return books
}

// runBrowser runs one of tests/browser's scripts and fails the test with
// its whole report when a check fails. Each line of the report is logged
// as it is; the screenshot lines are printed too, so that they reach a
// plain go test's output.
func runBrowser(t *testing.T, script string, args ...string) string {
	t.Helper()
	node, chromium := browser(t)
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, node, append([]string{script, "--chromium", chromium}, args...)...)
	cmd.Dir = browserDir
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	out, err := cmd.CombinedOutput()
	text := string(out)
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		t.Log(line)
	}
	if err != nil {
		t.Fatalf("node %s: %v (the report is above)", script, err)
	}
	return text
}

// TestBrowserPages opens the HTML page of every example in both languages
// in headless Chromium and drives it as a reader would (pages.mjs): at
// least ten steps by keyboard and by click, each compared with the JSON
// the page carries; a reload of the fragment finds the same step; no
// request leaves the page and its CSP is never violated; the page never
// scrolls sideways at 360 or 1280 px (a wide table or diagram scrolls in
// its own frame), and no two texts of the flow diagram overlap, for the
// examples and for tests/browser/wide.book; screenshots at 360 and 1280
// px, light and dark, go to $CHOBO_SCREENSHOTS or tests/browser/screenshots.
func TestBrowserPages(t *testing.T) {
	browser(t)
	pages := t.TempDir()
	var files []string
	for _, p := range examplePages(t) {
		dir, file := filepath.Split(p)
		args := []string{"doc", file, "--format", "html", "--out", pages}
		if strings.HasSuffix(file, ".ja.book") {
			args = append(args, "--lang", "ja")
		}
		// The team's scenarios come first in the stepper, in their own
		// group of the list.
		if more := strings.TrimSuffix(file, ".book") + ".more.json"; fileExists(filepath.Join(dir, more)) {
			args = append(args, "--scenario", more)
		}
		_, stderr, code := run(dir, nil, args...)
		if code != cli.ExitOK {
			t.Fatalf("chobo %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		files = append(files, filepath.Join(pages, strings.TrimSuffix(file, ".book")+".html"))
	}
	// A book wider than any example in every way (long descriptions and
	// names, thirteen accounts, many transfers, amounts in the millions),
	// in both languages: the layout must hold for it too.
	for _, lang := range []string{"en", "ja"} {
		out := filepath.Join(pages, lang)
		args := []string{"doc", "wide.book", "--format", "html", "--lang", lang, "--out", out}
		if _, stderr, code := run(browserDir, nil, args...); code != cli.ExitOK {
			t.Fatalf("chobo %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		wide := filepath.Join(pages, "wide."+lang+".html")
		if err := os.Rename(filepath.Join(out, "wide.html"), wide); err != nil {
			t.Fatal(err)
		}
		files = append(files, wide)
	}
	shots := os.Getenv("CHOBO_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(browserDir, "screenshots")
	}
	shots, err := filepath.Abs(shots)
	if err != nil {
		t.Fatal(err)
	}
	// Screenshots of an earlier run would pass for this one's.
	old, _ := filepath.Glob(filepath.Join(shots, "*.png"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	report := runBrowser(t, "pages.mjs", append([]string{"--out", shots}, files...)...)

	// The script's own summary is not taken on trust: every page must
	// have its four screenshots on disk, and have been stepped.
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".html")
		for _, w := range []string{"360", "1280"} {
			for _, scheme := range []string{"light", "dark"} {
				shot := filepath.Join(shots, base+"-"+w+"-"+scheme+".png")
				st, err := os.Stat(shot)
				if err != nil || st.Size() < 1000 {
					t.Errorf("%s: no screenshot %s", base, shot)
					continue
				}
				fmt.Printf("screenshot: %s (%d bytes)\n", shot, st.Size())
			}
		}
		if !strings.Contains(report, "ok   "+base+".html: visited ") {
			t.Errorf("%s: the report does not say how many steps were visited", base)
		}
	}
}

// TestBrowserMermaid renders every Mermaid block of every Markdown page
// the project keeps (the examples' doc.md and doc.ja.md, and each case's
// golden pages) with Mermaid itself, in the same Chromium, offline.
func TestBrowserMermaid(t *testing.T) {
	browser(t)
	var files []string
	for _, pattern := range []string{
		filepath.Join("..", "examples", "*", "doc*.md"),
		filepath.Join("testdata", "*", "expected", "doc*.md"),
	} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 4 {
		t.Fatalf("only %d Markdown pages to render", len(files))
	}
	for i, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = abs
	}
	report := runBrowser(t, "mermaid.mjs", files...)
	if !strings.Contains(report, fmt.Sprintf(" blocks in %d files", len(files))) {
		t.Errorf("the report does not cover all %d files", len(files))
	}
}
