package interp

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
)

// Call is one operation on a transfer kind.
//
// For do and hold, Strings and Amounts hold every parameter. For post and
// void, Strings holds the key parameters; a post may give Amounts for
// every amount parameter its moves use (a partial post), or none (nil:
// the full amounts held).
type Call struct {
	Transfer *book.Transfer
	Op       book.Op
	Strings  map[string]string
	Amounts  map[string]int64
}

// String writes the call as `reserve.hold(order: o-1, sku: s-1, qty: 2)`,
// parameters in declaration order. A value holding what would not print
// as itself (a NUL, another control, bytes that are not UTF-8) has it
// escaped (diag.Printable): a call that fails for such a value is still
// shown, and what people read and the goldens hold stays text.
func (c Call) String() string { return c.text(false) }

// Display writes the call as String does, but with each amount at its
// unit's scale (qty: 2.50 for 250 in a unit of scale 2), the way the book
// writes amounts: what a diagnostic prints, next to bounds read the same
// way. String keeps the smallest step, as a scenario file and a client
// give it.
func (c Call) Display() string { return c.text(true) }

func (c Call) text(scaled bool) string {
	var parts []string
	for _, p := range c.Transfer.Params {
		if v, ok := c.Strings[p.Name]; ok {
			parts = append(parts, p.Name+": "+diag.Printable(v))
		} else if v, ok := c.Amounts[p.Name]; ok {
			n := strconv.FormatInt(v, 10)
			if scaled && p.Unit != nil {
				n = book.FormatAmount(v, p.Unit.Scale)
			}
			parts = append(parts, p.Name+": "+n)
		}
	}
	return c.Transfer.Name + "." + string(c.Op) + "(" + strings.Join(parts, ", ") + ")"
}

// Failure is an error that is not a business answer: a malformed call or
// a balance that would leave 64 bits. The ledger is left as it was.
// Msg is the English message, the one JSON output and the backends'
// comparisons read; Ja says the same in Japanese, for people. The
// Japanese leaves out the call, which every listing prints beside it.
type Failure struct{ Msg, Ja string }

func (f *Failure) Error() string { return f.Msg }

// Text is the message in both languages.
func (f *Failure) Text() diag.Text { return diag.T(f.Msg, f.Ja) }

// failT makes a Failure from an English and a Japanese format, both
// given the same arguments (indexed verbs let the Japanese skip some).
func failT(en, ja string, args ...any) error {
	return &Failure{fmt.Sprintf(en, args...), fmt.Sprintf(ja, args...)}
}

// Apply performs one call. A refusal is a Result; an error means the call
// failed and changed nothing.
func (s *State) Apply(c Call) (Result, error) {
	if err := s.validate(c); err != nil {
		return Result{}, err
	}
	switch c.Op {
	case book.Post:
		return s.post(c)
	case book.Void:
		return s.void(c)
	}
	return s.move(c)
}

// validate turns away a call that is not well formed, before anything
// is looked up: such a call is the caller's mistake, not an answer.
func (s *State) validate(c Call) error {
	t := c.Transfer
	if !slices.Contains(t.Ops(), c.Op) {
		return failT("%s has no operation %q (it has %s)", "%[1]s に操作 %[2]q はありません(あるのは %[4]s です)", t.Name, c.Op, book.JoinOps(t.Ops(), ", "), book.JoinOps(t.Ops(), "、"))
	}
	switch c.Op {
	case book.Do, book.Hold:
		return validateArgs(c)
	}
	if err := validateKey(c); err != nil {
		return err
	}
	if c.Amounts == nil {
		return nil
	}
	if c.Op == book.Void {
		return failT("%s.void takes no amounts", "%s.void には数量を渡せません", t.Name)
	}
	return validatePostAmounts(c)
}

