package book

// The most text a call may carry, the same on every backend and in the
// reference interpreter. A key and its tenant are stored in an index of
// PostgreSQL's, whose rows hold about 2.7 kB at the most; these leave
// room for the rest of such a row. The Go runtime has the same numbers
// (runtime/go/chobo), and a test holds them together.
const (
	// MaxTenant is the most bytes of UTF-8 a tenant has.
	MaxTenant = 256
	// MaxTexts is the most bytes the text values of one call take
	// together: the UTF-8 of each, and TextOverhead more for each value.
	MaxTexts     = 2048
	TextOverhead = 8
)

// TextsSize is what text values take, as MaxTexts counts.
func TextsSize(values ...string) int {
	n := 0
	for _, v := range values {
		n += len(v) + TextOverhead
	}
	return n
}
