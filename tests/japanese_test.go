package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/cli"
	"github.com/chobo-lang/chobo/chobo/target"
)

// What Japanese output may hold in English: names, codes and values. What
// it may not: an English sentence. A sentence is told by its words: three
// or more lowercase ASCII words in a row, separated by single spaces
// ("the amount is", "move 1 would take"). Names rarely look like that
// (they have underscores, digits, capitals or stand alone), values are
// quoted, and the few fixed phrases of the language that do look like it
// are listed in jaAllowed.
var (
	englishRun = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.\-])((?:[a-z]+[,;:]? ){2,}[a-z]+)(?:$|[^A-Za-z0-9_\-(])`)
	// Quoted code and values are the user's, or the book's words.
	quotedCode  = regexp.MustCompile("`[^`]*`")
	quotedValue = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	// Go's way of printing a slice, which is never for people.
	goSlice = regexp.MustCompile(`\[[a-z_]+(?: [a-z_]+)+\]`)
)

// jaAllowed are the book's own keywords and fixed phrases that read like
// English words in a row but are the language's syntax, which Japanese
// output quotes as it is written.
var jaAllowed = []string{
	"at least", "at most", "refused as", "pending expires after", "expires after",
	"outside", "skip locked", "for update", "on conflict do nothing",
}

// englishSentences returns the English sentences in Japanese output out,
// once names are taken away: names holds the book's names, scenario names
// and other values the run was given, which may be any words; code holds
// the lines of the books, which diagnostics quote and explain prints.
func englishSentences(out string, names []string, code map[string]bool) []string {
	// Longest first, so that a scenario name goes whole before the book
	// names inside it; ASCII names only as whole words.
	sorted := slices.Clone(names)
	slices.SortFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	var found []string
	for _, line := range strings.Split(out, "\n") {
		// A line of a book, quoted under a diagnostic or printed by
		// explain, and SQL printed by --show, are code.
		if excerptMark.MatchString(line) || code[strings.TrimSpace(line)] || sqlLine.MatchString(line) {
			continue
		}
		for _, n := range sorted {
			if n != "" {
				line = replaceWord(line, n)
			}
		}
		line = quotedCode.ReplaceAllString(line, " ")
		line = quotedValue.ReplaceAllString(line, " ")
		for _, a := range jaAllowed {
			line = strings.ReplaceAll(line, a, " ")
		}
		for _, m := range englishRun.FindAllStringSubmatch(line, -1) {
			found = append(found, fmt.Sprintf("%q in %q", m[1], line))
		}
	}
	return found
}

var (
	excerptMark = regexp.MustCompile(`^\s*\d+ \| `)
	sqlLine     = regexp.MustCompile(`\bselect\b.*\bfrom\b`)
)

// replaceWord blanks every occurrence of name in line that is a whole
// word: not part of a longer run of letters, digits and underscores.
func replaceWord(line, name string) string {
	var b strings.Builder
	for {
		i := strings.Index(line, name)
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		end := i + len(name)
		whole := (i == 0 || !isWordByte(line[i-1])) && (end == len(line) || !isWordByte(line[end]))
		b.WriteString(line[:i])
		if whole {
			b.WriteString(" ")
		} else {
			b.WriteString(name)
		}
		line = line[end:]
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// jaRun is one command of the sweep: what it ran, and what it printed.
type jaRun struct {
	what     string
	out      string
	names    []string
	japanese bool
}

// sweep runs every command on every case, every code's repro, and the
// errors a user meets, in both languages.
func sweep(t *testing.T) ([]jaRun, map[string]bool) {
	t.Helper()
	var runs []jaRun
	code := map[string]bool{}
	addCode := func(text string) {
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				code[l] = true
			}
		}
	}
	do := func(dir string, names []string, args ...string) {
		for _, lang := range []string{"en", "ja"} {
			full := append(append([]string{}, args...), "--lang", lang)
			stdout, stderr, _ := run(dir, nil, full...)
			runs = append(runs, jaRun{what: strings.Join(full, " "), out: stdout + stderr, names: names, japanese: lang == "ja"})
		}
	}
	tmp := t.TempDir()
	for _, c := range cases(t) {
		names := bookNames(t, c.path())
		src, err := os.ReadFile(c.path())
		if err != nil {
			t.Fatal(err)
		}
		addCode(string(src))
		do(c.Dir, names, c.checkArgs()...)
		do(c.Dir, names, "explain", "--all")
		for _, target := range []string{"postgres", "postgres-go", "tigerbeetle-go"} {
			do(c.Dir, names, "build", c.Book, "--target", target, "--out", filepath.Join(tmp, c.Name, target))
		}
		gen, _, code := run(c.Dir, nil, "scenarios", c.Book)
		if code != cli.ExitOK {
			continue
		}
		genFile := filepath.Join(tmp, c.Name+".scenarios.json")
		if err := os.WriteFile(genFile, []byte(gen), 0o666); err != nil {
			t.Fatal(err)
		}
		// The generated titles: title_ja is Japanese, name English.
		var scs []struct {
			Name    string `json:"name"`
			TitleJa string `json:"title_ja"`
		}
		if err := json.Unmarshal([]byte(gen), &scs); err != nil {
			t.Fatalf("%s: scenarios: %v", c.Name, err)
		}
		var titles strings.Builder
		for _, sc := range scs {
			titles.WriteString(sc.TitleJa + "\n")
		}
		runs = append(runs, jaRun{what: "scenarios " + c.Book + " (title_ja)", out: titles.String(), names: names, japanese: true})
		do(c.Dir, names, "run", c.Book, "--scenario", genFile)
		do(c.Dir, names, "run", c.Book, "--scenario", genFile, "--show", "postgres")
		if c.Scenarios {
			// Hand-written scenarios name themselves: their names are values.
			given := append(append([]string{}, names...), scenarioNames(t, filepath.Join(c.Dir, "scenarios.json"))...)
			do(c.Dir, given, "run", c.Book, "--scenario", "scenarios.json")
		}
	}
	for _, code := range target.Codes() {
		addCode(code.Repro)
		addCode(code.Against)
	}
	for _, code := range target.Codes() {
		dir := filepath.Join(tmp, "code-"+code.Code)
		if err := os.MkdirAll(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{"repro.book": code.Repro, "against.book": code.Against}
		for name, text := range files {
			if text != "" {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o666); err != nil {
					t.Fatal(err)
				}
			}
		}
		names := bookNames(t, filepath.Join(dir, "repro.book"))
		args := []string{"check", "repro.book"}
		if code.Against != "" {
			args = append(args, "--against", "against.book")
		}
		do(dir, names, args...)
		if code.Target != "" {
			do(dir, names, "build", "repro.book", "--target", code.Target, "--out", filepath.Join(dir, "out"))
		}
		do(dir, names, "explain", code.Code)
	}
	do(".", nil, "--help")
	for _, c := range cli.Commands {
		do(".", nil, c.Name, "--help")
	}
	// The errors a user meets: files that are not there, scenario files
	// that are wrong, and calls that fail.
	inv := caseByName(t, "stock_reservation")
	bad := map[string]string{
		"steps.json":    `{"name": "s", "steps": [{"op": "reserve_stock.hold", "pass": "1 day"}]}`,
		"op.json":       `{"name": "s", "steps": [{"op": "reserve_stock.do", "args": {}}]}`,
		"field.json":    `{"name": "s", "steps": [{"op": "restock.do", "bogus": 1}]}`,
		"open.json":     `{"name": "s", "steps": [{"pass": "1 day"}]`,
		"together.json": `{"name": "s", "steps": [{"together": [[]]}]}`,
		"fail.json": `{"name": "s", "outcomes": 2, "steps": [
			{"op": "reserve_stock.hold", "args": {"order": "o", "sku": "s", "qty": 1}, "expect": "done"},
			{"op": "restock.do", "args": {"delivery": "d", "sku": "s", "qty": 99999999999999999999}},
			{"op": "restock.do", "args": {"delivery": "e", "sku": "s", "qty": 9223372036854775807}},
			{"op": "restock.do", "args": {"delivery": "f", "sku": "s", "qty": 1}, "expect": "done_before"}]}`,
	}
	for name, text := range bad {
		path := filepath.Join(tmp, name)
		if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
		do(inv.Dir, bookNames(t, inv.path()), "run", inv.Book, "--scenario", path)
	}
	do(".", nil, "check", "no-such.book")
	do(".", nil, "run", filepath.Join(inv.Dir, inv.Book), "--scenario", tmp)
	return runs, code
}

// bookNames lists the names a book declares: Japanese output quotes them
// as they are, in any language.
func bookNames(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	// The words of the book's own lines are its names and its keywords;
	// its descriptions are values.
	for _, line := range strings.Split(string(src), "\n") {
		for _, m := range quotedValue.FindAllString(line, -1) {
			names = append(names, strings.Trim(m, `"`))
		}
	}
	res := check.Check(filepath.Base(path), src)
	if b := res.Book; b != nil {
		names = append(names, b.Name)
		for _, u := range b.Units {
			names = append(names, u.Name)
		}
		for _, a := range b.Accounts {
			names = append(names, a.Name, a.Description)
			names = append(names, a.Params...)
		}
		for _, tr := range b.Transfers {
			names = append(names, tr.Name, tr.Description)
			for _, p := range tr.Params {
				names = append(names, p.Name)
			}
		}
	}
	return names
}

// scenarioNames lists the names a scenario file gives its scenarios.
func scenarioNames(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var scs []struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(data, &scs) != nil {
		var one struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(data, &one); err != nil {
			t.Fatal(err)
		}
		return []string{one.Name}
	}
	var out []string
	for _, sc := range scs {
		out = append(out, sc.Name)
	}
	return out
}

// Under --lang ja nothing a user reads is English but names, codes and
// values; in either language, no list is printed the way Go prints a
// slice.
func TestJapaneseHasNoEnglishSentence(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command on every case")
	}
	runs, code := sweep(t)
	for _, r := range runs {
		if m := goSlice.FindString(r.out); m != "" {
			t.Errorf("%s prints a Go slice %s", r.what, m)
		}
		if !r.japanese {
			continue
		}
		found := englishSentences(r.out, r.names, code)
		if len(found) > 3 {
			found = append(found[:3], fmt.Sprintf("and %d more", len(found)-3))
		}
		for _, f := range found {
			t.Errorf("%s: English in Japanese output: %s", r.what, f)
		}
	}
}

