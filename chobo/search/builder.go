package search

import (
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// The methods below let other packages (the scenario generator) build
// sequences with the same means the search uses: fresh values, feeders
// and runs on the interpreter.

// Call builds a call of t with fresh strings and amount(p) for each
// amount parameter.
func (s *Searcher) Call(t *book.Transfer, op book.Op, amount func(p *book.Param) int64) interp.Call {
	return s.mk(t, op, amount)
}

// Fresh returns a fresh value for a parameter named param.
func (s *Searcher) Fresh(param string) string { return s.value(param) }

// KeyCall returns the call of op (post or void) on the hold c made.
func KeyCall(c interp.Call, op book.Op) interp.Call { return keyOnly(c, op) }

// Feed returns prefix followed by calls, each done, that put at least
// amount into acc.
func (s *Searcher) Feed(prefix []Step, acc interp.Account, amount int64) ([]Step, bool) {
	leave, ok := s.enter(lastOp(prefix))
	defer leave()
	if !ok {
		return nil, false
	}
	return s.feed(prefix, acc, amount, 0)
}

// Take returns prefix followed by calls, each done, that take exactly
// amount from acc's posted balance; a hold among them is posted.
func (s *Searcher) Take(prefix []Step, acc interp.Account, amount int64) ([]Step, bool) {
	leave, ok := s.enter(lastOp(prefix))
	defer leave()
	if !ok {
		return nil, false
	}
	return s.take(prefix, acc, amount)
}

// Prepare puts feeders before the last step until it gets past every
// lower bound before move upto (1-based; len(moves)+1 for all of them).
func (s *Searcher) Prepare(steps []Step, upto int) ([]Step, bool) {
	leave, ok := s.enter(lastOp(steps))
	defer leave()
	if !ok {
		return nil, false
	}
	return s.prepare(steps, upto, 0)
}

// Simulate runs steps on a fresh ledger and returns them with their
// answers and the final ledger; false when a step failed.
func (s *Searcher) Simulate(steps []Step) ([]Step, *interp.State, bool) {
	leave, ok := s.enter(lastOp(steps))
	defer leave()
	if !ok {
		return nil, nil, false
	}
	return s.simulate(steps)
}

// lastOp names the operation of the last call among steps, the goal the
// steps are built for; "" when there is none.
func lastOp(steps []Step) string {
	for i := len(steps) - 1; i >= 0; i-- {
		if c := steps[i].Call; c.Transfer != nil {
			return opName(c.Transfer, c.Op)
		}
	}
	return ""
}
