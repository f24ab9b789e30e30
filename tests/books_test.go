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
	"github.com/chobo-lang/chobo/tests/golden"
)

const booksDir = "books"

// bookTwins pairs each English test book with its Japanese twin. The two
// are the same book with names translated, and their hand-written
// scenarios (<book>.more.json) are written step for step alike.
var bookTwins = []struct{ english, japanese string }{
	{"stock_reservation", "在庫"},
	{"credit", "与信"},
	{"wallet", "ウォレット"},
	{"safety_stock", "安全在庫"},
	{"to_itself", "自分あて"},
	{"allocation", "分配"},
}

// testBooks lists the stems of the books under tests/books.
func testBooks(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(booksDir, "*.book"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test books: %v", err)
	}
	var stems []string
	for _, p := range paths {
		stems = append(stems, strings.TrimSuffix(filepath.Base(p), ".book"))
	}
	return stems
}

// TestBooksCheckClean checks that every test book has neither an error
// nor a warning.
func TestBooksCheckClean(t *testing.T) {
	for _, stem := range testBooks(t) {
		t.Run(stem, func(t *testing.T) {
			out, errOut, code := run(booksDir, nil, "check", "--format", "json", stem+".book")
			if code != 0 {
				t.Fatalf("check exits %d: %s%s", code, out, errOut)
			}
			var r api.Check
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(r.Files) != 1 || len(r.Files[0].Diagnostics) != 0 {
				t.Errorf("the book is not clean:\n%s", out)
			}
		})
	}
}

// TestBookScenarios runs the hand-written scenarios of every test book
// and compares the text output in both languages and the JSON output with
// goldens.
func TestBookScenarios(t *testing.T) {
	for _, stem := range testBooks(t) {
		t.Run(stem, func(t *testing.T) {
			book, more := stem+".book", stem+".more.json"
			if _, err := os.Stat(filepath.Join(booksDir, more)); err != nil {
				t.Fatalf("%s has no hand-written scenarios: %v", book, err)
			}
			for _, v := range []struct {
				suffix string
				args   []string
			}{
				{".more.runs.txt", []string{"run", book, "--scenario", more}},
				{".more.runs.ja.txt", []string{"run", book, "--scenario", more, "--lang", "ja"}},
				{".more.runs.json", []string{"run", book, "--scenario", more, "--format", "json"}},
			} {
				out, errOut, code := run(booksDir, nil, v.args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", v.args, code, errOut)
				}
				golden.Check(t, filepath.Join(booksDir, "golden", stem+v.suffix), []byte(out))
			}
		})
	}
}

// TestBookTwinsRunAlike checks that every test book has a twin in
// bookTwins, and that the two answer their scenarios alike: the same
// number of scenarios and of possible outcomes, and in each outcome the
// same results, balances and hold states. Names are left out: a refusal by
// a bound is compared by which bound of which account kind refused.
func TestBookTwinsRunAlike(t *testing.T) {
	paired := map[string]bool{}
	for _, tw := range bookTwins {
		paired[tw.english], paired[tw.japanese] = true, true
	}
	for _, stem := range testBooks(t) {
		if !paired[stem] {
			t.Errorf("%s.book has no twin in bookTwins", stem)
		}
	}
	for _, tw := range bookTwins {
		t.Run(tw.english, func(t *testing.T) {
			en, ja := runShape(t, tw.english), runShape(t, tw.japanese)
			if len(en) != len(ja) {
				t.Fatalf("%s has %d scenarios, %s has %d", tw.english, len(en), tw.japanese, len(ja))
			}
			for i := range en {
				if en[i] != ja[i] {
					t.Errorf("scenario %d runs differently:\n%s: %s\n%s: %s", i+1, tw.english, en[i], tw.japanese, ja[i])
				}
			}
		})
	}
}

// runShape runs a book's hand-written scenarios and writes each one's
// outcomes without names, one string per scenario. An account is written
// as the position of its kind and the numbers its argument values end in
// (values are numbered by first appearance, `sku-2`, so twins number them
// alike), a hold likewise by its transfer kind and key values; both are
// sorted, since the interpreter lists them by name.
func runShape(t *testing.T, stem string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(booksDir, stem+".book"))
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check(stem+".book", src)
	if res.Book == nil {
		t.Fatalf("%s.book does not check", stem)
	}
	bounds := map[string]string{}
	kinds := map[string]int{}
	for i, a := range res.Book.Accounts {
		kinds[a.Name] = i + 1
		if a.Lower != nil {
			bounds[a.Lower.Reason] = fmt.Sprintf("<lower bound of account kind %d>", i+1)
		}
		if a.Upper != nil {
			bounds[a.Upper.Reason] = fmt.Sprintf("<upper bound of account kind %d>", i+1)
		}
	}
	transfers := map[string]int{}
	for i, tr := range res.Book.Transfers {
		transfers[tr.Name] = i + 1
	}
	out, errOut, code := run(booksDir, nil, "run", stem+".book", "--scenario", stem+".more.json", "--format", "json")
	if code != 0 {
		t.Fatalf("run %s: exit %d: %s", stem, code, errOut)
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