// The heuristic itself: it finds the sentences the review found, and
// leaves names and values alone.
func TestEnglishSentenceHeuristic(t *testing.T) {
	for line, want := range map[string]bool{
		"失敗: 入荷.do(納品書: 納品書-3): move 1 would take a balance out of 64 bits":            true,
		"不一致: step 1: expected done, got refused: out_of_stock":                        true,
		"chobo check: nosuch.book を読めません: open nosuch.book: no such file or directory": true,
		"  キー: redeem は、use ごとに一度だけ実行されます。":                                            false,
		"  引き換え.do  拒否されうる理由: 引換券なし(引換券(会員) at least 0)、already_refused":               false,
		"`the book's name is here` は使えません":                                             false,
		"ヒント: 1 秒から 4294967295 秒までを、seconds・minutes・hours・days の整数で":                   false,
	} {
		if got := len(englishSentences(line, nil, nil)) > 0; got != want {
			t.Errorf("%q: English sentence %v, want %v", line, got, want)
		}
	}
}

// Every bound and amount a diagnostic or the refusal report prints is at
// its unit's scale, as the book writes it: in a book whose units all have
// scale 2, each such number has two decimals.
func TestBoundsAtTheUnitsScale(t *testing.T) {
	amount := regexp.MustCompile(`(?:at least|at most|bound|下限|上限|takes|puts|posted|held out|held in|確定|出ていく仮押さえ|入ってくる仮押さえ|から|へ|amount:) (-?[0-9][0-9.]*)`)
	// An amount argument of a call as a listing writes it: `qty: 2.50`.
	callAmount := regexp.MustCompile(`(?:\(|, )[^:(),\s]+: (-?[0-9][0-9.]*)[,)]`)
	seen := 0
	// A book every running diagnostic fires on, in dollars: W102 (always
	// refused, lower bound 3.00), W103 (move order) and W104 (a hold's own
	// moves), with the refusal report under them.
	probe := testCase{Name: "probe", Dir: t.TempDir(), Book: "probe.book"}
	write(t, probe.path(), `book probe v1
unit USD scale 2
account never_filled : USD
  at least 3.00 refused as short
account wallet(member: string) : USD
  at least 0 refused as wallet_short
  at most 1000.00 refused as wallet_full
account world : USD outside
transfer spend(id: string, amount: USD)
  key id
  move amount from never_filled to world
transfer top_up(id: string, member: string, amount: USD)
  key id
  move amount from world to wallet(member)
transfer shuffle(id: string, member: string, amount: USD)
  key id
  move amount from wallet(member) to world
  move amount from world to wallet(member)
transfer settle(id: string, member: string, amount: USD)
  key id
  pending expires after 1 day
  move amount from world to wallet(member)
  move amount from wallet(member) to world
`)
	for _, c := range append(cases(t), probe) {
		src, err := os.ReadFile(c.path())
		if err != nil {
			t.Fatal(err)
		}
		res := check.Check(c.Book, src)
		if res.Book == nil || len(res.Book.Units) == 0 {
			continue
		}
		scale := res.Book.Units[0].Scale
		same := scale > 0
		for _, u := range res.Book.Units {
			same = same && u.Scale == scale
		}
		if !same {
			continue
		}
		seen++
		atScale := func(what, text string, re *regexp.Regexp) {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				n := strings.TrimRight(m[1], ".")
				if i := strings.IndexByte(n, '.'); i < 0 || len(n)-i-1 != scale {
					t.Errorf("%s %s: %q is not at the unit's scale %d", c.Name, what, m[0], scale)
				}
			}
		}
		for _, lang := range []string{"en", "ja"} {
			stdout, stderr, _ := run(c.Dir, nil, append(c.checkArgs(), "--lang", lang)...)
			atScale("check --lang "+lang, stdout+stderr, amount)
			// The text of a run reads amounts as check does: the calls it
			// lists and the balances they leave.
			for _, file := range []string{"scenarios.json", filepath.Join("expected", "scenarios.json")} {
				if _, err := os.Stat(filepath.Join(c.Dir, file)); err != nil {
					continue
				}
				stdout, stderr, _ := run(c.Dir, nil, "run", c.Book, "--scenario", file, "--lang", lang)
				atScale("run --scenario "+file+" --lang "+lang, stdout+stderr, amount)
				atScale("run --scenario "+file+" --lang "+lang, stdout, callAmount)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no case has units of one scale above 0: the test checks nothing")
	}
}
