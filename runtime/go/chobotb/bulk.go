package chobotb

import (
	"context"
	"errors"
	"fmt"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// Op is one call of a Bulk: an operation of a transfer kind and what it
// is given.
type Op struct {
	Kind int
	Op   string // do, hold, post, void or status
	// Values are, for do and hold, the transfer's values in declaration
	// order; for post, void and status, the key's values in key order.
	Values Values
	// Amounts are a partial post's amounts (the kind's post amounts, in
	// declaration order); nil posts the whole hold.
	Amounts []int64
	// Err, when set, is why the client would not send the call (an
	// argument it refused): its Answer is this error, and nothing is sent.
	Err error
}

// Answer is what one call of a Bulk got: a Result (do, hold, post, void),
// a State (status; "" when there is no hold), or Err when the call failed.
// A failed call is as a failed single call: it may have been applied, and
// sending it again is safe.
type Answer struct {
	Result chobo.Result
	State  chobo.HoldState
	Err    error
}

// Bulk sends many calls with as few requests as they fit: the accounts and
// openings they need (each once), one lookup for the holds that posts and
// voids read, then their chains, packed in order into requests of at most
// RequestEvents events, a chain never split across two. Each call gets its
// own answer, the one it would get alone.
//
// TigerBeetle applies the chains in order, as if the calls were made one
// after another; what Bulk cannot do is let a call see another's answer
// before it is sent: a post, void or status reads its hold before any
// chain goes, so it must not name a hold that a hold of the same Bulk
// makes. A request that fails fails the calls it carried, in their
// Answers, and only those: the accounts and openings are the do and hold
// calls' (an account that changed fails each of them), the lookup the
// posts' and voids'. The error is nil; it is kept so that the callers of
// earlier versions, which stopped every call at such a failure, compile.
func (b *Book) Bulk(ctx context.Context, ops []Op) ([]Answer, error) {
	r := &bulk{b: b, ops: ops, out: make([]Answer, len(ops)), chains: make([][]Event, len(ops)), reads: make([]reading, len(ops)),
		events: b.requestEvents()}
	r.plan()
	if err := b.ensurePlans(ctx, r.plans); err != nil {
		for _, i := range r.planned {
			r.out[i].Err, r.chains[i] = err, nil
		}
	}
	r.finish(ctx)
	statuses, errs := b.sendChains(ctx, r.chains, r.events)
	r.read(ctx, statuses, errs)
	return r.out, nil
}

// reading is how the statuses of a call's chain become its answer.
type reading int

const (
	readResult   reading = iota // a do, hold, post or void: Read
	readState                   // a status: ReadStatus
	readOverHold                // a post over its hold, sent as a status chain
)

// bulk is one Bulk under way: what each call sends, and how its statuses
// are read. A call whose answer is known without sending anything has no
// chain.
type bulk struct {
	b        *Book
	ops      []Op
	out      []Answer
	chains   [][]Event
	reads    []reading
	plans    []*Plan
	planned  []int         // by plan: its call
	finishes []pending     // the posts and voids, which read their holds first
	posts    [][]uint64    // by call: what a post sends for each move
	holds    [][]HoldEvent // by call: the events a post or void ends
	events   int           // the most events a request carries
}

// pending is a post or void of a Bulk and the key of its hold.
type pending struct {
	i   int
	key []string
}

// plan builds the chains of the calls that need no lookup, and sets aside
// the posts and voids, which do.
func (r *bulk) plan() {
	b := r.b
	for i, op := range r.ops {
		if op.Err == nil {
			op.Err = b.checkSize(op.Values)
		}
		if op.Err != nil {
			r.out[i].Err = op.Err
			continue
		}
		switch op.Op {
		case "do", "hold":
			p, err := b.def.build(b.tenant, b.tids, op.Kind, op.Op, op.Values, false)
			switch {
			case err != nil:
				r.out[i].Err = err
			case p.SameAccount:
				r.out[i].Result = refused(ReasonSameAccount)
			case len(p.Chain) > r.events:
				r.out[i].Err = chainTooLong(len(p.Chain), r.events)
			default:
				r.plans, r.planned = append(r.plans, p), append(r.planned, i)
				r.chains[i] = p.Chain
			}
		case "post", "void":
			if op.Op == "post" {
				if err := b.checkPostAmounts(op.Kind, op.Amounts); err != nil {
					r.out[i].Err = err
					continue
				}
			}
			r.finishes = append(r.finishes, pending{i, keyText(op.Values)})
		case "status":
			r.statusOf(i, keyText(op.Values), readState)
		default:
			r.out[i].Err = fmt.Errorf("chobotb: no operation %q", op.Op)
		}
	}
}

// statusOf makes call i send the status chain of its key.
func (r *bulk) statusOf(i int, key []string, how reading) {
	chain, err := r.b.statusChain(r.ops[i].Kind, key)
	if err != nil {
		r.out[i].Err = err
		return
	}
	r.chains[i], r.reads[i] = chain, how
}

// finish looks up the holds of every post and void in one request, each
// id once, then builds the chain each sends, or its answer when the hold
// alone gives it.
func (r *bulk) finish(ctx context.Context) {
	b := r.b
	var finishes []pending
	var lookups [][]ids.ID
	var all []ids.ID
	asked := map[ids.ID]bool{}
	for _, f := range r.finishes {
		l, err := b.def.Lookups(b.tenant, r.ops[f.i].Kind, f.key)
		if err != nil {
			r.out[f.i].Err = err
			continue
		}
		finishes, lookups = append(finishes, f), append(lookups, l)
		for _, id := range l {
			if !asked[id] {
				asked[id] = true
				all = append(all, id)
			}
		}
	}
	if len(finishes) == 0 {
		return
	}
	found, err := b.lookupAll(ctx, all)
	for n, f := range finishes {
		if err != nil {
			r.out[f.i].Err = err
			continue
		}
		r.finishOne(f, lookups[n], found)
	}
}

// finishOne is finish for one post or void, its hold's ids looked up.
func (r *bulk) finishOne(f pending, lookups []ids.ID, found map[ids.ID]Transfer) {
	b, i, op := r.b, f.i, r.ops[f.i]
	hold, held, err := b.def.holdOf(b.tids.sink, op.Kind, lookups, found)
	switch {
	case errors.Is(err, errOtherDefinition):
		r.out[i].Result = refused(ReasonKeyConflict)
		return
	case err != nil:
		r.out[i].Err = err
		return
	case held == nil:
		r.out[i].Result = refused(ReasonNoSuchHold)
		return
	}
	var amounts []uint64
	if op.Op == "post" {
		want, over := b.postAmounts(op.Kind, held, op.Amounts)
		if over {
			r.statusOf(i, f.key, readOverHold)
			return
		}
		amounts = want
	}
	chain, err := b.def.FinishOf(b.tenant, op.Kind, op.Op, f.key, amounts, hold)
	if err != nil {
		r.out[i].Err = err
		return
	}
	r.chains[i] = chain
	if r.holds == nil {
		r.holds = make([][]HoldEvent, len(r.ops))
	}
	r.holds[i] = hold
	if amounts != nil {
		if r.posts == nil {
			r.posts = make([][]uint64, len(r.ops))
		}
		r.posts[i] = amounts
	}
}

// read makes each sent chain's statuses its call's answer.
func (r *bulk) read(ctx context.Context, statuses [][]Status, errs []error) {
	var again, relaid []int
	for i, chain := range r.chains {
		if chain == nil {
			continue
		}
		if errs[i] != nil {
			r.out[i].Err = errs[i]
			continue
		}
		switch r.reads[i] {
		case readOverHold:
			s, err := ReadStatus(statuses[i])
			r.out[i].Result, r.out[i].Err = overHoldAnswer(s), err
		case readState:
			r.out[i].State, r.out[i].Err = ReadStatus(statuses[i])
		default:
			if laidOutOtherwise(chain, statuses[i]) {
				relaid = append(relaid, i)
				continue
			}
			if r.b.def.madeByLegacy(r.ops[i].Kind, statuses[i]) {
				again = append(again, i)
				continue
			}
			r.out[i].Result, r.out[i].Err = Read(chain, statuses[i])
		}
	}
	if len(relaid) > 0 {
		again = append(again, r.readRelaid(ctx, relaid)...)
	}
	if len(again) > 0 {
		r.readLegacy(ctx, again)
	}
}

// readRelaid answers the calls whose first event exists with other flags
// by what they mean (sameCalls), and returns those to send again as an
// earlier chobo laid them out.
func (r *bulk) readRelaid(ctx context.Context, calls []int) (again []int) {
	chains := make([][]Event, len(calls))
	for n, i := range calls {
		chains[n] = r.chains[i]
	}
	same, err := r.b.sameCalls(ctx, chains)
	for n, i := range calls {
		switch {
		case err != nil:
			r.out[i].Err = err
		case same[n]:
			r.out[i].Result = chobo.Result{Outcome: chobo.DoneBefore}
		case r.b.def.HasLegacy(r.ops[i].Kind):
			again = append(again, i)
		default:
			r.out[i].Result = refused(ReasonKeyConflict)
		}
	}
	return again
}

// readLegacy sends the calls made before by an earlier version of chobo
// (madeByLegacy) again as it sent them, and answers them from that: few,
// each chain a request of its own, as the other runtimes send them.
func (r *bulk) readLegacy(ctx context.Context, calls []int) {
	b, d := r.b, r.b.def.Legacy()
	chains := make([][]Event, len(calls))
	for n, i := range calls {
		op := r.ops[i]
		var err error
		switch op.Op {
		case "do", "hold":
			var p *Plan
			if p, err = d.build(b.tenant, b.tids, op.Kind, op.Op, op.Values, false); err == nil {
				chains[n] = p.Chain
			}
		default:
			var amounts []uint64 // none for a void
			if r.posts != nil {
				amounts = r.posts[i]
			}
			chains[n], err = d.FinishOf(b.tenant, op.Kind, op.Op, keyText(op.Values), amounts, r.holds[i])
		}
		if err != nil {
			r.out[i].Err = err
			chains[n] = nil
		}
	}
	for n, i := range calls {
		if chains[n] == nil {
			continue
		}
		statuses, errs := b.sendChains(ctx, chains[n:n+1], r.events)
		if errs[0] != nil {
			r.out[i].Err = errs[0]
			continue
		}
		r.out[i].Result, r.out[i].Err = Read(chains[n], statuses[0])
	}
}

// ensurePlans makes what the plans need and this Book has not made: their
// accounts, then their openings, each once.
func (b *Book) ensurePlans(ctx context.Context, plans []*Plan) error {
	if len(plans) == 1 {
		return b.ensure(ctx, plans[0])
	}
	all := &Plan{}
	seen := map[ids.ID]bool{}
	for _, p := range plans {
		for _, a := range p.Accounts {
			if !seen[a.ID] {
				seen[a.ID] = true
				all.Accounts = append(all.Accounts, a)
			}
		}
		for _, o := range p.Openings {
			if !seen[o.ID] {
				seen[o.ID] = true
				all.Openings = append(all.Openings, o)
			}
		}
	}
	return b.ensure(ctx, all)
}

// lookupAll looks up transfers, MaxEvents ids to a request, and returns
// those found by id. A record that was not asked for is an error.
func (b *Book) lookupAll(ctx context.Context, list []ids.ID) (map[ids.ID]Transfer, error) {
	asked := make(map[ids.ID]bool, len(list))
	for _, id := range list {
		asked[id] = true
	}
	found := map[ids.ID]Transfer{}
	for len(list) > 0 {
		n := min(len(list), MaxEvents)
		c, cancel := bounded(ctx)
		ts, err := b.c.LookupTransfers(c, list[:n])
		cancel()
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if !asked[t.ID] {
				return nil, fmt.Errorf("chobotb: the lookup of a hold answered another transfer")
			}
			found[t.ID] = t
		}
		list = list[n:]
	}
	return found, nil
}

