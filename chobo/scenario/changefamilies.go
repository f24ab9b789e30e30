package scenario

import (
	"fmt"
	"slices"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/search"
)

// The bound-change families: a deploy step between two calls changes a
// bound of an account kind whose accounts exist. Each is made once for a
// book, on the first bound of a move that the family can be shown on,
// since every deploy runs alone on a backend: a bound widened (a call the
// old bound refused is done), narrowed with the account inside (the new
// bound holds), narrowed with the account left outside (further out is
// refused, back toward is allowed, and once inside the bound holds), a
// hold made before the change posted or voided after it, and a key the
// old bound refused retried under the new one. The versions come from
// the generator's Deployer, checked as a scenario's deploy step is; a
// change the checks refuse (a lower bound across 0) is not used.

// change is one bound of one move the families can work on.
type change struct {
	t     *book.Transfer
	op    book.Op
	m     *book.Move
	lower bool
	bound *book.Bound
	ref   book.AccountRef
	c     interp.Call // the call, every amount 1
	acc   interp.Account
}

func (g *gen) boundChanges() {
	if g.deploy == nil {
		return
	}
	families := []func(ch change) bool{g.widened, g.narrowedInside, g.narrowedOutside, g.heldAcross, g.retriedAcross}
	done := make([]bool, len(families))
	for _, t := range g.b.Transfers {
		op := firstOp(t)
		for _, m := range t.Moves {
			if m.Amount.Param == nil {
				continue
			}
			for _, lower := range []bool{true, false} {
				ref, bound := m.To, m.To.Account.Upper
				if lower {
					ref, bound = m.From, m.From.Account.Lower
				}
				if bound == nil || !onlyIn(t, m, ref) {
					continue
				}
				c := g.s.Call(t, op, func(*book.Param) int64 { return 1 })
				ch := change{t: t, op: op, m: m, lower: lower, bound: bound, ref: ref, c: c, acc: accountOf(ref, c)}
				for i, f := range families {
					if !done[i] {
						done[i] = f(ch)
					}
				}
			}
		}
	}
}

// version is the book in place with ch's bound at value, or nil when the
// checks refuse it.
func (g *gen) version(ch change, value int64) (*book.Book, []BoundChange) {
	side := &SideChange{Value: value}
	bc := BoundChange{Kind: ch.ref.Account.Name}
	if ch.lower {
		bc.Lower = side
	} else {
		bc.Upper = side
	}
	bounds := []BoundChange{bc}
	key := encodeBounds(g.b, bounds)
	nb, seen := g.versions[key]
	if !seen {
		var err error
		if nb, err = g.deploy(g.b, &Deploy{Bounds: bounds}); err != nil {
			nb = nil
		}
		g.versions[key] = nb
	}
	return nb, bounds
}

// moved is ch's bound moved by d outward (d > 0: wider) or inward.
func (ch change) moved(d int64) int64 {
	if ch.lower {
		return ch.bound.Value - d
	}
	return ch.bound.Value + d
}

// at is the steps that leave ch's account with room under its bound as
// it is in the book, then feeders so that the call with amount a gets
// past every move before ch's (refused) or every move (done).
func (g *gen) at(ch change, room int64, a int64, done bool) ([]Step, interp.Call, bool) {
	prefix, ok := g.nearBound(ch.acc, ch.lower, ch.bound)
	if !ok {
		return nil, interp.Call{}, false
	}
	if prefix, ok = g.level(prefix, ch.acc, ch.lower, ch.bound, room); !ok {
		return nil, interp.Call{}, false
	}
	target := withAmount(ch.c, ch.m, a)
	upto := len(ch.t.Moves) + 1
	if !done {
		upto = ch.m.Index
		if !ch.lower {
			upto++
		}
	}
	steps, ok := g.s.Prepare(append(slices.Clone(prefix), search.Step{Call: target}), upto)
	if !ok {
		return nil, interp.Call{}, false
	}
	return fromSearch(steps[:len(steps)-1]), target, true
}

// under is c on nb's transfer of the same name: a call after a deploy is
// made under the version the deploy put in place.
func under(nb *book.Book, c interp.Call) interp.Call {
	c.Transfer = nb.Transfer(c.Transfer.Name)
	return c
}

