package search

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
)

func opName(t *book.Transfer, op book.Op) string { return t.Name + "." + string(op) }

func firstOp(t *book.Transfer) book.Op {
	if t.Pending != nil {
		return book.Hold
	}
	return book.Do
}

// Success finds calls that end with t's do (or hold) done.
func (s *Searcher) Success(t *book.Transfer) (Example, bool) {
	leave, ok := s.enter(opName(t, firstOp(t)))
	defer leave()
	if !ok {
		return Example{}, false
	}
	if m, ok := s.success[t]; ok {
		return m.ex, m.ok
	}
	ex, ok := s.findSuccess(t)
	s.success[t] = memo{ex, ok}
	return ex, ok
}

func (s *Searcher) findSuccess(t *book.Transfer) (Example, bool) {
	for i := range s.assignments(t) {
		_, run, ok := s.reach(t, i, len(t.Moves)+1)
		if ok && run[len(run)-1].Result.Outcome == interp.Done {
			return s.finish(run)
		}
	}
	return Example{}, false
}

// AtMove finds calls that end with t's do (or hold) refused at move (1-based)
// by the lower bound of the account it takes from (lower) or the upper
// bound of the account it puts into, and that accept also approves.
func (s *Searcher) AtMove(t *book.Transfer, move int, lower bool, accept func(c interp.Call, d *interp.BoundDetail) bool) (Example, bool) {
	leave, ok := s.enter(opName(t, firstOp(t)))
	defer leave()
	if !ok {
		return Example{}, false
	}
	k := atMoveKey{t, move, lower}
	sh, known := s.shadow[k]
	if !known {
		sh = shadowed(t, move, lower)
		s.shadow[k] = sh
	}
	if sh {
		return Example{}, false
	}
	if accept != nil {
		return s.findAtMove(t, move, lower, accept)
	}
	if m, ok := s.atMove[k]; ok {
		return m.ex, m.ok
	}
	ex, ok := s.findAtMove(t, move, lower, nil)
	s.atMove[k] = memo{ex, ok}
	return ex, ok
}

func (s *Searcher) findAtMove(t *book.Transfer, move int, lower bool, accept func(c interp.Call, d *interp.BoundDetail) bool) (Example, bool) {
	hit := func(run []Step, c interp.Call) bool {
		r := run[len(run)-1].Result
		return r.Outcome == interp.Refused && r.Detail != nil && r.Detail.Move == move && r.Detail.Lower == lower &&
			(accept == nil || accept(c, r.Detail))
	}
	// Lower bounds met before the target must be got through; for an
	// upper bound, so must the lower bound of the same move, which is
	// checked first.
	upto := move
	if !lower {
		upto = move + 1
	}
	for i := range s.assignments(t) {
		if c, run, ok := s.reach(t, i, upto); ok && hit(run, c) {
			return s.finish(run)
		}
	}
	if lower {
		return Example{}, false
	}
	// An upper bound far above what one call carries: fill the account up
	// to its bound first, then a call of 1 crosses it.
	m := t.Moves[move-1]
	c := s.mk(t, firstOp(t), func(*book.Param) int64 { return 1 })
	acc := interp.Account{Kind: m.To.Account}
	for _, p := range m.To.Args {
		acc.Args = append(acc.Args, c.Strings[p.Name])
	}
	filled, ok := s.feed(nil, acc, m.To.Account.Upper.Value, 0)
	if !ok {
		return Example{}, false
	}
	if run, ok := s.prepare(append(filled, Step{Call: c}), upto, 0); ok && hit(run, c) {
		return s.finish(run)
	}
	return Example{}, false
}

// After runs a found example further: then adds steps built from its
// last call, and the result must end with want.
func (s *Searcher) after(base Example, then func(last interp.Call) []Step, want interp.Outcome, reason string) (Example, bool) {
	end, ok := s.ends[&base.Steps[0]]
	if !ok {
		if _, end, ok = s.simulate(base.Steps); !ok {
			return Example{}, false
		}
		s.ends[&base.Steps[0]] = end
	}
	more := then(base.Last().Call)
	if !s.spend(workOf(more)) {
		return Example{}, false
	}
	added, _, ok := s.runOn(end.Clone(), more)
	if !ok {
		return Example{}, false
	}
	run := append(slices.Clone(base.Steps), added...)
	r := run[len(run)-1].Result
	if r.Outcome != want || r.Reason != reason {
		return Example{}, false
	}
	return s.finish(run)
}

