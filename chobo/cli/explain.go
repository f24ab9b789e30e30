package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/chobo-lang/chobo/chobo/codes"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/target"
)

func runExplain(inv *Invocation) int {
	env := inv.Env
	all := inv.Has("all")
	if all == (len(inv.Args) == 1) {
		usageError(env, inv.Cmd, inv.Lang, diag.T("give one code or --all, not both", "コードを一つか --all のどちらかを渡してください"))
		return ExitUsage
	}
	var list []codes.Code
	if all {
		list = target.Codes()
	} else {
		c, ok := target.Code(strings.ToUpper(inv.Args[0]))
		if !ok {
			fmt.Fprintf(env.Stderr, "%s\n", diag.Printable(diag.T(
				fmt.Sprintf("chobo explain: no code %s; `chobo explain --all` lists every code", inv.Args[0]),
				fmt.Sprintf("chobo explain: %s というコードはありません。`chobo explain --all` が全部を出します", inv.Args[0])).In(inv.Lang)))
			return ExitUsage
		}
		list = []codes.Code{c}
	}
	if inv.Flags["format"] == "markdown" {
		codes.WriteMarkdown(env.Stdout, list, inv.Lang)
	} else {
		for i, c := range list {
			if i > 0 {
				io.WriteString(env.Stdout, "\n")
			}
			codes.WriteText(env.Stdout, c, inv.Lang)
		}
	}
	return ExitOK
}
