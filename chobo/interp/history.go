package interp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
)

// The history of a ledger, as the interpreter defines it, is a list of
// entries in the order they happened. An entry is one side of one move
// of one call that took effect: a move gives two entries, the account it
// leaves and the account it reaches, in the order the book writes the
// moves. Each entry says how much each of the account's three amounts
// changed and what the account held right after it, so that a statement
// shows held amounts as they come and go and not only what was posted:
//
//   - do: the posted amount leaves one account and reaches the other;
//   - hold: held out grows on one side, held in on the other; nothing is
//     posted;
//   - post: what the hold held is released in full on both sides, and the
//     amount posted (all of it, or the part given) moves the posted
//     amounts, in the same entry;
//   - void and expire: what the hold held is released; nothing is posted.
//
// A call that is refused, answered done_before or fails writes nothing.
// A move of 0 writes its two entries all the same: the call happened.
//
// Time is the ledger's clock (State.Now), in seconds from the start: an
// entry is when its call was made, and an expiry's is when the hold
// gave back what it held, the end of the pass that reached the deadline
// (what was held still counts until then, as on a database that
// expires holds after their deadline). So times never go back along the
// history; entries that share a time keep the history's order.

// EntryOp is what wrote an entry: an operation of the book, or the
// expiry of a hold, which no caller asks for.
type EntryOp string

// Expire is the op of an entry an expiry wrote.
const Expire EntryOp = "expire"

// Entry is one change of one account.
type Entry struct {
	// Seq is the entry's place in the ledger's history, from 1. It never
	// changes once given, whatever comes after.
	Seq  int64
	Time int64
	// Call is the call that wrote the entry: its transfer kind and every
	// argument it was given (for a post, the key and the amounts posted
	// when it named them; for a void or an expiry, the key).
	Call Call
	Op   EntryOp
	Key  []string
	Move int // 1-based, as the book writes the moves
	// Out says the entry is the side the move leaves.
	Out     bool
	Account Account
	// Posted, HeldOut and HeldIn are the changes; After the balance they
	// left.
	Posted, HeldOut, HeldIn int64
	After                   Balance
}

// CallText writes the call of the entry as a scenario shows calls, with
// amounts at their unit's scale: `reserve.hold(order: o-1, qty: 2)`, and
// `reserve.expire(order: o-1)` for an expiry.
func (e Entry) CallText() string {
	c := e.Call
	c.Op = book.Op(e.Op)
	return c.Display()
}

// history is what a State keeps of its entries when asked to.
type history struct {
	entries   []Entry
	byAccount map[string][]int // account id → indexes into entries
	byCall    map[string][]int // holdID-like key of transfer and key values → indexes
}

func (h *history) clone() *history {
	c := &history{entries: slices.Clone(h.entries),
		byAccount: make(map[string][]int, len(h.byAccount)),
		byCall:    make(map[string][]int, len(h.byCall))}
	for k, v := range h.byAccount {
		c.byAccount[k] = slices.Clone(v)
	}
	for k, v := range h.byCall {
		c.byCall[k] = slices.Clone(v)
	}
	return c
}

// KeepHistory makes s keep its entries from now on, for the reads below.
// A ledger without it (the default) keeps none, so that exploring the
// orders of concurrent calls, which clones ledgers by the thousand, does
// not copy histories no one reads. Same and the functions of Part leave
// the history out: a ledger put together by With keeps none.
func (s *State) KeepHistory() {
	if s.hist == nil {
		s.hist = &history{byAccount: map[string][]int{}, byCall: map[string][]int{}}
	}
}

// KeepsHistory says whether s keeps its entries.
func (s *State) KeepsHistory() bool { return s.hist != nil }

// change is one entry before it is numbered.
type change struct {
	move                    int
	out                     bool
	account                 Account
	posted, heldOut, heldIn int64
}

