package check

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check/checktest"
)

// bigBook writes a clean book of about n lines: units, bounded accounts
// and transfers that move between them, each line kind in proportion.
func bigBook(n int) []byte {
	var b bytes.Buffer
	b.WriteString("book big v1\nunit pcs\naccount world : pcs outside\n")
	for i := 0; b.Len() == 0 || bytes.Count(b.Bytes(), []byte("\n")) < n; i++ {
		fmt.Fprintf(&b, "account shelf_%d(sku: string) : pcs\n  description \"shelf %d\"\n  at least 0 refused as empty_%d\n  at most 1000 refused as full_%d\n", i, i, i, i)
		fmt.Fprintf(&b, "transfer fill_%d(delivery: string, sku: string, qty: pcs)\n  key delivery, sku\n  move qty from world to shelf_%d(sku)\n", i, i)
		fmt.Fprintf(&b, "transfer take_%d(order: string, sku: string, qty: pcs)\n  key order, sku\n  pending expires after 30 minutes\n  move qty from shelf_%d(sku) to world\n", i, i)
	}
	return b.Bytes()
}

func TestBigBookIsClean(t *testing.T) {
	res := Check("big.book", bigBook(500))
	if len(res.Diags) != 0 {
		t.Fatalf("the generated book is not clean: %+v", res.Diags[0])
	}
}

// BenchmarkCheck5000Lines checks a generated book of 5,000 lines.
func BenchmarkCheck5000Lines(b *testing.B) {
	src := bigBook(5000)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for range b.N {
		if res := Check("big.book", src); res.Book == nil {
			b.Fatal("not clean")
		}
	}
}

// TestHostileBooks checks every book of checktest.Hostile: the search's
// work is bounded, so each check ends; where it gave up, W109 says on
// what, and the report is still there. The shapes the search reasons its
// way through (moves back and forth that post at once; holds of up to
// 320 moves) are searched to the end.
func TestHostileBooks(t *testing.T) {
	searchedThrough := map[string]bool{
		"lines-5000": true, "shop-100": true,
		"alternating-80": true, "alternating-320": true, "alternating-2000": true,
		"swaps-80": true, "swaps-320": true, "swaps-2000": true,
		"alternating-held-80": true, "alternating-held-320": true,
		"swaps-held-80": true, "swaps-held-320": true, "swaps-held-2000": true,
	}
	for _, bk := range checktest.Hostile() {
		t.Run(bk.Name, func(t *testing.T) {
			res := Check(bk.Name+".book", bk.Src)
			if res.Book == nil || res.Report == nil {
				t.Fatalf("no book or no report: %+v", res.Diags)
			}
			var ranOut []string
			for _, d := range res.Diags {
				if d.Code == "W109" {
					ranOut = append(ranOut, d.Message.En)
				}
			}
			if searchedThrough[bk.Name] && len(ranOut) > 0 {
				t.Errorf("the search ran out: %q", ranOut)
			}
			if !searchedThrough[bk.Name] && len(ranOut) == 0 {
				t.Errorf("the search was expected to run out here, and did not: move the book into searchedThrough")
			}
		})
	}
}
