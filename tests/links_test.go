package tests

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// A reader follows the docs by their links, on GitHub or in a checkout:
// a relative link must reach a file of the repository, and a link to a
// heading (`#anchor`) must name one that GitHub gives an anchor.

// markdownFiles is every Markdown file of the repository a reader sees:
// the READMEs, docs/, the examples' pages, the runtimes' and the tests'
// notes. Installed packages, the virtual environment and Bazel's trees
// are not the project's.
func markdownFiles(t *testing.T, repo string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != repo && (strings.HasPrefix(name, ".") || name == "node_modules" || strings.HasPrefix(name, "bazel-") || name == "__pycache__") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".md") {
			rel, err := filepath.Rel(repo, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// mdLink is one link or image of a Markdown file.
type mdLink struct {
	line   int
	target string
}

var (
	// [text](target "title") and ![alt](target); the text may hold one
	// level of brackets (a link around code with brackets in it).
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\s*\)`)
	// [label]: target, a reference definition at the start of a line.
	refDefinition = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	// <a name="x"> or id="x" in HTML written into the Markdown.
	htmlAnchor = regexp.MustCompile(`<a\s[^>]*(?:name|id)="([^"]+)"`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
)

// markdownText splits a Markdown file into its prose lines (the lines of
// fenced blocks blanked, so that a link in a code example is not taken
// for one) and its headings.
func markdownText(src string) (prose []string, headings []string) {
	lines := strings.Split(src, "\n")
	fence := ""
	for _, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			prose = append(prose, "")
			continue
		}
		if n := len(trimmed) - len(strings.TrimLeft(trimmed, "`")); n >= 3 {
			fence = strings.Repeat("`", n)
			prose = append(prose, "")
			continue
		}
		if n := len(trimmed) - len(strings.TrimLeft(trimmed, "~")); n >= 3 {
			fence = strings.Repeat("~", n)
			prose = append(prose, "")
			continue
		}
		prose = append(prose, l)
		if h := strings.TrimLeft(trimmed, "#"); len(h) < len(trimmed) && len(trimmed)-len(h) <= 6 && (h == "" || h[0] == ' ') {
			headings = append(headings, strings.TrimRight(strings.TrimSpace(h), "# "))
		}
	}
	return prose, headings
}

// markdownLinks is every link and image of a Markdown file outside code.
func markdownLinks(src string) []mdLink {
	prose, _ := markdownText(src)
	var out []mdLink
	for i, l := range prose {
		l = codeSpan.ReplaceAllStringFunc(l, func(s string) string { return strings.Repeat(" ", len(s)) })
		for _, m := range inlineLink.FindAllStringSubmatch(l, -1) {
			out = append(out, mdLink{i + 1, strings.Trim(m[1], "<>")})
		}
		if m := refDefinition.FindStringSubmatch(l); m != nil {
			out = append(out, mdLink{i + 1, strings.Trim(m[1], "<>")})
		}
	}
	return out
}

var (
	mdInlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag      = regexp.MustCompile(`<[^>]+>`)
)

// githubAnchor is the anchor GitHub gives a heading: its text as read
// (links by their text, no code backticks, no HTML tags), lower-cased,
// every character that is neither a letter, a mark, a digit, a space, a
// hyphen nor an underscore dropped (Japanese letters stay, its
// punctuation 「」、。() goes), and each space made a hyphen.
func githubAnchor(heading string) string {
	s := mdInlineLink.ReplaceAllString(heading, "$1")
	s = htmlTag.ReplaceAllString(s, "")
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchorsOf is every anchor a Markdown file has: one per heading, a
// repeated one numbered -1, -2 … as GitHub numbers it, and the names of
// HTML anchors.
func anchorsOf(src string) map[string]bool {
	prose, headings := markdownText(src)
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, h := range headings {
		a := githubAnchor(h)
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	for _, l := range prose {
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			anchors[m[1]] = true
		}
	}
	return anchors
}

// brokenLinks checks the links of one Markdown file of repo, and says
// what is wrong with each one that does not resolve.
func brokenLinks(repo, file string, read func(string) (string, error)) []string {
	src, err := read(file)
	if err != nil {
		return []string{err.Error()}
	}
	var broken []string
	for _, l := range markdownLinks(src) {
		target := l.target
		if target == "" {
			broken = append(broken, fmt.Sprintf("%s:%d: an empty link", file, l.line))
			continue
		}
		if u, err := url.Parse(target); err != nil {
			broken = append(broken, fmt.Sprintf("%s:%d: %q is no link: %v", file, l.line, target, err))
			continue
		} else if u.Scheme != "" || u.Host != "" {
			continue // a page elsewhere; only the repository's own files are checked
		}
		path, anchor, _ := strings.Cut(target, "#")
		if p, err := url.PathUnescape(path); err == nil {
			path = p
		}
		if a, err := url.PathUnescape(anchor); err == nil {
			anchor = a
		}
		dest := file
		if path != "" {
			if strings.HasPrefix(path, "/") {
				broken = append(broken, fmt.Sprintf("%s:%d: %q starts at the root of a site, not of the repository; write it relative to the file", file, l.line, target))
				continue
			}
			dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(file), path)))
			if dest == ".." || strings.HasPrefix(dest, "../") {
				broken = append(broken, fmt.Sprintf("%s:%d: %q leaves the repository", file, l.line, target))
				continue
			}
			if _, err := os.Stat(filepath.Join(repo, dest)); err != nil {
				broken = append(broken, fmt.Sprintf("%s:%d: %q: there is no %s", file, l.line, target, dest))
				continue
			}
		}
		if anchor == "" || !strings.HasSuffix(dest, ".md") {
			continue
		}
		destSrc, err := read(dest)
		if err != nil {
			broken = append(broken, fmt.Sprintf("%s:%d: %q: %v", file, l.line, target, err))
			continue
		}
		if !anchorsOf(destSrc)[anchor] {
			broken = append(broken, fmt.Sprintf("%s:%d: %q: %s has no heading whose anchor is #%s", file, l.line, target, dest, anchor))
		}
	}
	return broken
}

