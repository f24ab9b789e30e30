package python

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Valid reads a generated Python file token by token: every string
// and comment closed on its line (or, for a triple-quoted string, at
// all) with only the escapes the generator writes, every bracket closed
// by its own kind, every block indented by spaces after a line ending in
// a colon and every dedent back to a level the file opened, every
// identifier an identifier already in the NFKC form Python reads it in,
// and nothing a client never writes (tabs, carriage returns, semicolons,
// backslashes that join lines). It is not a parser: tests/python_test.go
// compiles and type-checks the clients of every test case; this is what
// the fuzzer of the registry of targets (chobo/target) can afford on
// every input, which it finds as the Language's Valid.
func Valid(data []byte) error {
	src := string(data)
	if !utf8.ValidString(src) {
		return fmt.Errorf("not UTF-8")
	}
	// The runtime's text is chobo's own, checked by its tests; only the
	// part written from the book is read here.
	if i := strings.Index(src, "\n"+RuntimeMarker); i >= 0 {
		src = src[:i+1]
	}
	if i := strings.IndexAny(src, "\r\t\f\x00\v"); i >= 0 {
		return fmt.Errorf("line %d: a %q, which the generator never writes", strings.Count(src[:i], "\n")+1, src[i])
	}
	var (
		stack        []rune
		indents      = []int{0}
		line         = 1
		lineStart    = true
		expectIndent bool
		last         string // the last token of the logical line so far
	)
	for i := 0; i < len(src); {
		if lineStart && len(stack) == 0 {
			j := i
			for j < len(src) && src[j] == ' ' {
				j++
			}
			lineStart = false
			if j < len(src) && src[j] != '\n' && src[j] != '#' {
				n, top := j-i, indents[len(indents)-1]
				switch {
				case n > top && !expectIndent:
					return fmt.Errorf("line %d: an indent no colon opened", line)
				case n > top:
					indents = append(indents, n)
				case expectIndent:
					return fmt.Errorf("line %d: a block that is not indented", line)
				default:
					for n < indents[len(indents)-1] {
						indents = indents[:len(indents)-1]
					}
					if n != indents[len(indents)-1] {
						return fmt.Errorf("line %d: a dedent to no level opened before", line)
					}
				}
				expectIndent = false
			}
			i = j
			continue
		}
		r, _ := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == '\n':
			line++
			i++
			if len(stack) == 0 {
				// A blank or comment line leaves the colon's block to come.
				if last != "" {
					expectIndent = last == ":"
				}
				lineStart, last = true, ""
			}
		case r == ' ':
			i++
		case r == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case r == '"' || r == '\'':
			j, lines, err := stringEnd(src, i)
			if err != nil {
				return fmt.Errorf("line %d: %v", line, err)
			}
			i, line, last = j, line+lines, "string"
		case strings.ContainsRune("([{", r):
			stack = append(stack, r)
			i++
			last = string(r)
		case strings.ContainsRune(")]}", r):
			open := map[rune]rune{')': '(', ']': '[', '}': '{'}[r]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return fmt.Errorf("line %d: %c closes nothing it opened", line, r)
			}
			stack = stack[:len(stack)-1]
			i++
			last = string(r)
		case r >= '0' && r <= '9' || r == '-' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			i++ // a digit, or the sign of a negative amount or index in the definition
			for i < len(src) && (src[i] >= '0' && src[i] <= '9' || src[i] == '_') {
				i++
			}
			last = "number"
		case r == '-' && strings.HasPrefix(src[i:], "->"):
			i += 2
			last = "->"
		case strings.ContainsRune(",:.=*|@/", r): // a lone / ends the positional-only parameters of a def
			i++
			last = string(r)
		default:
			j := i
			for j < len(src) {
				c, m := utf8.DecodeRuneInString(src[j:])
				if c < utf8.RuneSelf && !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
					break
				}
				if c >= utf8.RuneSelf && !Identifier("a"+string(c)) {
					break
				}
				j += m
			}
			word := src[i:j]
			if j == i || !Identifier(word) {
				return fmt.Errorf("line %d: %q cannot start a token", line, r)
			}
			if !norm.NFKC.IsNormalString(word) {
				return fmt.Errorf("line %d: the identifier %q is not in the NFKC form Python reads it in", line, word)
			}
			if word == "f" && j < len(src) && (src[j] == '"' || src[j] == '\'') {
				j, lines, err := stringEnd(src, j)
				if err != nil {
					return fmt.Errorf("line %d: %v", line, err)
				}
				i, line, last = j, line+lines, "string"
				continue
			}
			i, last = j, word
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("%c is never closed", stack[len(stack)-1])
	}
	if expectIndent {
		return fmt.Errorf("the file ends where a block should start")
	}
	return nil
}

// stringEnd returns where the string literal that starts at i ends, and
// how many line breaks a triple-quoted one spans.
func stringEnd(src string, i int) (int, int, error) {
	q := src[i : i+1]
	delim := q
	if strings.HasPrefix(src[i:], q+q+q) {
		delim = q + q + q
	}
	lines := 0
	for j := i + len(delim); j < len(src); {
		switch {
		case strings.HasPrefix(src[j:], delim):
			return j + len(delim), lines, nil
		case src[j] == '\\':
			if j+1 >= len(src) {
				return 0, 0, fmt.Errorf("a string that does not end")
			}
			switch e := src[j+1]; e {
			case '\\', '\'', '"', 'n', 'r', 't':
				j += 2
			case 'x', 'u':
				n := map[byte]int{'x': 2, 'u': 4}[e]
				if j+2+n > len(src) || strings.Trim(src[j+2:j+2+n], "0123456789abcdefABCDEF") != "" {
					return 0, 0, fmt.Errorf("a \\%c escape without %d hex digits", e, n)
				}
				j += 2 + n
			default:
				return 0, 0, fmt.Errorf("the escape \\%c, which the generator never writes", e)
			}
		case src[j] == '\n':
			if len(delim) == 1 {
				return 0, 0, fmt.Errorf("a line break inside a string")
			}
			lines++
			j++
		default:
			j++
		}
	}
	return 0, 0, fmt.Errorf("a string that does not end")
}
