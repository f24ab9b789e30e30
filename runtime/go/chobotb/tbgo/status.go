package tbgo

import (
	tb "github.com/tigerbeetle/tigerbeetle-go"

	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// AccountStatus names an official create_accounts result the way
// TigerBeetle's documentation does, which is how chobotb.Status names it:
// AccountExistsWithDifferentFlags is "exists_with_different_flags". ok is
// false for a value the official client does not define.
func AccountStatus(s tb.CreateAccountStatus) (status chobotb.Status, ok bool) {
	status, ok = accountStatuses[s]
	return status, ok
}

// TransferStatus is AccountStatus for create_transfers:
// TransferExistsWithDifferentAmount is "exists_with_different_amount",
// TransferCreated is "created".
func TransferStatus(s tb.CreateTransferStatus) (status chobotb.Status, ok bool) {
	status, ok = transferStatuses[s]
	return status, ok
}

// The tables are the official constants' String() names without their
// Account or Transfer prefix, in snake_case, with digits a word of their
// own (UserData128 is user_data_128). The tests derive each name again
// from String() and check that every constant of v0.17.9 is here.

var accountStatuses = map[tb.CreateAccountStatus]chobotb.Status{
	tb.AccountCreated:                              "created",
	tb.AccountLinkedEventFailed:                    "linked_event_failed",
	tb.AccountLinkedEventChainOpen:                 "linked_event_chain_open",
	tb.AccountTimestampMustBeZero:                  "timestamp_must_be_zero",
	tb.AccountReservedField:                        "reserved_field",
	tb.AccountReservedFlag:                         "reserved_flag",
	tb.AccountIDMustNotBeZero:                      "id_must_not_be_zero",
	tb.AccountIDMustNotBeIntMax:                    "id_must_not_be_int_max",
	tb.AccountFlagsAreMutuallyExclusive:            "flags_are_mutually_exclusive",
	tb.AccountDebitsPendingMustBeZero:              "debits_pending_must_be_zero",
	tb.AccountDebitsPostedMustBeZero:               "debits_posted_must_be_zero",
	tb.AccountCreditsPendingMustBeZero:             "credits_pending_must_be_zero",
	tb.AccountCreditsPostedMustBeZero:              "credits_posted_must_be_zero",
	tb.AccountLedgerMustNotBeZero:                  "ledger_must_not_be_zero",
	tb.AccountCodeMustNotBeZero:                    "code_must_not_be_zero",
	tb.AccountExistsWithDifferentFlags:             "exists_with_different_flags",
	tb.AccountExistsWithDifferentUserData128:       "exists_with_different_user_data_128",
	tb.AccountExistsWithDifferentUserData64:        "exists_with_different_user_data_64",
	tb.AccountExistsWithDifferentUserData32:        "exists_with_different_user_data_32",
	tb.AccountExistsWithDifferentLedger:            "exists_with_different_ledger",
	tb.AccountExistsWithDifferentCode:              "exists_with_different_code",
	tb.AccountExists:                               "exists",
	tb.AccountImportedEventExpected:                "imported_event_expected",
	tb.AccountImportedEventNotExpected:             "imported_event_not_expected",
	tb.AccountImportedEventTimestampOutOfRange:     "imported_event_timestamp_out_of_range",
	tb.AccountImportedEventTimestampMustNotAdvance: "imported_event_timestamp_must_not_advance",
	tb.AccountImportedEventTimestampMustNotRegress: "imported_event_timestamp_must_not_regress",
}

var transferStatuses = map[tb.CreateTransferStatus]chobotb.Status{
	tb.TransferCreated:                                         "created",
	tb.TransferLinkedEventFailed:                               "linked_event_failed",
	tb.TransferLinkedEventChainOpen:                            "linked_event_chain_open",
	tb.TransferTimestampMustBeZero:                             "timestamp_must_be_zero",
	tb.TransferReservedFlag:                                    "reserved_flag",
	tb.TransferIDMustNotBeZero:                                 "id_must_not_be_zero",
	tb.TransferIDMustNotBeIntMax:                               "id_must_not_be_int_max",
	tb.TransferFlagsAreMutuallyExclusive:                       "flags_are_mutually_exclusive",
	tb.TransferDebitAccountIDMustNotBeZero:                     "debit_account_id_must_not_be_zero",
	tb.TransferDebitAccountIDMustNotBeIntMax:                   "debit_account_id_must_not_be_int_max",
	tb.TransferCreditAccountIDMustNotBeZero:                    "credit_account_id_must_not_be_zero",
	tb.TransferCreditAccountIDMustNotBeIntMax:                  "credit_account_id_must_not_be_int_max",
	tb.TransferAccountsMustBeDifferent:                         "accounts_must_be_different",
	tb.TransferPendingIDMustBeZero:                             "pending_id_must_be_zero",
	tb.TransferPendingIDMustNotBeZero:                          "pending_id_must_not_be_zero",
	tb.TransferPendingIDMustNotBeIntMax:                        "pending_id_must_not_be_int_max",
	tb.TransferPendingIDMustBeDifferent:                        "pending_id_must_be_different",
	tb.TransferTimeoutReservedForPendingTransfer:               "timeout_reserved_for_pending_transfer",
	tb.TransferLedgerMustNotBeZero:                             "ledger_must_not_be_zero",
	tb.TransferCodeMustNotBeZero:                               "code_must_not_be_zero",
	tb.TransferDebitAccountNotFound:                            "debit_account_not_found",
	tb.TransferCreditAccountNotFound:                           "credit_account_not_found",
	tb.TransferAccountsMustHaveTheSameLedger:                   "accounts_must_have_the_same_ledger",
	tb.TransferTransferMustHaveTheSameLedgerAsAccounts:         "transfer_must_have_the_same_ledger_as_accounts",
	tb.TransferPendingTransferNotFound:                         "pending_transfer_not_found",
	tb.TransferPendingTransferNotPending:                       "pending_transfer_not_pending",
	tb.TransferPendingTransferHasDifferentDebitAccountID:       "pending_transfer_has_different_debit_account_id",
	tb.TransferPendingTransferHasDifferentCreditAccountID:      "pending_transfer_has_different_credit_account_id",
	tb.TransferPendingTransferHasDifferentLedger:               "pending_transfer_has_different_ledger",
	tb.TransferPendingTransferHasDifferentCode:                 "pending_transfer_has_different_code",
	tb.TransferExceedsPendingTransferAmount:                    "exceeds_pending_transfer_amount",
	tb.TransferPendingTransferHasDifferentAmount:               "pending_transfer_has_different_amount",
	tb.TransferPendingTransferAlreadyPosted:                    "pending_transfer_already_posted",
	tb.TransferPendingTransferAlreadyVoided:                    "pending_transfer_already_voided",
	tb.TransferPendingTransferExpired:                          "pending_transfer_expired",
	tb.TransferExistsWithDifferentFlags:                        "exists_with_different_flags",
	tb.TransferExistsWithDifferentDebitAccountID:               "exists_with_different_debit_account_id",
	tb.TransferExistsWithDifferentCreditAccountID:              "exists_with_different_credit_account_id",
	tb.TransferExistsWithDifferentAmount:                       "exists_with_different_amount",
	tb.TransferExistsWithDifferentPendingID:                    "exists_with_different_pending_id",
	tb.TransferExistsWithDifferentUserData128:                  "exists_with_different_user_data_128",
	tb.TransferExistsWithDifferentUserData64:                   "exists_with_different_user_data_64",
	tb.TransferExistsWithDifferentUserData32:                   "exists_with_different_user_data_32",
	tb.TransferExistsWithDifferentTimeout:                      "exists_with_different_timeout",
	tb.TransferExistsWithDifferentCode:                         "exists_with_different_code",
	tb.TransferExists:                                          "exists",
	tb.TransferOverflowsDebitsPending:                          "overflows_debits_pending",
	tb.TransferOverflowsCreditsPending:                         "overflows_credits_pending",
	tb.TransferOverflowsDebitsPosted:                           "overflows_debits_posted",
	tb.TransferOverflowsCreditsPosted:                          "overflows_credits_posted",
	tb.TransferOverflowsDebits:                                 "overflows_debits",
	tb.TransferOverflowsCredits:                                "overflows_credits",
	tb.TransferOverflowsTimeout:                                "overflows_timeout",
	tb.TransferExceedsCredits:                                  "exceeds_credits",
	tb.TransferExceedsDebits:                                   "exceeds_debits",
	tb.TransferImportedEventExpected:                           "imported_event_expected",
	tb.TransferImportedEventNotExpected:                        "imported_event_not_expected",
	tb.TransferImportedEventTimestampOutOfRange:                "imported_event_timestamp_out_of_range",
	tb.TransferImportedEventTimestampMustNotAdvance:            "imported_event_timestamp_must_not_advance",
	tb.TransferImportedEventTimestampMustNotRegress:            "imported_event_timestamp_must_not_regress",
	tb.TransferImportedEventTimestampMustPostdateDebitAccount:  "imported_event_timestamp_must_postdate_debit_account",
	tb.TransferImportedEventTimestampMustPostdateCreditAccount: "imported_event_timestamp_must_postdate_credit_account",
	tb.TransferImportedEventTimeoutMustBeZero:                  "imported_event_timeout_must_be_zero",
	tb.TransferClosingTransferMustBePending:                    "closing_transfer_must_be_pending",
	tb.TransferDebitAccountAlreadyClosed:                       "debit_account_already_closed",
	tb.TransferCreditAccountAlreadyClosed:                      "credit_account_already_closed",
	tb.TransferExistsWithDifferentLedger:                       "exists_with_different_ledger",
	tb.TransferIDAlreadyFailed:                                 "id_already_failed",
}
