package tests

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/cli"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/tests/golden"
)

// pageData is the part of what a page carries that this test reads: the
// scenarios of its stepper, their steps and the ledger after each step of
// each outcome, read back from the data block (where each row, hold,
// step and state is written once and named by its place) and the
// titles from the scenario list.
type pageData struct {
	Scenarios []pageScenario
}

type pageScenario struct {
	Title    string
	Steps    []string // labels
	Outcomes [][]pageState
}

type pageState struct {
	Ledger [][4]string // account, posted, held out, held in
	Holds  [][2]string
}

// pageJSON is the page's data block as the page writes it.
type pageJSONData struct {
	Rows      [][4]string          `json:"rows"`
	Holds     [][2]string          `json:"holds"`
	Steps     [][3]json.RawMessage `json:"steps"`
	States    [][5]json.RawMessage `json:"states"`
	Scenarios []struct {
		Steps    []int   `json:"steps"`
		Outcomes [][]int `json:"outcomes"`
	} `json:"scenarios"`
}

var (
	pageJSON    = regexp.MustCompile(`<script type="application/json" id="chobo-data">([^<]*)</script>`)
	pageOption  = regexp.MustCompile(`<option value="[0-9]+">[0-9]+\. ([^<]*)</option>`)
	pageGrouped = regexp.MustCompile(`([0-9]),([0-9]{3})`)
)

// readPage takes the scenarios out of a page written by chobo doc.
func readPage(t *testing.T, page string) pageData {
	t.Helper()
	m := pageJSON.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page carries no scenario data")
	}
	var raw pageJSONData
	if err := json.Unmarshal([]byte(m[1]), &raw); err != nil {
		t.Fatal(err)
	}
	options := pageOption.FindAllStringSubmatch(page, -1)
	if len(options) != len(raw.Scenarios) {
		t.Fatalf("the page lists %d scenarios and carries %d", len(options), len(raw.Scenarios))
	}
	var d pageData
	for i, rs := range raw.Scenarios {
		ps := pageScenario{Title: html.UnescapeString(options[i][1])}
		for _, k := range rs.Steps {
			var label string
			if err := json.Unmarshal(raw.Steps[k][0], &label); err != nil {
				t.Fatal(err)
			}
			ps.Steps = append(ps.Steps, label)
		}
		for _, o := range rs.Outcomes {
			var states []pageState
			for _, k := range o {
				var rows, holds []int
				if err := json.Unmarshal(raw.States[k][2], &rows); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(raw.States[k][4], &holds); err != nil {
					t.Fatal(err)
				}
				var st pageState
				for _, r := range rows {
					st.Ledger = append(st.Ledger, raw.Rows[r])
				}
				for _, h := range holds {
					st.Holds = append(st.Holds, raw.Holds[h])
				}
				states = append(states, st)
			}
			ps.Outcomes = append(ps.Outcomes, states)
		}
		d.Scenarios = append(d.Scenarios, ps)
	}
	return d
}

// ledgerKey writes accounts as the page does (at their unit's scale).
func ledgerKey(rows []string) string { return strings.Join(rows, "; ") }

