package codes_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/codes"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/evolve"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/target"
)

// TestRepros checks that every repro book yields its code, and that the
// catalogue is complete, ordered and written in both languages.
func TestRepros(t *testing.T) {
	if len(codes.All) == 0 {
		t.Fatal("the catalogue is empty")
	}
	if !sort.SliceIsSorted(codes.All, func(i, j int) bool { return codes.All[i].Code < codes.All[j].Code }) {
		t.Error("codes.All is not in code order")
	}
	for _, c := range codes.All {
		t.Run(c.Code, func(t *testing.T) {
			for _, tx := range []diag.Text{c.Title, c.When, c.Fix} {
				if tx.En == "" || tx.Ja == "" {
					t.Errorf("%s: a text is missing in one language: %+v", c.Code, tx)
				}
			}
			res := check.Check("repro.book", []byte(c.Repro))
			if c.Against != "" {
				prev, err := evolve.Load("against.book", []byte(c.Against))
				if err != nil || res.Book == nil {
					t.Fatalf("cannot compare the repro of %s with its previous version: %v %+v", c.Code, err, res.Diags)
				}
				res.Extend([]byte(c.Repro), evolve.Compare(prev, res.Book))
			}
			diags := res.Diags
			if c.Raised != "" {
				raisedAtRunTime(t, c, diags)
				return
			}
			if c.Target != "" {
				tg, ok := target.Lookup(c.Target)
				if !ok || res.Book == nil {
					t.Fatalf("cannot build the repro of %s for %q: %+v", c.Code, c.Target, res.Diags)
				}
				var err error
				if _, diags, err = tg.Build(res.Book, gen.NewSource("repro.book", []byte(c.Repro)), gen.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, d := range diags {
				got = append(got, d.Code)
				if d.Code == c.Code && d.Severity != c.Severity {
					t.Errorf("%s is reported as %v, the catalogue says %v", c.Code, d.Severity, c.Severity)
				}
			}
			if !slices.Contains(got, c.Code) {
				t.Errorf("the repro of %s yields %v", c.Code, got)
			}
		})
	}
}

// raisedAtRunTime checks a code that the output of a target raises while
// it runs: the checker gives CheckedAs for the change from the deployed
// version, and what the target writes for the new one raises the code.
func raisedAtRunTime(t *testing.T, c codes.Code, diags []diag.Diagnostic) {
	t.Helper()
	if c.Against == "" || c.CheckedAs == "" {
		t.Fatalf("%s is raised at run time but names no deployed version or no diagnostic for the change", c.Code)
	}
	if !slices.ContainsFunc(diags, func(d diag.Diagnostic) bool { return d.Code == c.CheckedAs }) {
		t.Errorf("the change %s stands for gives no %s: %+v", c.Code, c.CheckedAs, diags)
	}
	tg, ok := target.Lookup(c.Raised)
	if !ok {
		t.Fatalf("%s: no target %q", c.Code, c.Raised)
	}
	// Compared with the deployed version the book has errors; on its own
	// it has none, and builds.
	res := check.Check("repro.book", []byte(c.Repro))
	if res.Book == nil {
		t.Fatalf("the repro of %s does not check on its own: %+v", c.Code, res.Diags)
	}
	files, ds, err := tg.Build(res.Book, gen.NewSource("repro.book", []byte(c.Repro)), gen.Options{})
	if err != nil || len(ds) > 0 {
		t.Fatalf("cannot build the repro of %s for %q: %v %+v", c.Code, c.Raised, err, ds)
	}
	raise := "errcode = '" + c.Code + "'"
	for _, f := range files {
		if strings.Contains(string(f.Data), raise) {
			return
		}
	}
	t.Errorf("nothing %q writes for the repro of %s holds %s", c.Raised, c.Code, raise)
}

func TestLookup(t *testing.T) {
	if _, ok := codes.Lookup("E001"); !ok {
		t.Error("E001 not found")
	}
	if _, ok := codes.Lookup("E999"); ok {
		t.Error("E999 found")
	}
}

func TestAnchor(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Keys", "keys"},
		{"chobo's own reasons", "chobos-own-reasons"},
		{"Callers at the same time (`together`)", "callers-at-the-same-time-together"},
		{"Post in full or in part, void", "post-in-full-or-in-part-void"},
		{"同時に来る呼び出し(`together`)", "同時に来る呼び出しtogether"},
		{"chobo が決めている拒否の理由", "chobo-が決めている拒否の理由"},
	} {
		if got := codes.Anchor(tc.heading); got != tc.want {
			t.Errorf("Anchor(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}