// validateArgs checks that a do or a hold gives every parameter, each
// with the right kind of value, and nothing else.
func validateArgs(c Call) error {
	t := c.Transfer
	for _, p := range t.Params {
		if p.IsAmount() {
			v, ok := c.Amounts[p.Name]
			if !ok {
				return failT("%s.%s: the amount %s is missing", "数量 %[3]s がありません", t.Name, c.Op, p.Name)
			}
			if v < 0 {
				return failT("%s.%s: the amount %s is %d; amounts run from 0 to %d", "数量 %[3]s が %[4]d です。数量は 0 から %[5]d までです", t.Name, c.Op, p.Name, v, book.MaxAmount)
			}
		} else if v, ok := c.Strings[p.Name]; !ok {
			return failT("%s.%s: the value of %s is missing", "%[3]s の値がありません", t.Name, c.Op, p.Name)
		} else if err := checkText(c, p.Name, v); err != nil {
			return err
		}
	}
	for name := range c.Strings {
		if p := t.Param(name); p == nil || p.IsAmount() {
			return failT("%s.%s: %s is not a string parameter", "%[3]s は文字列の引数ではありません", t.Name, c.Op, name)
		}
	}
	if err := checkSize(c, t.Params); err != nil {
		return err
	}
	for name := range c.Amounts {
		if p := t.Param(name); p == nil || !p.IsAmount() {
			return failT("%s.%s: %s is not an amount parameter", "%[3]s は数量の引数ではありません", t.Name, c.Op, name)
		}
	}
	return nil
}

// validateKey checks that a post or a void names its hold by exactly the
// key values.
func validateKey(c Call) error {
	t := c.Transfer
	for _, p := range t.Key {
		v, ok := c.Strings[p.Name]
		if !ok {
			return failT("%s.%s: the key value %s is missing", "キーの値 %[3]s がありません", t.Name, c.Op, p.Name)
		}
		if err := checkText(c, p.Name, v); err != nil {
			return err
		}
	}
	for name := range c.Strings {
		if !slices.ContainsFunc(t.Key, func(p *book.Param) bool { return p.Name == name }) {
			return failT("%s.%s takes the key parameters only; %s is not one", "%[2]s に渡せるのはキーの引数だけです。%[3]s はキーにありません", t.Name, c.Op, name)
		}
	}
	return checkSize(c, t.Key)
}

// checkSize fails a call whose text values, those of params, take more
// than every backend stores (book.MaxTexts). The tenant, which the
// interpreter does not see, is held to book.MaxTenant where a scenario
// names it and by every client.
func checkSize(c Call, params []*book.Param) error {
	var vals []string
	for _, p := range params {
		if !p.IsAmount() {
			vals = append(vals, c.Strings[p.Name])
		}
	}
	if n := book.TextsSize(vals...); n > book.MaxTexts {
		return failT("%s.%s: the text values of the call take %d bytes; they take at most %d together, each counted with %d bytes more than its UTF-8",
			"呼び出しの文字列の値が合わせて %[3]d バイトあります。値は合わせて %[4]d バイトまでです(値ごとに、UTF-8 のバイト数に %[5]d バイトを足して数えます)",
			c.Transfer.Name, c.Op, n, book.MaxTexts, book.TextOverhead)
	}
	return nil
}

// checkText fails for a string value that is not valid UTF-8 or holds a
// NUL (U+0000). PostgreSQL's text cannot store either, and the Go client
// refuses to send them (chobo.CheckText); the interpreter, which could
// keep them, fails the same way so that every backend answers alike. A
// NUL would also blur the interpreter's own keys, which join values with
// NUL.
func checkText(c Call, name, v string) error {
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRuneInString(v[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return failT("%s.%s: the value of %s is not valid UTF-8 (byte %d is 0x%02x); strings are UTF-8 text without NUL", "%[3]s の値が UTF-8 として正しくありません(%[4]d バイト目が 0x%02[5]x)。文字列は NUL を含まない UTF-8 です", c.Transfer.Name, c.Op, name, i, v[i])
		case r == 0:
			return failT("%s.%s: the value of %s holds a NUL character (U+0000) at byte %d; strings are UTF-8 text without NUL", "%[3]s の値の %[4]d バイト目に NUL 文字(U+0000)があります。文字列は NUL を含まない UTF-8 です", c.Transfer.Name, c.Op, name, i)
		}
		i += n
	}
	return nil
}

// validatePostAmounts checks a partial post: it gives every amount its
// moves use, or it would be unclear what the missing ones post.
func validatePostAmounts(c Call) error {
	t := c.Transfer
	var need []string
	for _, p := range t.PostAmounts() {
		need = append(need, p.Name)
	}
	for name, v := range c.Amounts {
		if !slices.Contains(need, name) {
			return failT("%s.post: %s is not an amount its moves use", "%[2]s は移動が使う数量ではありません", t.Name, name)
		}
		if v < 0 {
			return failT("%s.post: the amount %s is %d; amounts run from 0 to %d", "数量 %[2]s が %[3]d です。数量は 0 から %[4]d までです", t.Name, name, v, book.MaxAmount)
		}
	}
	if len(c.Amounts) != len(need) {
		return failT("%s.post: give every amount (%s) or none", "数量は全部(%[3]s)を渡すか、一つも渡さないでください", t.Name, strings.Join(need, ", "), strings.Join(need, "、"))
	}
	return nil
}

