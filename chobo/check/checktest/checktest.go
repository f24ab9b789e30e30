// Package checktest writes books for the tests and benchmarks that hold
// chobo to its bounds on time: a long book of ordinary transfers, a
// hundred-line book of a small shop, and transfers of many moves that go
// back and forth between bounded accounts, the shapes that made the
// search for examples slow.
package checktest

import (
	_ "embed"
	"fmt"
	"strings"
)

// Book is a book with the name a benchmark reports it under.
type Book struct {
	Name string
	Src  []byte
	// Seed marks the books small enough to seed a fuzz target, whose
	// seeds run in every `go test`.
	Seed bool
}

//go:embed shop.book
var shop []byte

// Shop is a book of about a hundred lines: stock, money and points, with
// holds, literal amounts and warnings of its own.
func Shop() []byte { return shop }

// group is how many lines one group of Lines takes.
const group = 21

// Lines writes a book of at least n lines: groups of two bounded account
// kinds with four transfers between them and the world, one of them a
// hold.
func Lines(n int) []byte {
	var b strings.Builder
	b.WriteString("book big v1\nunit pcs\naccount world : pcs outside\n")
	for i, lines := 0, 3; lines < n; i, lines = i+1, lines+group {
		fmt.Fprintf(&b, `
account shelf_%[1]d(sku: string) : pcs
  at least 0 refused as empty_%[1]d
  at most 1000 refused as full_%[1]d
account bin_%[1]d(place: string) : pcs
  at least 1 refused as bin_low_%[1]d
  at most 50 refused as bin_full_%[1]d
transfer fill_%[1]d(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to shelf_%[1]d(sku)
transfer stock_bin_%[1]d(slip: string, place: string, qty: pcs)
  key slip
  move qty from world to bin_%[1]d(place)
transfer relocate_%[1]d(slip: string, sku: string, place: string, qty: pcs)
  key slip
  move qty from shelf_%[1]d(sku) to bin_%[1]d(place)
transfer move_back_%[1]d(slip: string, sku: string, place: string, qty: pcs)
  key slip
  pending expires after 1 hours
  move qty from bin_%[1]d(place) to shelf_%[1]d(sku)
`, i)
	}
	return []byte(b.String())
}

// Alternating writes a book whose transfer shuffle has n moves (n even)
// that take from the bounded account a and put back into it in turn; a
// second transfer fills a. held makes shuffle a hold.
func Alternating(n int, held bool) []byte {
	head := "book alternating v1\nunit pcs\naccount a : pcs\n  at least 0 refused as a_short\naccount world : pcs outside\n" +
		"transfer fill(id: string, n: pcs)\n  key id\n  move n from world to a\n" +
		"transfer shuffle(id: string, n: pcs)\n  key id\n"
	return transfer(head, held, n/2, "  move n from a to world\n  move n from world to a\n")
}

// transfer ends head, which opens a transfer, with a pending line when
// held and then pair, times times.
func transfer(head string, held bool, times int, pair string) []byte {
	var b strings.Builder
	b.WriteString(head)
	if held {
		b.WriteString("  pending expires after 1 hours\n")
	}
	b.WriteString(strings.Repeat(pair, times))
	return []byte(b.String())
}

// Swaps writes a book whose transfer swap has n moves (n even) between
// two bounded accounts, a (at least 1) and b (at least -5), from a to b
// and back in turn. Nothing puts into either from outside, so swap is
// never done, and finding that out is the search's work. held makes swap
// a hold.
func Swaps(n int, held bool) []byte {
	head := "book swaps v1\nunit pcs\naccount a : pcs\n  at least 1 refused as a_low\naccount b : pcs\n  at least -5 refused as b_low\n" +
		"transfer swap(id: string, n: pcs)\n  key id\n"
	return transfer(head, held, n/2, "  move n from a to b\n  move n from b to a\n")
}

// Hostile lists the books a command must get through quickly: the long
// book, the shop, and both shapes of 80, 320 and 2,000 moves, as a post
// at once and as a hold.
func Hostile() []Book {
	out := []Book{{Name: "lines-5000", Src: Lines(5000)}, {Name: "shop-100", Src: Shop(), Seed: true}}
	for _, held := range []bool{false, true} {
		for _, n := range []int{80, 320, 2000} {
			name := fmt.Sprint(n)
			if held {
				name = "held-" + name
			}
			out = append(out,
				Book{Name: "alternating-" + name, Src: Alternating(n, held), Seed: n < 2000},
				Book{Name: "swaps-" + name, Src: Swaps(n, held), Seed: n < 2000})
		}
	}
	return out
}
