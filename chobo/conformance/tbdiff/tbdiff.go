// Package tbdiff holds chobo's model of TigerBeetle to a real replica: a
// Tee is a chobotb.Client that sends every request to both, one request at
// a time so that both see the same order, answers with what the real one
// said, and notes every way the two answers differ. At the end, Records
// reads back every account and transfer the requests created and compares
// the records field by field.
//
// Timestamps are left out of every comparison: each side stamps events
// with its own clock. Everything else (statuses per event, balances,
// flags, amounts, timeouts, ids, user data, ledgers, codes) must be equal;
// a difference is a bug of the model.
//
// One difference is not a bug: a hold past its deadline is given back by
// each side at a moment of its own (a replica at its next pulse, the
// model at its next create request), so a lookup between the two moments
// reads different pending balances. With Settle set, a lookup whose
// answers differ is asked of both again after Settle, a few times, and
// only a difference that stays is noted.
package tbdiff

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Tee sends each request to Real and then to Model.
type Tee struct {
	Real, Model chobotb.Client
	// Settle, when set, is called before a lookup whose answers differed
	// is asked again: it waits, and has the model give back the holds
	// past their deadline, as the replica does in its own time.
	Settle func()

	mu        sync.Mutex
	requests  int
	diffs     []string
	accounts  []ids.ID // created, in the order first sent
	transfers []ids.ID
	seenA     map[ids.ID]bool
	seenT     map[ids.ID]bool
}

// New returns a Tee over a real TigerBeetle and the model.
func New(real, model chobotb.Client) *Tee {
	return &Tee{Real: real, Model: model, seenA: map[ids.ID]bool{}, seenT: map[ids.ID]bool{}}
}

// Requests is how many requests went to both.
func (t *Tee) Requests() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.requests
}

// Diffs lists the differences found so far, each saying which request and
// what each side answered.
func (t *Tee) Diffs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.diffs)
}

func (t *Tee) note(format string, args ...any) {
	t.diffs = append(t.diffs, fmt.Sprintf(format, args...))
}

// CreateAccounts implements chobotb.Client.
func (t *Tee) CreateAccounts(ctx context.Context, accounts []chobotb.Account) ([]chobotb.Status, error) {
	list := make([]ids.ID, len(accounts))
	for i, a := range accounts {
		list[i] = a.ID
	}
	return t.create("create_accounts", describeAccounts(accounts), list, t.seenA, &t.accounts,
		func(c chobotb.Client) ([]chobotb.Status, error) { return c.CreateAccounts(ctx, accounts) })
}

// CreateTransfers implements chobotb.Client.
func (t *Tee) CreateTransfers(ctx context.Context, transfers []chobotb.Transfer) ([]chobotb.Status, error) {
	list := make([]ids.ID, len(transfers))
	for i, tr := range transfers {
		list[i] = tr.ID
	}
	return t.create("create_transfers", describeTransfers(transfers), list, t.seenT, &t.transfers,
		func(c chobotb.Client) ([]chobotb.Status, error) { return c.CreateTransfers(ctx, transfers) })
}

// create sends one create request to both sides, compares the statuses,
// and notes the ids the real side created, for Records.
func (t *Tee) create(op, request string, list []ids.ID, seen map[ids.ID]bool, created *[]ids.ID,
	send func(chobotb.Client) ([]chobotb.Status, error)) ([]chobotb.Status, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests++
	real, rerr := send(t.Real)
	model, merr := send(t.Model)
	t.compareStatuses(op, request, real, rerr, model, merr)
	for i, id := range list {
		if rerr == nil && i < len(real) && real[i] == chobotb.Created && !seen[id] {
			seen[id] = true
			*created = append(*created, id)
		}
	}
	return real, rerr
}

// LookupAccounts implements chobotb.Client.
func (t *Tee) LookupAccounts(ctx context.Context, list []ids.ID) ([]chobotb.Account, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests++
	real, rerr := t.Real.LookupAccounts(ctx, list)
	model, merr := t.Model.LookupAccounts(ctx, list)
	first := real
	rtext, mtext := accountTexts(real), accountTexts(model)
	for try := 0; t.Settle != nil && try < settleTries && (rerr != nil) == (merr != nil) && !slices.Equal(rtext, mtext); try++ {
		t.Settle()
		real, rerr = t.Real.LookupAccounts(ctx, list)
		model, merr = t.Model.LookupAccounts(ctx, list)
		rtext, mtext = accountTexts(real), accountTexts(model)
	}
	t.compareRecords("lookup_accounts", idList(list), rtext, rerr, mtext, merr)
	// The caller gets what the replica said when it asked.
	return first, rerr
}

// settleTries is how many times a lookup that differs is asked again.
const settleTries = 10

