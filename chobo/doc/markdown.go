package doc

import (
	"bytes"
	"embed"
	"fmt"
	"html"
	"strings"
	"text/template"
	"unicode"

	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

//go:embed templates
var templates embed.FS

// words are the helpers of both templates: t picks the text in lang,
// count puts a number into a text, inc counts from 1, join writes a list
// as a sentence of lang does.
func words(lang diag.Lang) map[string]any {
	return map[string]any{
		"t":    func(en, ja string) string { return diag.T(en, ja).In(lang) },
		"inc":  func(i int) int { return i + 1 },
		"dec":  func(i int) int { return i - 1 },
		"join": func(list []string) string { return strings.Join(list, diag.T(", ", "、").In(lang)) },
		"count": func(n int, en, ja string) string {
			return diag.T(fmt.Sprintf(en, n), fmt.Sprintf(ja, n)).In(lang)
		},
	}
}

// funcs are the helpers of the Markdown template: words, and what makes
// text and diagrams safe in Markdown.
func funcs(lang diag.Lang) template.FuncMap {
	f := template.FuncMap(words(lang))
	more := map[string]any{
		"md": md,
		// md, but the spans between backticks of a text of chobo's own
		// stay code spans.
		"mdCode": func(s string) string {
			return codeSpans(s, md, func(c string) string { return "`" + c + "`" })
		},
		"cell": cell,
		"html": func(s string) string { return html.EscapeString(diag.Printable(s)) },
		"lines": func(list []string) string {
			parts := make([]string, len(list))
			for i, s := range list {
				parts[i] = cell(s)
			}
			return strings.Join(parts, "<br>")
		},
		"mermaidFlow": mermaidFlow,
		"mermaidLife": func(h *HoldView, name string) string { return mermaidLife(h, name, lang) },
		"ledger":      ledgerCell,
		"holds":       holdsCell,
		"hasHold":     hasHold,
	}
	for k, v := range more {
		f[k] = v
	}
	return f
}

// Markdown writes the page as Markdown, with Mermaid diagrams that
// GitHub draws.
func Markdown(p *Page) ([]byte, error) {
	tmpl, err := template.New("page.md.tmpl").Funcs(funcs(p.Lang)).ParseFS(templates,
		"templates/page.md.tmpl", "templates/transfer.md.tmpl", "templates/scenario.md.tmpl")
	if err != nil {
		return nil, err
	}
	// The transfers and the scenarios are most of a large page, and each
	// is written on its own, so they are written side by side first.
	v := markdownView{Page: p}
	if v.RenderedTransfers, err = renderEach(tmpl, "transfer", p.Transfers); err != nil {
		return nil, err
	}
	if v.RenderedScenarios, err = renderEach(tmpl, "scenario", p.Scenarios); err != nil {
		return nil, err
	}
	for _, f := range p.Own {
		r, err := renderEach(tmpl, "scenario", f.Scenarios)
		if err != nil {
			return nil, err
		}
		v.RenderedOwn = append(v.RenderedOwn, renderedFile{File: f.File, Scenarios: r})
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// markdownView is the page with its transfers and scenarios already
// written.
type markdownView struct {
	*Page
	RenderedTransfers []string
	RenderedScenarios []string
	RenderedOwn       []renderedFile
}

// renderedFile is one of the team's scenario files, its scenarios
// already written.
type renderedFile struct {
	File      string
	Scenarios []string
}

// renderEach writes each of items with the template named name.
func renderEach[T any](tmpl *template.Template, name string, items []T) ([]string, error) {
	out := make([]string, len(items))
	err := eachAtOnce(len(items), func(i int) error {
		var b strings.Builder
		if err := tmpl.ExecuteTemplate(&b, name, items[i]); err != nil {
			return err
		}
		out[i] = b.String()
		return nil
	})
	return out, err
}

// codeSpans writes s with plain for the text outside backticks and span
// for each span between a pair of them; with an odd number of backticks,
// s is plain text whole.
func codeSpans(s string, plain, span func(string) string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		return plain(s)
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString(span(p))
		} else if p != "" {
			b.WriteString(plain(p))
		}
	}
	return b.String()
}

// md makes text from a book safe in running Markdown: controls made
// visible, and every character that could start markup (or math, which
// GitHub draws between dollars) escaped.
func md(s string) string {
	var b strings.Builder
	if plainASCII(s) {
		// Byte by byte: the same as below, without the runes.
		word := func(i int) bool { return i >= 0 && i < len(s) && isWordByte(s[i]) }
		b.Grow(len(s) + 8)
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case '_':
				if !word(i-1) || !word(i+1) {
					b.WriteByte('\\')
				}
			case '\\', '`', '*', '[', ']', '<', '>', '|', '~', '&', '$', '#', '!':
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
		return b.String()
	}
	rs := []rune(diag.Printable(s))
	word := func(i int) bool { return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])) }
	for i, r := range rs {
		switch r {
		case '_':
			// Inside a word an underscore never starts emphasis:
			// out_of_stock stays readable in the source.
			if !word(i-1) || !word(i+1) {
				b.WriteByte('\\')
			}
		case '\\', '`', '*', '[', ']', '<', '>', '|', '~', '&', '$', '#', '!':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cell is md for a table cell, where a line break would end the row.
func cell(s string) string { return lineBreaks.Replace(md(s)) }

var lineBreaks = strings.NewReplacer("\n", " ", "\r", " ")

// plainASCII reports whether s is printable ASCII alone, which md can
// escape byte by byte.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func ledgerCell(rows []LedgerRow) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = cell(r.Account) + ": " + cell(r.Text)
	}
	return strings.Join(parts, "<br>")
}