func keyValues(c Call) []string {
	var out []string
	for _, p := range c.Transfer.Key {
		out = append(out, c.Strings[p.Name])
	}
	return out
}

// keyID is the namespace of keys: transfer kind, operation, key values.
func keyID(t *book.Transfer, op book.Op, vals []string) string {
	return t.Name + "\x00" + string(op) + "\x00" + strings.Join(vals, "\x00")
}

func holdID(t *book.Transfer, vals []string) string { return keyID(t, book.Hold, vals) }

func ref(r book.AccountRef, c Call) Account {
	a := Account{Kind: r.Account}
	for _, p := range r.Args {
		a.Args = append(a.Args, c.Strings[p.Name])
	}
	return a
}

func amountOf(m *book.Move, c Call) int64 {
	if m.Amount.Param != nil {
		return c.Amounts[m.Amount.Param.Name]
	}
	return m.Amount.Literal
}

// content is what a key is compared on for do and hold: every argument.
func content(c Call) string {
	var b []byte
	for _, p := range c.Transfer.Params {
		if p.IsAmount() {
			b = strconv.AppendInt(b, c.Amounts[p.Name], 10)
		} else {
			b = append(b, c.Strings[p.Name]...)
		}
		b = append(b, 0)
	}
	return string(b)
}

func amountsContent(amts []int64) string {
	var b strings.Builder
	for _, a := range amts {
		fmt.Fprintf(&b, "%d\x00", a)
	}
	return b.String()
}

// move performs do and hold: same account, then the key, then the bounds
// move by move, all or nothing.
func (s *State) move(c Call) (Result, error) {
	t := c.Transfer
	from, to, amts := sides(c)
	fromID, toID := ids(from), ids(to)
	for i := range from {
		if fromID[i] == toID[i] {
			return Result{Outcome: Refused, Reason: book.SameAccount}, nil
		}
	}
	vals := keyValues(c)
	kid := keyID(t, c.Op, vals)
	body := content(c)
	if r, used := s.keyUsed(kid, body); used {
		return r, nil
	}
	next, refusal, err := s.tryMoves(c, from, to, fromID, toID, amts)
	if err != nil {
		return Result{}, err
	}
	s.touchAll(from, to, fromID, toID)
	if refusal != nil {
		s.keys[kid] = keyRecord{content: body, boundRefusal: true}
		return *refusal, nil
	}
	for _, sb := range next {
		*s.balances[sb.id] = sb.b
	}
	s.keys[kid] = keyRecord{content: body}
	s.record(c, EntryOp(c.Op), vals, moveChanges(from, to, amts, c.Op == book.Hold))
	if c.Op == book.Hold {
		h := &Hold{Transfer: t, Key: vals, Amounts: amts, From: from, To: to, State: Held, Created: s.Now}
		if t.Pending.Expires {
			h.Deadline = s.Now + t.Pending.Seconds
		}
		s.holds[holdID(t, vals)] = h
	}
	return Result{Outcome: Done}, nil
}

// sides names the two accounts and the amount of every move of c.
func sides(c Call) (from, to []Account, amts []int64) {
	n := len(c.Transfer.Moves)
	from, to, amts = make([]Account, n), make([]Account, n), make([]int64, n)
	for i, m := range c.Transfer.Moves {
		from[i], to[i], amts[i] = ref(m.From, c), ref(m.To, c), amountOf(m, c)
	}
	return from, to, amts
}

// ids gives the id of each account. A transfer names the same few
// accounts over and over, so the ids of accounts without arguments, the
// most common, are built once per kind.
func ids(accs []Account) []string {
	out := make([]string, len(accs))
	var plain map[*book.Account]string
	for i, a := range accs {
		if len(a.Args) > 0 {
			out[i] = a.id()
			continue
		}
		id, ok := plain[a.Kind]
		if !ok {
			if plain == nil {
				plain = map[*book.Account]string{}
			}
			id = a.id()
			plain[a.Kind] = id
		}
		out[i] = id
	}
	return out
}

