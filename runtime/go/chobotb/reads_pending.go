package chobotb

import (
	"context"
	"errors"
	"time"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// errReadsPending is the answer of the history reads until they read
// TigerBeetle's records.
var errReadsPending = errors.New("chobotb: the history reads are not yet written for TigerBeetle")

// Statement reads a page of an account's entries.
func (b *Book) Statement(ctx context.Context, account int, args []string, q chobo.StatementQuery) (chobo.Statement, error) {
	return chobo.Statement{}, errReadsPending
}

// CallEntries reads the entries of one key of a transfer kind.
func (b *Book) CallEntries(ctx context.Context, kind int, key Values) ([]chobo.Entry, error) {
	return nil, errReadsPending
}

// OpenHolds reads the holds still held of an account and a kind (-1:
// any).
func (b *Book) OpenHolds(ctx context.Context, account int, args []string, kind int) ([]chobo.OpenHold, error) {
	return nil, errReadsPending
}

// BalanceAt reads what an account held at a time.
func (b *Book) BalanceAt(ctx context.Context, account int, args []string, at time.Time) (chobo.Balance, error) {
	return chobo.Balance{}, errReadsPending
}
