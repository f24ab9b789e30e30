package scenario

import (
	"fmt"
	"slices"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/search"
)

// bounds: for each move whose bound only that move meets, a call that
// leaves the account one step inside the bound, one exactly at it, and
// one that would cross it.
func (g *gen) bounds(t *book.Transfer) {
	op := firstOp(t)
	for _, m := range t.Moves {
		if m.Amount.Param == nil {
			continue
		}
		if lo := m.From.Account.Lower; lo != nil && onlyIn(t, m, m.From) {
			g.boundFamily(t, op, m, true, lo)
		}
		if up := m.To.Account.Upper; up != nil && onlyIn(t, m, m.To) {
			g.boundFamily(t, op, m, false, up)
		}
	}
}

func (g *gen) boundFamily(t *book.Transfer, op book.Op, m *book.Move, lower bool, bound *book.Bound) {
	c := g.s.Call(t, op, func(*book.Param) int64 { return 1 })
	ref := m.To
	if lower {
		ref = m.From
	}
	acc := accountOf(ref, c)
	prefix, ok := g.nearBound(acc, lower, bound)
	if !ok {
		return
	}
	bal, ok := balanceAfter(g, prefix, acc)
	if !ok {
		return
	}
	// left is how much the move can carry before the account sits
	// exactly at its bound.
	left := room(bal, lower, bound)
	variants := boundVariants(opName(t, op), ref, lower, bound, left)
	// With too little room to land inside the bound, or at it, with an
	// amount above zero (an upper bound at zero that only opens once
	// something has been taken out: a credit line, drawn on by a hold
	// that is then posted), those variants start from two steps of room,
	// made with calls that get done. The ones that can be shown from
	// where the account is start there.
	var opened []search.Step
	var more []boundVariant
	if variants[0].amount < 1 {
		if opened, ok = g.level(prefix, acc, lower, bound, 2); ok {
			more = boundVariants(opName(t, op), ref, lower, bound, 2)
		}
	}
	for i, v := range variants {
		switch {
		case v.amount >= 1:
			g.addBoundVariant(c, m, ref, lower, bound, prefix, v)
		case more != nil:
			g.addBoundVariant(c, m, ref, lower, bound, opened, more[i])
		}
	}
}

// nearBound brings acc two steps inside its bound, so that the variants
// can land one step inside, at and past it; no steps when the account
// starts there already.
func (g *gen) nearBound(acc interp.Account, lower bool, bound *book.Bound) ([]search.Step, bool) {
	if lower && bound.Value+2 > 0 {
		return g.s.Feed(nil, acc, bound.Value+2)
	}
	if !lower && bound.Value-2 > 0 {
		return g.s.Feed(nil, acc, bound.Value-2)
	}
	return nil, true
}

// boundVariant is one call of a bound family: its amount, what it must
// answer, its titles, and how far from the bound it leaves the account.
type boundVariant struct {
	amount         int64
	expect         string
	en, ja         string
	wantAfterBound int64
}

func boundVariants(name string, ref book.AccountRef, lower bool, bound *book.Bound, room int64) []boundVariant {
	kind := ref.Account
	shape := ref.String()
	one := amt(kind, 1)
	// In Japanese a bound is crossed downward (下回る) or upward (上回る),
	// and the room left is on the other side.
	word, wordJa, inside, cross := "lower", "下限", "上回って", "下回る"
	if !lower {
		word, wordJa, inside, cross = "upper", "上限", "下回って", "上回る"
	}
	bv := amt(kind, bound.Value)
	return []boundVariant{
		{room - 1, "done", fmt.Sprintf("%s: %s ends %s inside its %s bound %s", name, shape, one, word, bv),
			fmt.Sprintf("%s: %s が%s %s を %s %s終わる", name, shape, wordJa, bv, one, inside), 1},
		{room, "done", fmt.Sprintf("%s: %s ends exactly at its %s bound %s", name, shape, word, bv),
			fmt.Sprintf("%s: %s がちょうど%s %s になる", name, shape, wordJa, bv), 0},
		{room + 1, refused(bound.Reason), fmt.Sprintf("%s: %s would cross its %s bound %s by %s, refused with %s", name, shape, word, bv, one, bound.Reason),
			fmt.Sprintf("%s: %s が%s %s を %s %sので %s で拒否される", name, shape, wordJa, bv, one, cross, bound.Reason), room},
	}
}

