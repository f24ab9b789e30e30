package tests

// Console blocks: the docs show what chobo prints, and this file runs
// every such example again so that the docs cannot drift from the tool.
//
// The convention, for README.md, README.ja.md and docs/*.md (except the generated
// codes pages):
//
//   - A fenced block whose info string is `console` is a terminal session.
//     A line starting with "$ " is a command; the lines after it, up to
//     the next "$ " line or the end of the block, are what it prints. Each
//     command's standard output comes first and its standard error right
//     after it, as a terminal shows them when nothing interleaves. Every
//     line counts, blank ones included, so do not add blank lines between
//     commands; a final newline of the output is not shown. The exit
//     status is not shown or compared. Output that holds a line of three
//     backticks needs a block opened with four.
//   - Only `chobo ...` commands may appear. They run in-process through
//     cli.Main with no environment (English text), not through a shell:
//     words are split on spaces, '...' and "..." quote (no escapes inside),
//     and unquoted shell syntax (| & ; < > $ ` * ?) is refused rather than
//     passed on as a literal argument that would read as if a shell ran it.
//   - A fenced block whose info string is two words, `<lang> <name>` (such
//     as "book warehouse.book" or "json s1.json"), is also the file <name>
//     for every command after it in the same Markdown file. GitHub uses
//     the first word for highlighting and ignores the second. A later
//     block with the same name replaces the file from there on, so a doc
//     can show a book, then its edited version. Names are plain file names:
//     they are written into a fresh directory of that Markdown file alone.
//   - That directory also reaches the repository's examples/ and
//     tests/testdata/, so a command may name examples/inventory/inventory.book
//     or a case's files.
//   - A word that looks like a file name (it has an extension and is not a
//     flag, nor the value of --out or --diff-base) must be one of those
//     files; otherwise the test stops, since chobo's "cannot read" would
//     otherwise be compared, or worse, blessed into the doc.
//
// CHOBO_BLESS=1 rewrites the output lines of every console block with what
// chobo prints now; review the diff before committing.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/tests/golden"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// fence is one fenced code block of a Markdown file.
type fence struct {
	info string   // the info string, trimmed
	line int      // 1-based line of the opening fence
	body []string // the lines between the fences
}

// parseFences finds the fenced blocks of a Markdown text
// (langtest.Fences).
func parseFences(src string) ([]fence, error) {
	fs, err := langtest.Fences(src)
	if err != nil {
		return nil, err
	}
	out := make([]fence, len(fs))
	for i, f := range fs {
		out[i] = fence{info: f.Info, line: f.Line, body: f.Body}
	}
	return out, nil
}

// consoleStep is one command of a console block and what the doc says it
// prints.
type consoleStep struct {
	line int      // 1-based line of the "$ " line
	cmd  string   // the command as written, for messages
	args []string // the words after "chobo"
	want []string // the lines the doc shows under it
}

// parseConsole reads the commands of a console block. file is only for
// the messages.
func parseConsole(file string, f fence) ([]consoleStep, error) {
	var steps []consoleStep
	for i, l := range f.body {
		at := f.line + 1 + i
		cmd, ok := strings.CutPrefix(l, "$ ")
		if !ok {
			if len(steps) == 0 {
				return nil, fmt.Errorf("%s:%d: the console block shows output before any \"$ \" command", file, at)
			}
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, l)
			continue
		}
		words, err := splitWords(cmd)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, at, err)
		}
		if len(words) == 0 || words[0] != "chobo" {
			return nil, fmt.Errorf("%s:%d: `%s` is not a chobo command; console blocks are run by the doc test, which runs only chobo", file, at, cmd)
		}
		steps = append(steps, consoleStep{line: at, cmd: cmd, args: words[1:]})
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("%s:%d: the console block has no \"$ \" command, so nothing checks what it shows", file, f.line)
	}
	return steps, nil
}