func deployStep(nb *book.Book, bounds []BoundChange) Step {
	return Step{Deploy: &Deploy{Bounds: bounds, Book: nb}}
}

// words are what the titles say of ch's bound: its side, in English and
// in Japanese, and the account.
func (ch change) words() (name, shape, side, sideJa string) {
	side, sideJa = "upper", "上限"
	if ch.lower {
		side, sideJa = "lower", "下限"
	}
	return opName(ch.t, ch.op), ch.ref.String(), side, sideJa
}

// without is sc without its deploy steps, every call on b's transfers:
// what the calls would answer under the book as it was (a call reads
// the bounds from its transfer's moves).
func without(b *book.Book, sc Scenario) Scenario {
	var steps []Step
	for _, st := range sc.Steps {
		if st.Deploy != nil {
			continue
		}
		if st.Call != nil {
			st.Call = &Call{Call: under(b, st.Call.Call)}
		}
		steps = append(steps, st)
	}
	sc.Steps = steps
	return sc
}

// lastAnswer is the answer of the last call of sc run on b.
func lastAnswer(b *book.Book, sc Scenario) string {
	outs := Run(b, sc)
	if len(outs) != 1 || len(outs[0].Results) == 0 {
		return ""
	}
	return outs[0].Results[len(outs[0].Results)-1].Short()
}

// widened: the account sits at its bound, the bound widens by 2, and a
// call of 1 past where the old bound stood is done; without the deploy
// it is refused with the bound's reason.
func (g *gen) widened(ch change) bool {
	d := int64(2)
	if ch.lower && ch.bound.Value >= 0 {
		// A lower bound of 0 or more stays so: across 0 is E050.
		d = min(d, ch.bound.Value)
	}
	if d == 0 {
		return false
	}
	nb, bounds := g.version(ch, ch.moved(d))
	if nb == nil {
		return false
	}
	steps, target, ok := g.at(ch, 0, 1, false)
	if !ok {
		return false
	}
	// The same call under another key, where one can be made, shows
	// the old bound refusing it before the deploy.
	if before, ok := g.again(target); ok {
		steps = append(steps, call(before, refused(ch.bound.Reason)))
	}
	name, shape, side, sideJa := ch.words()
	kind := ch.ref.Account
	sc := Scenario{
		Name: fmt.Sprintf("%s: the %s bound of %s widens from %s to %s: a call its old bound refused is done", name, side, shape, amt(kind, ch.bound.Value), amt(kind, ch.moved(d))),
		TitleJa: fmt.Sprintf("%s: %s の%sが %s から %s に広がると、前の%sで拒否された呼び出しが done になる",
			name, shape, sideJa, amt(kind, ch.bound.Value), amt(kind, ch.moved(d)), sideJa),
		Steps: append(steps, deployStep(nb, bounds), call(under(nb, target), "done")),
	}
	return g.add(sc, func(sc Scenario, _ []Outcome) bool {
		return lastAnswer(g.b, without(g.b, sc)) == refused(ch.bound.Reason)
	})
}

// narrowedInside: the account sits 2 inside its bound, the bound narrows
// by 2 to where it sits, and a call of 1 more is refused with the
// bound's reason; without the deploy it is done.
func (g *gen) narrowedInside(ch change) bool {
	nb, bounds := g.version(ch, ch.moved(-2))
	if nb == nil {
		return false
	}
	steps, target, ok := g.at(ch, 2, 1, true)
	if !ok {
		return false
	}
	name, shape, side, sideJa := ch.words()
	kind := ch.ref.Account
	sc := Scenario{
		Name: fmt.Sprintf("%s: the %s bound of %s narrows from %s to %s, the account inside: %s past it is refused with %s",
			name, side, shape, amt(kind, ch.bound.Value), amt(kind, ch.moved(-2)), amt(kind, 1), ch.bound.Reason),
		TitleJa: fmt.Sprintf("%s: %s の%sが %s から %s に狭まり、勘定はその内側: それを越える呼び出しは %s で拒否される",
			name, shape, sideJa, amt(kind, ch.bound.Value), amt(kind, ch.moved(-2)), ch.bound.Reason),
		Steps: append(steps, deployStep(nb, bounds), call(under(nb, target), refused(ch.bound.Reason))),
	}
	return g.add(sc, func(sc Scenario, _ []Outcome) bool {
		return lastAnswer(g.b, without(g.b, sc)) == "done"
	})
}

