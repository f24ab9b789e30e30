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
// the second sending writes nothing either. TigerBeetle names one field
// that differs, and not always the content (another amount comes
// first), so any first event that exists with other fields is sent again
// on a kind with a legacy hash: a call that only conflicts gets the same
// key_conflict twice, which `chobo run --show tigerbeetle` prints.

// HasLegacy reports whether the transfer kind has a legacy hash other
// than its definition: a call of it answered key_conflict by an event
// that exists with other fields is sent again (Legacy).
func (d *Def) HasLegacy(kind int) bool {
	if kind < 0 || kind >= len(d.Transfers) {
		return false
	}
	t := &d.Transfers[kind]
	return t.Legacy != "" && t.Legacy != t.Definition
}

// madeByLegacy reports whether the statuses of a chain of the transfer
// kind say its first event exists with other fields, and the kind has a
// legacy hash that could have made it.
func (d *Def) madeByLegacy(kind int, statuses []Status) bool {
	return len(statuses) > 0 && statuses[0].ExistsWithDifferent() && d.HasLegacy(kind)
}

// Legacy is the Def with every kind's legacy hash as its definition:
// what an earlier version of chobo laid out for the same book.
func (d *Def) Legacy() *Def {
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
	chain, err := build(b.def.Legacy())
	if err != nil {
		return chobo.Result{}, err
	}
	st, err := b.sendChain(ctx, chain)
	if err != nil {
		return chobo.Result{}, err
	}
	return Read(chain, st)
}
