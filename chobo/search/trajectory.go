package search

import (
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// A call of a transfer, with one choice of its amounts, is got past its
// lower bounds one at a time: run it, and where a lower bound refuses it,
// feed that account and run it again. Asked to get past the bounds up to
// move k, this stops as soon as the refusal is at k or later; asked for a
// later move, it takes the same steps and goes on. So the steps are kept,
// one trajectory for each choice of amounts, and every goal of the
// transfer (a success, a refusal at each of its moves) reads where its
// own stop is instead of taking them again: a transfer of many moves
// would otherwise pay for the same feeding once per move.
type trajectory struct {
	call interp.Call
	// runs are the steps after each round, run; each but the last was
	// refused at a lower bound that a feed then got it past.
	runs [][]Step
	// ended: no round comes after the last. When the last run is still
	// refused at a lower bound that could be fed, that feed failed (or
	// the rounds ran out), and broken says whether a round's run failed.
	ended  bool
	broken bool
}

type trajectoryKey struct {
	t      *book.Transfer
	choice int // index into the transfer's amount assignments
}

// lowerShort reports the lower bound a run's last call was refused by and
// what the account lacks, or false when it was not refused that way.
func lowerShort(run []Step) (*interp.BoundDetail, int64, bool) {
	r := run[len(run)-1].Result
	d := r.Detail
	if r.Outcome != interp.Refused || d == nil || !d.Lower {
		return nil, 0, false
	}
	need := deficit(d.Balance, d.Amount, d.Account.Kind.Lower.Value)
	return d, need, need > 0
}

// reach returns the call of t with amount choice i run after what gets it
// past every lower bound before move upto: what prepare returns for that
// call, without taking again the rounds another goal took.
func (s *Searcher) reach(t *book.Transfer, i int, upto int) (interp.Call, []Step, bool) {
	k := trajectoryKey{t, i}
	tr := s.trajectories[k]
	if tr == nil {
		tr = &trajectory{call: s.withAmounts(t, firstOp(t), s.assignments(t)[i])}
		s.trajectories[k] = tr
	}
	rounds := 2*len(t.Moves) + 2
	for n := 0; ; {
		if n == len(tr.runs) {
			if tr.ended {
				// Past the last run: a failed run or a failed feed ends
				// the rounds; what is left is what prepare returns.
				if tr.broken || len(tr.runs) == 0 || n >= rounds {
					return tr.call, nil, false
				}
				return tr.call, tr.runs[n-1], false
			}
			if !s.round(tr, rounds) {
				return tr.call, nil, false
			}
			continue
		}
		run := tr.runs[n]
		d, _, short := lowerShort(run)
		if !short || d.Move >= upto {
			return tr.call, run, true
		}
		n++
	}
}

// round takes one more round of tr: runs the call after the last feed, or
// feeds the account the last run was short of. False when the work ran
// out part way: then nothing is kept, and a later goal, with work of its
// own, takes the round again.
func (s *Searcher) round(tr *trajectory, rounds int) bool {
	var steps []Step
	if len(tr.runs) == 0 {
		steps = []Step{{Call: tr.call}}
	} else {
		last := tr.runs[len(tr.runs)-1]
		d, need, short := lowerShort(last)
		if !short || len(tr.runs) >= rounds {
			tr.ended = true
			return true
		}
		feed, ok := s.feed(stepsOf(last[:len(last)-1]), d.Account, need, 0)
		if !ok {
			if s.starved() {
				return false
			}
			tr.ended = true
			return true
		}
		steps = append(feed, Step{Call: tr.call})
	}
	run, _, ok := s.simulate(steps)
	if !ok {
		if s.starved() {
			return false
		}
		tr.ended, tr.broken = true, true
		return true
	}
	tr.runs = append(tr.runs, run)
	return true
}

// stepsOf drops the answers of run: the steps as prepare hands them to feed.
func stepsOf(run []Step) []Step {
	out := make([]Step, len(run))
	for i, st := range run {
		out[i] = Step{Call: st.Call, Pass: st.Pass}
	}
	return out
}
