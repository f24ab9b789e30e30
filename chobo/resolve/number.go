package resolve

import (
	"math/big"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
)

// numberProblem says why a literal does not fit its unit.
type numberProblem int

const (
	numberOK numberProblem = iota
	tooManyDecimals
	outOfRange
)

var maxAmount = big.NewInt(book.MaxAmount)

// scaled converts a literal such as "-12.50" to an integer count of the
// unit's smallest step. The magnitude must stay within 2^63-1, the range
// of a PostgreSQL bigint, on either side of zero.
func scaled(text string, scale int) (int64, numberProblem) {
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimPrefix(text, "-")
	whole, frac, _ := strings.Cut(text, ".")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > scale {
		return 0, tooManyDecimals
	}
	digits := whole + frac + strings.Repeat("0", scale-len(frac))
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return 0, outOfRange
	}
	if n.Cmp(maxAmount) > 0 {
		return 0, outOfRange
	}
	v := n.Int64()
	if neg {
		v = -v
	}
	return v, numberOK
}