// addBoundVariant builds the scenario of one variant from call c and keeps
// it when the account ends where the variant says.
func (g *gen) addBoundVariant(c interp.Call, m *book.Move, ref book.AccountRef, lower bool, bound *book.Bound, prefix []search.Step, v boundVariant) {
	target := withAmount(c, m, v.amount)
	// Feed the other moves (for a refusal, the ones before this move, and
	// for an upper bound the lower bound of this move too: it is checked
	// first); the account of this move stays as set.
	upto := len(c.Transfer.Moves) + 1
	if v.expect != "done" {
		upto = m.Index
		if !lower {
			upto++
		}
	}
	steps, ok := g.s.Prepare(append(append([]search.Step{}, prefix...), search.Step{Call: target}), upto)
	if !ok {
		return
	}
	feeders := steps[:len(steps)-1]
	sc := Scenario{Name: v.en, TitleJa: v.ja, Steps: append(fromSearch(feeders), call(target, v.expect))}
	g.add(sc, func(sc Scenario, outs []Outcome) bool {
		// Find the account by the renamed values of the last call.
		name := accountOf(ref, sc.Steps[len(sc.Steps)-1].Call.Call).String()
		var after interp.Balance
		for _, a := range outs[0].Accounts {
			if a.Account.String() == name {
				after = a.Balance
			}
		}
		if lower {
			return after.Posted-after.HeldOut-bound.Value == v.wantAfterBound
		}
		return bound.Value-after.Posted-after.HeldIn == v.wantAfterBound
	})
}

// keys: the same call twice; the same key with other content; the same
// call after a refusal by a bound.
func (g *gen) keys(t *book.Transfer) {
	op := firstOp(t)
	name := opName(t, op)
	if ex, ok := g.s.Success(t); ok {
		last := ex.Last().Call
		steps := fromSearch(ex.Steps)
		g.add(Scenario{
			Name:    name + " twice with the same key and content: done_before",
			TitleJa: name + " を同じキーと中身で二度呼ぶと done_before",
			Steps:   append(append([]Step{}, steps...), call(last, "done_before")),
		}, nil)
		if other, ok := g.s.OtherContent(last); ok {
			g.add(Scenario{
				Name:    name + " again with the same key and other content: key_conflict",
				TitleJa: name + " を同じキーで中身を変えて呼ぶと key_conflict",
				Steps:   append(append([]Step{}, steps...), call(other, refused(book.KeyConflict))),
			}, nil)
		}
	}
	at, ok := g.firstAtBound(t, t.Moves)
	if !ok {
		return
	}
	ex := at.ex
	last := ex.Last().Call
	steps := fromSearch(ex.Steps)
	// Where the refusal came from a short account, fill it so the second
	// call would now pass: the key still answers the same.
	if at.lower {
		acc := ex.Last().Result.Detail.Account
		if fed, ok := g.s.Feed(ex.Steps, acc, ex.Last().Result.Detail.Amount+1); ok {
			steps = fromSearch(fed)
		}
	}
	g.add(Scenario{
		Name:    fmt.Sprintf("%s again after a refusal with %s: already_refused", name, at.b.Reason),
		TitleJa: fmt.Sprintf("%s を %s で拒否されたあとにもう一度呼ぶと already_refused", name, at.b.Reason),
		Steps:   append(steps, call(last, refused(book.AlreadyRefused))),
	}, nil)
}

