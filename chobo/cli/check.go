package cli

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
)

func runCheck(inv *Invocation) int {
	env := inv.Env
	// Read every file before checking any, so that a missing file stops
	// the command before it prints half a report.
	srcs := make([][]byte, len(inv.Args))
	for i, name := range inv.Args {
		src, err := env.ReadFile(name)
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s\n", diag.T(
				fmt.Sprintf("chobo check: cannot read %s: %v", name, err),
				fmt.Sprintf("chobo check: %s を読めません: %v", name, err)).In(inv.Lang))
			return ExitUsage
		}
		srcs[i] = src
	}
	errors := 0
	report := diag.Report{V: diag.FormatVersion, Files: []diag.FileReport{}}
	for i, name := range inv.Args {
		res := check.Check(name, srcs[i])
		errors += res.Diags.Errors()
		if inv.Flags["format"] == "json" {
			report.Files = append(report.Files, diag.NewFileReport(name, res.Diags, inv.Lang))
			continue
		}
		for _, d := range res.Diags {
			diag.WriteText(env.Stdout, d, inv.Lang)
		}
		fmt.Fprintln(env.Stdout, diag.Summary(name, res.Diags, inv.Lang))
	}
	if inv.Flags["format"] == "json" {
		if err := diag.WriteJSON(env.Stdout, report); err != nil {
			fmt.Fprintf(env.Stderr, "chobo check: %v\n", err)
			return ExitUsage
		}
	}
	if errors > 0 {
		return ExitError
	}
	return ExitOK
}
