package postgres

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
)

// The views below are what the templates fill in: names quoted, literals
// written, and the expressions that depend on a transfer's moves built.
// They hold strings only, so the templates need no logic of their own
// beyond ranges and conditions.

// function is what every function template starts with.
type function struct {
	S         string // the quoted schema
	Book      string // the book's name, as a literal
	Func      string // the quoted function name
	Signature string // the parameter list
	Kind, Op  string // the transfer kind and the operation, as literals
	KeyArray  string // the key as a text[] expression
	Def       string // the definition hash, as a literal
	// DefIs and DefIsNot compare a recorded definition with this one:
	// the hash this version records, or the legacy hash (bounds
	// included) that earlier versions recorded for the same kind, so
	// that their keys and holds keep their answers.
	DefIs, DefIsNot string
	// CallID is the quoted call id parameter, the last of an operation
	// (none for status).
	CallID string
	Checks checks
}

// checks are what a function checks of its arguments before anything
// else: each argument, then the size of its text values together.
type checks struct {
	Args []argCheck
	// Texts is what the text arguments take, as book.MaxTexts counts
	// it, as an expression; "" when there are none.
	Texts string
	// MaxTenant, MaxTexts and TextOverhead are the book's limits.
	MaxTenant, MaxTexts, TextOverhead int
}

// newChecks checks args, in order, and the size of the text ones.
func newChecks(args []argCheck) checks {
	c := checks{Args: args, MaxTenant: book.MaxTenant, MaxTexts: book.MaxTexts, TextOverhead: book.TextOverhead}
	var texts []string
	for _, a := range args {
		if !a.Amount {
			texts = append(texts, fmt.Sprintf("octet_length(%s) + %d", a.Ident, book.TextOverhead))
		}
	}
	c.Texts = strings.Join(texts, " + ")
	return c
}

// argCheck is the check of one argument at the start of a function.
type argCheck struct {
	Name      string // as in the book, for messages
	Ident     string // the quoted parameter
	Amount    bool
	MayBeNull bool // the amounts of a post: null means the full hold
}

type moveView struct {
	function
	Hold    bool
	Content string // the arguments as a JSON array
	Moves   []moveStep
	// Accounts are the distinct accounts the moves name, each id computed
	// once per call; Bounded are those with a bound (locked, in their
	// rows), Free those without (changed through their shards).
	Accounts, Bounded, Free []*accountRow
	Vars                    settleVars // the position variables the moves use
	// Envelope is the SET that widens the stored bounds of the bounded
	// rows to the book's (envelopeSet): the lower, then the upper.
	Envelope []string
	Deadline string // of a hold
	Entries  entryArrays
	// What a hold keeps of each move, in move order.
	Froms, Tos, Amounts []string
	// Fast is the path of a call with one move and a bound on one or both
	// of its accounts: nil for the others.
	Fast *fastView
}

// fastView is the first try of a call with one move: in the statement
// that inserts the key, the rows of the move's bounded accounts are
// updated in id order, each only when the book's bound holds and the row
// stores a bound (one that stores none was made outside), its stored
// bounds widened to the book's, and the shard of an account without
// bounds takes its part. When every bounded row changed, the call is
// done; else the general path finds out why, after putting back a row
// that did change.
type fastView struct {
	Rows []fastRow
	// Set is the update of a bounded row, Undo its reverse, Conds what
	// the row must meet; all are written for either row of the move.
	Set, Undo string
	Conds     []string
	// Envelope widens the stored bounds of the row to the book's
	// (envelopeSet); the undo leaves them widened, which the book's
	// bounds allow.
	Envelope []string
	// Shard is the change of the side without bounds, if there is one,
	// on the shard of this session: one column and the amount, which on
	// the hot path is measurably cheaper than the nine numbers of v_fd.
	// When the shard has no room, FreeApply works the change out into
	// v_fd for chobo_unbounded, as the general path does.
	Shard     *fastShard
	FreeApply []string
	// Other is the id of the account of the move whose row the first
	// update does not find itself: its row must be there before that
	// update locks anything (the first update finds its own row or does
	// nothing, so asking for both rows asked one twice).
	Other string
	// Entries is the SELECT of the move's two entries (fastEntries).
	Entries string
}

// fastShard is the conditional update of that shard: what it sets, and
// Room, the change is not zero (a zero change goes to chobo_unbounded,
// which passes over it) and stays inside the shard's slice.
type fastShard struct {
	Var, Set, Room string
}

// fastRow is one bounded row of the fast path: its CTE name, the id it
// updates, and the CTE it waits for.
type fastRow struct {
	Name, ID, After string
}

