package scenario_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/evolve"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// shopWithShelf is the shop with an upper bound too, at 3.50 of a unit
// with two decimals, so that amounts are read in the unit's notation.
const shopWithShelf = `book shop v1
unit kg scale 2
account stock(sku: string) : kg
  description "what is on the shelf"
  at least 0 refused as out_of_stock # never below empty
  at most 3.50 refused as shelf_full
account bin(sku: string) : kg
  at most 9 refused as bin_full
account world : kg outside
transfer receive(delivery: string, sku: string, qty: kg)
  key delivery, sku
  move qty from world to stock(sku)
transfer reserve(order: string, sku: string, qty: kg)
  key order, sku
  pending expires after 30 minutes
  move qty from stock(sku) to world
`

// deriving is a Deployer of derived versions only, checking each as
// `chobo run` does; texts keeps the text of every version it made.
func deriving(t testing.TB, first *book.Book, src string) (scenario.Deployer, map[*book.Book]string) {
	texts := map[*book.Book]string{first: src}
	return func(cur *book.Book, step *scenario.Deploy) (*book.Book, error) {
		if step.File != "" {
			return nil, fmt.Errorf("no files here")
		}
		out, err := scenario.Derive(cur, []byte(texts[cur]), step.Bounds)
		if err != nil {
			return nil, err
		}
		res := check.Errors(scenario.DerivedName(cur), out)
		if res.Book != nil {
			res.Extend(out, evolve.Compare(evolve.FromBook(cur), res.Book))
		}
		if res.Book == nil {
			var codes []string
			for _, d := range res.Diags {
				if d.Severity == diag.Error {
					codes = append(codes, d.Code)
				}
			}
			return nil, fmt.Errorf("refused: %v", codes)
		}
		texts[res.Book] = string(out)
		return res.Book, nil
	}, texts
}

func shelfBook(t testing.TB) *book.Book {
	t.Helper()
	res := check.Errors("shop.book", []byte(shopWithShelf))
	if res.Book == nil {
		t.Fatalf("%+v", res.Diags)
	}
	return res.Book
}