// LookupTransfers implements chobotb.Client.
func (t *Tee) LookupTransfers(ctx context.Context, list []ids.ID) ([]chobotb.Transfer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests++
	real, rerr := t.Real.LookupTransfers(ctx, list)
	model, merr := t.Model.LookupTransfers(ctx, list)
	t.compareRecords("lookup_transfers", idList(list), transferTexts(real), rerr, transferTexts(model), merr)
	return real, rerr
}

func (t *Tee) compareStatuses(op, request string, real []chobotb.Status, rerr error, model []chobotb.Status, merr error) {
	switch {
	case rerr != nil && merr != nil:
		// Both refused the request; the errors are in different words.
	case rerr != nil || merr != nil:
		t.note("%s %s:\n  real:  %v %v\n  model: %v %v", op, request, real, rerr, model, merr)
	case !slices.Equal(real, model):
		t.note("%s %s:\n  real:  %v\n  model: %v", op, request, real, model)
	}
}

func (t *Tee) compareRecords(op, request string, real []string, rerr error, model []string, merr error) {
	switch {
	case rerr != nil && merr != nil:
	case rerr != nil || merr != nil:
		t.note("%s %s:\n  real:  %v\n  model: %v", op, request, rerr, merr)
	case !slices.Equal(real, model):
		t.note("%s %s:\n  real:  %s\n  model: %s", op, request, strings.Join(real, "; "), strings.Join(model, "; "))
	}
}

// Records reads every account and transfer the requests created from both
// sides, in batches of chobotb.MaxEvents, and notes where the records
// differ. It returns how many records it compared.
func (t *Tee) Records(ctx context.Context) (int, error) {
	t.mu.Lock()
	accounts, transfers := slices.Clone(t.accounts), slices.Clone(t.transfers)
	t.mu.Unlock()
	n := 0
	for i := 0; i < len(accounts); i += chobotb.MaxEvents {
		batch := accounts[i:min(i+chobotb.MaxEvents, len(accounts))]
		if _, err := t.LookupAccounts(ctx, batch); err != nil {
			return n, err
		}
		n += len(batch)
	}
	for i := 0; i < len(transfers); i += chobotb.MaxEvents {
		batch := transfers[i:min(i+chobotb.MaxEvents, len(transfers))]
		if _, err := t.LookupTransfers(ctx, batch); err != nil {
			return n, err
		}
		n += len(batch)
	}
	return n, nil
}

// accountText writes an account record without its timestamp.
func accountText(a chobotb.Account) string {
	return fmt.Sprintf("account %x debits %s/%s credits %s/%s user_data_128 %x ledger %d code %d flags %d",
		a.ID, a.DebitsPending, a.DebitsPosted, a.CreditsPending, a.CreditsPosted, a.UserData128, a.Ledger, a.Code, a.Flags)
}

// transferText writes a transfer record without its timestamp.
func transferText(tr chobotb.Transfer) string {
	return fmt.Sprintf("transfer %x %x→%x amount %s pending %x user_data_128 %x user_data_64 %x timeout %d ledger %d code %d flags %d",
		tr.ID, tr.DebitAccountID, tr.CreditAccountID, tr.Amount, tr.PendingID, tr.UserData128, tr.UserData64, tr.Timeout, tr.Ledger, tr.Code, tr.Flags)
}

func accountTexts(as []chobotb.Account) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = accountText(a)
	}
	return out
}

func transferTexts(ts []chobotb.Transfer) []string {
	out := make([]string, len(ts))
	for i, tr := range ts {
		out[i] = transferText(tr)
	}
	return out
}

func idList(list []ids.ID) string {
	parts := make([]string, len(list))
	for i, id := range list {
		parts[i] = fmt.Sprintf("%x", id)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func describeAccounts(as []chobotb.Account) string {
	return "[" + strings.Join(accountTexts(as), "; ") + "]"
}

func describeTransfers(ts []chobotb.Transfer) string {
	return "[" + strings.Join(transferTexts(ts), "; ") + "]"
}

// GetAccountTransfers implements chobotb.HistoryClient with the real
// one's answer alone: a history query bounds timestamps, which each side
// stamps with its own clock, so the two answer different pages. The
// records the queries read are those Records compares.
func (t *Tee) GetAccountTransfers(ctx context.Context, f chobotb.AccountFilter) ([]chobotb.Transfer, error) {
	return chobotb.ReadsOf(t.Real).GetAccountTransfers(ctx, f)
}

// QueryTransfers implements chobotb.HistoryClient, as GetAccountTransfers.
func (t *Tee) QueryTransfers(ctx context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	return chobotb.ReadsOf(t.Real).QueryTransfers(ctx, f)
}