// TestDocBalancesAreTheInterpreters reads the balances every step of
// every outcome of every scenario shows on each case's HTML page, and
// runs the scenario cut after that step on the interpreter afresh: the
// page's ledger must be one the cut scenario ends in, and the page's
// outcomes, at their last step, the full scenario's, in its order.
func TestDocBalancesAreTheInterpreters(t *testing.T) {
	steps, scenarios := 0, 0
	for _, c := range cases(t) {
		src, err := os.ReadFile(c.path())
		if err != nil {
			t.Fatal(err)
		}
		res := check.Check(c.Book, src)
		if res.Book == nil {
			continue
		}
		b := res.Book
		for _, lang := range []string{"en", "ja"} {
			html, stderr, code := run(c.Dir, nil, "doc", c.Book, "--format", "html", "--lang", lang)
			if code != cli.ExitOK {
				t.Fatalf("%s: chobo doc: exit %d: %s", c.Name, code, stderr)
			}
			page := readPage(t, html)
			// the generated scenarios that read the history are off the page
			scs := slices.DeleteFunc(scenario.Generate(b), scenario.Scenario.Reads)
			if len(page.Scenarios) != len(scs) {
				t.Fatalf("%s: the page has %d scenarios, chobo scenarios makes %d", c.Name, len(page.Scenarios), len(scs))
			}
			for i, sc := range scs {
				ps := page.Scenarios[i]
				full := scenario.Run(b, sc)
				if len(ps.Outcomes) != len(full) {
					t.Errorf("%s: scenario %d: %d outcomes on the page, %d on the interpreter", c.Name, i+1, len(ps.Outcomes), len(full))
					continue
				}
				for k := range sc.Steps {
					cut := sc
					cut.Steps = sc.Steps[:k+1]
					ends := map[string]bool{}
					for _, o := range scenario.Run(b, cut) {
						ends[ledgerOfOutcome(o)] = true
					}
					for oi, po := range ps.Outcomes {
						var rows []string
						for _, r := range po[k].Ledger {
							rows = append(rows, r[0]+"="+r[1]+"/"+r[2]+"/"+r[3])
						}
						got := ledgerKey(rows)
						if !ends[got] {
							t.Errorf("%s (%s): scenario %d, outcome %d, step %d: the page shows %s, which the first %d steps never end in",
								c.Name, lang, i+1, oi+1, k+1, got, k+1)
						}
						if k == len(sc.Steps)-1 && got != ledgerOfOutcome(full[oi]) {
							t.Errorf("%s (%s): scenario %d, outcome %d ends with %s on the page, %s on the interpreter",
								c.Name, lang, i+1, oi+1, got, ledgerOfOutcome(full[oi]))
						}
						steps++
					}
				}
				scenarios++
			}
		}
	}
	if steps == 0 {
		t.Fatal("no step was compared")
	}
	t.Logf("%d steps of %d scenarios (both languages) on the pages are the interpreter's", steps, scenarios)
}

func ledgerOfOutcome(o scenario.Outcome) string {
	var rows []string
	for _, a := range o.Accounts {
		sc := a.Account.Kind.Unit.Scale
		rows = append(rows, a.Account.String()+"="+book.FormatAmount(a.Balance.Posted, sc)+"/"+
			book.FormatAmount(a.Balance.HeldOut, sc)+"/"+book.FormatAmount(a.Balance.HeldIn, sc))
	}
	return ledgerKey(rows)
}

