package cli

import (
	"encoding/json"
	"fmt"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/chobo/target/postgres"
)

// loadBook reads and checks a book. When it has errors (or cannot be
// read) it prints why to stderr and returns the exit code to stop with.
func loadBook(inv *Invocation, name string) (*book.Book, int) {
	src, err := inv.Env.ReadFile(name)
	if err != nil {
		fmt.Fprintf(inv.Env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo %s: cannot read %s: %v", inv.Cmd.Name, name, err),
			fmt.Sprintf("chobo %s: %s を読めません: %v", inv.Cmd.Name, name, err)).In(inv.Lang))
		return nil, ExitUsage
	}
	res := check.Check(name, src)
	if res.Book == nil {
		for _, d := range res.Diags {
			diag.WriteText(inv.Env.Stderr, d, inv.Lang)
		}
		fmt.Fprintln(inv.Env.Stderr, diag.Summary(name, res.Diags, inv.Lang))
		return nil, ExitError
	}
	return res.Book, ExitOK
}

func runRun(inv *Invocation) int {
	env := inv.Env
	b, code := loadBook(inv, inv.Args[0])
	if b == nil {
		return code
	}
	path, ok := inv.Flags["scenario"]
	if !ok {
		usageError(env, inv.Cmd, inv.Lang, diag.T("--scenario is required", "--scenario が要ります"))
		return ExitUsage
	}
	data, err := env.ReadFile(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo run: cannot read %s: %v", path, err),
			fmt.Sprintf("chobo run: %s を読めません: %v", path, err)).In(inv.Lang))
		return ExitUsage
	}
	scs, err := scenario.Read(b, data)
	if err != nil {
		fmt.Fprintf(env.Stderr, "chobo run: %s: %v\n", path, err)
		return ExitError
	}
	if show, ok := inv.Flags["show"]; ok {
		return runShow(inv, b, scs, show)
	}
	runs := make([][]scenario.Outcome, len(scs))
	failed := false
	for i, sc := range scs {
		runs[i] = scenario.Run(b, sc)
		failed = failed || len(scenario.Failures(sc, runs[i])) > 0
	}
	code = ExitOK
	if failed {
		// An expectation written in the scenario was not met.
		code = ExitError
	}
	if inv.Flags["format"] == "json" {
		if err := scenario.WriteJSON(env.Stdout, inv.Args[0], scs, runs); err != nil {
			fmt.Fprintf(env.Stderr, "chobo run: %v\n", err)
			return ExitUsage
		}
		return code
	}
	for i, sc := range scs {
		scenario.WriteText(env.Stdout, inv.Args[0], sc, runs[i], inv.Lang)
	}
	return code
}

// runShow prints, instead of the answers, what a client sends.
func runShow(inv *Invocation, b *book.Book, scs []scenario.Scenario, show string) int {
	if show != "postgres" {
		usageError(inv.Env, inv.Cmd, inv.Lang, diag.T("--show takes postgres", "--show には postgres を渡してください"))
		return ExitUsage
	}
	if ds := postgres.Check(b); len(ds) > 0 {
		for _, d := range ds {
			diag.WriteText(inv.Env.Stderr, d, inv.Lang)
		}
		return ExitError
	}
	if inv.Flags["format"] == "json" {
		type shown struct {
			Name  string              `json:"name"`
			Steps []postgres.ShowStep `json:"steps"`
		}
		out := struct {
			V         int     `json:"v"`
			File      string  `json:"file"`
			Target    string  `json:"target"`
			Scenarios []shown `json:"scenarios"`
		}{V: 1, File: inv.Args[0], Target: show}
		for _, sc := range scs {
			out.Scenarios = append(out.Scenarios, shown{sc.Name, postgres.Show(b, sc)})
		}
		enc := json.NewEncoder(inv.Env.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return ExitUsage
		}
		return ExitOK
	}
	for _, sc := range scs {
		postgres.WriteShowText(inv.Env.Stdout, inv.Args[0], sc, postgres.Show(b, sc), inv.Lang)
	}
	return ExitOK
}
