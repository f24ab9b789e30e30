package cli

import (
	"fmt"
	"path/filepath"

	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

func runScenarios(inv *Invocation) int {
	b, code := loadBook(inv, inv.Args[0])
	if b == nil {
		return code
	}
	data := scenario.Encode(scenario.Generate(b))
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
