// Package tigerbeetle lays a book out for TigerBeetle: the definition the
// chains of runtime/go/chobotb are built from (Def), and what TigerBeetle
// cannot take of a book (E060). The chains themselves are built by the
// runtime, so that `chobo run --show tigerbeetle` and every generated
// client send the same events.
package tigerbeetle

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Def is the book as the chain builder reads it.
func Def(b *book.Book) *chobotb.Def {
	d := &chobotb.Def{Book: b.Name}
	units := map[*book.Unit]int{}
	for i, u := range b.Units {
		units[u] = i
		d.Units = append(d.Units, chobotb.Unit{Name: u.Name, Scale: u.Scale})
	}
	bound := func(x *book.Bound) *chobotb.Bound {
		if x == nil {
			return nil
		}
		return &chobotb.Bound{Value: x.Value, Reason: x.Reason}
	}
	for _, a := range b.Accounts {
		d.Accounts = append(d.Accounts, chobotb.AccountKind{Name: a.Name, Unit: units[a.Unit], Params: len(a.Params),
			Outside: a.Outside, Lower: bound(a.Lower), Upper: bound(a.Upper)})
	}
	for _, t := range b.Transfers {
		k := chobotb.TransferKind{Name: t.Name, Definition: t.Definition(), Legacy: t.LegacyDefinition(), Pending: t.Pending != nil}
		for _, p := range t.Params {
			k.Params = append(k.Params, chobotb.Param{Name: p.Name, Amount: p.IsAmount()})
		}
		for _, p := range t.Key {
			k.Key = append(k.Key, p.Index)
		}
		if t.Pending != nil && t.Pending.Expires {
			k.Timeout = uint32(t.Pending.Seconds)
		}
		side := func(r book.AccountRef) chobotb.Side {
			s := chobotb.Side{Account: r.Account.Index, Args: []int{}}
			for _, p := range r.Args {
				s.Args = append(s.Args, p.Index)
			}
			return s
		}
		for _, m := range t.Moves {
			mv := chobotb.Move{Amount: -1, Literal: m.Amount.Literal, From: side(m.From), To: side(m.To)}
			if m.Amount.Param != nil {
				mv.Amount, mv.Literal = m.Amount.Param.Index, 0
			}
			k.Moves = append(k.Moves, mv)
		}
		for _, p := range t.PostAmounts() {
			k.PostAmounts = append(k.PostAmounts, p.Index)
		}
		d.Transfers = append(d.Transfers, k)
	}
	return d
}

// Check reports every transfer kind whose chain does not fit one request
// of TigerBeetle (E060), with a call that would send it.
func Check(b *book.Book) diag.List {
	var l diag.List
	d := Def(b)
	for i, t := range b.Transfers {
		n := d.ChainLength(i)
		if n <= chobotb.MaxEvents {
			continue
		}
		call := exampleCall(t)
		sends := diag.T(fmt.Sprintf("a chain of %d TigerBeetle transfers", n), fmt.Sprintf("TigerBeetle の transfer %d 件のチェーン", n))
		if d.Guarded(i) {
			sends = diag.T(fmt.Sprintf("%d TigerBeetle transfers, a chain of %d and the key guard after it,", n, n-1),
				fmt.Sprintf("TigerBeetle の transfer %d 件(%d 件のチェーンとそのあとのキーの見張り)", n, n-1))
		}
		l.Add(diag.Diagnostic{Code: "E060", Severity: diag.Error, File: b.File, Line: t.Pos.Line, Col: t.Pos.Col,
			Message: diag.T(
				fmt.Sprintf("`%s` sends %s in one request, and one request takes at most %d (for example %s)", t.Name, sends.En, chobotb.MaxEvents, call),
				fmt.Sprintf("`%s` は一つのリクエストで %sを送りますが、一つのリクエストに入るのは %d 件までです(例: %s)", t.Name, sends.Ja, chobotb.MaxEvents, call)),
			Hint: diag.T(
				fmt.Sprintf("split `%s` into transfer kinds with fewer moves: a move takes 1 to 7 TigerBeetle transfers, depending on the bounds of the accounts it joins", t.Name),
				fmt.Sprintf("`%s` を、移動の少ないいくつかの振替の種類に分けてください。移動一つは、つなぐ勘定の境界に応じて TigerBeetle の transfer 1 件から 7 件になります", t.Name)),
		})
	}
	return l
}

// exampleCall writes one call of t with made-up values: every call of the
// kind sends a chain of the same length.
func exampleCall(t *book.Transfer) string {
	var parts []string
	for _, p := range t.Params {
		v := p.Name + "-1"
		if p.IsAmount() {
			v = "1"
		}
		parts = append(parts, p.Name+": "+v)
	}
	return fmt.Sprintf("%s.%s(%s)", t.Name, t.Ops()[0], strings.Join(parts, ", "))
}
