package chobotb

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// AccountFilter is TigerBeetle's filter of get_account_transfers: the
// transfers that name AccountID on the sides asked for (Debits, Credits;
// neither is nothing), with timestamps from TimestampMin to TimestampMax
// (both inclusive, 0 for no bound), of Code when not 0, at most Limit of
// them, oldest first or, with Reversed, newest first.
type AccountFilter struct {
	AccountID                 ids.ID
	Code                      uint16
	TimestampMin              uint64
	TimestampMax              uint64
	Limit                     uint32
	Debits, Credits, Reversed bool
}

// HistoryClient is a Client that can also read the transfers of an
// account, which the reads of a ledger's history need and calls do not.
// A client that is only a Client cannot read history (ErrNoHistory).
type HistoryClient interface {
	Client
	GetAccountTransfers(ctx context.Context, f AccountFilter) ([]Transfer, error)
}

// ErrNoHistory is the error of a read through a client that cannot read
// an account's transfers.
var ErrNoHistory = errors.New("chobotb: this client does not read an account's transfers")

// historyPage is how many records one read asks for: what a reply of a
// --development replica holds comfortably, far below its 8,189.
const historyPage = 4096

// Entry is one side of one move of a call that took effect, as a
// statement reads it from TigerBeetle: the shape of the reference
// interpreter's entries, but for the call's key and arguments, which
// TigerBeetle keeps only as hashes. ID names the record (for an expiry,
// the hold's move that expired): a caller who knows a key can tell the
// call by it, being ids.Transfer of the key.
type Entry struct {
	// Timestamp is TigerBeetle's, in nanoseconds since the Unix epoch;
	// an expiry's is the hold's deadline.
	Timestamp uint64
	ID        ids.ID
	Kind      int    // the transfer kind, an index in Def.Transfers
	Op        string // do, hold, post, void or expire
	Move      int    // from 1, as the book writes the moves
	Out       bool   // the side the move leaves
	// Posted, HeldOut and HeldIn are the changes; After the balance
	// they left.
	Posted, HeldOut, HeldIn int64
	After                   chobo.Balance
}

