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
	type bound struct {
		Value  int64  `json:"value"`
		Reason string `json:"reason"`
	}
	type side struct {
		Account string   `json:"account"`
		Args    []string `json:"args"`
		Unit    string   `json:"unit"`
		Scale   int      `json:"scale"`
		Outside bool     `json:"outside"`
		Lower   *bound   `json:"lower"`
		Upper   *bound   `json:"upper"`
	}
	type move struct {
		Amount  string `json:"amount"`
		Literal int64  `json:"literal"`
		From    side   `json:"from"`
		To      side   `json:"to"`
	}
	type param struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	var d struct {
		Transfer string   `json:"transfer"`
		Params   []param  `json:"params"`
		Key      []string `json:"key"`
		Pending  *int64   `json:"pending"` // nil: posts at once; -1: never expires
		Moves    []move   `json:"moves"`
	}
	d.Transfer = t.Name
	for _, p := range t.Params {
		ty := "string"
		if p.Unit != nil {
			ty = p.Unit.Name
		}
		d.Params = append(d.Params, param{p.Name, ty})
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
	mkSide := func(r AccountRef) side {
		a := r.Account
		s := side{Account: a.Name, Args: []string{}, Unit: a.Unit.Name, Scale: a.Unit.Scale, Outside: a.Outside}
		for _, p := range r.Args {
			s.Args = append(s.Args, p.Name)
		}
		if a.Lower != nil {
			s.Lower = &bound{a.Lower.Value, a.Lower.Reason}
		}
		if a.Upper != nil {
			s.Upper = &bound{a.Upper.Value, a.Upper.Reason}
		}
		return s
	}
	for _, m := range t.Moves {
		mv := move{Literal: m.Amount.Literal, From: mkSide(m.From), To: mkSide(m.To)}
		if m.Amount.Param != nil {
			mv.Amount = m.Amount.Param.Name
		}
		d.Moves = append(d.Moves, mv)
	}
	js, err := json.Marshal(d)
	if err != nil {
		panic(err) // the shape above always marshals
	}
	sum := sha256.Sum256(js)
	return hex.EncodeToString(sum[:8])
}