// keyUsed says what a call answers when its key was used before, and
// false when the key is new.
func (s *State) keyUsed(kid, body string) (Result, bool) {
	rec, ok := s.keys[kid]
	switch {
	case !ok:
		return Result{}, false
	case rec.boundRefusal:
		return Result{Outcome: Refused, Reason: book.AlreadyRefused}, true
	case rec.content == body:
		return Result{Outcome: DoneBefore}, true
	}
	return Result{Outcome: Refused, Reason: book.KeyConflict}, true
}

// tryMoves works out the balances after every move, on copies, so that a
// refusal or a failure part way leaves the ledger as it was. It returns
// the new balances, or the refusal of the first bound crossed, or the
// failure of a balance leaving 64 bits.
func (s *State) tryMoves(c Call, from, to []Account, fromID, toID []string, amts []int64) ([]scratchBalance, *Result, error) {
	// The copies are few (a transfer names a few accounts), so they are
	// kept in a slice and found by looking through it; past a handful, a
	// map finds them instead.
	scratch := make([]scratchBalance, 0, 4)
	var index map[string]int
	// at returns where id's copy is, making it first; a pointer into
	// scratch is taken only once both sides of a move have theirs, since
	// making one may move the slice.
	at := func(id string) int {
		if index != nil {
			if i, ok := index[id]; ok {
				return i
			}
		} else {
			for i := range scratch {
				if scratch[i].id == id {
					return i
				}
			}
		}
		var b Balance
		if was := s.balances[id]; was != nil {
			b = *was
		}
		scratch = append(scratch, scratchBalance{id, b})
		if index == nil && len(scratch) > 8 {
			index = map[string]int{}
			for i := range scratch {
				index[scratch[i].id] = i
			}
		} else if index != nil {
			index[id] = len(scratch) - 1
		}
		return len(scratch) - 1
	}
	hold := c.Op == book.Hold
	for i, m := range c.Transfer.Moves {
		fi, ti := at(fromID[i]), at(toID[i])
		fb, tb := &scratch[fi].b, &scratch[ti].b
		a := amts[i]
		if lo := m.From.Account.Lower; lo != nil && !fromKeepsLower(fb, a, lo.Value) {
			return nil, &Result{Outcome: Refused, Reason: lo.Reason,
				Detail: &BoundDetail{Move: m.Index, Account: from[i], Amount: a, Lower: true, Balance: *fb}}, nil
		}
		if up := m.To.Account.Upper; up != nil && !toKeepsUpper(tb, a, up.Value) {
			return nil, &Result{Outcome: Refused, Reason: up.Reason,
				Detail: &BoundDetail{Move: m.Index, Account: to[i], Amount: a, Balance: *tb}}, nil
		}
		var ok1, ok2 bool
		if hold {
			fb.HeldOut, ok1 = add(fb.HeldOut, a)
			tb.HeldIn, ok2 = add(tb.HeldIn, a)
		} else {
			fb.Posted, ok1 = add(fb.Posted, -a)
			tb.Posted, ok2 = add(tb.Posted, a)
		}
		if !ok1 || !ok2 {
			return nil, nil, failT("move %d would take a balance out of 64 bits", "%dつ目の移動で残高が 64 ビットの範囲を超えます", m.Index)
		}
	}
	return scratch, nil, nil
}

// scratchBalance is a balance as a call would leave it, by account id.
type scratchBalance struct {
	id string
	b  Balance
}

// touchAll records the accounts a call reached the bounds with, so that
// they are listed even when the call is refused (a database creates their
// rows before it locks and checks them).
func (s *State) touchAll(from, to []Account, fromID, toID []string) {
	for i := range from {
		s.touchID(from[i], fromID[i])
		s.touchID(to[i], toID[i])
	}
}

// fromKeepsLower checks posted - held_out - a >= lower without overflow:
// held in does not count, it may never arrive.
func fromKeepsLower(b *Balance, a, lower int64) bool {
	if v, ok := add(b.Posted, -b.HeldOut); ok && b.HeldOut != math.MinInt64 {
		if w, ok := add(v, -a); ok && a != math.MinInt64 {
			return w >= lower
		}
	}
	v := new(big.Int).SetInt64(b.Posted)
	v.Sub(v, big.NewInt(b.HeldOut))
	v.Sub(v, big.NewInt(a))
	return v.Cmp(big.NewInt(lower)) >= 0
}