// record appends the entries of one call that took effect, after the
// balances have changed: each entry's balance is worked back from the
// account's balance now, so that two entries of one call on the same
// account each show what they left.
func (s *State) record(c Call, op EntryOp, key []string, changes []change) {
	h := s.hist
	if h == nil || len(changes) == 0 {
		return
	}
	after := make([]Balance, len(changes))
	running := map[string]Balance{}
	for i := len(changes) - 1; i >= 0; i-- {
		ch := changes[i]
		id := ch.account.id()
		b, ok := running[id]
		if !ok {
			b = s.Balance(ch.account)
		}
		after[i] = b
		b.Posted -= ch.posted
		b.HeldOut -= ch.heldOut
		b.HeldIn -= ch.heldIn
		running[id] = b
	}
	call := Call{Transfer: c.Transfer, Op: c.Op, Strings: c.Strings, Amounts: c.Amounts}
	cid := holdID(c.Transfer, key)
	for i, ch := range changes {
		e := Entry{Seq: int64(len(h.entries)) + 1, Time: s.Now, Call: call, Op: op, Key: key,
			Move: ch.move, Out: ch.out, Account: ch.account,
			Posted: ch.posted, HeldOut: ch.heldOut, HeldIn: ch.heldIn, After: after[i]}
		id := ch.account.id()
		h.byAccount[id] = append(h.byAccount[id], len(h.entries))
		h.byCall[cid] = append(h.byCall[cid], len(h.entries))
		h.entries = append(h.entries, e)
	}
}

// moveChanges are the entries of a do or a hold.
func moveChanges(from, to []Account, amts []int64, hold bool) []change {
	out := make([]change, 0, 2*len(from))
	for i, a := range amts {
		if hold {
			out = append(out, change{move: i + 1, out: true, account: from[i], heldOut: a},
				change{move: i + 1, account: to[i], heldIn: a})
		} else {
			out = append(out, change{move: i + 1, out: true, account: from[i], posted: -a},
				change{move: i + 1, account: to[i], posted: a})
		}
	}
	return out
}

// holdChanges are the entries of a hold's end: posted is what each move
// posts (nil for a void or an expiry), and what it held is released.
func holdChanges(h *Hold, posted []int64) []change {
	out := make([]change, 0, 2*len(h.Amounts))
	for i, held := range h.Amounts {
		var p int64
		if posted != nil {
			p = posted[i]
		}
		out = append(out, change{move: i + 1, out: true, account: h.From[i], posted: -p, heldOut: -held},
			change{move: i + 1, account: h.To[i], posted: p, heldIn: -held})
	}
	return out
}

// holdCall is the call an expiry is recorded under: the hold's key alone.
func holdCall(h *Hold) Call {
	c := Call{Transfer: h.Transfer, Strings: map[string]string{}}
	for i, p := range h.Transfer.Key {
		c.Strings[p.Name] = h.Key[i]
	}
	return c
}

// ErrNoHistory is the answer of a read on a ledger that keeps no history.
var ErrNoHistory = failT("the ledger keeps no history", "この台帳は履歴を持っていません")

// Order is the order of a statement.
type Order int

const (
	Oldest Order = iota // oldest entry first
	Newest              // newest entry first
)

// Filter is what a statement reads of an account's entries.
type Filter struct {
	// From and To bound the entries' time: From <= Time, and Time < *To
	// when To is set.
	From int64
	To   *int64
	// Transfers, when not empty, keeps the entries of these kinds only.
	Transfers []*book.Transfer
	Order     Order
	// Limit is the most entries a page holds; 0 is no limit.
	Limit int
	// After is the cursor of an earlier page: the page starts with the
	// first entry past it in Order. Empty: from the start.
	After string
}

// Page is one page of a statement.
type Page struct {
	Entries []Entry
	// Next is the cursor to continue from: past the last entry of the
	// page, or where After was when the page is empty. A cursor names a
	// place in the account's entry sequence, which only grows at its
	// newest end, so it stays right however many calls come after it:
	// read oldest first, a later page also holds the entries made since.
	Next string
	// More says that entries the filter keeps were left past the page
	// when it was read.
	More bool
}

