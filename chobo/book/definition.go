package book

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Definition hashes what a transfer kind does: its parameters, key, hold
// and moves with the units of the accounts they touch. Backends keep it
// with every key they record, so that a call retried after the book
// changed answers key_conflict rather than mixing the old transfer with
// the new one. The bounds of the accounts are left out: they belong to
// the accounts, and a bound changed under existing accounts must leave
// their retries and holds answered. The hash is 16 hex digits of SHA-256
// over a JSON description with a fixed shape, the bounds written null; a
// transfer through accounts without bounds hashes as it always did.
func (t *Transfer) Definition() string { return t.hash(false) }

// LegacyDefinition is the hash earlier versions of chobo recorded as the
// definition: the same description with the bounds (value and reason) of
// the accounts a transfer moves through. Backends accept it beside
// Definition, so that keys and holds recorded by those versions keep their
// answers; it must stay byte for byte what they computed.
func (t *Transfer) LegacyDefinition() string { return t.hash(true) }

// hash is Definition, or LegacyDefinition with bounds.
func (t *Transfer) hash(bounds bool) string {
	d := definition{Transfer: t.Name}
	for _, p := range t.Params {
		ty := "string"
		if p.Unit != nil {
			ty = p.Unit.Name
		}
		d.Params = append(d.Params, defParam{p.Name, ty})
	}
	for _, p := range t.Key {
		d.Key = append(d.Key, p.Name)
	}
	if t.Pending != nil {
		s := int64(-1)
		if t.Pending.Expires {
			s = t.Pending.Seconds
		}
		d.Pending = &s
	}
	for _, m := range t.Moves {
		mv := defMove{Literal: m.Amount.Literal, From: defSideOf(m.From, bounds), To: defSideOf(m.To, bounds)}
		if m.Amount.Param != nil {
			mv.Amount = m.Amount.Param.Name
		}
		d.Moves = append(d.Moves, mv)
	}
	js, err := json.Marshal(d)
	if err != nil {
		panic(err) // the shape below always marshals
	}
	sum := sha256.Sum256(js)
	return hex.EncodeToString(sum[:8])
}

// The shape Definition and LegacyDefinition hash. Every backend has
// recorded hashes of it with its keys and holds, and ledgers made by
// earlier versions hold LegacyDefinition's: a field renamed, reordered or
// dropped here turns every retry of an old call into key_conflict and
// leaves its holds unended. Lower and Upper stay in the shape, null in
// Definition, so that both hashes come from one description.
type (
	definition struct {
		Transfer string     `json:"transfer"`
		Params   []defParam `json:"params"`
		Key      []string   `json:"key"`
		Pending  *int64     `json:"pending"` // nil: posts at once; -1: never expires
		Moves    []defMove  `json:"moves"`
	}
	defParam struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	defMove struct {
		Amount  string  `json:"amount"`
		Literal int64   `json:"literal"`
		From    defSide `json:"from"`
		To      defSide `json:"to"`
	}
	defSide struct {
		Account string    `json:"account"`
		Args    []string  `json:"args"`
		Unit    string    `json:"unit"`
		Scale   int       `json:"scale"`
		Outside bool      `json:"outside"`
		Lower   *defBound `json:"lower"`
		Upper   *defBound `json:"upper"`
	}
	defBound struct {
		Value  int64  `json:"value"`
		Reason string `json:"reason"`
	}
)

// defSideOf describes one side of a move with what its account kind
// brings; its bounds only for LegacyDefinition.
func defSideOf(r AccountRef, bounds bool) defSide {
	a := r.Account
	s := defSide{Account: a.Name, Args: []string{}, Unit: a.Unit.Name, Scale: a.Unit.Scale, Outside: a.Outside}
	for _, p := range r.Args {
		s.Args = append(s.Args, p.Name)
	}
	if !bounds {
		return s
	}
	if a.Lower != nil {
		s.Lower = &defBound{a.Lower.Value, a.Lower.Reason}
	}
	if a.Upper != nil {
		s.Upper = &defBound{a.Upper.Value, a.Upper.Reason}
	}
	return s
}
