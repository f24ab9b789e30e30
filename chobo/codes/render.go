package codes

import (
	"fmt"
	"io"
	"strings"

	"github.com/chobo-lang/chobo/chobo/diag"
)

func severityWord(s diag.Severity, lang diag.Lang) string {
	if s == diag.Warning {
		return diag.T("warning", "警告").In(lang)
	}
	return diag.T("error", "エラー").In(lang)
}

func indent(s, pad string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// printableLines escapes what each line holds and keeps the line breaks:
// a repro book of E001 is the place a stray control would hide.
func printableLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = diag.Printable(l)
	}
	return strings.Join(lines, "\n")
}

// WriteText prints one code for the terminal.
func WriteText(w io.Writer, c Code, lang diag.Lang) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", diag.Paren(lang, c.Code, severityWord(c.Severity, lang)), diag.Printable(c.Title.In(lang)))
	fmt.Fprintf(&b, "  %s\n", diag.T("when:", "いつ出るか:").In(lang))
	b.WriteString(indent(printableLines(c.When.In(lang)), "    "))
	fmt.Fprintf(&b, "  %s\n", diag.T("fix:", "直し方:").In(lang))
	b.WriteString(indent(printableLines(c.Fix.In(lang)), "    "))
	switch {
	case c.Raised != "":
		fmt.Fprintf(&b, "  %s\n", diag.T("deployed version:", "デプロイ済みのバージョン:").In(lang))
		b.WriteString(indent(printableLines(c.Against), "    "))
		fmt.Fprintf(&b, "  %s\n", raisedBy(c, lang, ""))
	case c.Against != "":
		fmt.Fprintf(&b, "  %s\n", diag.T("previous version, given to --against:", "--against に渡す前のバージョン:").In(lang))
		b.WriteString(indent(printableLines(c.Against), "    "))
		fmt.Fprintf(&b, "  %s\n", diag.T("smallest book that shows it:", "これを出す最小の帳簿:").In(lang))
	default:
		fmt.Fprintf(&b, "  %s\n", diag.T("smallest book that shows it:", "これを出す最小の帳簿:").In(lang))
	}
	b.WriteString(indent(printableLines(c.Repro), "    "))
	if h := c.Concept.In(lang); h != "" {
		fmt.Fprintf(&b, "  %s %s#%s\n", diag.T("more:", "詳しく:").In(lang), ConceptPage(lang), Anchor(h))
	}
	io.WriteString(w, b.String())
}

// WriteMarkdown prints the codes as one Markdown page: a table first,
// then a section per code.
func WriteMarkdown(w io.Writer, list []Code, lang diag.Lang) {
	var b strings.Builder
	b.WriteString(diag.T("# Diagnostic codes\n\n", "# 診断のコード\n\n").In(lang))
	b.WriteString(diag.T("| code | severity | what |\n|---|---|---|\n", "| コード | 重大度 | 内容 |\n|---|---|---|\n").In(lang))
	for _, c := range list {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s |\n", c.Code, strings.ToLower(c.Code), severityWord(c.Severity, lang), c.Title.In(lang))
	}
	for _, c := range list {
		fmt.Fprintf(&b, "\n## %s\n\n", c.Code)
		fmt.Fprintf(&b, "%s: %s\n\n", severityWord(c.Severity, lang), c.Title.In(lang))
		fmt.Fprintf(&b, "**%s** %s\n\n", diag.T("When:", "いつ出るか:").In(lang), c.When.In(lang))
		fmt.Fprintf(&b, "**%s** %s\n\n", diag.T("Fix:", "直し方:").In(lang), c.Fix.In(lang))
		switch {
		case c.Raised != "":
			fmt.Fprintf(&b, "%s\n\n```\n%s```\n\n", diag.T("Deployed version (`against.book`):", "デプロイ済みのバージョン(`against.book`):").In(lang), c.Against)
			fmt.Fprintf(&b, "%s\n\n", raisedBy(c, lang, "`repro.book`"))
		case c.Against != "":
			fmt.Fprintf(&b, "%s\n\n```\n%s```\n\n", diag.T("Previous version (`against.book`, given to `--against`):", "前のバージョン(`against.book`。`--against` に渡す):").In(lang), c.Against)
			fmt.Fprintf(&b, "%s\n\n", diag.T("The book (`repro.book`):", "帳簿(`repro.book`):").In(lang))
		}
		fmt.Fprintf(&b, "```\n%s```\n", c.Repro)
		if h := c.Concept.In(lang); h != "" {
			// The codes pages sit beside the concepts pages in docs/.
			page := strings.TrimPrefix(ConceptPage(lang), "docs/")
			fmt.Fprintf(&b, "\n%s [%s](%s#%s)\n", diag.T("More:", "詳しく:").In(lang), h, page, Anchor(h))
		}
	}
	io.WriteString(w, b.String())
}

// raisedBy introduces the new version of a code raised at run time: the
// book whose calls raise it on what the deployed version made. file, when
// set, is the name the page gives the book.
func raisedBy(c Code, lang diag.Lang, file string) string {
	head := diag.T("new version", "新しいバージョン").In(lang)
	if file != "" {
		head = diag.Paren(lang, diag.T("New version", "新しいバージョン").In(lang), file)
	}
	return head + diag.T(
		fmt.Sprintf(": once what `chobo build --target %s` writes for it is loaded into the database the deployed version ran on, a call that reaches an account made before raises %s (`chobo check --against` reports the change as %s):", c.Raised, c.Code, c.CheckedAs),
		fmt.Sprintf(": `chobo build --target %s` が書き出したものを、デプロイ済みのバージョンが動いていたデータベースに読み込むと、前に作った勘定に触る呼び出しが %s になります(`chobo check --against` はこの変更を %s として報告します):", c.Raised, c.Code, c.CheckedAs)).In(lang)
}