// refusedKeys: a key a bound refused stays refused, whatever comes after.
// For a transfer of two moves or more, a call refused by a later move,
// then an earlier move's account changes so that this move alone would
// now be refused by its own bound, and the same call again: still
// already_refused, not the earlier bound's reason. For every transfer, a
// call refused by a bound and the same key with other content:
// already_refused.
func (g *gen) refusedKeys(t *book.Transfer) {
	name := opName(t, firstOp(t))
	later, hasLater := atBound{}, false
	if len(t.Moves) >= 2 {
		later, hasLater = g.firstAtBound(t, t.Moves[1:])
	}
	if hasLater {
		g.earlierMoveChanges(t, name, later)
	}
	at, ok := later, hasLater
	if !ok {
		if at, ok = g.firstAtBound(t, t.Moves); !ok {
			return
		}
	}
	other, ok := g.s.OtherContent(at.ex.Last().Call)
	if !ok {
		return
	}
	g.add(Scenario{
		Name:    fmt.Sprintf("%s refused with %s, then the same key with other content: already_refused", name, at.b.Reason),
		TitleJa: fmt.Sprintf("%s が %s で拒否されたあと、同じキーで中身を変えて呼んでも already_refused", name, at.b.Reason),
		Steps:   append(fromSearch(at.ex.Steps), call(other, refused(book.AlreadyRefused))),
	}, nil)
}

// earlierMoveChanges adds the scenario of the first move before at.m
// whose bound can be made to refuse the call on its own after at's
// refusal: the account it takes from is drawn down (a lower bound), or
// the account it puts into filled up (an upper bound).
func (g *gen) earlierMoveChanges(t *book.Transfer, name string, at atBound) {
	refusedCall := at.ex.Last().Call
	before := at.ex.Steps[:len(at.ex.Steps)-1]
	_, st, ok := g.s.Simulate(at.ex.Steps)
	if !ok {
		return
	}
	for _, m := range t.Moves[:at.m.Index-1] {
		for _, lower := range []bool{true, false} {
			b := m.Bound(lower)
			if b == nil {
				continue
			}
			ref := m.To
			if lower {
				ref = m.From
			}
			acc := accountOf(ref, refusedCall)
			amount := m.Amount.Literal
			if m.Amount.Param != nil {
				amount = refusedCall.Amounts[m.Amount.Param.Name]
			}
			// What to take out or put in so that less room is left than
			// the move carries.
			short := room(st.Balance(acc), lower, b) - amount + 1
			if short <= 0 {
				continue
			}
			var changed []search.Step
			if lower {
				changed, ok = g.s.Take(at.ex.Steps, acc, short)
			} else {
				changed, ok = g.s.Feed(at.ex.Steps, acc, short)
			}
			if !ok {
				continue
			}
			// Without the refusal before it, the same call would now be
			// refused by this move's bound: the change is one the retry
			// must not be answered by.
			change := changed[len(at.ex.Steps):]
			alone, _, ok := g.s.Simulate(append(append(slices.Clone(before), change...), search.Step{Call: refusedCall}))
			if !ok {
				continue
			}
			d := alone[len(alone)-1].Result.Detail
			if d == nil || d.Move != m.Index || d.Lower != lower {
				continue
			}
			word, wordJa := "comes down", "減って"
			if !lower {
				word, wordJa = "fills up", "増えて"
			}
			kept := g.add(Scenario{
				Name: fmt.Sprintf("%s refused at move %d with %s; then %s %s until move %d alone would be refused with %s; the same call again: already_refused",
					name, at.m.Index, at.b.Reason, ref.String(), word, m.Index, b.Reason),
				TitleJa: fmt.Sprintf("%s が %dつ目の移動で %s で拒否され、%s が%s %dつ目の移動だけでも %s で拒否されるようになったあと、同じ呼び出しは already_refused",
					name, at.m.Index, at.b.Reason, ref.String(), wordJa, m.Index, b.Reason),
				Steps: append(fromSearch(changed), call(refusedCall, refused(book.AlreadyRefused))),
			}, nil)
			if kept {
				return
			}
		}
	}
}

// atBound is a call refused by bound b of move m (its lower bound when
// lower), with the calls that lead there.
type atBound struct {
	m     *book.Move
	lower bool
	b     *book.Bound
	ex    search.Example
}

