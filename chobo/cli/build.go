package cli

import (
	"fmt"
	"go/token"
	"path/filepath"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/chobo/target/pggo"
	"github.com/chobo-lang/chobo/chobo/target/postgres"
)

// targets are the values --target takes, in the order help lists them.
var targets = []target.Target{
	{Name: "postgres", Summary: diag.T("PostgreSQL schema, tables and functions", "PostgreSQL のスキーマ、テーブル、関数"), Build: postgres.Build},
	{Name: "postgres-go", Summary: diag.T("a Go package that calls the PostgreSQL functions through pgx", "PostgreSQL の関数を pgx で呼ぶ Go のパッケージ"), Build: pggo.Build},
}

func targetNames() []string {
	var out []string
	for _, t := range targets {
		out = append(out, t.Name)
	}
	return out
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
	var tg target.Target
	for _, t := range targets {
		if t.Name == tname {
			tg = t
		}
	}
	src, _ := env.ReadFile(name) // loadBook has read it already
	pkg := inv.Flags["package"]
	if pkg != "" && !token.IsIdentifier(pkg) {
		usageError(env, inv.Cmd, inv.Lang, diag.T(fmt.Sprintf("--package %q is not a Go identifier", pkg), fmt.Sprintf("--package %q は Go の識別子ではありません", pkg)))
		return ExitUsage
	}
	files, ds := tg.Build(b, target.NewSource(filepath.Base(name), src), target.Options{Package: pkg})
	if len(ds) > 0 {
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
	for _, f := range files {
		path := filepath.Join(dir, f.Path)
		if err := writeFile(path, f.Data); err != nil {
			fmt.Fprintf(env.Stderr, "%s\n", diag.T(
				fmt.Sprintf("chobo build: cannot write %s: %v", path, err),
				fmt.Sprintf("chobo build: %s を書けません: %v", path, err)).In(inv.Lang))
			return ExitUsage
		}
		fmt.Fprintln(env.Stderr, path)
	}
	return ExitOK
}