// Moved is how many of the bounded rows changed, as an expression.
func (f fastView) Moved() string {
	var n []string
	for _, r := range f.Rows {
		n = append(n, "(select count(*) from "+r.Name+")")
	}
	return strings.Join(n, " + ")
}

// Last is the CTE of the last bounded row.
func (f fastView) Last() string { return f.Rows[len(f.Rows)-1].Name }

// shardArgs is what the conditional update of one shard reads: the
// account's id, the shard, and the account's nine numbers (the change,
// lowest and highest of posted, held in and held out, as chobo_unbounded
// takes them), D(k) being number k.
type shardArgs struct {
	S, ID, Shard, format string
}

func shardOf(s, id, format, shard string) shardArgs { return shardArgs{s, id, shard, format} }

func (a shardArgs) D(k int) string { return fmt.Sprintf(a.format, k) }

// Changes says the nine numbers change something: a lowest or highest
// value away from 0.
func (a shardArgs) Changes() string {
	var c []string
	for _, k := range []int{2, 3, 5, 6, 8, 9} {
		c = append(c, a.D(k)+" <> 0")
	}
	return strings.Join(c, " or ")
}

type moveStep struct {
	Index    int
	Text     string // the move as written, for a comment
	From, To *accountRow
	Amount   string
	Same     bool // from and to are of one account kind: maybe one account
	Lower    *boundCheck
	Upper    *boundCheck
	// Find are the statements that find the move's two accounts in the
	// arrays of the call, Apply those that move the amount on them;
	// FreeApply is both for the sides without bounds only.
	Find, Apply, FreeApply []string
}

type boundCheck struct {
	function
	Value  int64
	Reason string // a literal
	Amount string // what the move moves
	// CheckFree: an earlier move changed an account without bounds; a
	// refusal here first checks that none of its values left 64 bits.
	CheckFree bool
}

type accountRow struct {
	Var          string // v_account_1 …
	ID           string // the id expression, written out inline
	Call         string // the same id as a call of chobo_id, for a reader
	Kind, Unit   string // literals
	Args         string // a text[] expression
	Lower, Upper string // bigint literals or null
	Free         bool   // no bound: changed through its shards
}

// Shards is how many shards an account without bounds has.
const Shards = 16

// The fields of an account, as offsets into the nine numbers per account
// that chobo_unbounded takes (change, lowest, highest).
const (
	fieldPosted  = 1
	fieldHeldIn  = 4
	fieldHeldOut = 7
)

// settleVars says which position variables a function's moves use, so
// that it declares only those.
type settleVars struct {
	From, To, FreeFrom, FreeTo bool
}

// effect is what a do or a hold does to one side of a move: the field it
// changes, and whether it adds the amount (else it takes it away).
type effect struct {
	field int
	plus  bool
}

func moveEffect(hold, to bool) effect {
	switch {
	case hold && to:
		return effect{fieldHeldIn, true}
	case hold:
		return effect{fieldHeldOut, true}
	case to:
		return effect{fieldPosted, true}
	}
	return effect{fieldPosted, false}
}

// fieldColumns are the account columns of the fields.
var fieldColumns = map[int]string{fieldPosted: "posted", fieldHeldIn: "held_in", fieldHeldOut: "held_out"}

// side is one side of a move: the expression of its account's id, and
// whether the account is without bounds.
type side struct {
	id   string
	free bool
}

// find is the statement that finds one side of a move in the arrays of
// the call: its index in the bounded arrays, or its offset in v_fd.
func find(s side, to bool, vars *settleVars) string {
	switch {
	case s.free && to:
		vars.FreeTo = true
		return fmt.Sprintf("v_fto := array_position(v_fids, %s) * 9 - 9;", s.id)
	case s.free:
		vars.FreeFrom = true
		return fmt.Sprintf("v_ffrom := array_position(v_fids, %s) * 9 - 9;", s.id)
	case to:
		vars.To = true
		return fmt.Sprintf("v_to := array_position(v_ids, %s);", s.id)
	}
	vars.From = true
	return fmt.Sprintf("v_from := array_position(v_ids, %s);", s.id)
}

// change is the statements that add delta (an expression, with its sign)
// to a field of one side of a move: on the bounded arrays, where bigint
// arithmetic fails past 64 bits, or on the change of an account without
// bounds, keeping the lowest or highest value it reaches.
func change(s side, to bool, field int, plus bool, amount string) []string {
	op := "-"
	if plus {
		op = "+"
	}
	if !s.free {
		i := "v_from"
		if to {
			i = "v_to"
		}
		arr := "v_" + fieldColumns[field]
		return []string{fmt.Sprintf("%[1]s[%[2]s] := %[1]s[%[2]s] %[3]s %[4]s;", arr, i, op, amount)}
	}
	o := "v_ffrom"
	if to {
		o = "v_fto"
	}
	net := fmt.Sprintf("v_fd[%s + %d]", o, field)
	if plus {
		hi := fmt.Sprintf("v_fd[%s + %d]", o, field+2)
		return []string{fmt.Sprintf("%s := %s + %s;", net, net, amount), fmt.Sprintf("%s := greatest(%s, %s);", hi, hi, net)}
	}
	lo := fmt.Sprintf("v_fd[%s + %d]", o, field+1)
	return []string{fmt.Sprintf("%s := %s - %s;", net, net, amount), fmt.Sprintf("%s := least(%s, %s);", lo, lo, net)}
}

