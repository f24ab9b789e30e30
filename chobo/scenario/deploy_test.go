package scenario_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// versions are the books the deploy steps below may name: the shop with
// room for at most 3 of a SKU, and a version that also has a transfer
// the first lacks.
var versions = map[string]string{
	"v2.book": strings.Replace(strings.Replace(shop, "book shop v1", "book shop v2", 1),
		"  at least 0 refused as out_of_stock\n", "  at least 0 refused as out_of_stock\n  at most 3 refused as stock_full\n", 1),
	"v3.book": strings.Replace(shop, "book shop v1", "book shop v3", 1) + `transfer scrap(id: string, sku: string, qty: pcs)
  key id
  move qty from stock(sku) to world
`,
}

// deployer reads versions, and notes each version it was asked for with
// the name of the one in place.
func deployer(t *testing.T, seen *[]string) scenario.Deployer {
	return func(cur *book.Book, step *scenario.Deploy) (*book.Book, error) {
		file := step.File
		*seen = append(*seen, cur.Name+" "+file)
		src, ok := versions[file]
		if !ok {
			return nil, errors.New("no such version")
		}
		res := check.Check(file, []byte(src))
		if res.Book == nil {
			t.Fatalf("%s: %+v", file, res.Diags)
		}
		return res.Book, nil
	}
}

func receiveN(delivery string, qty int) string {
	return fmt.Sprintf(`{"op": "receive.do", "args": {"delivery": %q, "sku": "s-1", "qty": %d}}`, delivery, qty)
}

// TestDeployStepsRead: a deploy step names a file and nothing else, only
// a reader given a Deployer takes it, and the steps after it are read
// against the version it puts in place.
func TestDeployStepsRead(t *testing.T) {
	b := load(t)
	scrap := `{"op": "scrap.do", "args": {"id": "x-1", "sku": "s-1", "qty": 1}}`
	for _, tt := range []struct {
		name, steps string
		noDeployer  bool
		err         string // "" when it reads
	}{
		{"a transfer of the new version, after it", `{"deploy": "v3.book"}, ` + scrap, false, ""},
		{"a transfer of the new version, before it", scrap + `, {"deploy": "v3.book"}`, false, `step 1: op "scrap.do": the book has no transfer "scrap"`},
		{"without a deployer", `{"deploy": "v2.book"}`, true, "step 1: deploy \"v2.book\": this command runs no deploy steps; `chobo run` does, without --show"},
		{"with something else", `{"deploy": "v2.book", "expect": "done"}`, false, `step 1: "expect" does not go with "deploy"`},
		{"not a book", `{"deploy": "v2.json"}`, false, `step 1: deploy "v2.json": name the .book file of the new version`},
		{"not a string", `{"deploy": 2}`, false, `step 1: "deploy" is the name of a .book file, or an object that changes bounds, not a number`},
		{"the deployer refuses", `{"deploy": "v9.book"}`, false, `step 1: deploy "v9.book": no such version`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var seen []string
			d := deployer(t, &seen)
			if tt.noDeployer {
				d = nil
			}
			_, err := scenario.ReadWith(b, []byte(`{"name": "x", "steps": [`+tt.steps+`]}`), d)
			switch {
			case tt.err == "" && err != nil:
				t.Fatal(err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if tt.noDeployer && len(seen) > 0 {
				t.Errorf("the deployer was called: %v", seen)
			}
		})
	}
	// Each deploy is checked against the version in place before it.
	var seen []string
	if _, err := scenario.ReadWith(b, []byte(`{"name": "x", "steps": [{"deploy": "v2.book"}, {"deploy": "v3.book"}]}`), deployer(t, &seen)); err != nil {
		t.Fatal(err)
	}
	if want := []string{"shop v2.book", "shop v3.book"}; !slices.Equal(seen, want) {
		t.Errorf("deployer called with %v, want %v", seen, want)
	}
}

// TestDeployStepsRun: the calls after a deploy step are answered under
// the new version, on the ledger the calls before left; a deploy is no
// pass of time, writes one line in the listing and one entry in JSON.
func TestDeployStepsRun(t *testing.T) {
	b := load(t)
	var seen []string
	scs, err := scenario.ReadWith(b, []byte(`{"name": "x", "steps": [
		`+receiveN("d-1", 5)+`,
		`+hold("o-1", 3)+`,
		{"deploy": "v2.book"},
		`+receiveN("d-2", 1)+`,
		{"op": "reserve.post", "args": {"order": "o-1", "sku": "s-1"}, "expect": "done"},
		`+receiveN("d-1", 5)+`,
		{"op": "receive.do", "args": {"delivery": "d-3", "sku": "s-1", "qty": 1}, "expect": "done"},
		{"pass": "1 minute"}]}`), deployer(t, &seen))
	if err != nil {
		t.Fatal(err)
	}
	sc := scs[0]
	outs, _, err := scenario.Explore(b, sc, scenario.Budget)
	if err != nil || len(outs) != 1 {
		t.Fatalf("%d outcomes, %v", len(outs), err)
	}
	var got []string
	for _, r := range outs[0].Results {
		got = append(got, r.Short())
	}
	// 5 on the shelf, more than 3: another is refused, the hold made
	// before posts, the key done before is done_before, and once the
	// post has taken 3 away, 2 is inside and one more fits.
	if want := []string{"done", "done", "refused: stock_full", "done", "done_before", "done"}; !slices.Equal(got, want) {
		t.Errorf("results %v, want %v", got, want)
	}
	if fs := scenario.Failures(sc, outs); len(fs) > 0 {
		t.Errorf("failures: %v", fs)
	}
	if times, err := scenario.Timing(sc, outs); err != nil || len(times) != 1 {
		t.Errorf("the deploy counts as a pass: %v %v", times, err)
	}
	for _, lang := range []diag.Lang{diag.English, diag.Japanese} {
		var sb strings.Builder
		scenario.WriteText(&sb, "shop.book", sc, outs, lang)
		line := diag.T("  3  deploy v2.book (shop v2)\n", "  3  デプロイ v2.book(shop v2)\n").In(lang)
		if !strings.Contains(sb.String(), line) {
			t.Errorf("%v: no line %q in:\n%s", lang, line, sb.String())
		}
	}
	// Written back, the scenario names the file again.
	if enc := string(scenario.Encode([]scenario.Scenario{sc})); !strings.Contains(enc, `{"deploy": "v2.book"}`) {
		t.Errorf("encoded:\n%s", enc)
	}
}
