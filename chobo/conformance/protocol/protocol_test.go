package protocol

import (
	"encoding/json"
	"math"
	"testing"
)

func TestAmounts(t *testing.T) {
	for _, v := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64} {
		got, err := ParseAmount(FormatAmount(v))
		if err != nil || got != v {
			t.Errorf("%d: read back %d, %v", v, got, err)
		}
	}
	for _, s := range []string{"", "+5", " 5", "5 ", "5.0", "1e3", "0x10", "9223372036854775808", "--1"} {
		if _, err := ParseAmount(s); err == nil {
			t.Errorf("%q read as an amount", s)
		}
	}
}

// An empty state (no hold) and zero holds expired are answers; they must
// be written, not left out as empty values.
func TestZeroAnswersAreWritten(t *testing.T) {
	none, zero := "", 0
	for _, c := range []struct {
		res  Response
		want string
	}{
		{Response{ID: 3, State: &none}, `{"id":3,"state":""}`},
		{Response{ID: 4, Expired: &zero}, `{"id":4,"expired":0}`},
		{Response{ID: 0, OK: true, Client: "postgres-go"}, `{"id":0,"ok":true,"client":"postgres-go"}`},
		{Response{ID: 5, Posted: "0", HeldIn: "0", HeldOut: "0"}, `{"id":5,"posted":"0","held_in":"0","held_out":"0"}`},
	} {
		b, err := json.Marshal(c.res)
		if err != nil || string(b) != c.want {
			t.Errorf("got %s (%v), want %s", b, err, c.want)
		}
	}
}
