package cli

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/evolve"
	"github.com/chobo-lang/chobo/chobo/report"
	"github.com/chobo-lang/chobo/chobo/target"
)

func runCheck(inv *Invocation) int {
	env := inv.Env
	// Read every file before checking any, so that a missing file stops
	// the command before it prints half a report.
	srcs := make([][]byte, len(inv.Args))
	for i, name := range inv.Args {
		src, err := env.ReadFile(name)
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s\n", diag.Printable(cannotRead("check", name, err).In(inv.Lang)))
			return ExitUsage
		}
		srcs[i] = src
	}
	// The previous versions are read up front too: a revision that does
	// not exist is a wrong use of the command, said before any report.
	prevs, ok := previousVersions(inv)
	if !ok {
		return ExitUsage
	}
	errors := 0
	out := api.NewCheck()
	for i, name := range inv.Args {
		res := check.Check(name, srcs[i])
		// The comparison needs the new book resolved; a book with errors
		// stops where Check stopped, as every later analysis does.
		if prevs[i] != nil && res.Book != nil {
			res.Extend(srcs[i], evolve.Compare(prevs[i], res.Book))
		}
		if tg, ok := target.Lookup(inv.Flags["target"]); ok && res.Book != nil {
			res.Extend(srcs[i], tg.Check(res.Book))
		}
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
