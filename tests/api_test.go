package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/cli"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/chobo/report"
	"github.com/chobo-lang/chobo/chobo/target"
)

// TestAPIGoldensSayWhatTheBooksSay decodes each golden and compares it
// with the book read by the checker: names in book order, bounds, units
// and their ledgers, codes, definition hashes, the report's reasons and
// one machine per pending transfer.
func TestAPIGoldensSayWhatTheBooksSay(t *testing.T) {
	for _, c := range cases(t) {
		data, err := os.ReadFile(c.expected("api.json"))
		if err != nil {
			continue // a book with errors has no api.json
		}
		t.Run(c.Name, func(t *testing.T) {
			var doc api.Book
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(c.path())
			if err != nil {
				t.Fatal(err)
			}
			res := check.Check(c.Book, src)
			if res.Book == nil || res.Report == nil {
				t.Fatal("the book does not check")
			}
			compareAPI(t, doc, res.Book, res.Report.Operations)
		})
	}
}

func compareAPI(t *testing.T, doc api.Book, b *book.Book, reported []report.Operation) {
	t.Helper()
	if doc.V != api.Version || doc.Book.Name != b.Name || doc.Book.Version != b.Version || doc.Book.File != b.File {
		t.Errorf("book: %+v, v %d", doc.Book, doc.V)
	}
	if len(doc.Units) != len(b.Units) || len(doc.Accounts) != len(b.Accounts) || len(doc.Transfers) != len(b.Transfers) {
		t.Fatalf("%d units, %d accounts, %d transfers; the book has %d, %d, %d",
			len(doc.Units), len(doc.Accounts), len(doc.Transfers), len(b.Units), len(b.Accounts), len(b.Transfers))
	}
	for i, u := range b.Units {
		got := doc.Units[i]
		if got.Name != u.Name || got.Scale != u.Scale || got.Ledger != ids.Ledger(u.Name, u.Scale) || got.Tax != u.Tax.String() {
			t.Errorf("unit %d: %+v, the book has %s scale %d %s", i+1, got, u.Name, u.Scale, u.Tax)
		}
	}
	for i, a := range b.Accounts {
		got := doc.Accounts[i]
		if got.Name != a.Name || got.Unit != a.Unit.Name || got.Outside != a.Outside || !slices.Equal(got.Params, a.Params) ||
			got.Code != ids.Code(b.Name, "account", a.Name) {
			t.Errorf("account %d: %+v", i+1, got)
		}
		for _, side := range []struct {
			got  *api.Bound
			want *book.Bound
		}{{got.Lower, a.Lower}, {got.Upper, a.Upper}} {
			if (side.got == nil) != (side.want == nil) ||
				side.got != nil && (side.got.Value != side.want.Value || side.got.Reason != side.want.Reason) {
				t.Errorf("account %s: bound %+v, the book has %+v", a.Name, side.got, side.want)
			}
		}
	}
	pending := 0
	for i, tr := range b.Transfers {
		got := doc.Transfers[i]
		if got.Name != tr.Name || got.Definition != tr.Definition() || got.Code != ids.Code(b.Name, "transfer", tr.Name) ||
			len(got.Params) != len(tr.Params) || len(got.Moves) != len(tr.Moves) || got.Pending.Holds != (tr.Pending != nil) {
			t.Errorf("transfer %s: name %s, definition %s, code %d, pending %+v", tr.Name, got.Name, got.Definition, got.Code, got.Pending)
		}
		var ops []string
		for _, o := range got.Operations {
			ops = append(ops, o.Op)
		}
		var want []string
		for _, op := range tr.Ops() {
			want = append(want, string(op))
		}
		if !slices.Equal(ops, want) {
			t.Errorf("transfer %s: operations %v, want %v", tr.Name, ops, want)
		}
		if tr.Pending != nil {
			pending++
		}
	}
	// The reasons of every operation are those `chobo check` reports.
	var gotReasons, wantReasons []string
	for _, tr := range doc.Transfers {
		for _, o := range tr.Operations {
			for _, rf := range o.Refusals {
				gotReasons = append(gotReasons, tr.Name+"."+o.Op+":"+rf.Reason)
				if (rf.By == "bound") != (rf.Bound != nil) {
					t.Errorf("%s.%s %s: by %s with bound %+v", tr.Name, o.Op, rf.Reason, rf.By, rf.Bound)
				}
			}
		}
	}
	for _, o := range reported {
		for _, rf := range o.Refusals {
			wantReasons = append(wantReasons, o.Transfer.Name+"."+string(o.Op)+":"+rf.Reason)
		}
	}
	if len(wantReasons) == 0 || !slices.Equal(gotReasons, wantReasons) {
		t.Errorf("reasons %v, the check report has %v", gotReasons, wantReasons)
	}
	if len(doc.Machines) != pending {
		t.Errorf("%d machines for %d pending transfers", len(doc.Machines), pending)
	}
	for _, m := range doc.Machines {
		tr := b.Transfer(m.Over)
		if tr == nil || tr.Pending == nil {
			t.Errorf("machine over %q, not a pending transfer", m.Over)
			continue
		}
		rows := 12
		if !tr.Pending.Expires {
			rows = 8
		}
		if n := len(m.Certificate.Tables[0].Rows); n != rows || slices.Contains(m.Events, "expire") != tr.Pending.Expires {
			t.Errorf("machine %s: %d rows, events %v", m.Name, n, m.Events)
		}
	}
	// A book PostgreSQL cannot hold (E061) has no postgres names.
	if len(postgres.Check(b)) > 0 {
		if doc.Targets.Postgres != nil || doc.Targets.Client("postgres-go") != nil {
			t.Errorf("targets for a book PostgreSQL cannot hold: %+v", doc.Targets)
		}
	} else if doc.Targets.Postgres == nil || doc.Targets.Postgres.Schema != b.Name {
		t.Errorf("postgres target: %+v", doc.Targets.Postgres)
	}
	if len(doc.IDs.Roles) != len(ids.Roles) || doc.IDs.Prefix != ids.Version {
		t.Errorf("ids: %+v", doc.IDs)
	}
	// Every target carries what `chobo build --target` says of the book,
	// and a target build refuses lists no names.
	if len(doc.Build) != len(target.All) {
		t.Fatalf("build: %d targets, the registry has %d", len(doc.Build), len(target.All))
	}
	for i, tg := range target.All {
		got, ds := doc.Build[i], tg.Check(b)
		var gotCodes, wantCodes []string
		for _, d := range got.Diagnostics {
			gotCodes = append(gotCodes, fmt.Sprintf("%s %d:%d", d.Code, d.Line, d.Col))
		}
		for _, d := range ds {
			wantCodes = append(wantCodes, fmt.Sprintf("%s %d:%d", d.Code, d.Line, d.Col))
		}
		if got.Target != tg.Name || got.OK != (len(ds) == 0) || !slices.Equal(gotCodes, wantCodes) {
			t.Errorf("build %d: %s ok %v %v; build --target %s says %v", i, got.Target, got.OK, gotCodes, tg.Name, wantCodes)
		}
		if tg.Client() != nil && !got.OK && doc.Targets.Client(tg.Name) != nil {
			t.Errorf("%s: names listed for a target build refuses", tg.Name)
		}
		if tg.Client() != nil && got.OK && doc.Targets.Client(tg.Name) == nil {
			t.Errorf("%s: no names for a target build takes", tg.Name)
		}
	}
}