// firstAtBound finds the first bound among moves that a call of t can be
// refused by, a move's lower bound before its upper one. One is enough:
// the families that use it show a behaviour of the key or of the whole
// transfer, not of each bound.
func (g *gen) firstAtBound(t *book.Transfer, moves []*book.Move) (atBound, bool) {
	for _, m := range moves {
		for _, lower := range []bool{true, false} {
			b := m.Bound(lower)
			if b == nil {
				continue
			}
			if ex, ok := g.s.AtMove(t, m.Index, lower, nil); ok {
				return atBound{m, lower, b, ex}, true
			}
		}
	}
	return atBound{}, false
}

// holds: every path of a hold's life.
func (g *gen) holds(t *book.Transfer) {
	ex, ok := g.s.Success(t)
	if !ok {
		return
	}
	hold := ex.Last().Call
	base := fromSearch(ex.Steps)
	post := search.KeyCall(hold, book.Post)
	void := search.KeyCall(hold, book.Void)
	seq := func(steps ...Step) []Step { return append(append([]Step{}, base...), steps...) }
	n := t.Name
	g.add(Scenario{Name: n + ": hold, then post in full", TitleJa: n + ": 押さえて全額を確定する",
		Steps: seq(call(post, "done"))}, nil)
	g.add(Scenario{Name: n + ": hold, then void", TitleJa: n + ": 押さえて取り消す",
		Steps: seq(call(void, "done"))}, nil)
	g.add(Scenario{Name: n + ": void after post: already_posted", TitleJa: n + ": 確定のあとに取り消すと already_posted",
		Steps: seq(call(post, "done"), call(void, refused(book.AlreadyPosted)))}, nil)
	g.add(Scenario{Name: n + ": post after void: already_voided", TitleJa: n + ": 取消のあとに確定すると already_voided",
		Steps: seq(call(void, "done"), call(post, refused(book.AlreadyVoided)))}, nil)
	g.add(Scenario{Name: n + ": hold again with the same key after a void: done_before, nothing held",
		TitleJa: n + ": 取消のあとに同じキーで押さえ直すと done_before で、何も押さえない",
		Steps:   seq(call(void, "done"), call(hold, "done_before"))},
		func(_ Scenario, outs []Outcome) bool { return noneHeld(outs[0]) })
	fresh := g.s.Call(t, book.Hold, func(*book.Param) int64 { return 1 })
	g.add(Scenario{Name: n + ": post and void without a hold: no_such_hold", TitleJa: n + ": 仮押さえが無いのに確定と取消をすると no_such_hold",
		Steps: []Step{call(search.KeyCall(fresh, book.Post), refused(book.NoSuchHold)), call(search.KeyCall(fresh, book.Void), refused(book.NoSuchHold))}}, nil)
	if amounts := t.PostAmounts(); len(amounts) > 0 {
		partial := post
		partial.Amounts = map[string]int64{}
		over := post
		over.Amounts = map[string]int64{}
		for _, a := range amounts {
			partial.Amounts[a.Name] = hold.Amounts[a.Name] - 1
			over.Amounts[a.Name] = hold.Amounts[a.Name] + 1
		}
		less := lessText(amounts)
		g.add(Scenario{Name: n + ": post " + less.En + " less than held, the rest goes back", TitleJa: n + ": 押さえた額より " + less.Ja + "少なく確定し、残りは戻る",
			Steps: seq(call(partial, "done"))}, nil)
		g.add(Scenario{Name: n + ": post more than held: over_hold", TitleJa: n + ": 押さえた額を超えて確定すると over_hold",
			Steps: seq(call(over, refused(book.OverHold)), call(void, "done"))}, nil)
	}
	if t.Pending.Expires {
		wait := t.Pending.Seconds + 60
		g.add(Scenario{Name: n + ": the hold expires, then is posted and voided: expired",
			TitleJa: n + ": 期限が切れたあとに確定と取消をすると expired",
			Steps:   seq(pass(wait), call(post, refused(book.Expired)), call(void, refused(book.Expired)))},
			func(_ Scenario, outs []Outcome) bool { return noneHeld(outs[0]) })
		g.add(Scenario{Name: n + ": hold again with the same key after expiry: done_before, nothing held",
			TitleJa: n + ": 期限切れのあとに同じキーで押さえ直すと done_before で、何も押さえない",
			Steps:   seq(pass(wait), call(hold, "done_before"))},
			func(_ Scenario, outs []Outcome) bool { return noneHeld(outs[0]) })
	}
}

