package tbmodel

import (
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

const nsPerSecond = 1_000_000_000

func isPostOrVoid(t chobotb.Transfer) bool {
	return t.Flags&(chobotb.TransferPostPending|chobotb.TransferVoidPending) != 0
}

// createTransfer is TigerBeetle's create_transfer, in its order of checks.
func (m *Model) createTransfer(t chobotb.Transfer, ts uint64) chobotb.Status {
	if t.Flags&^transferKnown != 0 {
		return ReservedFlag
	}
	if t.ID == (ids.ID{}) {
		return IDMustNotBeZero
	}
	if t.ID == intMax {
		return IDMustNotBeIntMax
	}
	// The id comes first: an existing transfer is compared field by field,
	// a used-up id is refused whatever the content.
	if e, ok := m.transfers[t.ID]; ok {
		return m.createTransferExists(t, e)
	}
	if _, ok := m.failed[t.ID]; ok {
		return chobotb.IDAlreadyFailed
	}
	if isPostOrVoid(t) {
		return m.postOrVoidPendingTransfer(t, ts)
	}

	if st, bad := badFields(t); bad {
		return st
	}

	dr, ok := m.accounts[t.DebitAccountID]
	if !ok {
		return chobotb.DebitAccountNotFound
	}
	cr, ok := m.accounts[t.CreditAccountID]
	if !ok {
		return chobotb.CreditAccountNotFound
	}
	if dr.Ledger != cr.Ledger {
		return AccountsMustHaveTheSameLedger
	}
	if t.Ledger != dr.Ledger {
		return TransferMustHaveTheSameLedgerAsAccounts
	}

	amount := balanced(t, dr, cr)
	t.Amount = amount
	isPending := t.Flags&chobotb.TransferPending != 0
	if st, bad := overflowCheck(t, amount, dr, cr, ts); bad {
		return st
	}
	if debitsExceedCredits(dr, amount) {
		return chobotb.ExceedsCredits
	}
	if creditsExceedDebits(cr, amount) {
		return chobotb.ExceedsDebits
	}

	t.Timestamp = ts
	m.putTransfer(t)
	if isPending {
		dr.DebitsPending, _ = dr.DebitsPending.Add(amount)
		cr.CreditsPending, _ = cr.CreditsPending.Add(amount)
		st := pendingState{status: pending}
		if t.Timeout > 0 {
			st.expiresAt = ts + uint64(t.Timeout)*nsPerSecond
		}
		m.putPending(t.ID, st)
	} else {
		dr.DebitsPosted, _ = dr.DebitsPosted.Add(amount)
		cr.CreditsPosted, _ = cr.CreditsPosted.Add(amount)
	}
	m.putAccount(dr)
	m.putAccount(cr)
	return chobotb.Created
}

// badFields is the first check of a transfer's own fields that it
// fails, in TigerBeetle's order, for a transfer that posts or voids
// nothing.
func badFields(t chobotb.Transfer) (chobotb.Status, bool) {
	switch {
	case t.DebitAccountID == (ids.ID{}):
		return DebitAccountIDMustNotBeZero, true
	case t.DebitAccountID == intMax:
		return DebitAccountIDMustNotBeIntMax, true
	case t.CreditAccountID == (ids.ID{}):
		return CreditAccountIDMustNotBeZero, true
	case t.CreditAccountID == intMax:
		return CreditAccountIDMustNotBeIntMax, true
	case t.CreditAccountID == t.DebitAccountID:
		return chobotb.AccountsMustBeDifferent, true
	case t.PendingID != (ids.ID{}):
		return PendingIDMustBeZero, true
	case t.Flags&chobotb.TransferPending == 0 && t.Timeout != 0:
		return TimeoutReservedForPendingTransfer, true
	case t.Ledger == 0:
		return LedgerMustNotBeZero, true
	case t.Code == 0:
		return CodeMustNotBeZero, true
	}
	return "", false
}

// overflowCheck is the first of TigerBeetle's overflow checks that a
// transfer moving amount from dr to cr at ts fails.
func overflowCheck(t chobotb.Transfer, amount chobotb.U128, dr, cr chobotb.Account, ts uint64) (chobotb.Status, bool) {
	if t.Flags&chobotb.TransferPending != 0 {
		if _, o := amount.Add(dr.DebitsPending); o {
			return OverflowsDebitsPending, true
		}
		if _, o := amount.Add(cr.CreditsPending); o {
			return OverflowsCreditsPending, true
		}
	}
	if _, o := amount.Add(dr.DebitsPosted); o {
		return OverflowsDebitsPosted, true
	}
	if _, o := amount.Add(cr.CreditsPosted); o {
		return OverflowsCreditsPosted, true
	}
	if sum, _ := dr.DebitsPending.Add(dr.DebitsPosted); overflows(amount, sum) {
		return OverflowsDebits, true
	}
	if sum, _ := cr.CreditsPending.Add(cr.CreditsPosted); overflows(amount, sum) {
		return OverflowsCredits, true
	}
	// TigerBeetle keeps timestamp + timeout within 63 bits.
	if ts+uint64(t.Timeout)*nsPerSecond > 1<<63-1 {
		return OverflowsTimeout, true
	}
	return "", false
}

// balanced is the amount a transfer moves: its own, or, with a balancing
// flag, at most what the debit account has (balancing_debit: its posted
// credits less its posted and pending debits) and at most what the credit
// account lacks (balancing_credit: its posted debits less its posted and
// pending credits), 0 when there is nothing. The account's own flags play
// no part, and the transfer is recorded with the amount it moved.
func balanced(t chobotb.Transfer, dr, cr chobotb.Account) chobotb.U128 {
	amount := t.Amount
	if t.Flags&transferBalancingDebit != 0 {
		amount = least(amount, headroom(dr.CreditsPosted, dr.DebitsPosted, dr.DebitsPending))
	}
	if t.Flags&transferBalancingCredit != 0 {
		amount = least(amount, headroom(cr.DebitsPosted, cr.CreditsPosted, cr.CreditsPending))
	}
	return amount
}

// headroom is have less a and b, 0 when they are more.
func headroom(have, a, b chobotb.U128) chobotb.U128 {
	sum, o := a.Add(b)
	if o || sum.Cmp(have) >= 0 {
		return chobotb.U128{}
	}
	d, _ := have.Sub(sum)
	return d
}

func least(a, b chobotb.U128) chobotb.U128 {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

func overflows(a, b chobotb.U128) bool {
	_, o := a.Add(b)
	return o
}

// createTransferExists is TigerBeetle's create_transfer_exists: a transfer
// sent again with an id already taken, compared field by field.
func (m *Model) createTransferExists(t, e chobotb.Transfer) chobotb.Status {
	switch {
	case t.Flags != e.Flags:
		return chobotb.ExistsWithDifferentFlags
	case t.PendingID != e.PendingID:
		return chobotb.ExistsWithDifferentPendingID
	case t.Timeout != e.Timeout:
		return chobotb.ExistsWithDifferentTimeout
	}
	if isPostOrVoid(t) {
		return postOrVoidPendingTransferExists(t, e, m.transfers[t.PendingID])
	}
	switch {
	case t.DebitAccountID != e.DebitAccountID:
		return chobotb.ExistsWithDifferentDebitAccount
	case t.CreditAccountID != e.CreditAccountID:
		return chobotb.ExistsWithDifferentCreditAccount
	case t.Flags&(transferBalancingDebit|transferBalancingCredit) != 0 && t.Amount.Cmp(e.Amount) < 0:
		// A balancing transfer is recorded with the amount it moved: sent
		// again with that amount or more, it is the same.
		return chobotb.ExistsWithDifferentAmount
	case t.Flags&(transferBalancingDebit|transferBalancingCredit) == 0 && t.Amount != e.Amount:
		return chobotb.ExistsWithDifferentAmount
	case t.UserData128 != e.UserData128:
		return chobotb.ExistsWithDifferentUserData128
	case t.UserData64 != e.UserData64:
		return chobotb.ExistsWithDifferentUserData64
	case t.Ledger != e.Ledger:
		return chobotb.ExistsWithDifferentLedger
	case t.Code != e.Code:
		return chobotb.ExistsWithDifferentCode
	}
	return chobotb.Exists
}

// postOrVoidPendingTransferExists is TigerBeetle's function of that name:
// a post or void sent again (t) against the one recorded (e) for the
// pending transfer p. Zero fields of t stand for "as the pending transfer".
// A post with AmountMax is `exists` only when the whole was posted; any other
// amount only when it equals the posted amount (observed on 0.17.9: the
// reference docs' "greater than or equal" is not what the replica does).
func postOrVoidPendingTransferExists(t, e, p chobotb.Transfer) chobotb.Status {
	zero := ids.ID{}
	if t.DebitAccountID != zero && t.DebitAccountID != e.DebitAccountID {
		return chobotb.ExistsWithDifferentDebitAccount
	}
	if t.CreditAccountID != zero && t.CreditAccountID != e.CreditAccountID {
		return chobotb.ExistsWithDifferentCreditAccount
	}
	if t.Flags&chobotb.TransferVoidPending != 0 {
		if t.Amount.IsZero() {
			if e.Amount != p.Amount {
				return chobotb.ExistsWithDifferentAmount
			}
		} else if t.Amount != e.Amount {
			return chobotb.ExistsWithDifferentAmount
		}
	}
	if t.Flags&chobotb.TransferPostPending != 0 {
		if t.Amount == chobotb.AmountMax {
			if e.Amount != p.Amount {
				return chobotb.ExistsWithDifferentAmount
			}
		} else if t.Amount != e.Amount {
			return chobotb.ExistsWithDifferentAmount
		}
	}
	if t.UserData128 == zero {
		if e.UserData128 != p.UserData128 {
			return chobotb.ExistsWithDifferentUserData128
		}
	} else if t.UserData128 != e.UserData128 {
		return chobotb.ExistsWithDifferentUserData128
	}
	if t.UserData64 == 0 {
		if e.UserData64 != p.UserData64 {
			return chobotb.ExistsWithDifferentUserData64
		}
	} else if t.UserData64 != e.UserData64 {
		return chobotb.ExistsWithDifferentUserData64
	}
	if t.Ledger != 0 && t.Ledger != e.Ledger {
		return chobotb.ExistsWithDifferentLedger
	}
	if t.Code != 0 && t.Code != e.Code {
		return chobotb.ExistsWithDifferentCode
	}
	return chobotb.Exists
}

// postOrVoidPendingTransfer is TigerBeetle's function of that name. Note
// its order: the amount is checked before whether the pending transfer is
// finished, and the deadline (expires_at <= the event's timestamp) is
// checked even when the pulse has not released the hold yet.
func (m *Model) postOrVoidPendingTransfer(t chobotb.Transfer, ts uint64) chobotb.Status {
	void := t.Flags&chobotb.TransferVoidPending != 0
	if st, bad := badFinishFields(t); bad {
		return st
	}
	p, ok := m.transfers[t.PendingID]
	if !ok {
		return chobotb.PendingTransferNotFound
	}
	if p.Flags&chobotb.TransferPending == 0 {
		return PendingTransferNotPending
	}
	if st, bad := otherThanPending(t, p); bad {
		return st
	}

	var amount chobotb.U128
	switch {
	case void && !t.Amount.IsZero():
		amount = t.Amount
	case void:
		amount = p.Amount
	case t.Amount == chobotb.AmountMax:
		amount = p.Amount
	default:
		amount = t.Amount
	}
	if amount.Cmp(p.Amount) > 0 {
		return chobotb.ExceedsPendingTransferAmount
	}
	if void && amount.Cmp(p.Amount) < 0 {
		return PendingTransferHasDifferentAmount
	}

	st := m.pending[p.ID]
	switch st.status {
	case posted:
		return chobotb.PendingTransferAlreadyPosted
	case voided:
		return chobotb.PendingTransferAlreadyVoided
	case expired:
		return chobotb.PendingTransferExpired
	}
	if st.expiresAt != 0 && st.expiresAt <= ts {
		return chobotb.PendingTransferExpired
	}

	m.endPending(t, p, st, amount, ts)
	return chobotb.Created
}

// endPending records t, which posts amount of the pending transfer p (in
// state st) or voids it, at ts.
func (m *Model) endPending(t, p chobotb.Transfer, st pendingState, amount chobotb.U128, ts uint64) {
	post := t.Flags&chobotb.TransferPostPending != 0
	t2 := chobotb.Transfer{
		ID:              t.ID,
		DebitAccountID:  p.DebitAccountID,
		CreditAccountID: p.CreditAccountID,
		Amount:          amount,
		PendingID:       t.PendingID,
		UserData128:     t.UserData128,
		UserData64:      t.UserData64,
		Timeout:         0,
		Ledger:          p.Ledger,
		Code:            p.Code,
		Flags:           t.Flags,
		Timestamp:       ts,
	}
	if t2.UserData128 == (ids.ID{}) {
		t2.UserData128 = p.UserData128
	}
	if t2.UserData64 == 0 {
		t2.UserData64 = p.UserData64
	}
	m.putTransfer(t2)
	if post {
		st.status = posted
	} else {
		st.status = voided
	}
	m.putPending(p.ID, st)

	dr, cr := m.accounts[p.DebitAccountID], m.accounts[p.CreditAccountID]
	dr.DebitsPending, _ = dr.DebitsPending.Sub(p.Amount)
	cr.CreditsPending, _ = cr.CreditsPending.Sub(p.Amount)
	if post {
		dr.DebitsPosted, _ = dr.DebitsPosted.Add(amount)
		cr.CreditsPosted, _ = cr.CreditsPosted.Add(amount)
	}
	m.putAccount(dr)
	m.putAccount(cr)
}

// badFinishFields is the first check of a post's or void's own fields
// that it fails, in TigerBeetle's order.
func badFinishFields(t chobotb.Transfer) (chobotb.Status, bool) {
	switch {
	case t.Flags&chobotb.TransferPostPending != 0 && t.Flags&chobotb.TransferVoidPending != 0:
		return FlagsAreMutuallyExclusive, true
	case t.Flags&chobotb.TransferPending != 0:
		return FlagsAreMutuallyExclusive, true
	case t.PendingID == (ids.ID{}):
		return PendingIDMustNotBeZero, true
	case t.PendingID == intMax:
		return PendingIDMustNotBeIntMax, true
	case t.PendingID == t.ID:
		return PendingIDMustBeDifferent, true
	case t.Timeout != 0:
		return TimeoutReservedForPendingTransfer, true
	}
	return "", false
}

// otherThanPending is the first field a post or void gives that differs
// from the pending transfer p it ends (a field left zero is p's).
func otherThanPending(t, p chobotb.Transfer) (chobotb.Status, bool) {
	switch {
	case t.DebitAccountID != (ids.ID{}) && t.DebitAccountID != p.DebitAccountID:
		return PendingTransferHasDifferentDebitAccount, true
	case t.CreditAccountID != (ids.ID{}) && t.CreditAccountID != p.CreditAccountID:
		return PendingTransferHasDifferentCreditAccount, true
	case t.Ledger != 0 && t.Ledger != p.Ledger:
		return PendingTransferHasDifferentLedger, true
	case t.Code != 0 && t.Code != p.Code:
		return PendingTransferHasDifferentCode, true
	}
	return "", false
}
