package chobopg

import (
	"context"
	"fmt"
	"math"
)

// DefaultExpire is how many holds Expire gives back when not told: the
// default of the SQL function's p_max.
const DefaultExpire = 1000

// Expire sends the book's expire statement, which gives back up to max
// holds past their deadline and answers how many it gave back. max is the
// SQL function's integer: one outside 0..2147483647 is refused here, with
// nothing sent, rather than by the server as an out-of-range parameter.
// The statement carries a call id (callid.go), so that a sending again
// after a lost connection answers how many this call gave back in all,
// the first sending's included, and gives back no more than max.
func Expire(ctx context.Context, q Querier, sql string, max int) (int, error) {
	if max < 0 || max > math.MaxInt32 {
		return 0, fmt.Errorf("chobo: expire: max %d is outside 0..%d; nothing was sent", max, math.MaxInt32)
	}
	var n int
	err := QueryRow(ctx, q, sql, []any{max, NewCallID()}, &n)
	return n, err
}