// Statement reads every entry of one account of the kind, named by its
// arguments, oldest first: a record for each move of a do or hold that
// names it, and for each post or void of such a hold, less the records
// that keep a lower bound (those that name the tenant's sink); and an
// expiry for each hold move no post or void ended whose deadline is at
// now or before (TigerBeetle writes nothing when a hold times out). now
// is TigerBeetle's time as the caller knows it, in nanoseconds; 0 leaves
// expiries out. Balances are summed from the account's first record, so
// the account needs no history flag.
func (b *Book) Statement(ctx context.Context, now uint64, account int, args ...string) ([]Entry, error) {
	hc, ok := b.c.(HistoryClient)
	if !ok {
		return nil, ErrNoHistory
	}
	if account < 0 || account >= len(b.def.Accounts) {
		return nil, fmt.Errorf("chobotb: the book %s has no account kind %d", b.def.Book, account)
	}
	if err := chobo.CheckSize(b.tenant, args...); err != nil {
		return nil, err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	d := b.def
	id := ids.Account(d.Book, b.tenant, d.Accounts[account].Name, args...)
	sink := b.tids.sink(d.Accounts[account].Unit)
	var records []Transfer
	for min := uint64(0); ; {
		page, err := hc.GetAccountTransfers(ctx, AccountFilter{AccountID: id, TimestampMin: min,
			Limit: historyPage, Debits: true, Credits: true})
		if err != nil {
			return nil, err
		}
		records = append(records, page...)
		if len(page) < historyPage {
			break
		}
		min = page[len(page)-1].Timestamp + 1
	}
	// The kinds of the accounts on the other side, for the move a record
	// is of: one lookup of them all.
	var others []ids.ID
	seen := map[ids.ID]bool{}
	for _, r := range records {
		o := r.DebitAccountID
		if o == id {
			o = r.CreditAccountID
		}
		if o != sink && !seen[o] {
			seen[o] = true
			others = append(others, o)
		}
	}
	kindOf := map[ids.ID]int{}
	if len(others) > 0 {
		found, err := b.c.LookupAccounts(ctx, others)
		if err != nil {
			return nil, err
		}
		f := d.ids()
		for _, a := range found {
			for k, c := range f.accountCodes {
				if c == a.Code {
					kindOf[a.ID] = k
				}
			}
		}
	}
	return decodeStatement(d, id, account, sink, records, kindOf, now)
}

// decodeStatement turns the records of one account, oldest first, into
// its entries.
func decodeStatement(d *Def, id ids.ID, account int, sink ids.ID, records []Transfer, kindOf map[ids.ID]int, now uint64) ([]Entry, error) {
	f := d.ids()
	kindByCode := map[uint16]int{}
	for k, c := range f.transferCodes {
		kindByCode[c] = k
	}
	type held struct {
		entry Entry // the hold's entry
		rec   Transfer
		ended bool
	}
	holds := map[ids.ID]*held{}
	var holdOrder []ids.ID
	// nth counts, per call (its content hash) and candidate moves, the
	// records met so far: moves of one call that the record alone cannot
	// tell apart are taken in the order of the chain.
	nth := map[string]int{}
	var out []Entry
	for _, r := range records {
		if r.DebitAccountID == sink || r.CreditAccountID == sink {
			continue // a lower bound's probe and its void: machinery
		}
		e := Entry{Timestamp: r.Timestamp, ID: r.ID, Out: r.DebitAccountID == id}
		amount, err := fit(r.Amount)
		if err != nil {
			return nil, err
		}
		switch {
		case r.Flags&(TransferPostPending|TransferVoidPending) != 0:
			h := holds[r.PendingID]
			if h == nil {
				return nil, fmt.Errorf("chobotb: record %s ends a hold %s the account does not show", r.ID.Hex(), r.PendingID.Hex())
			}
			h.ended = true
			e.Kind, e.Move = h.entry.Kind, h.entry.Move
			heldAmount, err := fit(h.rec.Amount)
			if err != nil {
				return nil, err
			}
			e.Op = "void"
			if r.Flags&TransferPostPending != 0 {
				e.Op = "post"
				e.Posted = amount
			}
			if e.Out {
				e.Posted, e.HeldOut = -e.Posted, -heldAmount
			} else {
				e.HeldIn = -heldAmount
			}
		default:
			k, ok := kindByCode[r.Code]
			if !ok {
				return nil, fmt.Errorf("chobotb: record %s has code %d, of no transfer kind of the book", r.ID.Hex(), r.Code)
			}
			e.Kind = k
			other := r.CreditAccountID
			if !e.Out {
				other = r.DebitAccountID
			}
			otherKind, known := kindOf[other]
			if !known {
				return nil, fmt.Errorf("chobotb: record %s names an account of no kind of the book", r.ID.Hex())
			}
			var cands []int
			for i, m := range d.Transfers[k].Moves {
				from, to := m.From.Account, m.To.Account
				if (e.Out && from == account && to == otherKind) || (!e.Out && to == account && from == otherKind) {
					cands = append(cands, i+1)
				}
			}
			if len(cands) == 0 {
				return nil, fmt.Errorf("chobotb: record %s is of no move of %s", r.ID.Hex(), d.Transfers[k].Name)
			}
			group := fmt.Sprint(r.UserData128.Hex(), cands, e.Out)
			n := nth[group]
			nth[group]++
			e.Move = cands[n%len(cands)]
			if r.Flags&TransferPending != 0 {
				e.Op = "hold"
				if e.Out {
					e.HeldOut = amount
				} else {
					e.HeldIn = amount
				}
				holds[r.ID] = &held{entry: e, rec: r}
				holdOrder = append(holdOrder, r.ID)
			} else {
				e.Op = "do"
				e.Posted = amount
				if e.Out {
					e.Posted = -amount
				}
			}
		}
		out = append(out, e)
	}
	// Expiries: a hold move no record ended, past its deadline. The
	// exact deadline counts as expired, as TigerBeetle counts it.
	if now > 0 {
		for _, hid := range holdOrder {
			h := holds[hid]
			if h.ended || h.rec.Timeout == 0 {
				continue
			}
			deadline := h.rec.Timestamp + uint64(h.rec.Timeout)*1e9
			if deadline > now {
				continue
			}
			e := h.entry
			e.Timestamp, e.Op = deadline, "expire"
			e.HeldOut, e.HeldIn = -e.HeldOut, -e.HeldIn
			out = append(out, e)
		}
		// An expiry comes before a record of its deadline's timestamp,
		// which TigerBeetle would already find expired; expiries of one
		// deadline keep the order of their holds.
		sort.SliceStable(out, func(i, j int) bool {
			a, b := out[i], out[j]
			if a.Timestamp != b.Timestamp {
				return a.Timestamp < b.Timestamp
			}
			return a.Op == "expire" && b.Op != "expire"
		})
	}
	var bal chobo.Balance
	for i := range out {
		bal.Posted += out[i].Posted
		bal.HeldOut += out[i].HeldOut
		bal.HeldIn += out[i].HeldIn
		out[i].After = bal
	}
	return out, nil
}

// fit reads an amount of a record that must fit 63 bits, as chobo's
// amounts do.
func fit(v U128) (int64, error) {
	if v.Hi != 0 || v.Lo >= 1<<63 {
		return 0, fmt.Errorf("chobotb: an amount of %s is outside 64 bits", v)
	}
	return int64(v.Lo), nil
}