// TestDocOut writes pages under --out, named after the file: the English
// and the Japanese book of one folder do not collide, and a book with
// errors writes nothing.
func TestDocOut(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"inventory.book", "inventory.ja.book"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "inventory", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "pages")
	for _, v := range []struct{ file, format, want string }{
		{"inventory.book", "markdown", "inventory.md"},
		{"inventory.ja.book", "markdown", "inventory.ja.md"},
		{"inventory.book", "html", "inventory.html"},
		{"inventory.ja.book", "html", "inventory.ja.html"},
	} {
		stdout, stderr, code := run(dir, nil, "doc", v.file, "--format", v.format, "--out", out)
		if code != cli.ExitOK || stdout != "" {
			t.Fatalf("chobo doc %s --format %s --out: exit %d, stdout %q: %s", v.file, v.format, code, stdout, stderr)
		}
		want := filepath.Join(out, v.want)
		if strings.TrimSpace(stderr) != want {
			t.Errorf("chobo doc said %q, want the path written, %q", stderr, want)
		}
		if _, err := os.Stat(want); err != nil {
			t.Error(err)
		}
	}
	bad := filepath.Join(dir, "bad.book")
	if err := os.WriteFile(bad, []byte("book bad v1\nunit pcs\naccount a : nosuchunit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(dir, nil, "doc", "bad.book", "--out", out)
	if code != cli.ExitError || stdout != "" || !strings.Contains(stderr, "nosuchunit") {
		t.Errorf("a book with errors: exit %d, stdout %q, stderr %q; want exit 1 and its diagnostics", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "bad.md")); err == nil {
		t.Error("a book with errors got a page")
	}
	if _, _, code := run(dir, nil, "doc", "inventory.book", "--format", "pdf"); code != cli.ExitUsage {
		t.Errorf("an unknown format: exit %d, want 2", code)
	}
}

var sameDocument = regexp.MustCompile(`\bhref="#[^"/:]*"`)

// TestDocLoadsNothingFromElsewhere reads each page for anything that
// would make the browser ask for a resource: every src and href, url(),
// @import, and a policy that allows any.
func TestDocLoadsNothingFromElsewhere(t *testing.T) {
	external := regexp.MustCompile(`(?i)\b(src|href|srcset|action|poster|data)\s*=|url\([^#]|@import|//[a-z0-9.-]+\.[a-z]{2,}/`)
	stepperScript := regexp.MustCompile(`(?s)<script>.*?</script>`)
	fetches := regexp.MustCompile(`fetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon|import\(|importScripts|\.src\b|new Image|window\.open`)
	pages := 0
	for _, c := range cases(t) {
		args := []string{"doc", c.Book, "--format", "html"}
		if c.Scenarios {
			args = append(args, "--scenario", "scenarios.json")
		}
		html, _, code := run(c.Dir, nil, args...)
		if code != cli.ExitOK {
			continue
		}
		pages++
		body := pageJSON.ReplaceAllString(html, "")
		script := stepperScript.FindString(body)
		if script == "" {
			t.Errorf("%s: the page has no stepper", c.Name)
		}
		if m := fetches.FindString(script); m != "" {
			t.Errorf("%s: the stepper may ask for something: %q", c.Name, m)
		}
		body = strings.Replace(body, script, "", 1)
		body = strings.ReplaceAll(body, "http://www.w3.org/2000/svg", "")
		// A link to a place on the page itself (the stepper at a step)
		// asks for nothing.
		body = sameDocument.ReplaceAllString(body, "")
		if m := external.FindString(body); m != "" {
			t.Errorf("%s: the page may load something from elsewhere: %q", c.Name, m)
		}
		if !strings.Contains(html, `<meta http-equiv="Content-Security-Policy" content="default-src 'none';`) {
			t.Errorf("%s: the page has no policy that refuses everything by default", c.Name)
		}
	}
	if pages == 0 {
		t.Fatal("no page read")
	}
}

// TestExampleDocs keeps the page beside each example book in step with
// what chobo doc writes: doc.md for the English book, doc.ja.md, in
// Japanese, for its Japanese twin, each with the book's <stem>.more.json
// when it has one. The golden switch rewrites them.
func TestExampleDocs(t *testing.T) {
	books, _ := filepath.Glob(filepath.Join("..", "examples", "*", "*.book"))
	n := 0
	for _, p := range books {
		dir, file := filepath.Split(p)
		name, args := "doc.md", []string{"doc", file}
		if strings.HasSuffix(file, ".ja.book") {
			name, args = "doc.ja.md", append(args, "--lang", "ja")
		} else if _, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(file, ".book")+".ja.book")); err != nil {
			continue // a book without a twin (examples/lostupdate) is no example of the pages
		}
		// The page shows the team's scenarios beside the book, as the
		// chobo_doc Gazelle writes for it does.
		if more := strings.TrimSuffix(file, ".book") + ".more.json"; fileExists(filepath.Join(dir, more)) {
			args = append(args, "--scenario", more)
		}
		out, stderr, code := run(dir, nil, args...)
		if code != cli.ExitOK {
			t.Fatalf("chobo %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		golden.Check(t, filepath.Join(dir, name), []byte(out))
		n++
	}
	if n < 2 {
		t.Fatalf("only %d example pages", n)
	}
}

// TestDocOwnScenarios gives each case's own scenario file to chobo doc,
// twice: the page's stepper must hold both copies first, each ending in
// the interpreter's ledgers, then the generated scenarios. A file that
// cannot be read or does not fit the book stops the page with its name
// and writes nothing; an expectation the book does not meet is on the
// page.
func TestDocOwnScenarios(t *testing.T) {
	compared := 0
	for _, c := range cases(t) {
		if !c.Scenarios {
			continue
		}
		src, err := os.ReadFile(c.path())
		if err != nil {
			t.Fatal(err)
		}
		b := check.Check(c.Book, src).Book
		data, err := os.ReadFile(filepath.Join(c.Dir, "scenarios.json"))
		if err != nil {
			t.Fatal(err)
		}
		own, err := scenario.Read(b, data)
		if err != nil {
			t.Fatal(err)
		}
		html, stderr, code := run(c.Dir, nil, "doc", c.Book, "--format", "html", "--scenario", "scenarios.json", "--scenario", "scenarios.json")
		if code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", c.Name, code, stderr)
		}
		page := readPage(t, html)
		gen := slices.DeleteFunc(scenario.Generate(b), scenario.Scenario.Reads)
		if len(page.Scenarios) != 2*len(own)+len(gen) {
			t.Fatalf("%s: the page has %d scenarios, want %d of the file twice and %d generated", c.Name, len(page.Scenarios), len(own), len(gen))
		}
		for i, ps := range page.Scenarios {
			want := gen[max(0, i-2*len(own))]
			if i < 2*len(own) {
				want = own[i%len(own)]
			}
			// The page groups the digits of the numbers in a title.
			if ungroup(ps.Title) != want.Title(diag.English) {
				t.Errorf("%s: scenario %d is %q on the page, want %q", c.Name, i+1, ps.Title, want.Title(diag.English))
			}
			full := scenario.Run(b, want)
			if len(ps.Outcomes) != len(full) {
				t.Errorf("%s: scenario %d: %d outcomes on the page, %d on the interpreter", c.Name, i+1, len(ps.Outcomes), len(full))
				continue
			}
			for oi, po := range ps.Outcomes {
				last := po[len(po)-1]
				var rows []string
				for _, r := range last.Ledger {
					rows = append(rows, r[0]+"="+r[1]+"/"+r[2]+"/"+r[3])
				}
				if got := ledgerKey(rows); got != ledgerOfOutcome(full[oi]) {
					t.Errorf("%s: scenario %d, outcome %d ends with %s on the page, %s on the interpreter", c.Name, i+1, oi+1, got, ledgerOfOutcome(full[oi]))
				}
				compared++
			}
		}
	}
	if compared == 0 {
		t.Fatal("no case has scenarios of its own")
	}

	c := caseByName(t, "refunds")
	dir := t.TempDir()
	out := filepath.Join(dir, "pages")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"name": "x", "steps": [{"op": "nosuch.do", "args": {}}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		file string
		code int
	}{{bad, cli.ExitError}, {filepath.Join(dir, "missing.json"), cli.ExitUsage}} {
		for _, lang := range []string{"en", "ja"} {
			stdout, stderr, code := run(c.Dir, nil, "doc", c.Book, "--scenario", "scenarios.json", "--scenario", v.file, "--out", out, "--lang", lang)
			if code != v.code || stdout != "" || !strings.Contains(stderr, filepath.Base(v.file)) || strings.Contains(stderr, "panic") {
				t.Errorf("doc --scenario %s (%s): exit %d, stdout %q, stderr %q; want exit %d and the file named", v.file, lang, code, stdout, stderr, v.code)
			}
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a bad scenario file still wrote a page")
	}

	unmet := filepath.Join(dir, "unmet.json")
	if err := os.WriteFile(unmet, []byte(`{"name": "a sale refused", "steps": [{"op": "sale.do", "args": {"order": "o", "amount": 100}, "expect": "refused: nosuch"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	md, stderr, code := run(c.Dir, nil, "doc", c.Book, "--scenario", unmet)
	if code != cli.ExitOK {
		t.Fatalf("doc --scenario with an unmet expectation: exit %d: %s", code, stderr)
	}
	if !strings.Contains(md, "Expectation not met: step 1: expected refused: nosuch, got done") {
		t.Errorf("the page does not say the expectation is not met:\n%s", md)
	}
}

// ungroup takes out the commas the page puts between the digits of a
// number.
func ungroup(s string) string {
	for {
		t := pageGrouped.ReplaceAllString(s, "$1$2")
		if t == s {
			return s
		}
		s = t
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