// ids writes the variables of rows as a uuid[] expression.
func ids(rows []*accountRow) string {
	var vs []string
	for _, r := range rows {
		vs = append(vs, r.Var)
	}
	return "array[" + strings.Join(vs, ", ") + "]"
}

// AllIDs are the call's accounts as a uuid[] expression.
func (v moveView) AllIDs() string { return ids(v.Accounts) }

// BoundedIDs are the call's accounts with a bound, FreeIDs those without.
func (v moveView) BoundedIDs() string { return ids(v.Bounded) }
func (v moveView) FreeIDs() string    { return ids(v.Free) }

// WriteIDs are the call's accounts with a bound, as a list.
func (v moveView) WriteIDs() string {
	return strings.TrimSuffix(strings.TrimPrefix(ids(v.Bounded), "array["), "]")
}

// FreeSize is the length of v_fd: nine numbers per account without bounds.
func (v moveView) FreeSize() int { return 9 * len(v.Free) }

// OneFree says the call changes exactly one account without bounds, whose
// shard the function then updates itself rather than through
// chobo_unbounded: one statement instead of a function call and a loop.
func (v moveView) OneFree() bool { return len(v.Free) == 1 }

// Shards is how many shards each account without bounds has.
func (moveView) Shards() int { return Shards }

type postView struct {
	function
	Amounts      []string // the amount parameters of a partial post, quoted
	Nulls, Given []string // "p is null", "p is not null" for each of them
	PerMove      []string // what each move posts
	Settle       settleView
}

// PostArgs is what the post was given, as the history shows it: the key
// and then the amounts it named, or the key alone for the full hold.
func (v postView) PostArgs() string {
	if len(v.Amounts) == 0 {
		return "v_key"
	}
	var named []string
	for _, a := range v.Amounts {
		named = append(named, a+"::text")
	}
	return fmt.Sprintf("case when %s then v_key else v_key || array[%s] end", strings.Join(v.Nulls, " and "), strings.Join(named, ", "))
}

type voidView struct {
	function
	Settle settleView
}

// settleView is what post and void do with the hold's accounts: the
// bounded ones locked in id order, those without bounds changed through
// their shards, and the hold's moves unrolled.
type settleView struct {
	S       string
	Op      string // 'post' or 'void'
	Bounded []string
	Free    []string
	Moves   []settleMove
	Vars    settleVars
	Post    bool
	Entries entryArrays // what the post or void changes, move by move
	// Several says the hold has more than one move, so that two of its
	// entries may change one account, each then showing its own balance.
	Several bool
}

type settleMove struct {
	Text        string
	Find, Apply []string
}

func (v settleView) BoundedIDs() string { return "array[" + strings.Join(v.Bounded, ", ") + "]" }
func (v settleView) FreeIDs() string    { return "array[" + strings.Join(v.Free, ", ") + "]" }
func (v settleView) FreeSize() int      { return 9 * len(v.Free) }
func (v settleView) OneFree() bool      { return len(v.Free) == 1 }
func (settleView) Shards() int          { return Shards }
func (v settleView) WriteIDs() string   { return strings.Join(v.Bounded, ", ") }

func newSettle(b *book.Book, t *book.Transfer, post bool) settleView {
	v := settleView{S: Ident(b.Name), Op: "'void'", Post: post, Several: len(t.Moves) > 1}
	if post {
		v.Op = "'post'"
	}
	for i, m := range t.Moves {
		n := i + 1
		from := side{fmt.Sprintf("v_hold.from_ids[%d]", n), free(m.From.Account)}
		to := side{fmt.Sprintf("v_hold.to_ids[%d]", n), free(m.To.Account)}
		for _, s := range []side{from, to} {
			if s.free {
				v.Free = append(v.Free, s.id)
			} else {
				v.Bounded = append(v.Bounded, s.id)
			}
		}
		sm := settleMove{Text: moveText(m), Find: []string{find(from, false, &v.Vars), find(to, true, &v.Vars)}}
		held := fmt.Sprintf("v_hold.amounts[%d]", n)
		posted, gained := "0", "0"
		if post {
			posted, gained = fmt.Sprintf("-v_amounts[%d]", n), fmt.Sprintf("v_amounts[%d]", n)
		}
		v.Entries.add(from.id, posted, "0", "-"+held)
		v.Entries.add(to.id, gained, "-"+held, "0")
		sm.Apply = append(sm.Apply, change(from, false, fieldHeldOut, false, held)...)
		sm.Apply = append(sm.Apply, change(to, true, fieldHeldIn, false, held)...)
		if post {
			posted := fmt.Sprintf("v_amounts[%d]", n)
			sm.Apply = append(sm.Apply, change(from, false, fieldPosted, false, posted)...)
			sm.Apply = append(sm.Apply, change(to, true, fieldPosted, true, posted)...)
		}
		v.Moves = append(v.Moves, sm)
	}
	return v
}