func noneHeld(o Outcome) bool {
	for _, a := range o.Accounts {
		if a.Balance.HeldIn != 0 || a.Balance.HeldOut != 0 {
			return false
		}
	}
	return true
}

// allOrNothing: in a transfer of several moves, a call refused at a later
// move leaves every balance as it was.
func (g *gen) allOrNothing(t *book.Transfer) {
	if len(t.Moves) < 2 {
		return
	}
	at, ok := g.firstAtBound(t, t.Moves[1:])
	if !ok {
		return
	}
	name := opName(t, firstOp(t))
	steps := fromSearch(at.ex.Steps)
	before := len(steps) - 1
	g.add(Scenario{
		Name:    fmt.Sprintf("%s refused at move %d with %s: no move happens", name, at.m.Index, at.b.Reason),
		TitleJa: fmt.Sprintf("%s が %dつ目の移動で %s で拒否され、どの移動も行われない", name, at.m.Index, at.b.Reason),
		Steps:   steps,
	}, func(sc Scenario, outs []Outcome) bool {
		// The same ledger with and without the refused call.
		prefix := Run(g.b, Scenario{Steps: sc.Steps[:before]})
		return sameBalances(prefix[0], outs[0])
	})
}

// sameBalances compares two ledgers, ignoring accounts that are zero.
func sameBalances(a, b Outcome) bool {
	nonzero := func(o Outcome) map[string]interp.Balance {
		m := map[string]interp.Balance{}
		for _, x := range o.Accounts {
			if x.Balance != (interp.Balance{}) {
				m[x.Account.String()] = x.Balance
			}
		}
		return m
	}
	x, y := nonzero(a), nonzero(b)
	if len(x) != len(y) {
		return false
	}
	for k, v := range x {
		if y[k] != v {
			return false
		}
	}
	return true
}

// races: two callers at once for the last unit an account can give, or
// the last room it has.
func (g *gen) races(t *book.Transfer) {
	op := firstOp(t)
	for _, m := range t.Moves {
		if m.Amount.Param == nil {
			continue
		}
		if lo := m.From.Account.Lower; lo != nil {
			g.race(t, op, m, true, lo)
		}
		if up := m.To.Account.Upper; up != nil {
			g.race(t, op, m, false, up)
		}
	}
}

func (g *gen) race(t *book.Transfer, op book.Op, m *book.Move, lower bool, bound *book.Bound) {
	ref := m.To
	if lower {
		ref = m.From
	}
	first := g.s.Call(t, op, func(*book.Param) int64 { return 1 })
	acc := accountOf(ref, first)
	second, ok := g.rival(first, ref)
	if !ok {
		return
	}
	var prefix []search.Step
	if !lower && bound.Value-1 > 0 {
		if prefix, ok = g.s.Feed(nil, acc, bound.Value-1); !ok {
			return
		}
	}
	if g.raceFrom(t, op, ref, lower, bound, prefix, first, second) {
		return
	}
	// From an empty account the first caller alone did not leave it at
	// its bound: a lower bound below zero (a credit line), an upper
	// bound with no room until something is taken out (a line at most
	// zero), feeders that bring more than asked. Bring the account to
	// one step from its bound, taking from it or putting into it with
	// calls that get done, and race for that step.
	if prefix, ok = g.level(nil, acc, lower, bound, 1); ok {
		g.raceFrom(t, op, ref, lower, bound, prefix, first, second)
	}
}

