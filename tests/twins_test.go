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

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/cli"
	"github.com/chobo-lang/chobo/chobo/target"
)

// Every case has a Japanese twin, the case of the same name with _ja:
// the same book with its names (and file name) in Japanese, and the same
// previous version, if any, likewise. Twins report the same codes and,
// when they have hand-written scenarios, run them alike.

type twin struct{ english, japanese testCase }

// twins pairs the cases, and fails for a case without its twin.
func twins(t *testing.T) []twin {
	t.Helper()
	byName := map[string]testCase{}
	for _, c := range cases(t) {
		byName[c.Name] = c
	}
	var out []twin
	for _, c := range cases(t) {
		if en, ok := strings.CutSuffix(c.Name, jaSuffix); ok {
			if _, ok := byName[en]; !ok {
				t.Errorf("%s has no English twin %s", c.Name, en)
			}
			continue
		}
		ja, ok := byName[c.Name+jaSuffix]
		if !ok {
			t.Errorf("%s has no Japanese twin %s%s", c.Name, c.Name, jaSuffix)
			continue
		}
		out = append(out, twin{c, ja})
	}
	return out
}

var codeInText = regexp.MustCompile(`(?m)^[^\s\[]+\[([EW]\d{3})\]`)

// codesOf returns the codes a case reports, from check and from the
// build of every target, and the exit status of check.
func codesOf(t *testing.T, c testCase) ([]string, int) {
	t.Helper()
	out, errOut, code := run(c.Dir, nil, c.checkArgs("--format", "json")...)
	if code == cli.ExitUsage {
		t.Fatalf("check %s: exit 2: %s", c.Name, errOut)
	}
	var r api.Check
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("check %s: %v\n%s", c.Name, err, out)
	}
	var cs []string
	for _, d := range r.Files[0].Diagnostics {
		cs = append(cs, d.Code)
	}
	if code == cli.ExitOK {
		for _, tg := range target.All {
			_, errOut, _ := run(c.Dir, nil, "build", c.Book, "--target", tg.Name, "--out", t.TempDir())
			for _, m := range codeInText.FindAllStringSubmatch(errOut, -1) {
				cs = append(cs, m[1])
			}
		}
	}
	slices.Sort(cs)
	return slices.Compact(cs), code
}

// TestTwinsReportAlike checks that twins report the same codes with the
// same exit status, and that every code chobo knows is reported by some
// case.
func TestTwinsReportAlike(t *testing.T) {
	seen := map[string]bool{}
	for _, tw := range twins(t) {
		if tw.english.Against != tw.japanese.Against {
			t.Errorf("%s compares with %q, its twin %s with %q", tw.english.Name, tw.english.Against, tw.japanese.Name, tw.japanese.Against)
		}
		en, enExit := codesOf(t, tw.english)
		ja, jaExit := codesOf(t, tw.japanese)
		if !slices.Equal(en, ja) || enExit != jaExit {
			t.Errorf("twins differ: %s gives %v (exit %d), %s gives %v (exit %d)", tw.english.Name, en, enExit, tw.japanese.Name, ja, jaExit)
		}
		for _, c := range en {
			seen[c] = true
		}
	}
	for _, c := range target.Codes() {
		// A code raised by a database while it runs is no diagnostic:
		// chobo/codes builds its repro instead.
		if c.Raised != "" {
			continue
		}
		if !seen[c.Code] {
			t.Errorf("no case reports %s: add one (and its twin) under %s", c.Code, casesDir)
		}
	}
}

// TestTwinsRunAlike checks that twins with hand-written scenarios answer
// them alike: the same number of scenarios and of possible outcomes, and
// in each outcome the same results, balances and hold states. Names are
// left out: a refusal by a bound is compared by which bound of which
// account kind refused.
func TestTwinsRunAlike(t *testing.T) {
	for _, tw := range twins(t) {
		if tw.english.Scenarios != tw.japanese.Scenarios {
			t.Errorf("only one of %s and %s has scenarios.json", tw.english.Name, tw.japanese.Name)
			continue
		}
		if tw.english.Deploys != tw.japanese.Deploys {
			t.Errorf("only one of %s and %s has %s", tw.english.Name, tw.japanese.Name, deploysFile)
		} else if tw.english.Deploys {
			t.Run(tw.english.Name+"/"+deploysFile, func(t *testing.T) {
				en, ja := runShape(t, tw.english, deploysFile), runShape(t, tw.japanese, deploysFile)
				if !slices.Equal(en, ja) {
					t.Errorf("%s runs differently:\n%s: %s\n%s: %s", deploysFile, tw.english.Name, en, tw.japanese.Name, ja)
				}
			})
		}
		if !tw.english.Scenarios {
			continue
		}
		t.Run(tw.english.Name, func(t *testing.T) {
			en, ja := runShape(t, tw.english, "scenarios.json"), runShape(t, tw.japanese, "scenarios.json")
			if len(en) != len(ja) {
				t.Fatalf("%s has %d scenarios, %s has %d", tw.english.Name, len(en), tw.japanese.Name, len(ja))
			}
			for i := range en {
				if en[i] != ja[i] {
					t.Errorf("scenario %d runs differently:\n%s: %s\n%s: %s", i+1, tw.english.Name, en[i], tw.japanese.Name, ja[i])
				}
			}
		})
	}
}