// toward is steps followed by calls, each done, that bring ch's account
// back toward its bound's inside, and how much room they made.
func (g *gen) toward(ch change, steps []search.Step) ([]search.Step, int64, bool) {
	before, ok := balanceAfter(g, steps, ch.acc)
	if !ok {
		return nil, 0, false
	}
	var more []search.Step
	if ch.lower {
		more, ok = g.s.Feed(steps, ch.acc, 1)
	} else {
		more, ok = g.s.Take(steps, ch.acc, 1)
	}
	if !ok {
		return nil, 0, false
	}
	after, ok := balanceAfter(g, more, ch.acc)
	if !ok {
		return nil, 0, false
	}
	made := room(after, ch.lower, ch.bound) - room(before, ch.lower, ch.bound)
	return more, made, made > 0
}

// again is c with a fresh key and the same accounts: a second call on
// them. False when every part of the key names an account or is an
// amount.
func (g *gen) again(c interp.Call) (interp.Call, bool) {
	inAccount := func(p *book.Param) bool {
		for _, m := range c.Transfer.Moves {
			for _, r := range []book.AccountRef{m.From, m.To} {
				if slices.Contains(r.Args, p) {
					return true
				}
			}
		}
		return false
	}
	out := c
	out.Strings = map[string]string{}
	for k, v := range c.Strings {
		out.Strings[k] = v
	}
	fresh := false
	for _, p := range c.Transfer.Key {
		if !p.IsAmount() && !inAccount(p) {
			out.Strings[p.Name] = g.s.Fresh(p.Name)
			fresh = true
		}
	}
	return out, fresh
}

// narrowedOutside: the account sits at its bound, which narrows past it:
// a call further out is refused with the bound's reason, calls back
// toward the inside are done while the account is still outside, and
// once it is inside a call past the new bound is refused, where the old
// bound would have let it through.
func (g *gen) narrowedOutside(ch change) bool {
	prefix, ok := g.nearBound(ch.acc, ch.lower, ch.bound)
	if ok {
		prefix, ok = g.level(prefix, ch.acc, ch.lower, ch.bound, 0)
	}
	if !ok {
		return false
	}
	target := withAmount(ch.c, ch.m, 1)
	upto := ch.m.Index
	if !ch.lower {
		upto++
	}
	run, ok := g.s.Prepare(append(slices.Clone(prefix), search.Step{Call: target}), upto)
	if !ok {
		return false
	}
	setup := run[:len(run)-1]
	first, f1, ok := g.toward(ch, setup)
	if !ok {
		return false
	}
	second, f2, ok := g.toward(ch, first)
	if !ok {
		return false
	}
	// Narrowed by f1+1, the first calls toward leave the account 1
	// outside, the second f2-1 inside.
	d := f1 + 1
	nb, bounds := g.version(ch, ch.moved(-d))
	if nb == nil {
		return false
	}
	last, ok := g.again(target)
	if !ok {
		return false
	}
	last = withAmount(last, ch.m, f2)
	var steps []Step
	steps = append(steps, fromSearch(setup)...)
	steps = append(steps, deployStep(nb, bounds), call(under(nb, target), refused(ch.bound.Reason)))
	for _, s := range fromSearch(second[len(setup):]) {
		if s.Call != nil {
			s.Call = &Call{Call: under(nb, s.Call.Call)}
		}
		steps = append(steps, s)
	}
	steps = append(steps, call(under(nb, last), refused(ch.bound.Reason)))
	name, shape, side, sideJa := ch.words()
	kind := ch.ref.Account
	sc := Scenario{
		Name: fmt.Sprintf("%s: the %s bound of %s narrows from %s to %s, past the account: further out refused, back toward done, held once inside",
			name, side, shape, amt(kind, ch.bound.Value), amt(kind, ch.moved(-d))),
		TitleJa: fmt.Sprintf("%s: %s の%sが %s から %s に狭まり、勘定が外側に残る: さらに外へは拒否、内側へは done、内側に入ると境界が効く",
			name, shape, sideJa, amt(kind, ch.bound.Value), amt(kind, ch.moved(-d))),
		Steps: steps,
	}
	return g.add(sc, func(sc Scenario, _ []Outcome) bool {
		return lastAnswer(g.b, without(g.b, sc)) == "done"
	})
}

