package tests

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
)

// TestPgbenchRuns runs the benchmark program the README's development
// section gives, on a handful of calls, every shape and way of sending.
// It passes the operation functions their arguments by position, so a
// new argument of theirs breaks it, and nothing else would notice; and
// it first checks that its hand-written functions still answer as the
// generated ones do, which a change of what a call writes breaks.
func TestPgbenchRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no PostgreSQL server is started")
	}
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel the go command is not at hand")
	}
	if _, err := pgtest.Bin(); err != nil {
		fmt.Printf("SKIP: go run ./tests/pgbench: no PostgreSQL server: %v\n", err)
		t.Skip(err)
	}
	cmd := exec.Command("go", "run", "./pgbench", "-calls", "20", "-reps", "1", "-conns", "1,2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run ./tests/pgbench: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "answered 600 calls as chobo's did") {
		t.Errorf("no line says the hand-written functions were checked against chobo's:\n%s", out)
	}
	for _, shape := range []string{"move", "outside", "hold"} {
		if !strings.Contains(string(out), shape) {
			t.Errorf("the output names no %s shape:\n%s", shape, out)
		}
	}
}
