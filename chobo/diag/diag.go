// Package diag holds the diagnostics every stage of chobo reports and
// prints them as text for people; their JSON shape for tools is in
// chobo/api.
//
// A diagnostic carries its message in both languages so that a stage never
// needs to know which language the user asked for; the printer picks one.
package diag

import (
	"cmp"
	"slices"
)

// Lang is the language of the text a command prints.
type Lang int

const (
	English Lang = iota
	Japanese
)

// ParseLang reads a language name as given to --lang or CHOBO_LANG.
func ParseLang(s string) (Lang, bool) {
	switch s {
	case "en", "english":
		return English, true
	case "ja", "japanese":
		return Japanese, true
	}
	return English, false
}

// Text is one sentence in both languages.
type Text struct {
	En string
	Ja string
}

// T builds a Text.
func T(en, ja string) Text { return Text{En: en, Ja: ja} }

// In returns the text in lang, falling back to English when the Japanese
// text is missing so that nothing is ever printed empty.
func (t Text) In(lang Lang) string {
	if lang == Japanese && t.Ja != "" {
		return t.Ja
	}
	return t.En
}

// IsZero reports whether the text is empty in both languages.
func (t Text) IsZero() bool { return t.En == "" && t.Ja == "" }

// Severity tells whether a diagnostic stops the book (Error) or only
// points at something worth a look (Warning).
type Severity int

const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Operation is one step of a sequence of calls that leads to what a
// diagnostic says, as replayed on the reference interpreter.
type Operation struct {
	Step    int
	Call    string
	Outcome Text
}

// Diagnostic is one finding about a book.
type Diagnostic struct {
	Code     string
	Severity Severity
	File     string
	Line     int // 1-based; 0 when the finding has no place in the file
	Col      int // 1-based, counted in characters
	Message  Text
	Notes    []Text
	// Excerpt is the quoted source line. It is filled in by the checker,
	// which also masks secrets in it; stages leave it empty.
	Excerpt string
	// NoExcerpt keeps the line from being quoted at all (W901: the line
	// holds the secret).
	NoExcerpt  bool
	Operations []Operation
	Hint       Text
}

// List collects diagnostics in the order they are found.
type List []Diagnostic

// Add appends a diagnostic.
func (l *List) Add(d Diagnostic) { *l = append(*l, d) }

// Errors counts the diagnostics of severity Error.
func (l List) Errors() int {
	n := 0
	for _, d := range l {
		if d.Severity == Error {
			n++
		}
	}
	return n
}

// Warnings counts the diagnostics of severity Warning.
func (l List) Warnings() int { return len(l) - l.Errors() }

// Sort orders diagnostics by place, then by code, so that output does not
// depend on the order in which the stages ran.
func (l List) Sort() {
	slices.SortStableFunc(l, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Code, b.Code),
		)
	})
}

// Paren writes "head (inner)" in English and "head(inner)" in Japanese,
// where a sentence takes full-width brackets.
func Paren(lang Lang, head, inner string) string {
	if lang == Japanese {
		return head + "(" + inner + ")"
	}
	return head + " (" + inner + ")"
}