// OneMoveEntries is the SELECT of the two entries of a post or a void of
// a hold of one move (kind its transfer kind, as a literal), from the rows
// its update returned (written), dated v_now, the time the call read its
// hold's deadline against (entrySelect).
func (v settleView) OneMoveEntries(kind string) string {
	q := entrySelect{S: v.S, Kind: kind, Op: v.Op, At: "v_now", E: v.Entries}
	if len(v.Bounded) == 2 {
		return q.both("written")
	}
	return q.each(func(acc string) bool { return slices.Contains(v.Bounded, acc) }, "written", "")
}

// free says whether an account kind has no bound: its accounts are
// changed through their shards, never locked by a call.
func free(a *book.Account) bool { return a.Lower == nil && a.Upper == nil }

type balanceView struct {
	S, Func, Signature string
	ID                 string // the account's id expression
	Checks             checks
}

func newFunction(b *book.Book, t *book.Transfer, op string, params []*book.Param, amountDefaults bool) function {
	sig := []string{"p_tenant text"}
	var args []argCheck
	for _, p := range params {
		a := Ident(ParamName(p.Name)) + " " + SQLType(p.IsAmount())
		if amountDefaults && p.IsAmount() {
			a += " default null"
		}
		sig = append(sig, a)
		args = append(args, argCheck{Name: p.Name, Ident: Ident(ParamName(p.Name)), Amount: p.IsAmount(), MayBeNull: amountDefaults})
	}
	callID := ""
	if op != "status" {
		// last and with a default: a client that sends no call id calls
		// the function as before
		callID = Ident(CallIDParam)
		sig = append(sig, callID+" uuid default null")
	}
	var key []string
	for _, p := range t.Key {
		key = append(key, Ident(ParamName(p.Name)))
	}
	f := function{
		S: Ident(b.Name), Book: Lit(b.Name), Func: Ident(FuncName(t, op)), Signature: strings.Join(sig, ", "),
		Kind: Lit(t.Name), Op: Lit(op),
		KeyArray: "array[" + strings.Join(key, ", ") + "]::text[]",
		Def:      Lit(t.Definition()),
		DefIs:    "= v_definition", DefIsNot: "<> v_definition",
		CallID: callID,
		Checks: newChecks(args),
	}
	if legacy := t.LegacyDefinition(); legacy != t.Definition() {
		// two constants: cheaper than an array on every call
		f.DefIs = "in (v_definition, " + Lit(legacy) + ")"
		f.DefIsNot = "not in (v_definition, " + Lit(legacy) + ")"
	}
	return f
}