// splitWords splits a command line the simple way a reader expects:
// spaces separate words, quotes group them.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c in `%s`", c, s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += 1 + j
			inWord = true
		case strings.IndexByte("|&;<>$`*?", c) >= 0:
			return nil, fmt.Errorf("`%s` needs a shell (%q), and the doc test runs chobo without one; quote the character if it is part of a word", s, c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// namedFile is the file a `<lang> <name>` block defines, or "" for any
// other block.
func namedFile(info string) string {
	words := strings.Fields(info)
	if len(words) != 2 || words[0] == "console" {
		return ""
	}
	return words[1]
}

// fileArgs are the words of a command that name files it reads: those that
// look like a file name. The values of --out and --diff-base are a folder
// and a git revision, which may contain a dot without being a file.
func fileArgs(args []string) []string {
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--out" || a == "--diff-base":
			i++
		case strings.HasPrefix(a, "-"):
		case filepath.Ext(a) != "":
			files = append(files, a)
		}
	}
	return files
}

// stepResult is a command of a doc and what it printed.
type stepResult struct {
	step consoleStep
	got  []string
}

// outputLines turns what a command printed into the lines a console block
// holds: stdout then stderr, without the final newline.
func outputLines(stdout, stderr string) []string {
	s := strings.TrimSuffix(stdout+stderr, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// runDoc runs every console block of one Markdown text in dir, a fresh
// directory, with repo as the repository root whose examples/ and
// tests/testdata/ commands may name. file is the Markdown file's name for
// messages. It returns what each command printed; an error means the doc
// breaks the convention, and nothing of it should be compared or blessed.
func runDoc(file, src, repo, dir string) ([]stepResult, error) {
	fences, err := parseFences(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if err := linkRepo(repo, dir); err != nil {
		return nil, err
	}
	var results []stepResult
	var errs []error
	for _, f := range fences {
		if name := namedFile(f.info); name != "" {
			if name != filepath.Base(name) || name == "." || name == ".." {
				errs = append(errs, fmt.Errorf("%s:%d: the block's file name %q must be a plain name, without folders", file, f.line, name))
				continue
			}
			body := strings.Join(f.body, "\n") + "\n"
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				return nil, err
			}
			continue
		}
		if first, _, _ := strings.Cut(f.info, " "); first != "console" {
			continue
		}
		if f.info != "console" {
			// A console block is never a file, and one skipped for a
			// stray word would pass without ever being run.
			errs = append(errs, fmt.Errorf("%s:%d: a console block's info string is `console` alone, not %q", file, f.line, f.info))
			continue
		}
		steps, err := parseConsole(file, f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, s := range steps {
			missing := false
			for _, name := range fileArgs(s.args) {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					errs = append(errs, fmt.Errorf("%s:%d: `%s` names %s, which no earlier block of %s defines (```<lang> %s) and the repository lacks", file, s.line, s.cmd, name, file, filepath.Base(name)))
					missing = true
				}
			}
			if missing {
				continue
			}
			stdout, stderr, _ := run(dir, nil, s.args...)
			results = append(results, stepResult{step: s, got: outputLines(stdout, stderr)})
		}
	}
	return results, errors.Join(errs...)
}

// linkRepo makes the repository's example books and test cases reachable
// from dir under the paths the docs use. Links rather than copies: the
// cases are many, and under Bazel they are already links into runfiles.
func linkRepo(repo, dir string) error {
	for _, p := range []string{"examples", filepath.Join("tests", "testdata")} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(filepath.Join(repo, p), filepath.Join(dir, p)); err != nil {
			return err
		}
	}
	return nil
}

// compareStep says how the output a doc shows differs from what chobo
// printed, as a diff that names the doc's lines; "" when they are equal.
func compareStep(file string, r stepResult) string {
	if reflect.DeepEqual(r.step.want, r.got) || len(r.step.want) == 0 && len(r.got) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: `%s` does not print what the doc shows (- doc, + chobo; CHOBO_BLESS=1 rewrites the block):\n", file, r.step.line, r.step.cmd)
	b.WriteString(unifiedDiff(file, r.step.line+1, r.step.want, r.got))
	return b.String()
}

// unifiedDiff writes the difference between want (which starts at line
// first of file) and got as hunks with a little context, each headed by
// the doc line where it starts, so that a long block's one changed line is
// easy to find.
func unifiedDiff(file string, first int, want, got []string) string {
	// The longest common subsequence, by dynamic programming: blocks are
	// at most a few hundred lines.
	n, m := len(want), len(got)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if want[i] == got[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type edit struct {
		op   byte // ' ', '-' or '+'
		text string
		at   int // index in want of this line, or of the next one for '+'
	}
	var edits []edit
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && want[i] == got[j]:
			edits = append(edits, edit{' ', want[i], i})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			edits = append(edits, edit{'-', want[i], i})
			i++
		default:
			edits = append(edits, edit{'+', got[j], i})
			j++
		}
	}
	// Every change shows with two lines of context on each side; changes
	// whose context touches are one hunk.
	const context = 2
	var b strings.Builder
	for k := 0; k < len(edits); k++ {
		if edits[k].op == ' ' {
			continue
		}
		from, to := max(k-context, 0), k
		for l := k; l < len(edits) && l <= to+2*context; l++ {
			if edits[l].op != ' ' {
				to = l
			}
		}
		to = min(to+context+1, len(edits))
		fmt.Fprintf(&b, "@@ %s:%d @@\n", file, first+edits[from].at)
		for _, e := range edits[from:to] {
			fmt.Fprintf(&b, "%c%s\n", e.op, e.text)
		}
		k = to - 1
	}
	return b.String()
}

