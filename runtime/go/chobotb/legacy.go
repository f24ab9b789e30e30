package chobotb

import (
	"context"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// Earlier versions of chobo hashed the bounds of a transfer's accounts
// into its definition (TransferKind.Legacy), and so into the content id
// (user_data_128) of every event they sent and the tag (user_data_64) of
// every hold. A retry of a call one of them made meets its first event
// with another content or tag than this version sends, though the
// definition is the same: it is sent again as that version sent it, and
// answered from that. A chain whose first event exists fails whole, so
// the second sending writes nothing either.

// madeByLegacy reports whether the statuses of a chain of the transfer
// kind say its first event exists with another content or tag, and the
// kind has a legacy hash that could have made it.
func (d *Def) madeByLegacy(kind int, statuses []Status) bool {
	if len(statuses) == 0 || kind < 0 || kind >= len(d.Transfers) {
		return false
	}
	if s := statuses[0]; s != ExistsWithDifferentUserData128 && s != ExistsWithDifferentUserData64 {
		return false
	}
	t := &d.Transfers[kind]
	return t.Legacy != "" && t.Legacy != t.Definition
}

// asLegacy is the Def with every kind's legacy hash as its definition:
// what an earlier version of chobo laid out for the same book.
func (d *Def) asLegacy() *Def {
	d.legacyOnce.Do(func() {
		l := &Def{Book: d.Book, Units: d.Units, Accounts: d.Accounts, Transfers: make([]TransferKind, len(d.Transfers))}
		copy(l.Transfers, d.Transfers)
		for i := range l.Transfers {
			if t := &l.Transfers[i]; t.Legacy != "" {
				t.Definition = t.Legacy
			}
		}
		d.legacy = l
	})
	return d.legacy
}

// sendLegacy sends the chain build lays out under the legacy Def, and
// reads its answer.
func (b *Book) sendLegacy(ctx context.Context, build func(*Def) ([]Event, error)) (chobo.Result, error) {
	chain, err := build(b.def.asLegacy())
	if err != nil {
		return chobo.Result{}, err
	}
	st, err := b.sendChain(ctx, chain)
	if err != nil {
		return chobo.Result{}, err
	}
	return Read(chain, st)
}