func newMoveView(b *book.Book, t *book.Transfer, op book.Op) moveView {
	v := moveView{function: newFunction(b, t, string(op), t.Params, false), Hold: op == book.Hold}
	var all []string
	for _, p := range t.Params {
		all = append(all, Ident(ParamName(p.Name)))
	}
	v.Content = strings.Join(all, ", ")
	rows := map[string]*accountRow{} // by the reference as written
	row := func(r book.AccountRef) *accountRow {
		key := r.String()
		if a, ok := rows[key]; ok {
			return a
		}
		a := newAccountRow(fmt.Sprintf("v_account_%d", len(v.Accounts)+1), b, r)
		rows[key] = a
		v.Accounts = append(v.Accounts, a)
		return a
	}
	freeSeen := false
	for _, m := range t.Moves {
		st := moveStep{Index: m.Index, Text: moveText(m), From: row(m.From), To: row(m.To),
			Amount: amountExpr(m), Same: m.From.Account == m.To.Account}
		if lo := m.From.Account.Lower; lo != nil {
			st.Lower = &boundCheck{function: v.function, Value: lo.Value, Reason: Lit(lo.Reason), Amount: st.Amount, CheckFree: freeSeen}
		}
		if up := m.To.Account.Upper; up != nil {
			st.Upper = &boundCheck{function: v.function, Value: up.Value, Reason: Lit(up.Reason), Amount: st.Amount, CheckFree: freeSeen}
		}
		from, to := side{st.From.Var, st.From.Free}, side{st.To.Var, st.To.Free}
		for i, sd := range []side{from, to} {
			isTo := i == 1
			e := moveEffect(v.Hold, isTo)
			f, a := find(sd, isTo, &v.Vars), change(sd, isTo, e.field, e.plus, st.Amount)
			st.Find, st.Apply = append(st.Find, f), append(st.Apply, a...)
			if sd.free {
				st.FreeApply = append(append(st.FreeApply, f), a...)
			}
		}
		freeSeen = freeSeen || from.free || to.free
		v.Moves = append(v.Moves, st)
		v.Froms, v.Tos, v.Amounts = append(v.Froms, st.From.Var), append(v.Tos, st.To.Var), append(v.Amounts, st.Amount)
		v.Entries.moveEntries(st, v.Hold)
	}
	for _, a := range v.Accounts {
		if a.Free {
			v.Free = append(v.Free, a)
		} else {
			v.Bounded = append(v.Bounded, a)
		}
	}
	if len(v.Bounded) > 0 {
		v.Envelope = envelopeSet(v.Bounded)
	}
	if len(v.Moves) == 1 && len(v.Bounded) > 0 {
		at := "v_at"
		if v.Hold {
			at = "v_now"
		}
		v.Fast = newFast(v.Moves[0], v.Hold)
		v.Fast.Entries = fastEntries(v.function, v.Fast, v.Entries, at)
	}
	if v.Hold {
		v.Deadline = "null::timestamptz"
		if t.Pending.Expires {
			v.Deadline = fmt.Sprintf("v_now + interval '%d seconds'", t.Pending.Seconds)
		}
	}
	return v
}

// newFast writes the fast path of st, the one move of a call, of which
// one or both sides have a bound.
func newFast(st moveStep, hold bool) *fastView {
	f := &fastView{FreeApply: st.FreeApply}
	var bounded []*accountRow
	var one effect              // what the move does to a lone bounded side
	whens := map[int][]string{} // per field, how each bounded side changes it
	var fields []int
	for i, r := range []*accountRow{st.From, st.To} {
		e := moveEffect(hold, i == 1)
		col, op := fieldColumns[e.field], "+"
		if !e.plus {
			op = "-"
		}
		if r.Free {
			room := fmt.Sprintf("%[2]s <> 0 and s.%[1]s + %[2]s <= s.%[1]s_hi", col, st.Amount)
			if !e.plus {
				room = fmt.Sprintf("%[2]s <> 0 and s.%[1]s - %[2]s >= s.%[1]s_lo", col, st.Amount)
			}
			f.Shard = &fastShard{Var: r.Var, Set: fmt.Sprintf("%[1]s = s.%[1]s %[2]s %[3]s", col, op, st.Amount), Room: room}
			f.Other = r.Var
			continue
		}
		bounded, one = append(bounded, r), e
		if whens[e.field] == nil {
			fields = append(fields, e.field)
		}
		whens[e.field] = append(whens[e.field], fmt.Sprintf("when a.id = %s then %s", r.Var, strings.TrimPrefix(op, "+")+st.Amount))
	}
	if len(bounded) == 2 {
		var set, undo []string
		for _, field := range fields {
			cases := strings.Join(whens[field], " ")
			set = append(set, fmt.Sprintf("%[1]s = a.%[1]s + case %[2]s else 0 end", fieldColumns[field], cases))
			undo = append(undo, fmt.Sprintf("%[1]s = a.%[1]s - case %[2]s else 0 end", fieldColumns[field], cases))
		}
		f.Set, f.Undo = strings.Join(set, ", "), strings.Join(undo, ", ")
		ids := st.From.Var + ", " + st.To.Var
		f.Rows = []fastRow{{Name: "b1", ID: "least(" + ids + ")", After: "k"}, {Name: "b2", ID: "greatest(" + ids + ")", After: "b1"}}
		f.Other = f.Rows[1].ID
	} else {
		// One bounded row is that side, and needs no case.
		col, op, back := fieldColumns[one.field], "+", "-"
		if !one.plus {
			op, back = "-", "+"
		}
		f.Set = fmt.Sprintf("%[1]s = a.%[1]s %[2]s %[3]s", col, op, st.Amount)
		f.Undo = fmt.Sprintf("%[1]s = a.%[1]s %[2]s %[3]s", col, back, st.Amount)
		f.Rows = []fastRow{{Name: "b1", ID: bounded[0].Var, After: "k"}}
	}
	f.Envelope = envelopeSet(bounded)
	for _, r := range bounded {
		// a row that stores no bound was made when its kind was outside,
		// part of its balance maybe on its shards: the general path stops
		// on it
		c := "(a.lower_bound is not null or a.upper_bound is not null)"
		if lo := st.Lower; lo != nil && r == st.From {
			c += fmt.Sprintf(" and a.posted::numeric - a.held_out - %s >= %d", lo.Amount, lo.Value)
		}
		if up := st.Upper; up != nil && r == st.To {
			c += fmt.Sprintf(" and a.posted::numeric + a.held_in + %s <= %d", up.Amount, up.Value)
		}
		if len(bounded) == 2 {
			c = fmt.Sprintf("(a.id <> %s or (%s))", r.Var, c)
		}
		f.Conds = append(f.Conds, c)
	}
	return f
}

