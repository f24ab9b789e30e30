package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// generatedFor runs `chobo scenarios` on the book of a case.
func generatedFor(t *testing.T, name string) string {
	t.Helper()
	c := caseByName(t, name)
	out, errOut, code := run(c.Dir, nil, "scenarios", c.Book)
	if code != 0 {
		t.Fatalf("scenarios %s: exit %d: %s", name, code, errOut)
	}
	return out
}

// TestGeneratedFamilies checks that the families design calls for appear
// on the books that have what they need: bounds, keys, every hold path,
// all or nothing, a refused key retried after an earlier move stopped
// fitting and with other content, races for the last unit and the last
// room, same account, and the histories read back.
func TestGeneratedFamilies(t *testing.T) {
	all := ""
	for _, stem := range []string{"stock_reservation", "wallet", "to_itself", "allocation", "credit", "safety_stock", "retry_after_refusal"} {
		all += generatedFor(t, stem)
	}
	for _, want := range []string{
		"ends 1 inside its lower bound", "ends exactly at its lower bound", "would cross its lower bound",
		"ends 1 inside its upper bound", "ends exactly at its upper bound", "would cross its upper bound",
		"twice with the same key and content: done_before",
		"again with the same key and other content: key_conflict",
		"again after a refusal with",
		"hold, then post in full", "hold, then void", "void after post: already_posted", "post after void: already_voided",
		"post one less than held", "post more than held: over_hold", "without a hold: no_such_hold",
		"the hold expires, then is posted and voided: expired",
		"hold again with the same key after expiry: done_before, nothing held",
		"hold again with the same key after a void: done_before, nothing held",
		"no move happens",
		"alone would be refused with", "then the same key with other content: already_refused",
		"two callers take the last 1 of", "two callers take the last room of",
		"with the same account on both sides: same_account",
		"the history of a hold posted in full, one posted in part, one voided, one expired, one left open, read back",
		"one posted after a pass, one left open, read back",
		"before and after a pass, read back",
		"tenants: tenant-a: a read sees only the calls of its own tenant",
		"tenants: tenant-b: the same keys and accounts as tenant-a, other amounts",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no generated scenario says %q", want)
		}
	}
}

// TestScenariosOut checks --out: the file is written, named after the
// book, with the same bytes as standard output.
func TestScenariosOut(t *testing.T) {
	dir := t.TempDir()
	c := caseByName(t, "wallet")
	_, errOut, code := run(c.Dir, nil, "scenarios", c.Book, "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, err := os.ReadFile(filepath.Join(dir, "wallet.scenarios.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(generatedFor(t, "wallet"))) {
		t.Error("--out wrote other bytes than standard output")
	}
}

// TestScenariosKeepTheTimingRule holds every scenario chobo generates
// for every example and case book, and every case's hand-written one, to
// the rule `chobo run` and the conformance test share (scenario.Timing):
// each must be one the test copy can run.
func TestScenariosKeepTheTimingRule(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "*", "*.book"))
	more := map[string]string{}
	for _, c := range cases(t) {
		paths = append(paths, c.path())
		if c.Scenarios {
			more[c.path()] = filepath.Join(c.Dir, "scenarios.json")
		}
	}
	books, scenarios := 0, 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b := check.Errors(p, src).Book
		if b == nil {
			continue // a case of a book with errors has no scenarios
		}
		books++
		scs := scenario.Generate(b)
		if f, ok := more[p]; ok {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			own, err := scenario.Read(b, data)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			scs = append(scs, own...)
		}
		for _, sc := range scs {
			scenarios++
			if _, err := scenario.Timing(sc, scenario.Run(b, sc)); err != nil {
				t.Errorf("%s: %q: %v", p, sc.Name, err)
			}
		}
	}
	if books < 50 || scenarios < 1000 {
		t.Errorf("only %d books and %d scenarios were held to the rule; the walk lost its books", books, scenarios)
	}
	t.Logf("%d books, %d scenarios", books, scenarios)
}

// TestGeneratedReadSteps: every example and case book that checks gets
// scenarios that read its history, and they run: written as `chobo
// scenarios` writes them and read back, each keeps the timing rule, no
// read fails and every expectation holds, so that each backend is
// compared with the interpreter on the history of every book.
func TestGeneratedReadSteps(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "*", "*.book"))
	for _, c := range cases(t) {
		paths = append(paths, c.path())
	}
	books, reads := 0, 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b := check.Errors(p, src).Book
		if b == nil {
			continue // a book with errors has no scenarios
		}
		books++
		scs, err := scenario.Read(b, scenario.Encode(scenario.Generate(b)))
		if err != nil {
			t.Fatalf("%s: the generated scenarios do not read back: %v", p, err)
		}
		withReads, n := 0, 0
		for _, sc := range scs {
			i := slices.IndexFunc(sc.Steps, func(st scenario.Step) bool { return st.Read != nil })
			if i < 0 {
				continue
			}
			withReads++
			outs := scenario.Run(b, sc)
			if _, err := scenario.Timing(sc, outs); err != nil {
				t.Errorf("%s: %q: %v", p, sc.Name, err)
			}
			if f := scenario.Failures(sc, outs); len(f) > 0 {
				t.Errorf("%s: %q: %v", p, sc.Name, f)
			}
			for j, st := range sc.Steps {
				if st.Read == nil {
					continue
				}
				n++
				if st.Read.Expect == nil {
					t.Errorf("%s: %q: step %d reads and expects nothing", p, sc.Name, j+1)
				}
				for _, o := range outs {
					if r := o.Reads[j]; r == nil || r.Failed != "" {
						t.Errorf("%s: %q: step %d: the read fails: %+v", p, sc.Name, j+1, r)
					}
				}
			}
		}
		if withReads == 0 {
			t.Errorf("%s: no generated scenario reads the history", p)
		}
		reads += n
	}
	if books < 50 {
		t.Errorf("only %d books; the walk lost its books", books)
	}
	t.Logf("%d books, %d generated reads", books, reads)
}
