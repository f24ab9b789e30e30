package interp

import "github.com/chobo-lang/chobo/chobo/diag"

// Outcome is the answer to a call.
type Outcome int

const (
	// Done: the call took effect now.
	Done Outcome = iota
	// DoneBefore: the same call, same key and same content, took effect
	// earlier; nothing changes.
	DoneBefore
	// Refused: a business answer, with a reason; nothing changes.
	Refused
)

func (o Outcome) String() string {
	switch o {
	case DoneBefore:
		return "done_before"
	case Refused:
		return "refused"
	}
	return "done"
}

// ParseOutcome reads an outcome as String writes it, the way every
// backend and driver answers.
func ParseOutcome(s string) (Outcome, bool) {
	for _, o := range []Outcome{Done, DoneBefore, Refused} {
		if o.String() == s {
			return o, true
		}
	}
	return 0, false
}

// Result is an outcome and, for a refusal, its reason.
type Result struct {
	Outcome Outcome
	Reason  string
	// Detail says, for a refusal by a bound, which move crossed it and
	// what the account held at that point; diagnostics quote it.
	Detail *BoundDetail
}

// BoundDetail is where a call met a bound.
type BoundDetail struct {
	Move    int // 1-based
	Account Account
	Amount  int64
	Lower   bool // the move takes from the account (lower bound)
	Balance Balance
}

// Short writes the result the way a scenario's "expect" holds it and the
// conformance tests compare it: done, done_before or "refused: REASON".
func (r Result) Short() string {
	if r.Outcome == Refused {
		return "refused: " + r.Reason
	}
	return r.Outcome.String()
}

// Text is the result for people, in both languages. The English side is
// Short, so that what a listing shows can be pasted into a scenario as
// its expectation.
func (r Result) Text() diag.Text {
	switch r.Outcome {
	case Done:
		return diag.T(r.Short(), "通る")
	case DoneBefore:
		return diag.T(r.Short(), "前に済んでいる(done_before)")
	}
	return diag.T(r.Short(), r.Reason+" で拒否される")
}
