package chobotb

import (
	"context"

	"github.com/chobo-lang/chobo/chobo/ids"
)

// A deploy that adds or removes the events keeping a bound (a room, a
// floor, a probe) lays a do or hold chain out otherwise, and may change
// its first event's flags: the move goes alone, or linked to the events
// after it. A retry of a call made before such a deploy then meets its
// first event with other flags, which TigerBeetle reports before any
// other field (exists_with_different_flags), whether or not the call
// means what the first one meant. So that answer is judged by what the
// call means instead of how its chain is laid out: the first event is
// looked up, and it is the same call when the record carries this call's
// content (user_data_128: the book, tenant, transfer, operation,
// definition and values) and definition tag (user_data_64), done before;
// otherwise the key was used with other content, key_conflict (or, on a
// kind an earlier chobo hashed otherwise, the chain is sent again as it
// laid it out: legacy.go).

// laidOutOtherwise reports whether the answer to a do or hold chain says
// its first event exists with other flags.
func laidOutOtherwise(chain []Event, statuses []Status) bool {
	return len(chain) > 0 && len(statuses) > 0 && chain[0].Role == RoleMove && statuses[0] == ExistsWithDifferentFlags
}

// sameCall reports whether the record found for a chain's first event was
// made by a call that means what this one does.
func sameCall(found Transfer, first Event) bool {
	return found.UserData128 == first.UserData128 && found.UserData64 == first.UserData64
}

// sameCalls reports, for chains whose first event exists with other
// flags (laidOutOtherwise), whether each first event's record is the
// same call, looked up in one request.
func (b *Book) sameCalls(ctx context.Context, chains [][]Event) ([]bool, error) {
	list := make([]ids.ID, len(chains))
	for i, c := range chains {
		list[i] = c[0].ID
	}
	found, err := b.lookupAll(ctx, list)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(chains))
	for i, c := range chains {
		t, ok := found[c[0].ID]
		out[i] = ok && sameCall(t, c[0])
	}
	return out, nil
}