// heldAcross: holds made before the bound narrows past what they hold,
// one posted after the deploy and one voided: both done, as a post or a
// void changes nothing a bound checks. Where no second key reaches the
// same accounts, the post and the void are scenarios of their own.
func (g *gen) heldAcross(ch change) bool {
	if ch.t.Pending == nil {
		return false
	}
	nb, bounds := g.version(ch, ch.moved(-2))
	if nb == nil {
		return false
	}
	name, shape, side, sideJa := ch.words()
	kind := ch.ref.Account
	title := func(en, ja string) (string, string) {
		return fmt.Sprintf("%s: holds made before the %s bound of %s narrows from %s to %s past them are %s after",
				name, side, shape, amt(kind, ch.bound.Value), amt(kind, ch.moved(-2)), en),
			fmt.Sprintf("%s: %s の%sが %s から %s に狭まる前の押さえを、狭まった後に%s",
				name, shape, sideJa, amt(kind, ch.bound.Value), amt(kind, ch.moved(-2)), ja)
	}
	if steps, target, ok := g.at(ch, 2, 1, true); ok {
		if other, ok := g.again(target); ok {
			en, ja := title("posted and voided", "確定し、取り消す")
			return g.add(Scenario{Name: en, TitleJa: ja,
				Steps: append(slices.Clone(steps), call(target, "done"), call(other, "done"), deployStep(nb, bounds),
					call(under(nb, search.KeyCall(target, book.Post)), "done"),
					call(under(nb, search.KeyCall(other, book.Void)), "done"))}, nil)
		}
	}
	steps, target, ok := g.at(ch, 1, 1, true)
	if !ok {
		return false
	}
	kept := false
	for _, end := range []struct {
		op     book.Op
		en, ja string
	}{{book.Post, "posted", "確定する"}, {book.Void, "voided", "取り消す"}} {
		en, ja := title(end.en, end.ja)
		sc := Scenario{Name: en, TitleJa: ja,
			Steps: append(slices.Clone(steps), call(target, "done"), deployStep(nb, bounds),
				call(under(nb, search.KeyCall(target, end.op)), "done")),
		}
		kept = g.add(sc, nil) || kept
	}
	return kept
}

// retriedAcross: a call the old bound refused, the bound widened so that
// it would now fit (or, where it cannot widen, narrowed), and the same
// call again: it answers already_refused, the answer of its key.
func (g *gen) retriedAcross(ch change) bool {
	for _, d := range []int64{2, -2} {
		if d > 0 && ch.lower && ch.bound.Value >= 0 && ch.bound.Value < d {
			continue
		}
		nb, bounds := g.version(ch, ch.moved(d))
		if nb == nil {
			continue
		}
		steps, target, ok := g.at(ch, 0, 1, false)
		if !ok {
			return false
		}
		name, shape, side, sideJa := ch.words()
		kind := ch.ref.Account
		verb, verbJa := "widens", "広がった"
		if d < 0 {
			verb, verbJa = "narrows", "狭まった"
		}
		sc := Scenario{
			Name: fmt.Sprintf("%s again after the %s bound of %s %s from %s to %s: the key refused with %s answers already_refused",
				name, side, shape, verb, amt(kind, ch.bound.Value), amt(kind, ch.moved(d)), ch.bound.Reason),
			TitleJa: fmt.Sprintf("%s: %s で拒否されたキーは、%s の%sが %s から %s に%s後も already_refused",
				name, ch.bound.Reason, shape, sideJa, amt(kind, ch.bound.Value), amt(kind, ch.moved(d)), verbJa),
			Steps: append(steps, call(target, refused(ch.bound.Reason)), deployStep(nb, bounds),
				call(under(nb, target), refused(book.AlreadyRefused))),
		}
		if g.add(sc, nil) {
			return true
		}
	}
	return false
}
