package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
// room, same account.
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
