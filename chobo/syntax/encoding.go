package syntax

import (
	"bytes"
	"unicode/utf8"
)

// guessEncoding names the encoding src is most likely in, when it is one
// an editor in Japan saves by default and not UTF-8: "Shift_JIS",
// "EUC-JP" or "UTF-16". It returns "" for UTF-8, and for a UTF-8 file
// with a few bad bytes, whose lines are better reported one by one.
//
// The guess only has to tell these apart, not decode them: a byte order
// mark or NULs on every other byte are UTF-16; otherwise a file that is
// not UTF-8 and whose bytes all pair up as Shift_JIS or EUC-JP is taken
// for that.
func guessEncoding(src []byte) string {
	if bytes.HasPrefix(src, []byte{0xFF, 0xFE}) || bytes.HasPrefix(src, []byte{0xFE, 0xFF}) {
		return "UTF-16"
	}
	if utf8.Valid(src) && bytes.IndexByte(src, 0) < 0 {
		return ""
	}
	if utf16Shaped(src) {
		return "UTF-16"
	}
	valid, invalid := 0, 0
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			invalid++
		case n > 1:
			valid++
		}
		i += n
	}
	// A UTF-8 file with a byte gone wrong still has most of its
	// characters right; a file in another encoding has almost none.
	if invalid == 0 || valid >= invalid {
		return ""
	}
	if eucJP(src) {
		return "EUC-JP"
	}
	if shiftJIS(src) {
		return "Shift_JIS"
	}
	return ""
}

// utf16Shaped reports whether src looks like UTF-16 without a byte order
// mark: a book is largely keywords, spaces and newlines, which UTF-16
// writes with a NUL byte beside each, always on the same side. A sixteenth
// of the bytes is a line of keywords for every few lines of Japanese.
func utf16Shaped(src []byte) bool {
	var even, odd int
	for i, b := range src {
		if b == 0 {
			if i%2 == 0 {
				even++
			} else {
				odd++
			}
		}
	}
	hi, lo := max(even, odd), min(even, odd)
	// A NUL or two in a UTF-8 file is a mistake E001 points at; a book in
	// UTF-16 has one beside every keyword letter.
	return hi >= 16 && hi*16 >= len(src) && lo*10 <= hi
}

// shiftJIS reports whether every byte of src reads as Shift_JIS (with
// the vendor rows of Windows' code page 932): ASCII, half-width katakana,
// or a lead byte and a trail byte.
func shiftJIS(src []byte) bool {
	double := false
	for i := 0; i < len(src); i++ {
		b := src[i]
		switch {
		case b < 0x80 || (b >= 0xA1 && b <= 0xDF):
		case (b >= 0x81 && b <= 0x9F) || (b >= 0xE0 && b <= 0xFC):
			if i+1 >= len(src) {
				return false
			}
			t := src[i+1]
			if t < 0x40 || t == 0x7F || t > 0xFC {
				return false
			}
			i++
			double = true
		default:
			return false
		}
	}
	return double
}

// eucJP reports whether every byte of src reads as EUC-JP: ASCII, a pair
// of bytes from 0xA1 to 0xFE, a half-width katakana after 0x8E, or a
// supplementary character after 0x8F. Shift_JIS text puts its most common
// characters (kana, most kanji) on lead bytes from 0x81 to 0x9F, which
// EUC-JP never uses but for those two, so the two are seldom confused.
func eucJP(src []byte) bool {
	double := false
	pair := func(i int) bool {
		return i+1 < len(src) && src[i] >= 0xA1 && src[i] <= 0xFE && src[i+1] >= 0xA1 && src[i+1] <= 0xFE
	}
	for i := 0; i < len(src); i++ {
		b := src[i]
		switch {
		case b < 0x80:
		case b == 0x8E:
			if i+1 >= len(src) || src[i+1] < 0xA1 || src[i+1] > 0xDF {
				return false
			}
			i++
		case b == 0x8F:
			if !pair(i + 1) {
				return false
			}
			i += 2
		case pair(i):
			i++
			double = true
		default:
			return false
		}
	}
	return double
}
