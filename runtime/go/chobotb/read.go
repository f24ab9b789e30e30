package chobotb

import (
	"fmt"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// The reasons chobo gives of its own, as the reference interpreter names them.
const (
	ReasonKeyConflict    = "key_conflict"
	ReasonAlreadyRefused = "already_refused"
	ReasonSameAccount    = "same_account"
	ReasonNoSuchHold     = "no_such_hold"
	ReasonAlreadyPosted  = "already_posted"
	ReasonAlreadyVoided  = "already_voided"
	ReasonExpired        = "expired"
	ReasonOverHold       = "over_hold"
)

// UnexpectedError is a status chobo's chains should never meet: an error of
// the client or of the book's accounts, not an answer.
type UnexpectedError struct {
	Event  int // from 0
	Role   Role
	Status Status
}

func (e *UnexpectedError) Error() string {
	return fmt.Sprintf("chobotb: TigerBeetle answered %s for event %d (%s) of a chain", e.Status, e.Event, e.Role)
}

func refused(reason string) chobo.Result { return chobo.Result{Outcome: chobo.Refused, Reason: reason} }

// Read turns the per-event statuses of a chain into chobo's answer. The
// first status that is neither created nor linked_event_failed decides:
// TigerBeetle marks every other event of a failed chain, earlier ones
// too, as linked_event_failed.
//
// A key guard after the chain does not take part in the answer; its status
// must be one of the three it can get (see RoleKeyGuard).
func Read(chain []Event, statuses []Status) (chobo.Result, error) {
	if len(statuses) != len(chain) {
		return chobo.Result{}, fmt.Errorf("chobotb: %d statuses for a chain of %d events", len(statuses), len(chain))
	}
	if n := len(chain) - 1; n > 0 && chain[n].Role == RoleKeyGuard {
		switch statuses[n] {
		case ExistsWithDifferentFlags, PendingTransferNotFound, IDAlreadyFailed:
		default:
			return chobo.Result{}, &UnexpectedError{n, chain[n].Role, statuses[n]}
		}
		chain, statuses = chain[:n], statuses[:n]
	}
	for i, s := range statuses {
		switch s {
		case Created, LinkedEventFailed:
			continue
		case Exists:
			if i == 0 {
				return chobo.Result{Outcome: chobo.DoneBefore}, nil
			}
			// Only a later event is there: the chain was made by another
			// definition of the transfer kind.
			return refused(ReasonKeyConflict), nil
		case IDAlreadyFailed:
			return refused(ReasonAlreadyRefused), nil
		case ExceedsCredits:
			if chain[i].Reason == "" {
				return chobo.Result{}, &UnexpectedError{i, chain[i].Role, s}
			}
			return refused(chain[i].Reason), nil
		case AccountsMustBeDifferent:
			return refused(ReasonSameAccount), nil
		case PendingTransferAlreadyPosted:
			return refused(ReasonAlreadyPosted), nil
		case PendingTransferAlreadyVoided:
			return refused(ReasonAlreadyVoided), nil
		case PendingTransferExpired:
			return refused(ReasonExpired), nil
		case ExceedsPendingTransferAmount:
			return refused(ReasonOverHold), nil
		}
		if s.ExistsWithDifferent() {
			return refused(ReasonKeyConflict), nil
		}
		return chobo.Result{}, &UnexpectedError{i, chain[i].Role, s}
	}
	for i, s := range statuses {
		if s != Created {
			return chobo.Result{}, &UnexpectedError{i, chain[i].Role, s}
		}
	}
	return chobo.Result{Outcome: chobo.Done}, nil
}

// ReadStatus turns the answer to a status chain into where the hold
// stands; "" when there is no hold.
func ReadStatus(statuses []Status) (chobo.HoldState, error) {
	if len(statuses) != 2 {
		return "", fmt.Errorf("chobotb: %d statuses for a status chain", len(statuses))
	}
	switch {
	case statuses[0] == LinkedEventFailed && statuses[1] == AccountsMustBeDifferent:
		return chobo.Held, nil
	case statuses[1] != LinkedEventFailed:
	case statuses[0] == PendingTransferAlreadyPosted:
		return chobo.Posted, nil
	case statuses[0] == PendingTransferAlreadyVoided:
		return chobo.Voided, nil
	case statuses[0] == PendingTransferExpired:
		return chobo.Expired, nil
	case statuses[0] == PendingTransferNotFound:
		return "", nil
	}
	return "", fmt.Errorf("chobotb: a status chain answered %s, %s", statuses[0], statuses[1])
}
