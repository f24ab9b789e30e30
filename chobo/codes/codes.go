// Package codes is the catalogue of diagnostic codes: for each, when it
// fires, how to fix it, and the smallest book that makes it fire.
// `chobo explain` prints it and a test checks every repro book.
package codes

import (
	"strings"
	"unicode"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// Code describes one diagnostic code.
type Code struct {
	Code     string
	Severity diag.Severity
	Title    diag.Text // a few words
	When     diag.Text // when it fires
	Fix      diag.Text // how to make it go away
	// Repro is the smallest book that yields the code. It is checked as
	// a file named "repro.book".
	Repro string
	// Target, for the codes a build reports, is the --target that shows
	// the code on the repro book.
	Target string
	// Against, for the codes that compare a book with its deployed
	// version, is that previous version as a book: the repro shows the
	// code when checked with `--against against.book`.
	Against string
	// Raised, for a code that is no diagnostic but an error the code a
	// target writes raises while it runs (a PostgreSQL SQLSTATE), names
	// that target. Against is then the deployed version and Repro the
	// new one, whose calls raise the code on what the deployed one made;
	// CheckedAs is the diagnostic `chobo check --against` gives for that
	// change before it is deployed.
	Raised    string
	CheckedAs string
	// PerLanguage: When goes on with what each client language says of
	// it (chobo/target adds it, from each language's folder), so that
	// the catalogue names no language itself.
	PerLanguage bool
	// Concept, when set, is the heading of the section of the concepts
	// page (docs/concepts.md, docs/concepts.ja.md) that explains the
	// idea behind the code, in each language.
	Concept diag.Text
}

// WithWhen is c with the texts more after its When, each in its own
// language, separated by a space.
func (c Code) WithWhen(more ...diag.Text) Code {
	for _, m := range more {
		if m.IsZero() {
			continue
		}
		c.When = diag.T(c.When.En+" "+m.En, c.When.Ja+m.Ja)
	}
	return c
}

// ConceptPage is the concepts page in lang, from the repository's root.
func ConceptPage(lang diag.Lang) string {
	if lang == diag.Japanese {
		return "docs/concepts.ja.md"
	}
	return "docs/concepts.md"
}

// Anchor is the fragment GitHub gives a Markdown heading: lower case,
// spaces as hyphens, and every other mark that is not a letter, a digit,
// "-" or "_" dropped.
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Lookup returns the code named c, if chobo knows it.
func Lookup(c string) (Code, bool) {
	for _, x := range All {
		if x.Code == c {
			return x, true
		}
	}
	return Code{}, false
}