// finish renames the values of an example by first appearance
// (`order-1`, `sku-2`), in its calls and in the accounts its answers
// name. The answers stay as they were run: the interpreter compares
// values only for equality and holds them to a limit of length, and the
// renaming keeps equal values equal, different ones different (a new
// name is never a value already there), and the names it gives are
// short, far within every limit, so running the renamed calls again would
// answer the same.
func (s *Searcher) finish(run []Step) (Example, bool) {
	// Values named before (the calls of an example that steps were added
	// to) keep their names, and no new name may be one of them.
	taken := map[string]bool{}
	for _, st := range run {
		for _, v := range st.Call.Strings {
			if !strings.Contains(v, freshMark) {
				taken[v] = true
			}
		}
	}
	names := map[string]string{}
	n := 0
	name := func(param, v string) string {
		if !strings.Contains(v, freshMark) {
			return v
		}
		for names[v] == "" {
			n++
			if nm := fmt.Sprintf("%s-%d", param, n); !taken[nm] {
				names[v] = nm
			}
		}
		return names[v]
	}
	steps := make([]Step, len(run))
	for i, st := range run {
		steps[i] = st
		c := st.Call
		if c.Transfer == nil {
			continue
		}
		out := c
		out.Strings = map[string]string{}
		for _, p := range c.Transfer.Params {
			if v, ok := c.Strings[p.Name]; ok {
				out.Strings[p.Name] = name(p.Name, v)
			}
		}
		steps[i].Call = out
	}
	// The accounts an answer names take their values from the calls, so
	// every fresh value among them was named above.
	for i := range steps {
		d := steps[i].Result.Detail
		if d == nil {
			continue
		}
		renamed := *d
		renamed.Account.Args = make([]string, len(d.Account.Args))
		for j, v := range d.Account.Args {
			if strings.Contains(v, freshMark) && names[v] == "" {
				return Example{}, false
			}
			renamed.Account.Args[j] = name("", v)
		}
		steps[i].Result.Detail = &renamed
	}
	return Example{Steps: steps}, true
}

// Refusal finds calls that end with op of t refused with reason: a bound's
// reason, or one of chobo's own. It is what the refusal report lists.
func (s *Searcher) Refusal(t *book.Transfer, op book.Op, reason string) (Example, bool) {
	leave, ok := s.enter(opName(t, op))
	defer leave()
	if !ok {
		return Example{}, false
	}
	switch op {
	case book.Do, book.Hold:
		return s.refusalOfMove(t, reason)
	case book.Post:
		return s.refusalOfPost(t, reason)
	}
	return s.refusalOfVoid(t, reason)
}

func (s *Searcher) refusalOfMove(t *book.Transfer, reason string) (Example, bool) {
	switch reason {
	case book.SameAccount:
		return s.SameAccount(t)
	case book.KeyConflict:
		base, ok := s.Success(t)
		if !ok {
			// No call with amounts above zero is done (a bound no
			// transfer can make room under, or the search cannot): a
			// call of zero may still be, and its key then conflicts.
			base, ok = s.zeroSuccess(t)
		}
		if !ok {
			return Example{}, false
		}
		return s.after(base, func(last interp.Call) []Step {
			again, changed := s.OtherContent(last)
			if !changed {
				return nil
			}
			return []Step{{Call: again}}
		}, interp.Refused, book.KeyConflict)
	case book.AlreadyRefused:
		for _, m := range t.Moves {
			for _, lower := range []bool{true, false} {
				if m.Bound(lower) == nil {
					continue
				}
				base, ok := s.AtMove(t, m.Index, lower, nil)
				if !ok {
					continue
				}
				if ex, ok := s.after(base, func(last interp.Call) []Step {
					return []Step{{Call: last}}
				}, interp.Refused, book.AlreadyRefused); ok {
					return ex, true
				}
			}
		}
		return Example{}, false
	}
	for _, m := range t.Moves {
		for _, lower := range []bool{true, false} {
			if b := m.Bound(lower); b != nil && b.Reason == reason {
				if ex, ok := s.AtMove(t, m.Index, lower, nil); ok {
					return ex, true
				}
			}
		}
	}
	return Example{}, false
}

// zeroSuccess is a first call of t with every amount zero, when it is
// done: baseAmounts leave zero out, but a key is used by any call done.
func (s *Searcher) zeroSuccess(t *book.Transfer) (Example, bool) {
	c := s.withAmounts(t, firstOp(t), map[string]int64{})
	run, _, ok := s.simulate([]Step{{Call: c}})
	if !ok || run[len(run)-1].Result.Outcome != interp.Done {
		return Example{}, false
	}
	return s.finish(run)
}