// runShape runs a case's hand-written scenarios (file: scenarios.json or
// deploys.json) and writes each one's
// outcomes without names, one string per scenario. An account is written
// as the position of its kind and the numbers its argument values end in
// (values are numbered by first appearance, `sku-2`, so twins number them
// alike), a hold likewise by its transfer kind and key values; both are
// sorted, since the interpreter lists them by name.
func runShape(t *testing.T, c testCase, file string) []string {
	t.Helper()
	books := []string{c.path()}
	if file == deploysFile {
		// The versions it deploys bring reasons of their own.
		more, _ := filepath.Glob(filepath.Join(c.Dir, "versions", "*.book"))
		books = append(books, more...)
	}
	bounds := map[string]string{}
	kinds := map[string]int{}
	var res check.Result
	for j, path := range books {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r := check.Check(filepath.Base(path), src)
		if r.Book == nil {
			t.Fatalf("%s does not check", path)
		}
		if j == 0 {
			res = r
		}
		for i, a := range r.Book.Accounts {
			kinds[a.Name] = i + 1
			if a.Lower != nil {
				bounds[a.Lower.Reason] = fmt.Sprintf("<lower bound of account kind %d>", i+1)
			}
			if a.Upper != nil {
				bounds[a.Upper.Reason] = fmt.Sprintf("<upper bound of account kind %d>", i+1)
			}
		}
	}
	transfers := map[string]int{}
	for i, tr := range res.Book.Transfers {
		transfers[tr.Name] = i + 1
	}
	out, errOut, code := run(c.Dir, nil, "run", c.Book, "--scenario", file, "--format", "json")
	if code != 0 {
		t.Fatalf("run %s: exit %d: %s", c.Name, code, errOut)
	}
	var rep api.Run
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var shapes []string
	for _, sc := range rep.Scenarios {
		var b strings.Builder
		fmt.Fprintf(&b, "%d outcomes", len(sc.Outcomes))
		for _, o := range sc.Outcomes {
			b.WriteString(" | results:")
			for _, r := range o.Results {
				reason := r.Reason
				if name, ok := bounds[reason]; ok {
					reason = name
				}
				b.WriteString(" " + r.Result)
				if reason != "" {
					b.WriteString(":" + reason)
				}
			}
			var accounts, holds []string
			for _, a := range o.Accounts {
				accounts = append(accounts, fmt.Sprintf("%s=%d/%d/%d", unnamed(t, a.Account, kinds), a.Posted, a.HeldOut, a.HeldIn))
			}
			for _, h := range o.Holds {
				holds = append(holds, unnamed(t, h.Hold, transfers)+"="+h.State)
			}
			slices.Sort(accounts)
			slices.Sort(holds)
			fmt.Fprintf(&b, "; accounts: %s; holds: %s", strings.Join(accounts, " "), strings.Join(holds, " "))
		}
		shapes = append(shapes, b.String())
	}
	return shapes
}

var valueNumber = regexp.MustCompile(`-([0-9]+)$`)

// unnamed writes `在庫(sku-2)` as `#1(2)`: the position of the kind and
// the number each value ends in.
func unnamed(t *testing.T, name string, kinds map[string]int) string {
	t.Helper()
	kind, args, hasArgs := strings.Cut(strings.TrimSuffix(name, ")"), "(")
	i, ok := kinds[kind]
	if !ok {
		t.Fatalf("%q: no kind %q in the book", name, kind)
	}
	out := fmt.Sprintf("#%d", i)
	if !hasArgs {
		return out
	}
	var nums []string
	for _, v := range strings.Split(args, ", ") {
		m := valueNumber.FindStringSubmatch(v)
		if m == nil {
			t.Fatalf("%q: the value %q does not end in its number", name, v)
		}
		nums = append(nums, m[1])
	}
	return out + "(" + strings.Join(nums, ",") + ")"
}
