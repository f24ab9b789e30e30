package book

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Definition hashes what a transfer kind does: its parameters, key, hold
// and moves with the units and bounds of the accounts they touch. Backends
// keep it with every key they record, so that a call retried after the
// book changed answers key_conflict rather than mixing the old transfer
// with the new one. The hash is 16 hex digits of SHA-256 over a JSON
// description with a fixed shape.
func (t *Transfer) Definition() string {
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
		mv := defMove{Literal: m.Amount.Literal, From: defSideOf(m.From), To: defSideOf(m.To)}
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

// The shape Definition hashes. Every backend has recorded hashes of it
// with its keys: a field renamed or reordered here turns every retry of
// an old call into key_conflict.
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
// brings: a bound changed on the account changes the transfer too.
func defSideOf(r AccountRef) defSide {
	a := r.Account
	s := defSide{Account: a.Name, Args: []string{}, Unit: a.Unit.Name, Scale: a.Unit.Scale, Outside: a.Outside}
	for _, p := range r.Args {
		s.Args = append(s.Args, p.Name)
	}
	if a.Lower != nil {
		s.Lower = &defBound{a.Lower.Value, a.Lower.Reason}
	}
	if a.Upper != nil {
		s.Upper = &defBound{a.Upper.Value, a.Upper.Reason}
	}
	return s
}
