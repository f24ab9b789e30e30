// Package scenario reads scenarios (sequences of calls, passing time and
// concurrent callers), runs them on the reference interpreter and writes
// the outcomes as text. The scenario format is read and written here; the
// JSON of a run is in chobo/api. Both are documented in docs/formats.md.
package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// MaxTogether is the most operations one `together` may hold: beyond it
// the orders to enumerate grow too many (8 ops in 8 callers is 40,320).
const MaxTogether = 8

// Scenario is a named list of steps.
type Scenario struct {
	Name   string
	Tenant string
	// TitleJa is the Japanese title of the scenario (`chobo scenarios`
	// writes one); the English title is the name.
	TitleJa string
	Steps   []Step
	// Outcomes, when above zero, is how many outcomes the scenario must
	// have: a check, like Step.Expect.
	Outcomes int
}

// Step is exactly one of: a call, time passing, or concurrent callers.
type Step struct {
	Call     *Call
	Pass     int64 // seconds; meaningful when PassText != ""
	PassText string
	Together [][]*Call
	// Expect, for a call, is the answer it must get: "done",
	// "done_before" or "refused: REASON". Empty: not checked.
	Expect string
}

// Call is an operation as read from a scenario. Bad, when set, is why the
// call cannot be made (an amount outside 64 bits): running it fails and
// changes nothing, as the generated clients do.
type Call struct {
	interp.Call
	Bad string
	// Raw keeps amounts as written when they do not fit, for display.
	Raw map[string]string
}

// String writes the call as the scenario gave it.
func (c *Call) String() string {
	if len(c.Raw) == 0 {
		return c.Call.String()
	}
	shown := c.Call
	shown.Amounts = map[string]int64{}
	for k, v := range c.Amounts {
		shown.Amounts[k] = v
	}
	s := shown.String()
	// Amounts that did not fit were read as 0: show them as written.
	for name, raw := range c.Raw {
		s = strings.Replace(s, name+": 0", name+": "+raw, 1)
	}
	return s
}

// Read parses a scenario file: one scenario object, or an array of them.
func Read(b *book.Book, data []byte) ([]Scenario, error) {
	data = bytes.TrimSpace(data)
	var raws []json.RawMessage
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, fmt.Errorf("not a JSON array of scenarios: %v", err)
		}
	} else {
		raws = []json.RawMessage{data}
	}
	var out []Scenario
	for i, raw := range raws {
		sc, err := readScenario(b, raw)
		if err != nil {
			return nil, fmt.Errorf("scenario %d: %v", i+1, err)
		}
		out = append(out, sc)
	}
	return out, nil
}

func strictUnmarshal(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	d.UseNumber()
	return d.Decode(v)
}

func readScenario(b *book.Book, raw []byte) (Scenario, error) {
	var s struct {
		Name     *string           `json:"name"`
		TitleJa  string            `json:"title_ja"`
		Tenant   string            `json:"tenant"`
		Outcomes int               `json:"outcomes"`
		Steps    []json.RawMessage `json:"steps"`
	}
	if err := strictUnmarshal(raw, &s); err != nil {
		return Scenario{}, err
	}
	if s.Name == nil {
		return Scenario{}, fmt.Errorf(`"name" is missing`)
	}
	if s.Outcomes < 0 {
		return Scenario{}, fmt.Errorf(`"outcomes" is a count, not %d`, s.Outcomes)
	}
	sc := Scenario{Name: *s.Name, TitleJa: s.TitleJa, Tenant: s.Tenant, Outcomes: s.Outcomes}
	if s.Steps == nil {
		return sc, fmt.Errorf("%q: \"steps\" is missing", sc.Name)
	}
	for i, rs := range s.Steps {
		st, err := readStep(b, rs)
		if err != nil {
			return sc, fmt.Errorf("%q: step %d: %v", sc.Name, i+1, err)
		}
		sc.Steps = append(sc.Steps, st)
	}
	return sc, nil
}

