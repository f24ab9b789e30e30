// Package check runs every stage of checking one book — the secret scan,
// parsing, resolution and the analyses of the resolved book — and stops
// where going further would only guess: after a syntax error nothing is
// resolved, after a name or type error nothing is analysed.
package check

import (
	"bytes"
	"fmt"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/report"
	"github.com/chobo-lang/chobo/chobo/resolve"
	"github.com/chobo-lang/chobo/chobo/secrets"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// Result is what checking one file found.
type Result struct {
	File  string
	Book  *book.Book // nil when the book has errors
	Diags diag.List
	// Report is the per-operation refusal report; nil when the book has
	// errors.
	Report *report.Report
}

// Analysis looks at a resolved book and reports what it finds. The
// analyses that run the book on the interpreter plug in here too.
type Analysis func(b *book.Book) diag.List

// Analyses run, in order, on every book that resolved without errors.
var Analyses = []Analysis{SameAccount, OnlyFilled, AlwaysRefused, MoveOrder, HoldsOwnMoves, Unused, IneffectiveBounds}

// Check checks the book in src; name is the file name used in messages.
func Check(name string, src []byte) Result {
	res := Result{File: name}
	// The scan reads the text the parser reads: after a byte order mark,
	// which the parser reports on its own.
	res.Diags = append(res.Diags, scanSecrets(name, bytes.TrimPrefix(src, []byte("\uFEFF")))...)
	f, ds := syntax.Parse(name, src)
	res.Diags = append(res.Diags, ds...)
	if ds.Errors() == 0 {
		b, ds := resolve.Resolve(f)
		res.Diags = append(res.Diags, ds...)
		if b != nil && ds.Errors() == 0 {
			res.Book = b
			for _, a := range Analyses {
				res.Diags = append(res.Diags, a(b)...)
			}
		}
	}
	quote(res.Diags, f.Lines)
	res.Diags.Sort()
	if res.Diags.Errors() > 0 {
		res.Book = nil
	} else if res.Book != nil {
		r := report.Build(res.Book)
		res.Report = &r
	}
	return res
}

func scanSecrets(name string, src []byte) diag.List {
	var l diag.List
	for _, s := range secrets.Scan(src) {
		l.Add(diag.Diagnostic{
			Code: "W901", Severity: diag.Warning, File: name,
			Line: s.Line, Col: s.Col, NoExcerpt: true,
			Message: diag.T(
				fmt.Sprintf("a secret-shaped value (%s) is written in the book: %s…, %d characters", s.Kind.English(), s.Prefix, s.Length),
				fmt.Sprintf("帳簿にシークレットらしき値(%s)が書かれています: %s…、%d 文字", s.Kind.Japanese(), s.Prefix, s.Length)),
			Hint: diag.T("take it out of the book and revoke it, since it may already be in version control; a value made up for a test is passed over when its line has the comment `# test secret`",
				"帳簿から消してください。すでにバージョン管理に入っているおそれがあるので、失効させて作り直してください。テスト用に作った値なら、その行にコメント `# test secret` を書けば警告しません"),
		})
	}
	return l
}

// quote fills in the source line each diagnostic points at, with any
// secret-shaped value masked.
func quote(ds diag.List, lines []string) {
	for i := range ds {
		d := &ds[i]
		if d.Line > 0 && d.Line <= len(lines) && !d.NoExcerpt {
			d.Excerpt = secrets.Mask(lines[d.Line-1])
		}
	}
}

// Quote fills in the quoted lines of diagnostics that a later stage (a
// build target) found in the book src, the way Check does for its own.
func Quote(ds diag.List, src []byte) {
	f, _ := syntax.Parse("", src)
	quote(ds, f.Lines)
}

// Extend adds diagnostics about the same file that a stage after Check
// found (the comparison with the deployed version): quoted the way Check
// quotes its own, sorted in among them, and, when one is an error, the
// book and its report are dropped as for any book with errors.
func (r *Result) Extend(src []byte, ds diag.List) {
	if len(ds) == 0 {
		return
	}
	Quote(ds, src)
	r.Diags = append(r.Diags, ds...)
	r.Diags.Sort()
	if ds.Errors() > 0 {
		r.Book, r.Report = nil, nil
	}
}
