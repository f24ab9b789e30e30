package typescript_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/lang/typescript"
	tsdriver "github.com/chobo-lang/chobo/lang/typescript/driver"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// The generated clients as TypeScript reads them: every case's compiled
// with the flags every client must pass and those of the strictest
// projects, and what they refuse, at compile time and before anything is
// sent. Node and tsc are those the TypeScript driver kit finds (setup.sh
// installs the runtime's pinned packages); without them the tests skip
// with a SKIP line, and under CI they must run.

// tools are node and the runtime's pinned tsc.
func tools(t *testing.T) *tsdriver.Tools {
	t.Helper()
	return langtest.Use(t, tsdriver.Kit{}).(*tsdriver.Tools)
}

// TestClientsCompile runs tsc with the flags every generated
// client must pass over the clients of every case, both targets, as the
// build writes them (langtest.Clients), as users would: each file as it is, with Node's types; and again with the
// checks of the strictest projects.
func TestClientsCompile(t *testing.T) {
	ts := tools(t)
	var files []string
	dir := t.TempDir()
	for _, tg := range langtest.Targets(typescript.Language.Name) {
		for _, c := range langtest.Clients(t, tg) {
			f := filepath.Join(dir, c.Case, tg, c.Path)
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, c.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	if len(files) < 20 {
		t.Fatalf("found only %d TypeScript clients", len(files))
	}
	// Each file is a module, so one program of them all still checks
	// each file alone.
	types := filepath.Join(ts.Node.Modules, "@types")
	args := append(append([]string{}, tsdriver.ClientFlags...), "--noEmit", "--target", "es2022", "--module", "nodenext",
		"--types", "node", "--typeRoots", types)
	// The flags every client must pass, then those of the
	// strictest projects, which a client must not make them give up.
	for _, flags := range [][]string{nil, strictest} {
		cmd := exec.Command(ts.TSC, append(append(args, flags...), files...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("tsc %s over %d clients: %v\n%s", strings.Join(append(tsdriver.ClientFlags, flags...), " "), len(files), err, out.String())
		}
		t.Logf("tsc %s: %d clients compile", strings.Join(append(tsdriver.ClientFlags, flags...), " "), len(files))
	}
}

// strictest are the checks strict projects turn on beyond --strict.
var strictest = []string{"--noUnusedParameters", "--noImplicitReturns", "--noFallthroughCasesInSwitch",
	"--exactOptionalPropertyTypes", "--noUncheckedIndexedAccess", "--noPropertyAccessFromIndexSignature",
	"--isolatedModules", "--noImplicitOverride"}
