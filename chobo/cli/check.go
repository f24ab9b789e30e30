package cli

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/report"
)

func runCheck(inv *Invocation) int {
	env := inv.Env
	// Read every file before checking any, so that a missing file stops
	// the command before it prints half a report.
	srcs := make([][]byte, len(inv.Args))
	for i, name := range inv.Args {
		src, err := env.ReadFile(name)
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s\n", diag.Printable(diag.T(
				fmt.Sprintf("chobo check: cannot read %s: %v", name, err),
				fmt.Sprintf("chobo check: %s を読めません: %v", name, err)).In(inv.Lang)))
			return ExitUsage
		}
		srcs[i] = src
	}
	errors := 0
	out := api.NewCheck()
	for i, name := range inv.Args {
		res := check.Check(name, srcs[i])
		errors += res.Diags.Errors()
		if inv.Flags["format"] == "json" {
			out.Files = append(out.Files, api.CheckFileOf(name, res.Diags, res.Report, inv.Lang))
			continue
		}
		for _, d := range res.Diags {
			diag.WriteText(env.Stdout, d, inv.Lang)
		}
		fmt.Fprintln(env.Stdout, diag.Summary(name, res.Diags, inv.Lang))
		if res.Report != nil {
			report.WriteText(env.Stdout, *res.Report, inv.Lang)
		}
	}
	if inv.Flags["format"] == "json" {
		if err := api.Write(env.Stdout, out); err != nil {
			fmt.Fprintf(env.Stderr, "chobo check: %v\n", err)
			return ExitUsage
		}
	}
	if errors > 0 {
		return ExitError
	}
	return ExitOK
}
