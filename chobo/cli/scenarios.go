package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

func runScenarios(inv *Invocation) int {
	b, src, code := loadBookSource(inv, inv.Args[0])
	if b == nil {
		return code
	}
	// The families that change bounds deploy versions derived from the
	// book, checked as `chobo run` checks them when it reads them back;
	// a change the checks refuse is one the generator does not use, and
	// says nothing of the book.
	scs, ranOut := scenario.GenerateAll(b, deployer(inv, "", b, src, io.Discard))
	data := scenario.Encode(scs)
	// What the generator gave up on goes to standard error: the JSON on
	// standard output stays a scenario file.
	for _, op := range ranOut {
		fmt.Fprintf(inv.Env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("note: %s: the scenarios of `%s` ran out of work before they were all made; some are missing", inv.Args[0], op),
			fmt.Sprintf("注: %s: `%s` のシナリオは、全部を作る前に手間の上限に達しました。足りないものがあります", inv.Args[0], op)).In(inv.Lang))
	}
	dir, ok := inv.Flags["out"]
	if !ok {
		inv.Env.Stdout.Write(data)
		return ExitOK
	}
	path := inv.Env.path(filepath.Join(dir, b.Name+".scenarios.json"))
	if err := writeFile(path, data); err != nil {
		fmt.Fprintf(inv.Env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo scenarios: cannot write %s: %s", err.Path, osReason(err.Err).En),
			fmt.Sprintf("chobo scenarios: %s を書けません(%s)", err.Path, osReason(err.Err).Ja)).In(inv.Lang))
		return ExitUsage
	}
	fmt.Fprintln(inv.Env.Stderr, path)
	return ExitOK
}