// fastEntries is the SELECT of the two entries of a fast path's move,
// dated at, from the rows its updates returned (entrySelect). With two
// bounded rows, the second (b2) changes only once the first (b1) did, so
// the first's entry waits for the second's row as well.
func fastEntries(fn function, f *fastView, e entryArrays, at string) string {
	q := entrySelect{S: fn.S, Kind: fn.Kind, Op: fn.Op, At: at, E: e}
	if len(f.Rows) == 2 {
		return q.both(f.Rows[0].Name) + "\n     where exists (select 1 from " + f.Rows[1].Name + ")" +
			"\n    union all\n    " + q.both(f.Rows[1].Name)
	}
	free := func(acc string) bool { return f.Shard != nil && acc == f.Shard.Var }
	return q.each(func(acc string) bool { return !free(acc) }, "b1", "\n     where exists (select 1 from b1)")
}

// entrySelect writes the SELECT of a call's two entries, one move's, for
// an insert into account_entries once the call's bounded rows changed:
// each bounded row's entry from the row its update returned, with the
// number and the balance the update left, and an account without bounds
// numbered from entry_order, with no balance; all dated At. Selecting
// each entry from the rows the update returned, rather than joining a
// list of the call's entries to them (and counting them to know they all
// changed), cost a call less than a tenth of its server time.
type entrySelect struct {
	S, Kind, Op, At string // the schema, the transfer kind and the operation as literals, the time
	E               entryArrays
}

// row is one SELECT of the entry columns: account and seq, the entry's
// place n, what it changes, and after, the balance it leaves.
func (q entrySelect) row(account, seq, n, posted, heldIn, heldOut, after string) string {
	return fmt.Sprintf("select p_tenant, %s, %s, %s, %s, v_key, %s, %s, %s, %s, %s, %s",
		account, seq, q.Kind, q.Op, n, posted, heldIn, heldOut, after, q.At)
}

// both is the entry of the row r of the CTE from, which may be either
// side of the move: each value picked by r's id where the sides differ.
func (q entrySelect) both(from string) string {
	e := q.E
	pick := func(first, second string) string {
		if first == second {
			return first
		}
		return fmt.Sprintf("case when r.id = %s then %s else %s end", e.Accounts[0], first, second)
	}
	return q.row("r.id", "r.entry_seq", pick("1", "2"), pick(e.Posted[0], e.Posted[1]), pick(e.HeldIn[0], e.HeldIn[1]),
		pick(e.HeldOut[0], e.HeldOut[1]), "r.posted, r.held_in, r.held_out") + "\n      from " + from + " r"
}

// each is the entries one by one: a bounded account's from the one row
// of the CTE from, an account without bounds' with freeWhere after it.
func (q entrySelect) each(bounded func(acc string) bool, from, freeWhere string) string {
	e := q.E
	var parts []string
	for i, acc := range e.Accounts {
		n := strconv.Itoa(i + 1)
		if bounded(acc) {
			parts = append(parts, q.row("r.id", "r.entry_seq", n, e.Posted[i], e.HeldIn[i], e.HeldOut[i],
				"r.posted, r.held_in, r.held_out")+"\n      from "+from+" r")
			continue
		}
		parts = append(parts, q.row(acc, "nextval("+Lit(q.S+".entry_order")+"::regclass)", n, e.Posted[i], e.HeldIn[i], e.HeldOut[i],
			"null, null, null")+freeWhere)
	}
	return strings.Join(parts, "\n    union all\n    ")
}

