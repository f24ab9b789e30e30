package tbmodel

import (
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Flag bits of TigerBeetle that chobotb does not name.
const (
	accountHistory  uint16 = 1 << 3
	accountImported uint16 = 1 << 4
	accountClosed   uint16 = 1 << 5
	accountKnown           = chobotb.AccountLinked | chobotb.AccountDebitsMustNotExceedCredits |
		chobotb.AccountCreditsMustNotExceedDebits | accountHistory | accountImported | accountClosed

	transferBalancingDebit  uint16 = 1 << 4
	transferBalancingCredit uint16 = 1 << 5
	transferClosingDebit    uint16 = 1 << 6
	transferClosingCredit   uint16 = 1 << 7
	transferImported        uint16 = 1 << 8
	transferKnown                  = chobotb.TransferLinked | chobotb.TransferPending |
		chobotb.TransferPostPending | chobotb.TransferVoidPending |
		transferBalancingDebit | transferBalancingCredit |
		transferClosingDebit | transferClosingCredit | transferImported
)

// Statuses the model can answer that chobotb does not name, by TigerBeetle's
// names. chobo treats all of them as an error of its client.
const (
	LinkedEventChainOpen                     chobotb.Status = "linked_event_chain_open"
	TimestampMustBeZero                      chobotb.Status = "timestamp_must_be_zero"
	ReservedFlag                             chobotb.Status = "reserved_flag"
	IDMustNotBeZero                          chobotb.Status = "id_must_not_be_zero"
	IDMustNotBeIntMax                        chobotb.Status = "id_must_not_be_int_max"
	FlagsAreMutuallyExclusive                chobotb.Status = "flags_are_mutually_exclusive"
	DebitsPendingMustBeZero                  chobotb.Status = "debits_pending_must_be_zero"
	DebitsPostedMustBeZero                   chobotb.Status = "debits_posted_must_be_zero"
	CreditsPendingMustBeZero                 chobotb.Status = "credits_pending_must_be_zero"
	CreditsPostedMustBeZero                  chobotb.Status = "credits_posted_must_be_zero"
	LedgerMustNotBeZero                      chobotb.Status = "ledger_must_not_be_zero"
	CodeMustNotBeZero                        chobotb.Status = "code_must_not_be_zero"
	DebitAccountIDMustNotBeZero              chobotb.Status = "debit_account_id_must_not_be_zero"
	DebitAccountIDMustNotBeIntMax            chobotb.Status = "debit_account_id_must_not_be_int_max"
	CreditAccountIDMustNotBeZero             chobotb.Status = "credit_account_id_must_not_be_zero"
	CreditAccountIDMustNotBeIntMax           chobotb.Status = "credit_account_id_must_not_be_int_max"
	PendingIDMustBeZero                      chobotb.Status = "pending_id_must_be_zero"
	PendingIDMustNotBeZero                   chobotb.Status = "pending_id_must_not_be_zero"
	PendingIDMustNotBeIntMax                 chobotb.Status = "pending_id_must_not_be_int_max"
	PendingIDMustBeDifferent                 chobotb.Status = "pending_id_must_be_different"
	TimeoutReservedForPendingTransfer        chobotb.Status = "timeout_reserved_for_pending_transfer"
	AccountsMustHaveTheSameLedger            chobotb.Status = "accounts_must_have_the_same_ledger"
	TransferMustHaveTheSameLedgerAsAccounts  chobotb.Status = "transfer_must_have_the_same_ledger_as_accounts"
	PendingTransferNotPending                chobotb.Status = "pending_transfer_not_pending"
	PendingTransferHasDifferentDebitAccount  chobotb.Status = "pending_transfer_has_different_debit_account_id"
	PendingTransferHasDifferentCreditAccount chobotb.Status = "pending_transfer_has_different_credit_account_id"
	PendingTransferHasDifferentLedger        chobotb.Status = "pending_transfer_has_different_ledger"
	PendingTransferHasDifferentCode          chobotb.Status = "pending_transfer_has_different_code"
	PendingTransferHasDifferentAmount        chobotb.Status = "pending_transfer_has_different_amount"
	OverflowsDebitsPending                   chobotb.Status = "overflows_debits_pending"
	OverflowsCreditsPending                  chobotb.Status = "overflows_credits_pending"
	OverflowsDebitsPosted                    chobotb.Status = "overflows_debits_posted"
	OverflowsCreditsPosted                   chobotb.Status = "overflows_credits_posted"
	OverflowsDebits                          chobotb.Status = "overflows_debits"
	OverflowsCredits                         chobotb.Status = "overflows_credits"
	OverflowsTimeout                         chobotb.Status = "overflows_timeout"
)

// Transient reports whether TigerBeetle 0.17.9 records the id of a transfer
// refused with s, so that any later transfer with that id gets
// id_already_failed: the refusals that depend on the state of the database
// (CreateTransferResult.transient in src/tigerbeetle.zig; the closed-account
// ones are not modelled).
func Transient(s chobotb.Status) bool {
	switch s {
	case chobotb.DebitAccountNotFound, chobotb.CreditAccountNotFound,
		chobotb.PendingTransferNotFound,
		chobotb.ExceedsCredits, chobotb.ExceedsDebits,
		"debit_account_already_closed", "credit_account_already_closed":
		return true
	}
	return false
}

var intMax = ids.ID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// createAccount is TigerBeetle's create_account.
func (m *Model) createAccount(a chobotb.Account, ts uint64) chobotb.Status {
	if a.Flags&^accountKnown != 0 {
		return ReservedFlag
	}
	if a.ID == (ids.ID{}) {
		return IDMustNotBeZero
	}
	if a.ID == intMax {
		return IDMustNotBeIntMax
	}
	if e, ok := m.accounts[a.ID]; ok {
		return createAccountExists(a, e)
	}
	if a.Flags&chobotb.AccountDebitsMustNotExceedCredits != 0 &&
		a.Flags&chobotb.AccountCreditsMustNotExceedDebits != 0 {
		return FlagsAreMutuallyExclusive
	}
	switch {
	case !a.DebitsPending.IsZero():
		return DebitsPendingMustBeZero
	case !a.DebitsPosted.IsZero():
		return DebitsPostedMustBeZero
	case !a.CreditsPending.IsZero():
		return CreditsPendingMustBeZero
	case !a.CreditsPosted.IsZero():
		return CreditsPostedMustBeZero
	case a.Ledger == 0:
		return LedgerMustNotBeZero
	case a.Code == 0:
		return CodeMustNotBeZero
	}
	a.Timestamp = ts
	m.putAccount(a)
	return chobotb.Created
}

// createAccountExists is TigerBeetle's create_account_exists.
func createAccountExists(a, e chobotb.Account) chobotb.Status {
	switch {
	case a.Flags != e.Flags:
		return chobotb.ExistsWithDifferentFlags
	case a.UserData128 != e.UserData128:
		return chobotb.ExistsWithDifferentUserData128
	case a.Ledger != e.Ledger:
		return chobotb.ExistsWithDifferentLedger
	case a.Code != e.Code:
		return chobotb.ExistsWithDifferentCode
	}
	return chobotb.Exists
}

// debitsExceedCredits and creditsExceedDebits are TigerBeetle's
// Account.debits_exceed_credits and credits_exceed_debits.
func debitsExceedCredits(a chobotb.Account, amount chobotb.U128) bool {
	if a.Flags&chobotb.AccountDebitsMustNotExceedCredits == 0 {
		return false
	}
	d, o1 := a.DebitsPending.Add(a.DebitsPosted)
	d, o2 := d.Add(amount)
	return o1 || o2 || d.Cmp(a.CreditsPosted) > 0
}

func creditsExceedDebits(a chobotb.Account, amount chobotb.U128) bool {
	if a.Flags&chobotb.AccountCreditsMustNotExceedDebits == 0 {
		return false
	}
	c, o1 := a.CreditsPending.Add(a.CreditsPosted)
	c, o2 := c.Add(amount)
	return o1 || o2 || c.Cmp(a.DebitsPosted) > 0
}