// TestAPIInJapanese checks that --lang ja changes the texts only: the
// keys and every value a tool reads stay as they are.
func TestAPIInJapanese(t *testing.T) {
	c := caseByName(t, "stock_reservation_ja")
	en, _, code := run(c.Dir, nil, "api", c.Book)
	ja, _, codeJa := run(c.Dir, nil, "api", c.Book, "--lang", "ja")
	if code != 0 || codeJa != 0 {
		t.Fatalf("exit %d and %d", code, codeJa)
	}
	if en == ja {
		t.Fatal("--lang ja changes nothing")
	}
	var a, b api.Book
	if err := json.Unmarshal([]byte(en), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(ja), &b); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*api.Book{&a, &b} {
		for i := range d.Transfers {
			tr := &d.Transfers[i]
			tr.KeyText = ""
			for j := range tr.Operations {
				for k := range tr.Operations[j].Refusals {
					for s := range tr.Operations[j].Refusals[k].Operations {
						tr.Operations[j].Refusals[k].Operations[s].Outcome = ""
					}
				}
			}
		}
	}
	var x, y bytes.Buffer
	api.Write(&x, a)
	api.Write(&y, b)
	if x.String() != y.String() {
		t.Error("the Japanese output differs beyond its texts")
	}
}

// TestAPIBadInput: a file that cannot be read is a wrong use (2); a book
// with errors exits 1 with its diagnostics on stderr and nothing on
// stdout.
func TestAPIBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, dir, file string
		code            int
		stderr          string
	}{
		{"missing", casesDir, "no_such.book", cli.ExitUsage, "cannot read no_such.book"},
		{"errors", caseByName(t, "unit_mismatch").Dir, "unit_mismatch.book", cli.ExitError, "error[E010]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(tc.dir, nil, "api", tc.file)
			if code != tc.code || out != "" || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q on stderr", code, out, errOut, tc.code, tc.stderr)
			}
		})
	}
}