// TestDerivedDeployRead: a deploy step that changes bounds reads each
// side in the unit's notation, removes one with null, adds one with its
// reason, and is refused, with what to write, where it cannot mean a
// version.
func TestDerivedDeployRead(t *testing.T) {
	b := shelfBook(t)
	for _, tt := range []struct {
		name, deploy string
		err          string // "" when it reads
		lower, upper string // the bounds of stock in the version made
	}{
		{"narrow both", `{"bounds": {"stock": {"at_least": "1", "at_most": "2.5"}}}`, "", "100 out_of_stock", "250 shelf_full"},
		{"rename a reason", `{"bounds": {"stock": {"at_most": "3.50 refused as too_full"}}}`, "", "0 out_of_stock", "350 too_full"},
		{"remove the upper side", `{"bounds": {"stock": {"at_most": null}}}`, "", "0 out_of_stock", ""},
		{"add a side with its reason", `{"bounds": {"bin": {"at_least": "-5 refused as bin_overdrawn"}}}`, "", "0 out_of_stock", "350 shelf_full"},
		{"add a side without a reason", `{"bounds": {"bin": {"at_least": "1"}}}`, `step 1: deploy: bounds: bin: at_least: bin has no lower bound to move: a new side takes its reason, as in "1 refused as REASON"`, "", ""},
		{"remove a side there is not", `{"bounds": {"bin": {"at_least": null}}}`, `bounds: bin: at_least: bin has no lower bound to remove`, "", ""},
		{"an unknown kind", `{"bounds": {"shelf": {"at_most": "1"}}}`, `step 1: deploy: bounds: shop v1 has no account kind "shelf"; its kinds are stock, bin, world`, "", ""},
		{"an outside kind", `{"bounds": {"world": {"at_most": "1 refused as x"}}}`, `bounds: world is outside the book`, "", ""},
		{"more decimals than the unit", `{"bounds": {"stock": {"at_most": "3.505"}}}`, `at_most: 3.505: the unit kg has 2 decimals`, "", ""},
		{"not an amount", `{"bounds": {"stock": {"at_most": "lots"}}}`, `"lots" is not an amount: write a number in the unit's notation, such as 3.50`, "", ""},
		{"beyond 64 bits", `{"bounds": {"stock": {"at_most": "999999999999999999999"}}}`, `is outside what a bound of kg can be`, "", ""},
		{"a number, not a string", `{"bounds": {"stock": {"at_most": 3}}}`, `write the new bound as a string`, "", ""},
		{"no side", `{"bounds": {"stock": {}}}`, `give "at_least", "at_most" or both`, "", ""},
		{"an unknown side", `{"bounds": {"stock": {"at_mots": "1"}}}`, `unknown field "at_mots"`, "", ""},
		{"no bounds", `{}`, `"bounds" is missing`, "", ""},
		{"something else", `{"bounds": {"stock": {"at_most": "1"}}, "version": 3}`, `unknown field "version"`, "", ""},
		{"a reason that is no name", `{"bounds": {"stock": {"at_most": "1 refused as #x"}}}`, `a reason is a name`, "", ""},
		// What only the checks can tell, they tell, as for a file.
		{"a lower bound across 0", `{"bounds": {"stock": {"at_least": "-1"}}}`, `step 1: deploy v2: refused: [E050]`, "", ""},
		{"an upper bound below the lower", `{"bounds": {"stock": {"at_most": "1", "at_least": "2"}}}`, `step 1: deploy v2: refused: [`, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := deriving(t, b, shopWithShelf)
			scs, err := scenario.ReadWith(b, []byte(`{"name": "x", "steps": [{"deploy": `+tt.deploy+`}]}`), d)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			nb := scs[0].Steps[0].Deploy.Book
			side := func(bd *book.Bound) string {
				if bd == nil {
					return ""
				}
				return fmt.Sprintf("%d %s", bd.Value, bd.Reason)
			}
			st := nb.Account("stock")
			if nb.Version != 2 || side(st.Lower) != tt.lower || side(st.Upper) != tt.upper {
				t.Errorf("v%d, stock %q and %q, want v2, %q and %q", nb.Version, side(st.Lower), side(st.Upper), tt.lower, tt.upper)
			}
		})
	}
	// Without a Deployer, as with --show, the step is refused by what it
	// would deploy.
	_, err := scenario.Read(b, []byte(`{"name": "x", "steps": [{"deploy": {"bounds": {"stock": {"at_most": "1"}}}}]}`))
	if want := "step 1: deploy v2: this command runs no deploy steps"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestDeriveWritesTheText: the derived version's text is the text of the
