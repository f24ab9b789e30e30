package codes_test

import (
	"slices"
	"sort"
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

func TestLookup(t *testing.T) {
	if _, ok := codes.Lookup("E001"); !ok {
		t.Error("E001 not found")
	}
	if _, ok := codes.Lookup("E999"); ok {
		t.Error("E999 found")
	}
}