// envelopeSet is the SET of the stored bounds of the rows, lower and
// upper, each row's written for the bounds its kind has in the book (a
// SET reads the row as it was before the update). The stored bounds are
// the loosest a row has lived under, which the table's check holds every
// write to: a bound of the book looser than the stored one replaces it, a
// tighter one leaves it (the functions check the book's), and a side
// without a bound in the book stores none. Nothing is read to write it,
// so the update that moves the balance widens the bounds too.
//
// A row storing no bound on either side is one made outside (the lock
// stops on it), so a row that would lose its last stored bound (its kind
// had a bound on one side, and has one on the other side only now) stores
// the widest value of 64 bits on the side without one instead, which
// bounds nothing.
func envelopeSet(rows []*accountRow) []string {
	lower := func(r *accountRow) string {
		if r.Lower == "null::bigint" {
			return "case when a.upper_bound is null then -9223372036854775808 end"
		}
		return fmt.Sprintf("case when a.lower_bound > %[1]s then %[1]s else a.lower_bound end", r.Lower)
	}
	upper := func(r *accountRow) string {
		if r.Upper == "null::bigint" {
			return "case when a.lower_bound is null then 9223372036854775807 end"
		}
		return fmt.Sprintf("case when a.upper_bound < %[1]s then %[1]s else a.upper_bound end", r.Upper)
	}
	// rows of kinds with the same bounds share one expression
	var groups [][]*accountRow
	for _, r := range rows {
		placed := false
		for i, g := range groups {
			if g[0].Lower == r.Lower && g[0].Upper == r.Upper {
				groups[i], placed = append(g, r), true
				break
			}
		}
		if !placed {
			groups = append(groups, []*accountRow{r})
		}
	}
	side := func(name string, of func(*accountRow) string) string {
		if len(groups) == 1 {
			return name + " = " + of(groups[0][0])
		}
		var whens []string
		for _, g := range groups[:len(groups)-1] {
			whens = append(whens, fmt.Sprintf("when a.id in (%s) then %s", strings.TrimSuffix(strings.TrimPrefix(ids(g), "array["), "]"), of(g[0])))
		}
		return fmt.Sprintf("%s = case %s else %s end", name, strings.Join(whens, " "), of(groups[len(groups)-1][0]))
	}
	return []string{side("lower_bound", lower), side("upper_bound", upper)}
}

// entryArrays are the entries of a call, one element per entry: the
// account, and what it changes.
type entryArrays struct {
	Accounts, Posted, HeldIn, HeldOut []string
}

func (e *entryArrays) add(account, posted, heldIn, heldOut string) {
	e.Accounts = append(e.Accounts, account)
	e.Posted = append(e.Posted, posted)
	e.HeldIn = append(e.HeldIn, heldIn)
	e.HeldOut = append(e.HeldOut, heldOut)
}

// moveEntries adds the two entries of a move of a do or a hold: what
// leaves one account and what reaches the other, posted or held.
func (e *entryArrays) moveEntries(st moveStep, hold bool) {
	if hold {
		e.add(st.From.Var, "0", "0", st.Amount)
		e.add(st.To.Var, "0", st.Amount, "0")
		return
	}
	e.add(st.From.Var, "-"+st.Amount, "0", "0")
	e.add(st.To.Var, st.Amount, "0", "0")
}

// Rows writes the entries as the rows of a VALUES list: the place of the
// entry in the call, the account, and what it changes.
func (e entryArrays) Rows() string {
	var rows []string
	for i := range e.Accounts {
		rows = append(rows, fmt.Sprintf("(%d, %s, (%s)::bigint, (%s)::bigint, (%s)::bigint)", i+1, e.Accounts[i], e.Posted[i], e.HeldIn[i], e.HeldOut[i]))
	}
	return strings.Join(rows, ", ")
}

// Count is the SQL of how many of the call's entries are of the account
// row a: what its counter of entries takes in one update.
func (e entryArrays) Count() string {
	return fmt.Sprintf("(select count(*) from unnest(array[%s]) as x (id) where x.id = a.id)", strings.Join(e.Accounts, ", "))
}

// Values are the entries as the four arrays chobo_record takes.
func (e entryArrays) Values() string {
	return fmt.Sprintf("array[%s], array[%s]::bigint[], array[%s]::bigint[], array[%s]::bigint[]",
		strings.Join(e.Accounts, ", "), strings.Join(e.Posted, ", "), strings.Join(e.HeldIn, ", "), strings.Join(e.HeldOut, ", "))
}

func newAccountRow(v string, b *book.Book, r book.AccountRef) *accountRow {
	var args []string
	for _, p := range r.Args {
		args = append(args, Ident(ParamName(p.Name)))
	}
	call, inline := accountID(b, r)
	return &accountRow{Var: v, ID: inline, Call: call, Kind: Lit(r.Account.Name), Unit: Lit(r.Account.Unit.Name),
		Args:  "array[" + strings.Join(args, ", ") + "]::text[]",
		Lower: boundLit(r.Account.Lower), Upper: boundLit(r.Account.Upper), Free: free(r.Account)}
}