// version in place with its version one higher and only the changed
// bounds' lines written anew, in place, removed or added under the
// account; each deploy derives from the version before it.
func TestDeriveWritesTheText(t *testing.T) {
	b := shelfBook(t)
	d, texts := deriving(t, b, shopWithShelf)
	scs, err := scenario.ReadWith(b, []byte(`{"name": "x", "steps": [
		{"deploy": {"bounds": {"stock": {"at_least": "1", "at_most": null}, "bin": {"at_least": "-5 refused as bin_overdrawn"}}}},
		{"deploy": {"bounds": {"stock": {"at_most": "5 refused as shelf_full"}}}}]}`), d)
	if err != nil {
		t.Fatal(err)
	}
	v2, v3 := scs[0].Steps[0].Deploy.Book, scs[0].Steps[1].Deploy.Book
	want2 := strings.NewReplacer("book shop v1", "book shop v2",
		"  at least 0 refused as out_of_stock # never below empty\n  at most 3.50 refused as shelf_full\n", "  at least 1.00 refused as out_of_stock # never below empty\n",
		"  at most 9 refused as bin_full\n", "  at most 9 refused as bin_full\n  at least -5.00 refused as bin_overdrawn\n").Replace(shopWithShelf)
	if texts[v2] != want2 {
		t.Errorf("v2:\n%s\nwant:\n%s", texts[v2], want2)
	}
	want3 := strings.NewReplacer("book shop v2", "book shop v3",
		"  at least 1.00 refused as out_of_stock # never below empty\n", "  at least 1.00 refused as out_of_stock # never below empty\n  at most 5.00 refused as shelf_full\n").Replace(want2)
	if v3.Version != 3 || texts[v3] != want3 {
		t.Errorf("v%d:\n%s\nwant:\n%s", v3.Version, texts[v3], want3)
	}
	// Lines that end in CR LF keep doing so.
	crlf := strings.ReplaceAll(shopWithShelf, "\n", "\r\n")
	out, err := scenario.Derive(b, []byte(crlf), []scenario.BoundChange{{Kind: "stock", Upper: &scenario.SideChange{Value: 100}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.NewReplacer("book shop v1", "book shop v2", "at most 3.50", "at most 1.00").Replace(crlf); string(out) != want {
		t.Errorf("CR LF:\n%q\nwant\n%q", out, want)
	}
}

// TestDerivedDeployWrittenBack: a derived step is written back as the
// format reads it, the same bytes once more, and listed with the version
// and the bounds it changes in both languages.
func TestDerivedDeployWrittenBack(t *testing.T) {
	b := shelfBook(t)
	step := `{"deploy": {"bounds": {"stock": {"at_least": "1.00", "at_most": null}, "bin": {"at_most": "2.00 refused as bin_full"}}}}`
	d, _ := deriving(t, b, shopWithShelf)
	scs, err := scenario.ReadWith(b, []byte(`{"name": "x", "steps": [`+step+`]}`), d)
	if err != nil {
		t.Fatal(err)
	}
	enc := scenario.Encode(scs)
	if !strings.Contains(string(enc), step) {
		t.Errorf("encoded:\n%s", enc)
	}
	d, _ = deriving(t, b, shopWithShelf)
	again, err := scenario.ReadWith(b, enc, d)
	if err != nil || string(scenario.Encode(again)) != string(enc) {
		t.Errorf("read back: %v\n%s", err, scenario.Encode(again))
	}
	dep := scs[0].Steps[0].Deploy
	for lang, want := range map[diag.Lang]string{
		diag.English:  "deploy shop v2: stock at least 1.00, stock no upper bound, bin at most 2.00 refused as bin_full",
		diag.Japanese: "デプロイ shop v2: stock at least 1.00、stock 上限なし、bin at most 2.00 refused as bin_full",
	} {
		if got := scenario.DeployText(dep, lang); got != want {
			t.Errorf("%v: %q, want %q", lang, got, want)
		}
	}
}

// FuzzDerivedDeploy reads any value as the object of a deploy step:
// never a panic, and what reads is written back as the same bytes.
func FuzzDerivedDeploy(f *testing.F) {
	for _, s := range []string{
		`{"bounds": {"stock": {"at_least": "1", "at_most": "2.5"}}}`,
		`{"bounds": {"stock": {"at_most": null}}}`,
		`{"bounds": {"bin": {"at_least": "-5 refused as bin_overdrawn"}}}`,
		`{"bounds": {"stock": {"at_least": "-1"}}}`,
		`{"bounds": {"stock": {"at_most": "3.505"}}}`,
		`{"bounds": {"world": {"at_most": "1 refused as x"}}}`,
		`{"bounds": {"stock": {"at_most": "1 refused as a\nb"}}}`,
		`{"bounds": {"stock": {"at_most": "-0"}}}`,
		`{"bounds": {"stock": {"at_most": "99999999999999999999999"}}}`,
	} {
		f.Add(s)
	}
	b := shelfBook(f)
	f.Fuzz(func(t *testing.T, deploy string) {
		d, _ := deriving(t, b, shopWithShelf)
		scs, err := scenario.ReadWith(b, []byte(`{"name": "x", "steps": [{"deploy": `+deploy+`}]}`), d)
		if err != nil {
			return
		}
		enc := scenario.Encode(scs)
		d, _ = deriving(t, b, shopWithShelf)
		again, err := scenario.ReadWith(b, enc, d)
		if err != nil || string(scenario.Encode(again)) != string(enc) {
			t.Fatalf("written back and read again: %v\n%s", err, enc)
		}
	})
}
