package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/target"
)

func targetNames() []string { return target.Names() }

// targetChoices lists the targets in build's help, with the files each
// writes.
func targetChoices() (diag.Text, []Choice) {
	var out []Choice
	for _, tg := range target.All {
		files := strings.Join(tg.Files, ", ")
		out = append(out, Choice{Name: tg.Name, Help: diag.T(tg.Summary.En+" ("+files+")", tg.Summary.Ja+"("+files+")")})
	}
	return diag.T("targets:", "ターゲット:"), out
}

func runBuild(inv *Invocation) int {
	env := inv.Env
	name := inv.Args[0]
	b, code := loadBook(inv, name)
	if b == nil {
		return code
	}
	tname, ok := inv.Flags["target"]
	if !ok {
		usageError(env, inv.Cmd, inv.Lang, diag.T("--target is required", "--target が要ります"))
		return ExitUsage
	}
	tg, _ := target.Lookup(tname) // the flag's choices are the registry's names
	src, _ := env.ReadFile(name)  // loadBook has read it already
	pkg := inv.Flags["package"]
	if pkg != "" {
		if why := tg.ValidPackage(pkg); !why.IsZero() {
			usageError(env, inv.Cmd, inv.Lang, diag.T(fmt.Sprintf("--package %q is %s", pkg, why.En), fmt.Sprintf("--package %q は %s", pkg, why.Ja)))
			return ExitUsage
		}
	}
	files, ds, err := tg.Build(b, gen.NewSource(filepath.Base(name), src), gen.Options{Package: pkg})
	if err != nil {
		// The first line says what failed; the book reproduces the rest.
		msg, _, _ := strings.Cut(err.Error(), "\n")
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo build: %s: cannot write the %s target: %s; nothing was written (a bug in chobo: please report it with the book)", name, tname, msg),
			fmt.Sprintf("chobo build: %s: %s の出力を書けません(%s)。何も書いていません(chobo の不具合です。帳簿を添えて知らせてください)", name, tname, msg)).In(inv.Lang))
		return ExitUsage
	}
	if len(ds) > 0 {
		ds.Sort() // by place, the order check prints them in
		check.Quote(ds, src)
		for _, d := range ds {
			diag.WriteText(env.Stderr, d, inv.Lang)
		}
		fmt.Fprintln(env.Stderr, diag.Summary(name, ds, inv.Lang))
		return ExitError
	}
	dir := inv.Flags["out"]
	if dir == "" {
		dir = "."
	}
	var out []outFile
	for _, f := range files {
		out = append(out, outFile{env.path(filepath.Join(dir, f.Path)), f.Data})
	}
	// All or nothing: a build that stops half way must not leave one
	// file new and the next old.
	if err := writeFiles(out); err != nil {
		fmt.Fprintf(env.Stderr, "%s\n", diag.T(
			fmt.Sprintf("chobo build: cannot write %s: %s; nothing was written", err.Path, osReason(err.Err).En),
			fmt.Sprintf("chobo build: %s を書けません(%s)。何も書いていません", err.Path, osReason(err.Err).Ja)).In(inv.Lang))
		return ExitUsage
	}
	for _, f := range out {
		fmt.Fprintln(env.Stderr, f.Path)
	}
	return ExitOK
}