// errOtherDefinition: the hold was made under another definition of its
// transfer kind. Post and void answer key_conflict and send nothing: the
// hold's events need not be where this definition looks for them, and
// ending only those found would leave the others held.
var errOtherDefinition = errors.New("chobotb: the hold was made under another definition of its transfer kind")

// sendChains sends the chains, packed in order into requests of at most
// most events, none split. A nil chain sends nothing. A request that fails
// gives its error to every chain it carried; the others go on.
func (b *Book) sendChains(ctx context.Context, chains [][]Event, most int) ([][]Status, []error) {
	statuses := make([][]Status, len(chains))
	errs := make([]error, len(chains))
	var batch []Transfer
	var members []int
	flush := func() {
		if len(batch) == 0 {
			return
		}
		st, err := b.createTransfers(ctx, batch)
		at := 0
		for _, i := range members {
			n := len(chains[i])
			if err != nil {
				errs[i] = err
			} else {
				statuses[i] = st[at : at+n]
			}
			at += n
		}
		batch, members = nil, nil
	}
	for i, chain := range chains {
		if chain == nil {
			continue
		}
		if len(batch)+len(chain) > most {
			flush()
		}
		for _, e := range chain {
			batch = append(batch, e.Transfer)
		}
		members = append(members, i)
	}
	flush()
	return statuses, errs
}