// blessDoc puts what each command printed in place of the output lines its
// block shows, leaving everything else of the doc as it was.
func blessDoc(src string, results []stepResult) string {
	lines := strings.Split(src, "\n")
	sorted := append([]stepResult(nil), results...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].step.line > sorted[b].step.line })
	for _, r := range sorted {
		from := r.step.line // index of the first output line: the "$ " line is 1-based
		to := from + len(r.step.want)
		lines = append(lines[:from], append(append([]string(nil), r.got...), lines[to:]...)...)
	}
	return strings.Join(lines, "\n")
}

// consoleDocs lists the Markdown files whose console blocks are run, by
// their path from the repository root. The codes pages are left out: a
// golden test writes them whole.
func consoleDocs(t *testing.T, repo string) []string {
	docs, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md", "README.ja.md"}
	for _, d := range docs {
		if base := filepath.Base(d); !strings.HasPrefix(base, "codes") {
			files = append(files, filepath.Join("docs", base))
		}
	}
	if len(files) < 2 {
		t.Fatalf("found no docs under %s", filepath.Join(repo, "docs"))
	}
	return files
}

// TestDocConsoleBlocks runs every console block of the docs and compares
// what chobo prints with what the block shows.
func TestDocConsoleBlocks(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, file := range consoleDocs(t, repo) {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(repo, file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			results, err := runDoc(file, string(src), repo, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			total += len(results)
			if golden.Bless() {
				if blessed := blessDoc(string(src), results); blessed != string(src) {
					if err := os.WriteFile(path, []byte(blessed), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			for _, r := range results {
				if d := compareStep(file, r); d != "" {
					t.Error(d)
				}
			}
		})
	}
	// A glob that finds nothing (a doc moved, data missing under Bazel)
	// must not pass as "every block agrees".
	if total == 0 {
		t.Error("no console block was run")
	}
}

// TestConsoleBlockParser reads small Markdown texts into blocks and
// commands.
func TestConsoleBlockParser(t *testing.T) {
	src := strings.Join([]string{
		"# A doc",
		"",
		"```book shop.book",
		"book shop v1",
		"```",
		"",
		"````console",
		"$ chobo check shop.book --against 'old shop.book'",
		"shop.book: ok",
		"",
		"$ chobo explain \"E050\"",
		"```",
		"````",
		"```",
		"plain",
		"```",
	}, "\n")
	fences, err := parseFences(src)
	if err != nil {
		t.Fatal(err)
	}
	wantFences := []fence{
		{info: "book shop.book", line: 3, body: []string{"book shop v1"}},
		{info: "console", line: 7, body: []string{"$ chobo check shop.book --against 'old shop.book'", "shop.book: ok", "", "$ chobo explain \"E050\"", "```"}},
		{info: "", line: 14, body: []string{"plain"}},
	}
	if !reflect.DeepEqual(fences, wantFences) {
		t.Fatalf("fences:\n got %#v\nwant %#v", fences, wantFences)
	}
	if got := namedFile(fences[0].info); got != "shop.book" {
		t.Errorf("namedFile = %q", got)
	}
	steps, err := parseConsole("doc.md", fences[1])
	if err != nil {
		t.Fatal(err)
	}
	wantSteps := []consoleStep{
		{line: 8, cmd: "chobo check shop.book --against 'old shop.book'", args: []string{"check", "shop.book", "--against", "old shop.book"}, want: []string{"shop.book: ok", ""}},
		{line: 11, cmd: "chobo explain \"E050\"", args: []string{"explain", "E050"}, want: []string{"```"}},
	}
	if !reflect.DeepEqual(steps, wantSteps) {
		t.Fatalf("steps:\n got %#v\nwant %#v", steps, wantSteps)
	}
	if got := fileArgs(steps[0].args); !reflect.DeepEqual(got, []string{"shop.book", "old shop.book"}) {
		t.Errorf("fileArgs = %q", got)
	}

	for _, bad := range []struct{ src, want string }{
		{"```console\n```", "doc.md:1: the console block has no \"$ \" command"},
		{"```console\nshop.book: ok\n$ chobo check shop.book\n```", "doc.md:2: the console block shows output before any"},
		{"```console\n$ cat shop.book\n```", "doc.md:2: `cat shop.book` is not a chobo command"},
		{"```console\n$ chobo api shop.book > api.json\n```", "doc.md:2: `chobo api shop.book > api.json` needs a shell"},
		{"```console\n$ chobo check 'shop.book\n```", "doc.md:2: unclosed '"},
		{"```console\n$ chobo check shop.book\n", "doc.md: line 1: the fenced block is never closed"},
		{"```console\n$ chobo check nowhere.book\n```", "doc.md:2: `chobo check nowhere.book` names nowhere.book, which no earlier block"},
		{"```book ../x.book\nbook x v1\n```", "doc.md:1: the block's file name \"../x.book\" must be a plain name"},
		{"```console x.txt\n$ chobo --help\n```", "doc.md:1: a console block's info string is `console` alone"},
	} {
		_, err := runDoc("doc.md", bad.src, t.TempDir(), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one containing %q", bad.src, err, bad.want)
		}
	}
}

// TestConsoleWrongLineFails makes sure the comparison has teeth: a block
// that shows what chobo prints passes, and the same block with one line
// changed, or a file block replaced after it, does not.
func TestConsoleWrongLineFails(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	book := "```book shop.book\nbook shop v1\nunit pcs\naccount stock : pieces\n  at least 0 refused as out_of_stock\n```\n"
	console := "```console\n$ chobo check shop.book\nerror[E002]: shop.book:3:17: there is no unit named `pieces`\n     3 | account stock : pieces\n  hint: declare it with `unit pieces`, or use one of: pcs\nshop.book: 1 error\n```\n"
	good := book + "\n" + console
	results, err := runDoc("doc.md", good, repo, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || compareStep("doc.md", results[0]) != "" {
		t.Fatalf("the faithful block does not pass: %v", results)
	}

	doctored := strings.Replace(good, "1 error", "2 errors", 1)
	results, err = runDoc("doc.md", doctored, repo, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := compareStep("doc.md", results[0])
	for _, want := range []string{"doc.md:9: `chobo check shop.book` does not print what the doc shows", "@@ doc.md:", "-shop.book: 2 errors", "+shop.book: 1 error"} {
		if !strings.Contains(d, want) {
			t.Errorf("the diff lacks %q:\n%s", want, d)
		}
	}
	if blessed := blessDoc(doctored, results); blessed != good {
		t.Errorf("blessing does not restore the block:\n%s", blessed)
	}

	// The fixed book, given under the same name after the first command,
	// is what a second command reads.
	fixed := strings.Replace(book, "pieces", "pcs", 1)
	twice := good + "\n" + fixed + "\n" + console
	results, err = runDoc("doc.md", twice, repo, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 || compareStep("doc.md", results[0]) != "" || compareStep("doc.md", results[1]) == "" {
		t.Errorf("the second block should see the replaced book: %v", results)
	}
}
