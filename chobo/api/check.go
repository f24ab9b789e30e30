package api

import (
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/report"
	"github.com/chobo-lang/chobo/chobo/search"
)

// Check is what `chobo check --format json` prints: one entry per file,
// in the order the files were given.
type Check struct {
	V     int         `json:"v"`
	Files []CheckFile `json:"files"`
}

// CheckFile is what checking one file found.
type CheckFile struct {
	File        string       `json:"file"`
	OK          bool         `json:"ok"`
	Errors      int          `json:"errors"`
	Warnings    int          `json:"warnings"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Report is the refusal report of a book without errors; null when
	// the book has errors.
	Report *Report `json:"report"`
}

// Diagnostic is one diagnostic. Keys are English whatever the language;
// message, notes and hint are in the language asked for.
type Diagnostic struct {
	Code       string      `json:"code"`
	Severity   string      `json:"severity"`
	File       string      `json:"file"`
	Line       int         `json:"line"`
	Col        int         `json:"col"`
	Message    string      `json:"message"`
	Notes      []string    `json:"notes"`
	Excerpt    string      `json:"excerpt"`
	Operations []Operation `json:"operations"`
	Hint       string      `json:"hint"`
}

// Operation is one step of the calls that lead to a diagnostic or a
// refusal, as the reference interpreter answered it.
type Operation struct {
	Step    int    `json:"step"`
	Call    string `json:"call"`
	Outcome string `json:"outcome"`
}

// Report is the refusal report of one book: per transfer kind and
// operation, the reasons a call may be refused with, and what each key
// means.
type Report struct {
	Operations []ReportOperation `json:"operations"`
	Keys       []ReportKey       `json:"keys"`
}

// ReportOperation lists the refusals found for one operation.
type ReportOperation struct {
	Transfer string          `json:"transfer"`
	Op       string          `json:"op"`
	Refusals []ReportRefusal `json:"refusals"`
}

// ReportRefusal is one reason, the bound behind it when it is a bound's
// reason, and calls that end refused with it.
type ReportRefusal struct {
	Reason string `json:"reason"`
	Bound  string `json:"bound,omitempty"`
	// Moves are the moves (from 1) whose account crosses the bound in
	// the calls the search found; empty for chobo's own reasons.
	Moves      []int       `json:"moves,omitempty"`
	Operations []Operation `json:"operations"`
}

// ReportKey says what the key of one transfer kind means for callers.
type ReportKey struct {
	Transfer string   `json:"transfer"`
	Key      []string `json:"key"`
	Text     string   `json:"text"`
}

// NewCheck starts the document for the files checked.
func NewCheck() Check { return Check{V: Version, Files: []CheckFile{}} }

// CheckFileOf converts what checking one file found; rep is nil when the
// book has errors.
func CheckFileOf(file string, l diag.List, rep *report.Report, lang diag.Lang) CheckFile {
	fr := CheckFile{
		File:        file,
		OK:          l.Errors() == 0,
		Errors:      l.Errors(),
		Warnings:    l.Warnings(),
		Diagnostics: diagnostics(l, lang),
	}
	if rep != nil {
		r := ReportOf(*rep, lang)
		fr.Report = &r
	}
	return fr
}

// diagnostics converts a list of diagnostics; texts follow lang.
func diagnostics(l diag.List, lang diag.Lang) []Diagnostic {
	out := []Diagnostic{}
	for _, d := range l {
		jd := Diagnostic{
			Code:       d.Code,
			Severity:   d.Severity.String(),
			File:       d.File,
			Line:       d.Line,
			Col:        d.Col,
			Message:    d.Message.In(lang),
			Notes:      []string{},
			Operations: operations(d.Operations, lang),
			Hint:       d.Hint.In(lang),
		}
		if !d.NoExcerpt {
			jd.Excerpt = d.Excerpt
		}
		for _, n := range d.Notes {
			jd.Notes = append(jd.Notes, n.In(lang))
		}
		out = append(out, jd)
	}
	return out
}

// ReportOf converts a refusal report; texts follow lang.
func ReportOf(r report.Report, lang diag.Lang) Report {
	out := Report{Operations: []ReportOperation{}, Keys: []ReportKey{}}
	for _, o := range r.Operations {
		jo := ReportOperation{Transfer: o.Transfer.Name, Op: string(o.Op), Refusals: []ReportRefusal{}}
		for _, rf := range o.Refusals {
			jo.Refusals = append(jo.Refusals, ReportRefusal{Reason: rf.Reason, Bound: rf.Bound, Moves: rf.Moves, Operations: exampleOperations(rf.Example, lang)})
		}
		out.Operations = append(out.Operations, jo)
	}
	for _, t := range r.Keys {
		k := ReportKey{Transfer: t.Name, Key: []string{}, Text: report.KeyText(t, r.Operations).In(lang)}
		for _, p := range t.Key {
			k.Key = append(k.Key, p.Name)
		}
		out.Keys = append(out.Keys, k)
	}
	return out
}

func operations(ops []diag.Operation, lang diag.Lang) []Operation {
	out := []Operation{}
	for _, op := range ops {
		out = append(out, Operation{Step: op.Step, Call: op.Call, Outcome: op.Outcome.In(lang)})
	}
	return out
}

func exampleOperations(e search.Example, lang diag.Lang) []Operation {
	return operations(e.Operations(), lang)
}