// toKeepsUpper checks posted + held_in + a <= upper without overflow:
// held out does not count, it may come back.
func toKeepsUpper(b *Balance, a, upper int64) bool {
	if v, ok := add(b.Posted, b.HeldIn); ok {
		if w, ok := add(v, a); ok {
			return w <= upper
		}
	}
	v := new(big.Int).SetInt64(b.Posted)
	v.Add(v, big.NewInt(b.HeldIn))
	v.Add(v, big.NewInt(a))
	return v.Cmp(big.NewInt(upper)) <= 0
}

func add(x, y int64) (int64, bool) {
	r := x + y
	if (y > 0 && r < x) || (y < 0 && r > x) {
		return 0, false
	}
	return r, true
}

func (s *State) findHold(c Call) *Hold { return s.holds[holdID(c.Transfer, keyValues(c))] }

// FindHold returns the hold a post or void call names, nil when there is
// none: what a client that reads the hold first would find.
func (s *State) FindHold(c Call) *Hold { return s.findHold(c) }

func (s *State) deadlinePassed(h *Hold) bool { return h.expires() && s.Now >= h.Deadline }

func (s *State) post(c Call) (Result, error) {
	h := s.findHold(c)
	if h == nil {
		return Result{Outcome: Refused, Reason: book.NoSuchHold}, nil
	}
	amts := slices.Clone(h.Amounts)
	if c.Amounts != nil {
		for i, m := range c.Transfer.Moves {
			if m.Amount.Param != nil {
				amts[i] = c.Amounts[m.Amount.Param.Name]
			}
		}
	}
	kid := keyID(c.Transfer, book.Post, h.Key)
	switch h.State {
	case Voided:
		return Result{Outcome: Refused, Reason: book.AlreadyVoided}, nil
	case HoldExpired:
		return Result{Outcome: Refused, Reason: book.Expired}, nil
	case Posted:
		if s.keys[kid].content == amountsContent(amts) {
			return Result{Outcome: DoneBefore}, nil
		}
		return Result{Outcome: Refused, Reason: book.KeyConflict}, nil
	}
	if s.deadlinePassed(h) {
		return Result{Outcome: Refused, Reason: book.Expired}, nil
	}
	for i := range amts {
		if amts[i] > h.Amounts[i] {
			return Result{Outcome: Refused, Reason: book.OverHold}, nil
		}
	}
	next, ok := s.postedAfter(h, amts)
	if !ok {
		return Result{}, failT("posting would take a balance out of 64 bits", "確定すると残高が 64 ビットの範囲を超えます")
	}
	s.release(h)
	for b, v := range next {
		b.Posted = v
	}
	h.State = Posted
	s.keys[kid] = keyRecord{content: amountsContent(amts)}
	s.record(c, EntryOp(book.Post), h.Key, holdChanges(h, amts))
	return Result{Outcome: Done}, nil
}

// postedAfter works out every posted amount a post of amts leaves,
// before anything changes, so that a balance leaving 64 bits fails the
// call as a whole; false when one would.
func (s *State) postedAfter(h *Hold, amts []int64) (map[*Balance]int64, bool) {
	next := map[*Balance]int64{}
	for i, a := range amts {
		fb, tb := s.touch(h.From[i]), s.touch(h.To[i])
		for _, d := range []struct {
			b     *Balance
			delta int64
		}{{fb, -a}, {tb, a}} {
			cur, ok := next[d.b]
			if !ok {
				cur = d.b.Posted
			}
			v, ok := add(cur, d.delta)
			if !ok {
				return nil, false
			}
			next[d.b] = v
		}
	}
	return next, true
}

func (s *State) void(c Call) (Result, error) {
	h := s.findHold(c)
	if h == nil {
		return Result{Outcome: Refused, Reason: book.NoSuchHold}, nil
	}
	switch h.State {
	case Posted:
		return Result{Outcome: Refused, Reason: book.AlreadyPosted}, nil
	case Voided:
		return Result{Outcome: DoneBefore}, nil
	case HoldExpired:
		return Result{Outcome: Refused, Reason: book.Expired}, nil
	}
	if s.deadlinePassed(h) {
		return Result{Outcome: Refused, Reason: book.Expired}, nil
	}
	s.release(h)
	h.State = Voided
	s.record(c, EntryOp(book.Void), h.Key, holdChanges(h, nil))
	return Result{Outcome: Done}, nil
}