// OtherContent returns the same call with the same key and other content:
// one more of the first amount, or a fresh value for the first string
// outside the key. It reports false when every parameter is in the key.
func (s *Searcher) OtherContent(c interp.Call) (interp.Call, bool) {
	out := c
	for _, p := range c.Transfer.Params {
		if p.IsAmount() {
			out.Amounts = map[string]int64{}
			for k, v := range c.Amounts {
				out.Amounts[k] = v
			}
			out.Amounts[p.Name]++
			return out, true
		}
	}
	inKey := map[*book.Param]bool{}
	for _, p := range c.Transfer.Key {
		inKey[p] = true
	}
	for _, p := range c.Transfer.Params {
		if !inKey[p] {
			out.Strings = map[string]string{}
			for k, v := range c.Strings {
				out.Strings[k] = v
			}
			out.Strings[p.Name] = s.value(p.Name)
			return out, true
		}
	}
	return c, false
}

// SameAccount finds a call refused with same_account: the two sides of a
// move between accounts of one kind given equal values.
func (s *Searcher) SameAccount(t *book.Transfer) (Example, bool) {
	leave, ok := s.enter(opName(t, firstOp(t)))
	defer leave()
	if !ok {
		return Example{}, false
	}
	for _, m := range t.Moves {
		if m.From.Account != m.To.Account {
			continue
		}
		c := s.mk(t, firstOp(t), func(*book.Param) int64 { return 1 })
		for i, p := range m.To.Args {
			c.Strings[p.Name] = c.Strings[m.From.Args[i].Name]
		}
		run, _, ok := s.simulate([]Step{{Call: c}})
		if ok && run[0].Result.Reason == book.SameAccount {
			return s.finish(run)
		}
	}
	return Example{}, false
}

// passSteps lets a hold of t reach its deadline.
func passSteps(t *book.Transfer) []Step { return []Step{{Pass: t.Pending.Seconds}} }

// noSuchHold finds op (post or void) refused with no_such_hold: it names
// a hold that was never made.
func (s *Searcher) noSuchHold(t *book.Transfer, op book.Op) (Example, bool) {
	c := s.mk(t, book.Hold, func(*book.Param) int64 { return 1 })
	run, _, ok := s.simulate([]Step{{Call: keyOnly(c, op)}})
	if ok && run[0].Result.Reason == book.NoSuchHold {
		return s.finish(run)
	}
	return Example{}, false
}

func (s *Searcher) refusalOfPost(t *book.Transfer, reason string) (Example, bool) {
	if reason == book.NoSuchHold {
		return s.noSuchHold(t, book.Post)
	}
	base, ok := s.Success(t)
	if !ok {
		return Example{}, false
	}
	post := func(last interp.Call) interp.Call { return keyOnly(last, book.Post) }
	partial := func(last interp.Call, delta int64) (interp.Call, bool) {
		c := post(last)
		c.Amounts = map[string]int64{}
		for _, p := range t.PostAmounts() {
			name := p.Name
			v := last.Amounts[name] + delta
			if v < 0 {
				return c, false
			}
			c.Amounts[name] = v
		}
		return c, len(c.Amounts) > 0
	}
	var then func(last interp.Call) []Step
	switch reason {
	case book.KeyConflict:
		then = func(last interp.Call) []Step {
			less, ok := partial(last, -1)
			if !ok {
				return nil
			}
			return []Step{{Call: post(last)}, {Call: less}}
		}
	case book.AlreadyVoided:
		then = func(last interp.Call) []Step {
			return []Step{{Call: keyOnly(last, book.Void)}, {Call: post(last)}}
		}
	case book.Expired:
		if !t.Pending.Expires {
			return Example{}, false
		}
		then = func(last interp.Call) []Step { return append(passSteps(t), Step{Call: post(last)}) }
	case book.OverHold:
		then = func(last interp.Call) []Step {
			more, ok := partial(last, 1)
			if !ok {
				return nil
			}
			return []Step{{Call: more}}
		}
	default:
		return Example{}, false
	}
	return s.after(base, then, interp.Refused, reason)
}

func (s *Searcher) refusalOfVoid(t *book.Transfer, reason string) (Example, bool) {
	if reason == book.NoSuchHold {
		return s.noSuchHold(t, book.Void)
	}
	base, ok := s.Success(t)
	if !ok {
		return Example{}, false
	}
	void := func(last interp.Call) interp.Call { return keyOnly(last, book.Void) }
	switch reason {
	case book.AlreadyPosted:
		return s.after(base, func(last interp.Call) []Step {
			return []Step{{Call: keyOnly(last, book.Post)}, {Call: void(last)}}
		}, interp.Refused, reason)
	case book.Expired:
		if !t.Pending.Expires {
			return Example{}, false
		}
		return s.after(base, func(last interp.Call) []Step { return append(passSteps(t), Step{Call: void(last)}) }, interp.Refused, reason)
	}
	return Example{}, false
}