type rawCall struct {
	Op      string                     `json:"op"`
	Args    map[string]json.RawMessage `json:"args"`
	Amounts map[string]json.RawMessage `json:"amounts"`
}

func readStep(b *book.Book, raw []byte) (Step, error) {
	var s struct {
		rawCall
		Expect   string              `json:"expect"`
		Pass     *string             `json:"pass"`
		Together [][]json.RawMessage `json:"together"`
	}
	if err := strictUnmarshal(raw, &s); err != nil {
		return Step{}, err
	}
	kinds := 0
	if s.Op != "" {
		kinds++
	}
	if s.Pass != nil {
		kinds++
	}
	if s.Together != nil {
		kinds++
	}
	if kinds != 1 {
		return Step{}, fmt.Errorf(`a step has exactly one of "op", "pass" or "together"`)
	}
	switch {
	case s.Pass != nil:
		secs, err := ParseDuration(*s.Pass)
		if err != nil {
			return Step{}, err
		}
		return Step{Pass: secs, PassText: *s.Pass}, nil
	case s.Together != nil:
		return readTogether(b, s.Together)
	}
	c, err := readCall(b, s.rawCall)
	if err != nil {
		return Step{}, err
	}
	if s.Expect != "" && !validExpect(s.Expect) {
		return Step{}, fmt.Errorf(`expect %q: write "done", "done_before", "failed" or "refused: REASON"`, s.Expect)
	}
	return Step{Call: c, Expect: s.Expect}, nil
}

// readTogether reads the callers of a `together` step, each a list of
// calls made in order.
func readTogether(b *book.Book, callers [][]json.RawMessage) (Step, error) {
	var st Step
	n := 0
	for ci, caller := range callers {
		var calls []*Call
		for oi, rc := range caller {
			var r rawCall
			err := strictUnmarshal(rc, &r)
			var c *Call
			if err == nil {
				c, err = readCall(b, r)
			}
			if err != nil {
				return Step{}, fmt.Errorf("together, caller %d, op %d: %v", ci+1, oi+1, err)
			}
			calls = append(calls, c)
			n++
		}
		st.Together = append(st.Together, calls)
	}
	if n == 0 {
		return Step{}, fmt.Errorf("together holds no operation")
	}
	if n > MaxTogether {
		return Step{}, fmt.Errorf("together holds %d operations; at most %d are allowed, or the orders to explore grow too many", n, MaxTogether)
	}
	return st, nil
}

func validExpect(e string) bool {
	switch e {
	case "done", "done_before", "failed":
		return true
	}
	reason, ok := strings.CutPrefix(e, "refused: ")
	return ok && reason != ""
}

// ParseDuration reads "31 minutes", "1 day", "90 seconds".
func ParseDuration(s string) (int64, error) {
	if f := strings.Fields(s); len(f) == 2 {
		per, ok := syntax.TimeUnitSeconds(f[1])
		n, err := parseInt(f[0])
		// The cap keeps the clock, which adds passes up, inside 64 bits.
		if ok && err == nil && n >= 0 && n <= (1<<62)/per {
			return n * per, nil
		}
	}
	return 0, fmt.Errorf("pass %q: write a whole number and %s", s, syntax.TimeWordChoice().En)
}

func parseInt(s string) (int64, error) {
	var n int64
	_, err := fmt.Sscan(s, &n)
	if err != nil || fmt.Sprint(n) != s {
		return 0, fmt.Errorf("not a whole number: %q", s)
	}
	return n, nil
}

