package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/doc"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// runDoc writes the page of a book for the people who run the ledger.
func runDoc(inv *Invocation) int {
	env := inv.Env
	name := inv.Args[0]
	src, err := env.ReadFile(name)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s\n", diag.Printable(cannotRead("doc", name, err).In(inv.Lang)))
		return ExitUsage
	}
	res := check.Check(name, src)
	if res.Book == nil {
		for _, d := range res.Diags {
			diag.WriteText(env.Stderr, d, inv.Lang)
		}
		fmt.Fprintln(env.Stderr, diag.Summary(name, res.Diags, inv.Lang))
		return ExitError
	}
	// The team's scenarios are read before anything is written: a file
	// that cannot be read or run stops the page.
	own, code := ownScenarios(inv, res.Book)
	if code != ExitOK {
		return code
	}
	page, err := doc.Build(res.Book, res.Diags, *res.Report, own, inv.Lang)
	if err != nil {
		fmt.Fprintf(env.Stderr, "chobo doc: %s: %v\n", diag.Printable(name), err)
		return ExitUsage
	}
	format := inv.Flags["format"]
	var data []byte
	ext := ".md"
	switch format {
	case "html":
		data, err = doc.HTML(page)
		ext = ".html"
	default:
		data, err = doc.Markdown(page)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "chobo doc: %s: %v\n", diag.Printable(name), err)
		return ExitUsage
	}
	dir, ok := inv.Flags["out"]
	if !ok {
		env.Stdout.Write(data)
		return ExitOK
	}
	// Named after the file, not the book: the English and the Japanese
	// book of one folder share a name but not a file.
	base := strings.TrimSuffix(filepath.Base(name), ".book") + ext
	path := env.path(filepath.Join(dir, base))
	if err := writeFile(path, data); err != nil {
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo doc: cannot write %s: %s", err.Path, osReason(err.Err).En),
			fmt.Sprintf("chobo doc: %s を書けません(%s)", err.Path, osReason(err.Err).Ja)).In(inv.Lang))
		return ExitUsage
	}
	fmt.Fprintln(env.Stderr, path)
	return ExitOK
}

// ownScenarios reads the scenario files given with --scenario; on a file
// that cannot be read or run, it says why and gives the exit code.
func ownScenarios(inv *Invocation, b *book.Book) ([]doc.OwnFile, int) {
	env := inv.Env
	var own []doc.OwnFile
	for _, path := range inv.Lists["scenario"] {
		data, err := env.ReadFile(path)
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s\n", diag.Printable(cannotRead("doc", path, err).In(inv.Lang)))
			return nil, ExitUsage
		}
		scs, err := scenario.Read(b, data)
		if err != nil {
			fmt.Fprintf(env.Stderr, "chobo doc: %s: %s\n", diag.Printable(path), diag.Printable(textOf(err).In(inv.Lang)))
			return nil, ExitError
		}
		// A page shows the scenarios the conformance test runs: one it
		// cannot run is refused as `chobo run` refuses it.
		for i, sc := range scs {
			outs, _, err := scenario.Explore(b, sc, scenario.Budget)
			if err == nil {
				_, err = scenario.Timing(sc, outs)
			}
			if err != nil {
				t := textOf(err)
				fmt.Fprintf(env.Stderr, "chobo doc: %s: %s\n", diag.Printable(path), diag.Printable(diag.T(
					fmt.Sprintf("scenario %d: %q: %s", i+1, sc.Name, t.En),
					fmt.Sprintf("シナリオ %d: %q: %s", i+1, sc.Name, t.Ja)).In(inv.Lang)))
				return nil, ExitError
			}
		}
		own = append(own, doc.OwnFile{File: path, Scenarios: scs})
	}
	return own, ExitOK
}
