package tests

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/cli"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// pageBudget is the most an example's HTML page may weigh: the design
// gives 50 to 60 KB for the pages of the examples.
const pageBudget = 60_000

// TestExamplePagesWeighWhatTheDesignSays writes the HTML page of every
// example book in its own language, with the team's scenarios beside it,
// as TestBrowserPages opens them, and holds each to the design's size.
func TestExamplePagesWeighWhatTheDesignSays(t *testing.T) {
	out := t.TempDir()
	for _, p := range examplePages(t) {
		dir, file := filepath.Split(p)
		args := []string{"doc", file, "--format", "html", "--out", out}
		if strings.HasSuffix(file, ".ja.book") {
			args = append(args, "--lang", "ja")
		}
		if more := strings.TrimSuffix(file, ".book") + ".more.json"; fileExists(filepath.Join(dir, more)) {
			args = append(args, "--scenario", more)
		}
		if _, stderr, code := run(dir, nil, args...); code != cli.ExitOK {
			t.Fatalf("chobo %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		page := filepath.Join(out, strings.TrimSuffix(file, ".book")+".html")
		st, err := os.Stat(page)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > pageBudget {
			t.Errorf("%s: the page is %d bytes, more than the design's %d", p, st.Size(), pageBudget)
		}
		t.Logf("%s: %d bytes", filepath.Base(page), st.Size())
	}
}

var (
	pageTag   = regexp.MustCompile(`(?s)<style>.*?</style>|<script>.*?</script>|<script type="application/json"[^>]*>.*?</script>|<pre>.*?</pre>|<[^>]*>`)
	mdFence   = regexp.MustCompile("(?s)```.*?```")
	mdQuoted  = regexp.MustCompile(`"([^"]*)"`)
	pageLabel = regexp.MustCompile(`\b(?:aria-label|label|data-label)="([^"]*)"`)
	asciiWord = regexp.MustCompile(`[A-Za-z]{2,}`)
	mdComment = regexp.MustCompile(`(?s)<!--.*?-->`)
)

// visibleText is what a reader of a page sees or hears: the text between
// its tags, the names of its regions and controls, the strings of the
// data its stepper shows (labels, calls, answers, balances, states), and
// the labels of a Markdown page's diagrams. What the checker prints (a
// page's warnings, in a block of their own) quotes the book and is left
// out.
func visibleText(page string) string {
	var b strings.Builder
	if m := pageJSON.FindStringSubmatch(page); m != nil {
		var data any
		if err := json.Unmarshal([]byte(m[1]), &data); err == nil {
			writeValues(&b, data)
		}
	}
	page = mdFence.ReplaceAllStringFunc(page, func(fence string) string {
		var q []string
		for _, m := range mdQuoted.FindAllStringSubmatch(fence, -1) {
			q = append(q, m[1])
		}
		return strings.Join(q, "\n")
	})
	// A code span of Markdown is a name (`together`), as the book writes it.
	page = mdCode.ReplaceAllString(page, " ")
	for _, m := range pageLabel.FindAllStringSubmatch(page, -1) {
		b.WriteString(html.UnescapeString(m[1]) + "\n")
	}
	b.WriteString(html.UnescapeString(pageTag.ReplaceAllString(mdComment.ReplaceAllString(page, ""), " ")))
	return b.String()
}

// writeValues writes the strings of a JSON value, not its keys.
func writeValues(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		b.WriteString(v + "\n")
	case []any:
		for _, e := range v {
			writeValues(b, e)
		}
	case map[string]any:
		for _, e := range v {
			writeValues(b, e)
		}
	}
}

// wordsOf is the set of English words (two letters or more) in s.
func wordsOf(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range asciiWord.FindAllString(s, -1) {
		out[strings.ToLower(w)] = true
	}
	return out
}

// notLabels are English words a Japanese page writes on purpose: the
// commands and formats it names, the book's keywords for the operations,
// and the reasons chobo gives, which are names, not words.
var notLabels = []string{"chobo", "run", "scenarios", "doc", "check", "format", "html", "lang", "javascript", "markdown",
	"do", "hold", "post", "void", "json", "utf"}

var (
	bookString  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	bookEscape  = regexp.MustCompile(`\\(?:u[0-9a-fA-F]{4}|.)`)
	bookComment = regexp.MustCompile(`(?m)#.*$`)
	bookAfter   = regexp.MustCompile(`\bafter\s+[0-9]+\s+[a-z]+`)
	bookName    = regexp.MustCompile(`[\p{L}_][\p{L}\p{N}_]*`)
	mdCode      = regexp.MustCompile("`[^`]*`")
)

// bookWords are the English words of a book's own: the words of its
// names and of its strings, not its keywords (a name may hold a keyword's
// word: retry_after) nor its comments.
func bookWords(src string) map[string]bool {
	keywords := map[string]bool{}
	for _, k := range syntax.Keywords {
		if k.Place == syntax.TimeWord {
			continue // a time word is a keyword only in "after 30 minutes", taken out below
		}
		for _, w := range strings.Fields(k.Phrase) {
			keywords[w] = true
		}
	}
	own := map[string]bool{}
	// A character a page cannot show is written as its escape (\u202e,
	// \x1b, \n), which may run into the letters after it: a string's
	// words are taken both ways.
	for _, s := range bookString.FindAllString(src, -1) {
		for w := range wordsOf(s + " " + bookEscape.ReplaceAllString(s, " ")) {
			own[w] = true
		}
	}
	code := bookAfter.ReplaceAllString(bookComment.ReplaceAllString(bookString.ReplaceAllString(src, " "), ""), " ")
	for _, name := range bookName.FindAllString(code, -1) {
		if !keywords[name] {
			for w := range wordsOf(name) {
				own[w] = true
			}
		}
	}
	return own
}

// pagePair is the page of one case's book in English and in Japanese,
// as text a reader meets, with the English words that are the book's own.
type pagePair struct {
	name, en, ja string
	own          map[string]bool
}

// englishLabels reads, for every case, the page of its book in English
// and the page of the same book in Japanese. An English word the English
// page writes that is none of the book's own words is a label of the
// page: labels maps each to a page that writes it.
func englishLabels(t *testing.T) (labels map[string]string, pairs []pagePair) {
	t.Helper()
	labels = map[string]string{}
	for _, c := range cases(t) {
		src, err := os.ReadFile(c.path())
		if err != nil {
			t.Fatal(err)
		}
		own := bookWords(string(src))
		for _, r := range []string{book.KeyConflict, book.AlreadyRefused, book.SameAccount, book.NoSuchHold, book.AlreadyPosted,
			book.AlreadyVoided, book.Expired, book.OverHold, "done_before"} {
			for w := range wordsOf(r) {
				own[w] = true
			}
		}
		// The team's scenarios are named in the team's words.
		if c.Scenarios {
			data, err := os.ReadFile(filepath.Join(c.Dir, "scenarios.json"))
			if err != nil {
				t.Fatal(err)
			}
			for w := range wordsOf(string(data) + " " + bookEscape.ReplaceAllString(string(data), " ")) {
				own[w] = true
			}
		}
		for _, f := range [][2]string{{"doc.html", "doc.ja.html"}, {"doc.md", "doc.ja.md"}} {
			en, err1 := os.ReadFile(c.expected(f[0]))
			ja, err2 := os.ReadFile(c.expected(f[1]))
			if err1 != nil || err2 != nil {
				continue
			}
			p := pagePair{name: c.Name + "/" + f[1], en: visibleText(string(en)), ja: visibleText(string(ja)), own: own}
			pairs = append(pairs, p)
			for w := range wordsOf(p.en) {
				if !own[w] && !slices.Contains(notLabels, w) {
					labels[w] = c.Name + "/" + f[0]
				}
			}
		}
	}
	if len(pairs) < 20 || len(labels) < 30 {
		t.Fatalf("only %d pairs of pages and %d English labels found", len(pairs), len(labels))
	}
	return labels, pairs
}

// TestJapanesePagesSpeakJapanese holds every case's Japanese page to
// writing none of the English labels (a step "pass 5 minutes" reads "5
// 分経過" there). Both formats are read: the HTML page with the data of
// its stepper, and Markdown.
func TestJapanesePagesSpeakJapanese(t *testing.T) {
	labels, pairs := englishLabels(t)
	for _, p := range pairs {
		var leaked []string
		for w := range wordsOf(p.ja) {
			if !p.own[w] && labels[w] != "" {
				leaked = append(leaked, w)
			}
		}
		sort.Strings(leaked)
		for _, w := range leaked {
			i := strings.Index(strings.ToLower(p.ja), w)
			t.Errorf("%s: the English label %q (as %s writes it) is on the Japanese page: …%s…", p.name, w, labels[w],
				strings.TrimSpace(p.ja[max(0, i-40):min(len(p.ja), i+40)]))
		}
	}
	t.Logf("%d Japanese pages read for %d English labels", len(pairs), len(labels))
}
