package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/chobo-lang/chobo/chobo/diag"
)

func usageLine(c *Command) string {
	parts := []string{"chobo", c.Name}
	if c.Args != "" {
		parts = append(parts, c.Args)
	}
	for _, f := range c.Flags {
		// A flag the positional part already shows (`<code> | --all`)
		// is not repeated.
		if strings.Contains(c.Args, "--"+f.Name) {
			continue
		}
		part := "[" + f.usage() + "]"
		if f.Repeat {
			part += "..."
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}

func writeTopHelp(w io.Writer, lang diag.Lang) {
	var b strings.Builder
	b.WriteString(diag.T("chobo: bounds on accounts, kept by every transfer in one write",
		"chobo: 勘定に下限と上限を書き、どの振替も一度の書き込みの中でそれを守る").In(lang))
	b.WriteString("\n\n")
	b.WriteString(diag.T("usage:", "使い方:").In(lang) + "\n")
	for i := range Commands {
		fmt.Fprintf(&b, "  %s\n", usageLine(&Commands[i]))
	}
	b.WriteString("\n" + diag.T("commands:", "コマンド:").In(lang) + "\n")
	width := 0
	for _, c := range Commands {
		width = max(width, len(c.Name))
	}
	for _, c := range Commands {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.Name, c.Summary.In(lang))
	}
	b.WriteString("\n" + diag.T("flags:", "フラグ:").In(lang) + "\n")
	width = 0
	for _, f := range topFlags {
		width = max(width, len(f.usage()))
	}
	for _, f := range topFlags {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, f.usage(), f.Help.In(lang))
	}
	b.WriteString("\n" + diag.T(
		"Exit status: 0 clean or warnings only, 1 errors in the input, 2 wrong use, a file that cannot be read, or an internal failure.\nRun `chobo help <command>` or `chobo <command> --help` for the flags of a command.",
		"終了コード: 0 は問題なしか警告だけ、1 は入力のエラー、2 は使い方の誤り、読めないファイル、内部の異常です。\n各コマンドのフラグは `chobo help <command>` か `chobo <command> --help` で表示されます。").In(lang) + "\n")
	io.WriteString(w, b.String())
}

func writeCommandHelp(w io.Writer, c *Command, lang diag.Lang) {
	var b strings.Builder
	fmt.Fprintf(&b, "chobo %s: %s\n\n", c.Name, c.Summary.In(lang))
	fmt.Fprintf(&b, "%s\n  %s\n\n", diag.T("usage:", "使い方:").In(lang), usageLine(c))
	b.WriteString(diag.T("flags:", "フラグ:").In(lang) + "\n")
	flags := append(append([]Flag{}, c.Flags...), commonFlags...)
	width := 0
	for _, f := range flags {
		width = max(width, len(f.usage()))
	}
	for _, f := range flags {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, f.usage(), f.Help.In(lang))
	}
	if c.Choices != nil {
		name, items := c.Choices()
		fmt.Fprintf(&b, "\n%s\n", name.In(lang))
		width = 0
		for _, it := range items {
			width = max(width, len(it.Name))
		}
		for _, it := range items {
			fmt.Fprintf(&b, "  %-*s  %s\n", width, it.Name, it.Help.In(lang))
		}
	}
	io.WriteString(w, b.String())
}
