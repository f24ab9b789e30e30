package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// troubleshootingProducers make the messages of other programs that the
// troubleshooting pages quote, keyed by a part of the quote: each returns
// what the program printed. The quotes of a client language's tools are
// held in its folder (a `<!-- quote held by lang/… -->` comment before
// the block).
var troubleshootingProducers = []langtest.Producer{
	{Key: "missing go.sum entry", Produce: goSumMissing},
	// The pages write the path the tests fall back on as /path/to/tigerbeetle.
	{Key: "SKIP: real TigerBeetle", Produce: func(*testing.T) string {
		return strings.ReplaceAll(tbtest.SkipMessage, tbtest.SharedBin, "/path/to/tigerbeetle")
	}},
	{Key: "chobo: an account keeps bounds", Produce: func(*testing.T) string { return chobopg.ErrBoundsChanged.Error() }},
	{Key: "chobo: the connection was lost", Produce: func(*testing.T) string { return chobopg.ErrOutcomeUnknown.Error() }},
	{Key: "chobo: the call was not sent", Produce: func(*testing.T) string { return chobopg.ErrNotSent.Error() }},
}

// goSumMissing builds the README's Go program as the review found it
// built: chobo's module required, and nothing run to add the checksums
// of what the program imports.
func goSumMissing(t *testing.T) string {
	goBin, err := exec.LookPath("go")
	if err != nil || os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: no go command at hand to show `missing go.sum entry` with")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var program string
	for _, f := range readmeFences(t) {
		if f.info == "go main.go" {
			program = strings.Join(f.body, "\n") + "\n"
		}
	}
	if program == "" {
		t.Fatal("README.md has no main.go block")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "inventory.book"), []byte(readmeBook(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(dir, nil, "build", "inventory.book", "--target", "postgres-go", "--out", "."); code != 0 {
		t.Fatalf("chobo build: %s", errOut)
	}
	mod := "module example.com/shop\n\ngo 1.25.0\n\nrequire github.com/chobo-lang/chobo v0.0.0\n\nreplace github.com/chobo-lang/chobo => " + repo + "\n"
	for name, data := range map[string]string{"go.mod": mod, "main.go": program} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "build", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("the program built without its checksums")
	}
	// Go names the runtime's files by where the module is: the pages
	// write /path/to/chobo.
	return strings.ReplaceAll(string(out), repo, "/path/to/chobo")
}

// TestTroubleshootingQuotes holds every line of every `text` block of the
// troubleshooting pages to what the program it quotes prints: each block
// must name a producer, and each of its lines must be a line of that
// producer's output. A block put in the care of a folder is held by that
// folder's tests; the folder must be there.
func TestTroubleshootingQuotes(t *testing.T) {
	for _, folder := range langtest.HoldQuotes(t, "", troubleshootingProducers) {
		if fi, err := os.Stat(filepath.Join("..", folder)); err != nil || !fi.IsDir() || !strings.HasPrefix(folder, "lang/") {
			t.Errorf("the troubleshooting pages put quotes in the care of %s, which is no language's folder", folder)
		}
	}
}