// The cursor is the Seq of the last entry read, written with a letter in
// front so that no one mistakes it for a count: what it holds is for the
// ledger alone.
func cursorOf(seq int64) string { return "h" + strconv.FormatInt(seq, 10) }

func (s *State) parseCursor(c string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(c, "h"), 10, 64)
	if !strings.HasPrefix(c, "h") || err != nil || n < 1 || n > int64(len(s.hist.entries)) || cursorOf(n) != c {
		return 0, failT("%q is not a cursor of this ledger", "%q はこの台帳のカーソルではありません", c)
	}
	return n, nil
}

// Statement reads a page of a's entries.
func (s *State) Statement(a Account, f Filter) (Page, error) {
	if s.hist == nil {
		return Page{}, ErrNoHistory
	}
	if f.Limit < 0 {
		return Page{}, failT("the limit is %d; it is 0 (no limit) or more", "上限が %d です。0(上限なし)以上にしてください", f.Limit)
	}
	var past int64 = -1 // no cursor: nothing to skip
	if f.After != "" {
		var err error
		if past, err = s.parseCursor(f.After); err != nil {
			return Page{}, err
		}
	}
	idx := s.hist.byAccount[a.id()]
	page := Page{Next: f.After}
	keep := func(e *Entry) bool {
		if past >= 0 && ((f.Order == Oldest && e.Seq <= past) || (f.Order == Newest && e.Seq >= past)) {
			return false
		}
		if e.Time < f.From || (f.To != nil && e.Time >= *f.To) {
			return false
		}
		return len(f.Transfers) == 0 || slices.Contains(f.Transfers, e.Call.Transfer)
	}
	for n := range idx {
		i := idx[n]
		if f.Order == Newest {
			i = idx[len(idx)-1-n]
		}
		e := &s.hist.entries[i]
		if !keep(e) {
			continue
		}
		if f.Limit > 0 && len(page.Entries) == f.Limit {
			page.More = true
			break
		}
		page.Entries = append(page.Entries, *e)
		page.Next = cursorOf(e.Seq)
	}
	return page, nil
}

// CallEntries returns every entry written under the key of a transfer
// kind, oldest first: a do's, or a hold's and then those of its post,
// void or expiry. A key not used, or used only by calls that wrote
// nothing, has none.
func (s *State) CallEntries(t *book.Transfer, key []string) ([]Entry, error) {
	if s.hist == nil {
		return nil, ErrNoHistory
	}
	if len(key) != len(t.Key) {
		return nil, failT("%s has a key of %d values, not %d", "%s のキーは値が %d つです(%d つではありません)", t.Name, len(t.Key), len(key))
	}
	var out []Entry
	for _, i := range s.hist.byCall[holdID(t, key)] {
		out = append(out, s.hist.entries[i])
	}
	return out, nil
}

// OpenHolds lists the holds still held that move from or to a (when a is
// not nil) and are of the kind t (when t is not nil), in the order they
// were made, as a backend lists them by the time of their hold calls (on
// a ledger without history, in the order of Holds). A hold whose
// deadline the clock has reached has expired already: time passes only
// through Pass, which expires it.
func (s *State) OpenHolds(a *Account, t *book.Transfer) []*Hold {
	out := s.openHolds(a, t)
	if s.hist != nil {
		// a hold made before the ledger kept history comes first
		made := func(h *Hold) int {
			if idx := s.hist.byCall[holdID(h.Transfer, h.Key)]; len(idx) > 0 {
				return idx[0]
			}
			return -1
		}
		slices.SortStableFunc(out, func(x, y *Hold) int { return made(x) - made(y) })
	}
	return out
}