// TestDocLinksResolve follows every relative link and image of every
// Markdown file of the repository.
func TestDocLinksResolve(t *testing.T) {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel only some of the repository's Markdown files are at hand")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel string) (string, error) {
		b, err := os.ReadFile(filepath.Join(repo, rel))
		return string(b), err
	}
	files := markdownFiles(t, repo)
	links := 0
	for _, f := range files {
		src, err := read(f)
		if err != nil {
			t.Fatal(err)
		}
		links += len(markdownLinks(src))
		for _, b := range brokenLinks(repo, f, read) {
			t.Error(b)
		}
	}
	t.Logf("%d links in %d Markdown files", links, len(files))
	for _, must := range []string{"README.md", "README.ja.md", "docs/targets.ja.md"} {
		if i := sort.SearchStrings(files, must); i == len(files) || files[i] != must {
			t.Errorf("the walk of the repository missed %s", must)
		}
	}
}

// TestLinkCheckerFindsBroken holds the checker to links it must refuse
// and to the anchors GitHub gives English and Japanese headings.
func TestLinkCheckerFindsBroken(t *testing.T) {
	for heading, want := range map[string]string{
		"Evolving a book safely":               "evolving-a-book-safely",
		"`postgres-go` and `tigerbeetle-go`":   "postgres-go-and-tigerbeetle-go",
		"The Go runtime: imported by the file": "the-go-runtime-imported-by-the-file",
		"帳簿を安全に変える":                            "帳簿を安全に変える",
		"コネクションプーラー(PgBouncer)の後ろで動かす":         "コネクションプーラーpgbouncerの後ろで動かす",
		"「帳簿から呼び出しまで」、テスト。":                    "帳簿から呼び出しまでテスト",
		"[docs/bazel.md](docs/bazel.md) rules": "docsbazelmd-rules",
		"E050 / E051":                          "e050--e051",
	} {
		if got := githubAnchor(heading); got != want {
			t.Errorf("the anchor of %q is %q, not %q", heading, got, want)
		}
	}
	files := map[string]string{
		"a.md": "# One\n\n## Twice\n\n## Twice\n\n## 日本語の見出し\n\n" +
			"[ok](b.md#target) [ok](#twice-1) [ok](#日本語の見出し) [ok](#%E6%97%A5%E6%9C%AC%E8%AA%9E%E3%81%AE%E8%A6%8B%E5%87%BA%E3%81%97) [ok](https://example.org/x.md)\n" +
			"[no file](c.md) [no anchor](b.md#nothing) ![no image](img/none.png) [no anchor here](#twice-2)\n" +
			"`[in code](nothing.md)`\n\n```md\n[in a block](nothing.md)\n```\n\n[ref]: gone.md\n",
		"b.md": "# Target\n",
	}
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		return string(b), err
	}
	got := brokenLinks(dir, "a.md", read)
	want := []string{
		`a.md:10: "c.md": there is no c.md`,
		`a.md:10: "b.md#nothing": b.md has no heading whose anchor is #nothing`,
		`a.md:10: "img/none.png": there is no img/none.png`,
		`a.md:10: "#twice-2": a.md has no heading whose anchor is #twice-2`,
		`a.md:17: "gone.md": there is no gone.md`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the checker found\n%s\nnot\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
