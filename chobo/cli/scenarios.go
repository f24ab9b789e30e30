package cli

import (
	"fmt"
	"os"
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
	path := filepath.Join(dir, b.Name+".scenarios.json")
	if err := writeFile(path, data); err != nil {
		fmt.Fprintf(inv.Env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo scenarios: cannot write %s: %v", path, err),
			fmt.Sprintf("chobo scenarios: %s を書けません: %v", path, err)).In(inv.Lang))
		return ExitUsage
	}
	fmt.Fprintln(inv.Env.Stderr, path)
	return ExitOK
}

// writeFile writes through a temporary file and a rename, so that an
// interrupted run never leaves half a file behind.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".chobo-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
