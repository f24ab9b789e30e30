// Package check runs every stage of checking one book — the secret scan,
// parsing, resolution and the analyses of the resolved book — and stops
// where going further would only guess: after a syntax error nothing is
// resolved, after a name or type error nothing is analysed.
package check

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/report"
	"github.com/chobo-lang/chobo/chobo/resolve"
	"github.com/chobo-lang/chobo/chobo/search"
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
// analyses that run the book on the interpreter plug in here too, and
// find their examples with s, which every analysis of a book and its
// refusal report share: what one found, the next need not search again,
// and the work they may spend is counted once.
type Analysis func(b *book.Book, s *search.Searcher) diag.List

// Analyses run, in order, on every book that resolved without errors.
var Analyses = []Analysis{SameAccount, OnlyFilled, AlwaysRefused, MoveOrder, HoldsOwnMoves, Unused, IneffectiveBounds}

// Check checks the book in src; name is the file name used in messages.
func Check(name string, src []byte) Result { return check(name, src, true) }

// Errors checks the book in src for errors alone: the warnings, which need
// the search for example calls, and the refusal report are left out, so
// that a command that needs only a book without errors (build, run,
// scenarios) gets it, or the errors, without that work. Result.Report is
// nil.
func Errors(name string, src []byte) Result { return check(name, src, false) }

// errorAnalyses are the analyses that report errors; Errors runs them
// alone.
var errorAnalyses = []Analysis{SameAccount}

func check(name string, src []byte, warnings bool) Result {
	res := Result{File: name}
	// The scan reads the text the parser reads: after a byte order mark,
	// which the parser reports on its own.
	res.Diags = append(res.Diags, scanSecrets(name, bytes.TrimPrefix(src, []byte("\uFEFF")))...)
	f, ds := syntax.Parse(name, src)
	res.Diags = append(res.Diags, ds...)
	var s *search.Searcher
	if ds.Errors() == 0 {
		b, ds := resolve.Resolve(f)
		res.Diags = append(res.Diags, ds...)
		if b != nil && ds.Errors() == 0 {
			res.Book = b
			s = search.New(b)
			analyses := Analyses
			if !warnings {
				analyses = errorAnalyses
			}
			for _, a := range analyses {
				res.Diags = append(res.Diags, a(b, s)...)
			}
		}
	}
	if res.Diags.Errors() > 0 {
		res.Book = nil
	} else if res.Book != nil && warnings {
		r := report.BuildWith(res.Book, s)
		res.Report = &r
		res.Diags = append(res.Diags, ranOut(res.Book, s)...)

	}
	quote(res.Diags, f.Lines)
	res.Diags.Sort()
	return res
}

// ranOut says, for each operation whose examples the search gave up on
// for want of work (W109), that what the report and the warnings say of
// it may be missing something.
func ranOut(b *book.Book, s *search.Searcher) diag.List {
	var l diag.List
	for _, op := range s.RanOut() {
		pos := b.Pos
		name, _, _ := strings.Cut(op, ".")
		if t := b.Transfer(name); t != nil {
			pos = t.Pos
		}
		l.Add(warn(b, "W109", pos,
			diag.T(fmt.Sprintf("the search for calls that show what `%s` may answer ran out of work before it was done: a refusal or a warning it did not reach is not reported", op),
				fmt.Sprintf("`%s` が返しうる答えを示す呼び出しの探索が、終わる前に手間の上限に達しました。たどり着けなかった拒否や警告は報告されません", op)),
			diag.T("this is a limit of the search, not a fault of the book; a transfer with fewer amounts or fewer moves, taking from accounts that a call can fill by any amount, is searched through",
				"帳簿の誤りではなく、探索の限界です。数量や移動の少ない振替で、取る元の勘定を呼び出し一つで好きな額だけ満たせるなら、探索は最後まで届きます")))
	}
	return l
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
