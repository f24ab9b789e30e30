package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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

// browserPages writes the HTML page of every example in its language,
// with the team's scenarios, and of tests/browser/wide.book in both
// languages, into dir. english is a file listing the English labels of
// the pages (englishLabels) less every word of these books, for the
// check that a Japanese page writes none of them.
func browserPages(t *testing.T, dir string) (files []string, english string) {
	t.Helper()
	labels, _ := englishLabels(t)
	for _, p := range examplePages(t) {
		base, file := filepath.Split(p)
		args := []string{"doc", file, "--format", "html", "--out", dir}
		if strings.HasSuffix(file, ".ja.book") {
			args = append(args, "--lang", "ja")
		}
		// The team's scenarios come first in the stepper, in their own
		// group of the list.
		if more := strings.TrimSuffix(file, ".book") + ".more.json"; fileExists(filepath.Join(base, more)) {
			args = append(args, "--scenario", more)
			forgetWords(t, labels, filepath.Join(base, more))
		}
		forgetWords(t, labels, p)
		_, stderr, code := run(base, nil, args...)
		if code != cli.ExitOK {
			t.Fatalf("chobo %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		files = append(files, filepath.Join(dir, strings.TrimSuffix(file, ".book")+".html"))
	}
	// A book wider than any example in every way (long descriptions and
	// names, thirteen accounts, many transfers, amounts in the millions),
	// in both languages: the layout must hold for it too. Its own
	// scenario reaches every account and leaves a hold open, so that the
	// statements show all of their parts: an account with more entries
	// than they show, and a hold still open.
	forgetWords(t, labels, filepath.Join(browserDir, "wide.book"))
	forgetWords(t, labels, filepath.Join(browserDir, "wide.more.json"))
	for _, lang := range []string{"en", "ja"} {
		out := filepath.Join(dir, lang)
		args := []string{"doc", "wide.book", "--format", "html", "--lang", lang, "--out", out, "--scenario", "wide.more.json"}
		if _, stderr, code := run(browserDir, nil, args...); code != cli.ExitOK {
			t.Fatalf("chobo %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		wide := filepath.Join(dir, "wide."+lang+".html")
		if err := os.Rename(filepath.Join(out, "wide.html"), wide); err != nil {
			t.Fatal(err)
		}
		files = append(files, wide)
	}
	words := slices.Sorted(maps.Keys(labels))
	data, err := json.Marshal(words)
	if err != nil {
		t.Fatal(err)
	}
	english = filepath.Join(dir, "english.json")
	if err := os.WriteFile(english, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return files, english
}

// forgetWords takes the words of a book (or a scenario file) out of the
// labels: on its pages they are its own.
func forgetWords(t *testing.T, labels map[string]string, file string) {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for w := range wordsOf(string(src)) {
		delete(labels, w)
	}
}

// screenshotDir is where the screenshots go, emptied of an earlier run's,
// which would pass for this one's.
func screenshotDir(t *testing.T, pattern string) string {
	t.Helper()
	shots := os.Getenv("CHOBO_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(browserDir, "screenshots")
	}
	shots, err := filepath.Abs(shots)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(shots, pattern))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	return shots
}

// TestBrowserPages opens the HTML page of every example in both languages
// in headless Chromium and drives it as a reader would (pages.mjs): at
// least ten steps by keyboard and by click, each compared with the JSON
// the page carries; a reload of the fragment finds the same step; no
// request leaves the page and its CSP is never violated. At 360 and 1280
// px (audit.mjs) the page never scrolls sideways, every table cell shown
// is whole and in the window, every arrow ends in a box and a hold's life
// fits the window, no name breaks inside a word, every number is grouped
// and a Japanese page writes no English label; no two texts of the flow
// diagram overlap; the statements section is cards at 360 px and a
// table at 1280 px, and its link opens the stepper at the end of its
// scenario; for the examples and for tests/browser/wide.book.
// Screenshots at 360 and 1280 px, light and dark, go to
// $CHOBO_SCREENSHOTS or tests/browser/screenshots.
func TestBrowserPages(t *testing.T) {
	browser(t)
	files, english := browserPages(t, t.TempDir())
	shots := screenshotDir(t, "*-light.png")
	screenshotDir(t, "*-dark.png")
	report := runBrowser(t, "pages.mjs", append([]string{"--out", shots, "--english", english}, files...)...)

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
		for _, w := range []string{"360", "1280"} {
			if !strings.Contains(report, "ok   "+base+".html: "+w+"px: none of ") {
				t.Errorf("%s: the report has no check of names at %s px", base, w)
			}
		}
		checkStatementsReported(t, report, base, "")
		if strings.HasPrefix(base, "wide.") && !regexp.MustCompile(`(?m)^ok   `+regexp.QuoteMeta(base)+`\.html: 360px: the [0-9]+ rows of the 2 tables of the statements`).MatchString(report) {
			t.Errorf("%s: the statements show no hold left open", base)
		}
		if !strings.Contains(report, "ok   "+base+".html: the statements link opens ") {
			t.Errorf("%s: the report does not say the statements link was followed", base)
		}
	}
}

// checkStatementsReported holds every page to a statements section that
// the browser laid out as cards at 360 px and as a table at 1280 px:
// every page of the browser tests has one.
func checkStatementsReported(t *testing.T, report, base, browser string) {
	t.Helper()
	for _, c := range [][2]string{{"360", "cards"}, {"1280", "table rows"}} {
		line := regexp.MustCompile(`(?m)^ok   ` + regexp.QuoteMeta(base) + `\.html: ` + c[0] + `px: the ([0-9]+) rows of the [0-9]+ tables of the statements are ` + c[1] + `,`)
		if m := line.FindStringSubmatch(report); m == nil || m[1] == "0" {
			t.Errorf("%s: the report has no check that the statements are %s at %s px%s", base, c[1], c[0], browser)
		}
	}
}

// TestBrowserFirefox opens the same pages in Debian's Firefox (firefox-esr),
// headless, over WebDriver BiDi (firefox.mjs): at 360 and 1280 px the
// checks of audit.mjs, as in Chromium, and the longest scenario stepped
// with the next button, each step compared with the data the page
// carries; a screenshot at each width.
func TestBrowserFirefox(t *testing.T) {
	node, _ := browser(t)
	ff := os.Getenv("CHOBO_FIREFOX")
	if ff == "" {
		for _, name := range []string{"firefox-esr", "firefox"} {
			if p, err := exec.LookPath(name); err == nil {
				ff = p
				break
			}
		}
	}
	msg := "no firefox-esr command: install Debian's firefox-esr package (tests/setup.sh does) or set CHOBO_FIREFOX"
	if ff != "" {
		if _, err := os.Stat(ff); err != nil {
			ff, msg = "", "CHOBO_FIREFOX names no file: "+ff
		}
	}
	if ff == "" {
		fmt.Println("SKIP: browser tests in Firefox: " + msg)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("SKIP: " + msg)
	}
	files, english := browserPages(t, t.TempDir())
	shots := screenshotDir(t, "*-firefox-*.png")
	args := []string{"firefox.mjs", "--firefox", ff, "--out", shots, "--english", english}
	// Node 22 has WebSocket; Node 20 has it behind a flag.
	if out, err := exec.Command(node, "-e", "process.stdout.write(typeof WebSocket)").Output(); err == nil && string(out) != "function" {
		args = append([]string{"--experimental-websocket"}, args...)
	}
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, node, append(args, files...)...)
	cmd.Dir = browserDir
	out, err := cmd.CombinedOutput()
	report := string(out)
	for _, line := range strings.Split(strings.TrimRight(report, "\n"), "\n") {
		t.Log(line)
	}
	if err != nil {
		t.Fatalf("node firefox.mjs: %v (the report is above)", err)
	}
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".html")
		for _, w := range []string{"360", "1280"} {
			shot := filepath.Join(shots, base+"-firefox-"+w+".png")
			if st, err := os.Stat(shot); err != nil || st.Size() < 1000 {
				t.Errorf("%s: no screenshot %s", base, shot)
			} else {
				fmt.Printf("screenshot: %s (%d bytes)\n", shot, st.Size())
			}
			if !strings.Contains(report, "ok   "+base+".html: "+w+"px: none of ") {
				t.Errorf("%s: the report has no check of names at %s px in Firefox", base, w)
			}
		}
		checkStatementsReported(t, report, base, " in Firefox")
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