func newPostView(b *book.Book, t *book.Transfer) postView {
	amounts := t.PostAmounts()
	v := postView{function: newFunction(b, t, "post", Params(t, "post"), true)}
	for _, p := range amounts {
		n := Ident(ParamName(p.Name))
		v.Amounts = append(v.Amounts, n)
		v.Nulls = append(v.Nulls, n+" is null")
		v.Given = append(v.Given, n+" is not null")
	}
	for i, m := range t.Moves {
		if m.Amount.Param != nil {
			v.PerMove = append(v.PerMove, fmt.Sprintf("coalesce(%s, v_hold.amounts[%d])", Ident(ParamName(m.Amount.Param.Name)), i+1))
		} else {
			v.PerMove = append(v.PerMove, fmt.Sprintf("v_hold.amounts[%d]", i+1))
		}
	}
	v.Settle = newSettle(b, t, true)
	return v
}

func newVoidView(b *book.Book, t *book.Transfer) voidView {
	return voidView{function: newFunction(b, t, "void", t.Key, false), Settle: newSettle(b, t, false)}
}

func newBalanceView(b *book.Book, a *book.Account) balanceView {
	args := []string{"p_tenant text"}
	var params []string
	var checked []argCheck
	for _, p := range a.Params {
		args = append(args, Ident(ParamName(p))+" text")
		params = append(params, Ident(ParamName(p)))
		checked = append(checked, argCheck{Name: p, Ident: Ident(ParamName(p))})
	}
	return balanceView{S: Ident(b.Name), Func: Ident(BalanceName(a)), Signature: strings.Join(args, ", "),
		ID: idCall(b, accountParts(b, a, params)), Checks: newChecks(checked)}
}

// accountID is the id of an account a move names: the call of chobo_id
// that gives it, for a reader, and the same written out inline, for the
// function (see inlineID).
func accountID(b *book.Book, r book.AccountRef) (call, inline string) {
	var params []string
	for _, p := range r.Args {
		params = append(params, Ident(ParamName(p.Name)))
	}
	parts := accountParts(b, r.Account, params)
	return idCall(b, parts), inlineID(parts)
}

// accountParts are the parts of the id of an account of kind a whose
// arguments are the text expressions args, in the call's tenant.
func accountParts(b *book.Book, a *book.Account, args []string) []idPart {
	parts := []idPart{constPart("account"), constPart(b.Name), exprPart("p_tenant"), constPart(a.Name)}
	for _, e := range args {
		parts = append(parts, exprPart(e))
	}
	return parts
}

func moveText(m *book.Move) string {
	amount := fmt.Sprint(m.Amount.Literal)
	if m.Amount.Param != nil {
		amount = m.Amount.Param.Name
	}
	return fmt.Sprintf("move %s from %s to %s", amount, m.From, m.To)
}

// SQLType is the SQL type of a parameter: bigint for an amount, else
// text.
func SQLType(amount bool) string {
	if amount {
		return "bigint"
	}
	return "text"
}

func amountExpr(m *book.Move) string {
	if m.Amount.Param != nil {
		return Ident(ParamName(m.Amount.Param.Name))
	}
	return fmt.Sprintf("%d::bigint", m.Amount.Literal)
}

func boundLit(b *book.Bound) string {
	if b == nil {
		return "null::bigint"
	}
	return fmt.Sprintf("%d::bigint", b.Value)
}

// historyView is what the history's functions are written from.
type historyView struct {
	S, Book string
	// LegacyPosts are, for each transfer kind whose post names amounts,
	// the amounts it named picked out of what each move posted: the
	// arguments of a post made before its key row kept them, when it did
	// not post the full hold.
	LegacyPosts []legacyPost
}

type legacyPost struct {
	Kind, Named string
}

// entryRowView is what one function's rows of entries read: the view,
// and the kind and values of each entry's account as SQL.
type entryRowView struct {
	historyView
	Account string
}

// Statement's rows are of the account named; a call's rows, of the
// account each entry's row holds.
func (v historyView) StatementRow() entryRowView { return entryRowView{v, "p_account, p_args"} }
func (v historyView) CallRow() entryRowView      { return entryRowView{v, "a.kind, a.args"} }

func newHistoryView(b *book.Book) historyView {
	v := historyView{S: Ident(b.Name), Book: Lit(b.Name)}
	for _, t := range b.Transfers {
		if t.Pending == nil || len(t.PostAmounts()) == 0 {
			continue
		}
		var named []string
		for _, p := range t.PostAmounts() {
			for i, m := range t.Moves {
				if m.Amount.Param == p {
					named = append(named, fmt.Sprintf("(c.content::bigint[])[%d]::text", i+1))
					break
				}
			}
		}
		v.LegacyPosts = append(v.LegacyPosts, legacyPost{Kind: Lit(t.Name), Named: "array[" + strings.Join(named, ", ") + "]"})
	}
	return v
}