func holdsCell(holds [][2]string) string {
	parts := make([]string, len(holds))
	for i, h := range holds {
		parts[i] = cell(h[0]) + ": " + cell(h[1])
	}
	return strings.Join(parts, "<br>")
}

func hasHold(o OutcomeView) bool {
	for _, s := range o.Steps {
		if len(s.Holds) > 0 {
			return true
		}
	}
	return false
}

// mermaidText writes a label for Mermaid: letters, digits and a few
// harmless marks as they are, everything else as an entity code, which
// Mermaid reads inside quoted labels.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range diag.Printable(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" (),.:-_·", r) {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, "#%d;", r)
	}
	return b.String()
}

func mermaidFlow(f Flow) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for i, n := range f.Nodes {
		lines := []string{mermaidText(n.Title)}
		for _, l := range n.Lines {
			lines = append(lines, mermaidText(l))
		}
		label := strings.Join(lines, "<br>")
		if n.Outside {
			fmt.Fprintf(&b, "    a%d([\"%s\"])\n", i, label)
		} else {
			fmt.Fprintf(&b, "    a%d[\"%s\"]\n", i, label)
		}
	}
	for _, e := range f.Edges {
		arrow := "-->"
		if e.Held {
			arrow = "-.->"
		}
		fmt.Fprintf(&b, "    a%d %s|\"%s\"| a%d\n", e.From, arrow, mermaidText(e.Label), e.To)
	}
	return b.String()
}

func mermaidLife(h *HoldView, name string, lang diag.Lang) string {
	st := func(s interp.HoldState) string { return mermaidText(scenario.HoldStateText(s, lang)) }
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	fmt.Fprintf(&b, "    state \"%s\" as held\n", st(interp.Held))
	fmt.Fprintf(&b, "    state \"%s\" as posted\n", st(interp.Posted))
	fmt.Fprintf(&b, "    state \"%s\" as voided\n", st(interp.Voided))
	if h.Expires {
		fmt.Fprintf(&b, "    state \"%s\" as expired\n", st(interp.HoldExpired))
	}
	fmt.Fprintf(&b, "    [*] --> held: %s\n", mermaidText(name+".hold"))
	b.WriteString("    held --> posted: post\n")
	b.WriteString("    held --> voided: void\n")
	if h.Expires {
		fmt.Fprintf(&b, "    held --> expired: %s\n", mermaidText(diag.T("after "+h.Lifetime, h.Lifetime+"後").In(lang)))
	}
	fmt.Fprintf(&b, "    posted --> posted: %s\n", mermaidText("void: already_posted"))
	fmt.Fprintf(&b, "    voided --> voided: %s\n", mermaidText("post: already_voided"))
	if h.Expires {
		fmt.Fprintf(&b, "    expired --> expired: %s\n", mermaidText("post, void: expired"))
	}
	b.WriteString("    posted --> [*]\n    voided --> [*]\n")
	if h.Expires {
		b.WriteString("    expired --> [*]\n")
	}
	return b.String()
}