// raceFrom adds the race of first and second after prefix, and reports
// whether it was kept.
func (g *gen) raceFrom(t *book.Transfer, op book.Op, ref book.AccountRef, lower bool, bound *book.Bound, prefix []search.Step, first, second interp.Call) bool {
	// Let the first caller through alone: what it needs is then there for
	// one of the two, and not for both.
	steps, ok := g.s.Prepare(append(slices.Clone(prefix), search.Step{Call: first}), len(t.Moves)+1)
	if !ok || steps[len(steps)-1].Result.Outcome != interp.Done {
		return false
	}
	// The second caller must meet the raced bound and nothing else: what
	// it needs from another account (the source of a move into the raced
	// one) is put there for both.
	acc := accountOf(ref, first)
	for range 2 * len(t.Moves) {
		run, _, ok := g.s.Simulate(append(slices.Clone(steps), search.Step{Call: second}))
		if !ok {
			return false
		}
		r := run[len(run)-1].Result
		d := r.Detail
		if r.Outcome != interp.Refused || d == nil || !d.Lower || d.Account.String() == acc.String() {
			break
		}
		need := d.Amount - (d.Balance.Posted - d.Balance.HeldOut - d.Account.Kind.Lower.Value)
		fed, ok := g.s.Feed(steps[:len(steps)-1], d.Account, need)
		if !ok {
			return false
		}
		if steps, ok = g.s.Prepare(append(fed, search.Step{Call: first}), len(t.Moves)+1); !ok || steps[len(steps)-1].Result.Outcome != interp.Done {
			return false
		}
	}
	feeders := fromSearch(steps[:len(steps)-1])
	en, ja := raceTitles(opName(t, op), ref, lower)
	sc := Scenario{Name: en, TitleJa: ja, Outcomes: 2,
		Steps: append(feeders, Step{Together: [][]*Call{{{Call: first}}, {{Call: second}}}})}
	k := len(feeders)
	return g.add(sc, func(_ Scenario, outs []Outcome) bool {
		// In each outcome one caller is done and the other meets the bound.
		for _, o := range outs {
			a, b := o.Results[k], o.Results[k+1]
			one := (a.Outcome == interp.Done && b.Reason == bound.Reason) || (b.Outcome == interp.Done && a.Reason == bound.Reason)
			if !one {
				return false
			}
		}
		return true
	})
}

// rival returns a second caller for a race with first: it differs in the
// key only, so that both name the same account; false when every key
// parameter picks the account.
func (g *gen) rival(first interp.Call, ref book.AccountRef) (interp.Call, bool) {
	second := first
	second.Strings = map[string]string{}
	for k, v := range first.Strings {
		second.Strings[k] = v
	}
	changed := false
	for _, p := range first.Transfer.Key {
		if !slices.Contains(ref.Args, p) {
			second.Strings[p.Name] = g.s.Fresh(p.Name)
			changed = true
		}
	}
	return second, changed
}

func raceTitles(name string, ref book.AccountRef, lower bool) (en, ja string) {
	shape, one := ref.String(), amt(ref.Account, 1)
	if lower {
		return fmt.Sprintf("two callers take the last %s of %s with %s", one, shape, name),
			fmt.Sprintf("二つの呼び出し元が %s の最後の %s を %s で同時に取りに来る", shape, one, name)
	}
	return fmt.Sprintf("two callers take the last room of %s in %s with %s", one, shape, name),
		fmt.Sprintf("二つの呼び出し元が %s の最後の空き %s を %s で同時に取りに来る", shape, one, name)
}

// sameAccount: a move between two accounts of one kind, given equal
// values, is refused with same_account.
func (g *gen) sameAccount(t *book.Transfer) {
	ex, ok := g.s.SameAccount(t)
	if !ok {
		return
	}
	name := opName(t, firstOp(t))
	g.add(Scenario{
		Name:    name + " with the same account on both sides: same_account",
		TitleJa: name + " で移動の元と先が同じ勘定になると same_account",
		Steps:   fromSearch(ex.Steps),
	}, nil)
}

// lessText says how much less than held the partial post takes: one
// smallest step of each amount, written at its unit's scale ("0.01")
// when the amounts share one, as a title names every other amount.
func lessText(amounts []*book.Param) diag.Text {
	scale := amounts[0].Unit.Scale
	for _, a := range amounts[1:] {
		if a.Unit.Scale != scale {
			return diag.T("one smallest step", "最小単位一つ分")
		}
	}
	if scale == 0 {
		return diag.T("one", "1 ")
	}
	one := book.FormatAmount(1, scale)
	return diag.T(one, one+" ")
}
