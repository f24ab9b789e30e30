package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/tests/golden"
)

// generatedFor runs `chobo scenarios` on a test book and returns the JSON.
func generatedFor(t *testing.T, stem string) string {
	t.Helper()
	out, errOut, code := run(booksDir, nil, "scenarios", stem+".book")
	if code != 0 {
		t.Fatalf("scenarios %s: exit %d: %s", stem, code, errOut)
	}
	return out
}

// TestGeneratedScenarios checks, for every test book, that the generated
// scenarios are the same twice, match their golden, have distinct names,
// and all show what their names say: every step's "expect" and every
// "outcomes" count holds when `chobo run` runs them.
func TestGeneratedScenarios(t *testing.T) {
	total := 0
	for _, stem := range testBooks(t) {
		t.Run(stem, func(t *testing.T) {
			gen := generatedFor(t, stem)
			if again := generatedFor(t, stem); again != gen {
				t.Fatal("two runs of chobo scenarios differ")
			}
			golden.Check(t, filepath.Join(booksDir, "golden", stem+".scenarios.json"), []byte(gen))

			dir := t.TempDir()
			file := filepath.Join(dir, stem+".scenarios.json")
			if err := os.WriteFile(file, []byte(gen), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(booksDir, nil, "run", stem+".book", "--scenario", file, "--format", "json")
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, errOut)
			}
			var rep api.Run
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, sc := range rep.Scenarios {
				if names[sc.Name] {
					t.Errorf("two scenarios are named %q", sc.Name)
				}
				names[sc.Name] = true
				if len(sc.Failures) > 0 {
					t.Errorf("%q does not show what it says: %v", sc.Name, sc.Failures)
				}
			}
			if len(rep.Scenarios) == 0 {
				t.Fatal("no scenario generated")
			}
			total += len(rep.Scenarios)
			golden.Check(t, filepath.Join(booksDir, "golden", stem+".runs.json"), []byte(out))
		})
	}
	t.Logf("%d generated scenarios", total)
}

// TestGeneratedFamilies checks that the families design calls for appear
// on the books that have what they need: bounds, keys, every hold path,
// all or nothing, races for the last unit and the last room, same account.
func TestGeneratedFamilies(t *testing.T) {
	all := ""
	for _, stem := range []string{"stock_reservation", "wallet", "to_itself", "allocation", "credit", "safety_stock"} {
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
		"two callers take the last 1 of", "two callers take the last room of",
		"with the same account on both sides: same_account",
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
	_, errOut, code := run(booksDir, nil, "scenarios", "wallet.book", "--out", dir)
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

// TestShowPostgres keeps what a client sends for the hand-written
// scenarios of two books, in text and JSON.
func TestShowPostgres(t *testing.T) {
	for _, stem := range []string{"stock_reservation", "在庫"} {
		for _, v := range []struct{ suffix, format string }{{".show.postgres.txt", "text"}, {".show.postgres.json", "json"}} {
			out, errOut, code := run(booksDir, nil, "run", stem+".book", "--scenario", stem+".more.json", "--show", "postgres", "--format", v.format)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden.Check(t, filepath.Join(booksDir, "golden", stem+v.suffix), []byte(out))
		}
	}
}
