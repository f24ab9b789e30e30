package check

import (
	"strings"
	"testing"
)

// TestAlwaysRefusedSaysForWhichAmounts: a move of a parameter passes with
// 0, so W102 says "above 0"; a move of a fixed amount is refused every
// time.
func TestAlwaysRefusedSaysForWhichAmounts(t *testing.T) {
	const head = "book b v1\nunit pcs\naccount stock : pcs\n  at least 0 refused as empty\naccount world : pcs outside\n"
	for _, tt := range []struct {
		name, transfer, en, ja string
	}{
		{"parameter", "transfer sell(id: string, qty: pcs)\n  key id\n  move qty from stock to world\n",
			"`sell` is always refused for any amount above 0 with empty", "`sell` は 0 より大きい額ではいつも empty で拒否されます"},
		{"literal", "transfer sell(id: string)\n  key id\n  move 1 from stock to world\n",
			"`sell` is always refused with empty", "`sell` はいつも empty で拒否されます"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := Check("t.book", []byte(head+tt.transfer))
			for _, d := range res.Diags {
				if d.Code != "W102" {
					continue
				}
				if !strings.HasPrefix(d.Message.En, tt.en) || !strings.HasPrefix(d.Message.Ja, tt.ja) {
					t.Errorf("%q / %q; want %q / %q", d.Message.En, d.Message.Ja, tt.en, tt.ja)
				}
				return
			}
			t.Fatalf("no W102 in %+v", res.Diags)
		})
	}
}
