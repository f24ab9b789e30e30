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
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.Limit > maxRecords {
		return nil, ErrTooMuchData
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []chobotb.Transfer
	for _, t := range m.transfers {
		if !(f.Debits && t.DebitAccountID == f.AccountID) && !(f.Credits && t.CreditAccountID == f.AccountID) {
			continue
		}
		if t.Timestamp < f.TimestampMin || (f.TimestampMax != 0 && t.Timestamp > f.TimestampMax) {
			continue
		}
		if f.Code != 0 && t.Code != f.Code {
			continue
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if f.Reversed {
			return out[i].Timestamp > out[j].Timestamp
		}
		return out[i].Timestamp < out[j].Timestamp
	})
	if f.Limit == 0 {
		return nil, nil // TigerBeetle answers nothing to a limit of 0
	}
	if uint32(len(out)) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// QueryTransfers implements chobotb.HistoryClient as query_transfers of
// 0.17.9: the transfers whose fields equal every field of the filter
// that is not 0, timestamps inclusive at both ends, oldest first or
// newest first, at most Limit. Not recorded, as GetAccountTransfers.
func (m *Model) QueryTransfers(ctx context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.Limit > maxRecords {
		return nil, ErrTooMuchData
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []chobotb.Transfer
	for _, t := range m.transfers {
		if (f.UserData128 != ids.ID{} && t.UserData128 != f.UserData128) || (f.UserData64 != 0 && t.UserData64 != f.UserData64) ||
			(f.Ledger != 0 && t.Ledger != f.Ledger) || (f.Code != 0 && t.Code != f.Code) {
			continue
		}
		if t.Timestamp < f.TimestampMin || (f.TimestampMax != 0 && t.Timestamp > f.TimestampMax) {
			continue
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if f.Reversed {
			return out[i].Timestamp > out[j].Timestamp
		}
		return out[i].Timestamp < out[j].Timestamp
	})
	if uint32(len(out)) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}