func readCall(b *book.Book, r rawCall) (*Call, error) {
	name, op, ok := strings.Cut(r.Op, ".")
	if !ok {
		return nil, fmt.Errorf("op %q: write TRANSFER.OPERATION, such as reserve.hold", r.Op)
	}
	t := b.Transfer(name)
	if t == nil {
		return nil, fmt.Errorf("op %q: the book has no transfer %q", r.Op, name)
	}
	c := &Call{Call: interp.Call{Transfer: t, Op: book.Op(op), Strings: map[string]string{}}}
	if !slices.Contains(t.Ops(), c.Op) {
		return nil, fmt.Errorf("op %q: %s has the operations %v", r.Op, t.Name, t.Ops())
	}
	if err := c.readArgs(r); err != nil {
		return nil, err
	}
	if r.Amounts != nil {
		if err := c.readPostAmounts(r); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// readArgs reads "args": every string, and the amounts of a do or a hold.
func (c *Call) readArgs(r rawCall) error {
	t := c.Transfer
	amounts := map[string]int64{}
	for name, raw := range r.Args {
		p := t.Param(name)
		if p == nil {
			return fmt.Errorf("op %q: %s has no parameter %q", r.Op, t.Name, name)
		}
		if p.IsAmount() {
			v, err := c.amount(name, raw)
			if err != nil {
				return fmt.Errorf("op %q: %s: %v", r.Op, name, err)
			}
			amounts[name] = v
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("op %q: %s takes a string", r.Op, name)
		}
		c.Strings[name] = s
	}
	if len(amounts) > 0 {
		c.Amounts = amounts
	}
	return nil
}

// readPostAmounts reads the "amounts" of a partial post. They stand apart
// from "args" so that a post's key and what it posts cannot be confused.
func (c *Call) readPostAmounts(r rawCall) error {
	if c.Op != book.Post {
		return fmt.Errorf(`op %q: only post takes "amounts"`, r.Op)
	}
	if len(c.Amounts) > 0 {
		return fmt.Errorf(`op %q: give a post's amounts in "amounts", not in "args"`, r.Op)
	}
	c.Amounts = map[string]int64{}
	for name, raw := range r.Amounts {
		v, err := c.amount(name, raw)
		if err != nil {
			return fmt.Errorf("op %q: amounts: %s: %v", r.Op, name, err)
		}
		c.Amounts[name] = v
	}
	return nil
}

// amount reads the amount named name. One that is a whole number but
// cannot be sent is still read, as 0: the call is marked Bad, so running
// it fails the way a client refuses to send it.
func (c *Call) amount(name string, raw json.RawMessage) (int64, error) {
	v, bad, err := readAmount(raw)
	if err != nil {
		return 0, err
	}
	if bad != "" {
		if c.Bad == "" {
			c.Bad = fmt.Sprintf("%s: %s", name, bad)
		}
		c.raw(name, raw)
	}
	return v, nil
}

func (c *Call) raw(name string, raw json.RawMessage) {
	if c.Raw == nil {
		c.Raw = map[string]string{}
	}
	c.Raw[name] = string(bytes.TrimSpace(raw))
}

// readAmount reads a JSON integer. A whole number outside 0..2^63-1 is
// readable but cannot be sent: it comes back as bad.
func readAmount(raw json.RawMessage) (v int64, bad string, err error) {
	// json.Number also takes a string holding digits; an amount is a
	// number in the JSON itself.
	if t := bytes.TrimSpace(raw); len(t) == 0 || (t[0] != '-' && (t[0] < '0' || t[0] > '9')) {
		return 0, "", fmt.Errorf("an amount is a JSON integer in the unit's smallest step")
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&n); err != nil {
		return 0, "", fmt.Errorf("an amount is a JSON integer in the unit's smallest step")
	}
	i, ok := new(big.Int).SetString(n.String(), 10)
	if !ok {
		return 0, "", fmt.Errorf("an amount is a whole number in the unit's smallest step, not %s", n)
	}
	if i.Sign() < 0 || i.Cmp(big.NewInt(book.MaxAmount)) > 0 {
		return 0, fmt.Sprintf("the amount %s is outside 0 to %d", n, book.MaxAmount), nil
	}
	return i.Int64(), "", nil
}
