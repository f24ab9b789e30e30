package tbmodel

import (
	"context"
	"sort"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// maxRecords is the largest limit a replica of 0.17.9 takes in a query:
// a reply of 8,189 transfers. The Go client refuses more as too much
// data, before sending.
const maxRecords = 8189

// GetAccountTransfers implements chobotb.HistoryClient as a replica of
// 0.17.9 answered it: the transfers naming the account on the sides
// asked for (neither side: none), timestamps inclusive at both ends, of
// the code when one is given, oldest first or newest first, at most
// Limit; a post or void as it is kept, with what it took from its hold.
// An expiry leaves no record. The request is not recorded: the record
// of requests is of what a call sends.
func (m *Model) GetAccountTransfers(ctx context.Context, f chobotb.AccountFilter) ([]chobotb.Transfer, error) {
	out, err := m.selectTransfers(ctx, f.Limit, f.TimestampMin, f.TimestampMax, f.Reversed, func(t chobotb.Transfer) bool {
		return ((f.Debits && t.DebitAccountID == f.AccountID) || (f.Credits && t.CreditAccountID == f.AccountID)) &&
			(f.Code == 0 || t.Code == f.Code)
	})
	if err != nil || f.Limit == 0 {
		return nil, err // TigerBeetle answers nothing to a limit of 0
	}
	return out, nil
}

// QueryTransfers implements chobotb.HistoryClient as query_transfers of
// 0.17.9: the transfers whose fields equal every field of the filter
// that is not 0, timestamps inclusive at both ends, oldest first or
// newest first, at most Limit. Not recorded, as GetAccountTransfers.
func (m *Model) QueryTransfers(ctx context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	return m.selectTransfers(ctx, f.Limit, f.TimestampMin, f.TimestampMax, f.Reversed, func(t chobotb.Transfer) bool {
		return (f.UserData128 == ids.ID{} || t.UserData128 == f.UserData128) && (f.UserData64 == 0 || t.UserData64 == f.UserData64) &&
			(f.Ledger == 0 || t.Ledger == f.Ledger) && (f.Code == 0 || t.Code == f.Code)
	})
}

// selectTransfers is what both reads share: the transfers keep takes,
// with timestamps from lo to hi (both inclusive, 0 for no bound), in
// timestamp order or its reverse, at most limit of them; a limit past
// what one reply holds is refused, as by a replica.
func (m *Model) selectTransfers(ctx context.Context, limit uint32, lo, hi uint64, reversed bool,
	keep func(chobotb.Transfer) bool) ([]chobotb.Transfer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit > maxRecords {
		return nil, ErrTooMuchData
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []chobotb.Transfer
	for _, t := range m.transfers {
		if t.Timestamp >= lo && (hi == 0 || t.Timestamp <= hi) && keep(t) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if reversed {
			return out[i].Timestamp > out[j].Timestamp
		}
		return out[i].Timestamp < out[j].Timestamp
	})
	if uint32(len(out)) > limit {
		out = out[:limit]
	}
	return out, nil
}

// QueryAccounts implements chobotb.AccountQuerier as query_accounts of
// 0.17.9: the accounts whose fields equal every field of the filter that
// is not 0, timestamps inclusive at both ends, oldest first, at most
// Limit. Not recorded, as GetAccountTransfers.
func (m *Model) QueryAccounts(ctx context.Context, f chobotb.AccountQuery) ([]chobotb.Account, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.Limit > maxRecords {
		return nil, ErrTooMuchData
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []chobotb.Account
	for _, a := range m.accounts {
		if a.Timestamp >= f.TimestampMin && (f.TimestampMax == 0 || a.Timestamp <= f.TimestampMax) &&
			(f.UserData128 == ids.ID{} || a.UserData128 == f.UserData128) &&
			(f.Ledger == 0 || a.Ledger == f.Ledger) && (f.Code == 0 || a.Code == f.Code) {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Timestamp < out[j].Timestamp })
	if uint32(len(out)) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}