func (s *State) openHolds(a *Account, t *book.Transfer) []*Hold {
	var out []*Hold
	for _, h := range s.Holds() {
		if h.State != Held || (t != nil && h.Transfer != t) {
			continue
		}
		if a != nil && !slices.ContainsFunc(h.From, func(x Account) bool { return sameAccount(x, *a) }) &&
			!slices.ContainsFunc(h.To, func(x Account) bool { return sameAccount(x, *a) }) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// BalanceAt returns what a held at time t: after every entry made at t
// or before. A time past the clock is not known yet (a hold may still
// expire before it), and is an error.
func (s *State) BalanceAt(a Account, t int64) (Balance, error) {
	if s.hist == nil {
		return Balance{}, ErrNoHistory
	}
	if t < 0 || t > s.Now {
		return Balance{}, failT("the time %d s is outside the ledger's clock, 0 to %d s", "時刻 %d 秒は台帳の時計の範囲(0 から %d 秒)の外です", t, s.Now)
	}
	idx := s.hist.byAccount[a.id()]
	var b Balance
	for _, i := range idx {
		e := s.hist.entries[i]
		if e.Time > t {
			break
		}
		b = e.After
	}
	return b, nil
}

// ParseAccount reads an account of b as String writes it: `stock(s-1)`,
// or the bare kind for one without parameters. A value that holds ", "
// or a bracket cannot be told apart from the list, and is not read.
func ParseAccount(b *book.Book, text string) (Account, error) {
	name, rest, hasArgs := strings.Cut(text, "(")
	var kind *book.Account
	for _, k := range b.Accounts {
		if k.Name == name {
			kind = k
		}
	}
	if kind == nil {
		return Account{}, failT("the book has no account %q", "帳簿に %q という勘定はありません", name)
	}
	var args []string
	if hasArgs {
		inner, ok := strings.CutSuffix(rest, ")")
		if !ok {
			return Account{}, failT("%q: the arguments end with a closing bracket", "%q: 引数の終わりに閉じ括弧がありません", text)
		}
		args = strings.Split(inner, ", ")
	}
	if len(args) != len(kind.Params) {
		return Account{}, failT("%q: %s takes %d values (%s), written %s", "%q: %s の値は %d つ(%s)で、%s と書きます",
			text, kind.Name, len(kind.Params), strings.Join(kind.Params, ", "), book.KindArgs(kind.Name, kind.Params))
	}
	return Account{Kind: kind, Args: args}, nil
}

// ChangeText writes an entry's changes, for people and for a scenario's
// expectations: `posted -2`, `held out +2`, `posted +1, held in -2`; a
// change of nothing is `posted 0`, at the unit's scale as every amount
// (`posted 0.00`).
func (e Entry) ChangeText(ja bool) string {
	scale := e.Account.Kind.Unit.Scale
	names := [3]string{"posted", "held out", "held in"}
	if ja {
		names = [3]string{"確定", "出ていく仮押さえ", "入ってくる仮押さえ"}
	}
	var parts []string
	for i, d := range []int64{e.Posted, e.HeldOut, e.HeldIn} {
		if d != 0 {
			sign := "+"
			if d < 0 {
				sign = ""
			}
			parts = append(parts, names[i]+" "+sign+book.FormatAmount(d, scale))
		}
	}
	if len(parts) == 0 {
		return names[0] + " " + book.FormatAmount(0, scale)
	}
	sep := ", "
	if ja {
		sep = "、"
	}
	return strings.Join(parts, sep)
}

// String writes the entry in one line, the English a scenario expects.
func (e Entry) String() string {
	v := func(n int64) string { return book.FormatAmount(n, e.Account.Kind.Unit.Scale) }
	return fmt.Sprintf("%s at %ds: %s move %d %s; %s -> posted %s, held out %s, held in %s",
		e.Account, e.Time, e.CallText(), e.Move, side(e.Out), e.ChangeText(false), v(e.After.Posted), v(e.After.HeldOut), v(e.After.HeldIn))
}

func side(out bool) string {
	if out {
		return "out"
	}
	return "in"
}
