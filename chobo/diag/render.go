package diag

import (
	"fmt"
	"io"
	"strings"
)

// labels holds the fixed words of the text output in each language.
type labels struct {
	error, warning, note, operations, hint string
}

var words = map[Lang]labels{
	English:  {"error", "warning", "note", "the operations that get there:", "hint"},
	Japanese: {"エラー", "警告", "注", "そうなる例:", "ヒント"},
}

// WriteText prints one diagnostic for people: the code and place, the
// quoted line, notes, the operations that lead there, and the hint.
// Everything that comes from the book or from a value goes through
// Printable, so that what a file holds cannot act on the terminal.
func WriteText(w io.Writer, d Diagnostic, lang Lang) {
	lb := words[lang]
	sev := lb.error
	if d.Severity == Warning {
		sev = lb.warning
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s[%s]: %s: %s\n", sev, d.Code, Printable(place(d)), Printable(d.Message.In(lang)))
	if d.Excerpt != "" && !d.NoExcerpt {
		fmt.Fprintf(&b, "%6d | %s\n", d.Line, Printable(d.Excerpt))
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "  %s: %s\n", lb.note, Printable(n.In(lang)))
	}
	if len(d.Operations) > 0 {
		fmt.Fprintf(&b, "  %s\n", lb.operations)
		for _, op := range d.Operations {
			if op.Outcome.IsZero() {
				fmt.Fprintf(&b, "    %3d  %s\n", op.Step, Printable(op.Call))
			} else {
				fmt.Fprintf(&b, "    %3d  %s  %s\n", op.Step, Printable(op.Call), Printable(op.Outcome.In(lang)))
			}
		}
	}
	if !d.Hint.IsZero() {
		fmt.Fprintf(&b, "  %s: %s\n", lb.hint, Printable(d.Hint.In(lang)))
	}
	io.WriteString(w, b.String())
}

func place(d Diagnostic) string {
	if d.Line == 0 {
		return d.File
	}
	return fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Col)
}

// Summary is the closing line for one checked file.
func Summary(file string, l List, lang Lang) string {
	file = Printable(file)
	e, w := l.Errors(), l.Warnings()
	if e == 0 && w == 0 {
		return file + ": ok"
	}
	if lang == Japanese {
		var parts []string
		if e > 0 {
			parts = append(parts, fmt.Sprintf("エラー %d 件", e))
		}
		if w > 0 {
			parts = append(parts, fmt.Sprintf("警告 %d 件", w))
		}
		return file + ": " + strings.Join(parts, "、")
	}
	var parts []string
	if e > 0 {
		parts = append(parts, plural(e, "error"))
	}
	if w > 0 {
		parts = append(parts, plural(w, "warning"))
	}
	return file + ": " + strings.Join(parts, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
