package chobopg

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// The SQL function's p_max is an integer: a max it cannot take is refused
// before anything is sent, and every one it can take is sent as given.
func TestExpireMaxIsTheFunctionsInteger(t *testing.T) {
	ctx := context.Background()
	for _, max := range []int{-1, math.MinInt, math.MaxInt32 + 1, math.MaxInt} {
		q := &script{answers: []any{[]any{0}}}
		n, err := Expire(ctx, q, "x", max)
		if err == nil || !strings.Contains(err.Error(), "nothing was sent") || n != 0 {
			t.Errorf("max %d: %d, %v; want refused", max, n, err)
		}
		if q.sent != 0 {
			t.Errorf("max %d: sent %d statements", max, q.sent)
		}
	}
	for _, max := range []int{0, DefaultExpire, math.MaxInt32} {
		q := &script{answers: []any{[]any{3}}}
		if n, err := Expire(ctx, q, "x", max); err != nil || n != 3 || q.sent != 1 || len(q.args) != 3 || q.args[1] != max || !isCallID(q.args[2]) {
			t.Errorf("max %d: %d, %v, sent %d with %v", max, n, err, q.sent, q.args)
		}
	}
}

// An expire sent again after a lost connection is the same call: its id
// goes with every sending, and another expire has another.
func TestExpireSendsOneIDPerCall(t *testing.T) {
	ctx := context.Background()
	lost := fmt.Errorf("reading the answer: %w", io.ErrUnexpectedEOF)
	q := &script{answers: []any{lost, pgErr("40001"), []any{5}}}
	if n, err := Expire(ctx, q, "x", 10); err != nil || n != 5 {
		t.Fatalf("Expire = %d, %v", n, err)
	}
	sameID(t, q.sends, 3)
	first := q.args[2]
	if _, err := Expire(ctx, q, "x", 10); err != nil || q.args[2] == first {
		t.Errorf("a second expire sent the id of the first (%v)", err)
	}
}
