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
// backslashes that join lines). It is not a parser: clients_test.go
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
	s := &scanner{src: src, indents: []int{0}, line: 1, lineStart: true}
	for i := 0; i < len(src); {
		var err error
		if s.lineStart && len(s.stack) == 0 {
			i, err = s.indent(i)
		} else {
			i, err = s.token(i)
		}
		if err != nil {
			return err
		}
	}
	if len(s.stack) > 0 {
		return fmt.Errorf("%c is never closed", s.stack[len(s.stack)-1])
	}
	if s.expectIndent {
		return fmt.Errorf("the file ends where a block should start")
	}
	return nil
}

// scanner is where Valid is in the file: the brackets open, the indents
// of the blocks open, the line, whether the next line must open a block,
// and the last token of the logical line so far.
type scanner struct {
	src          string
	stack        []rune
	indents      []int
	line         int
	lineStart    bool
	expectIndent bool
	last         string
}

// indent reads the spaces that start a line outside brackets at i: a
// line with a token on it opens a block where a colon asked for one, or
// goes back to a level a block opened before.
func (s *scanner) indent(i int) (int, error) {
	j := i
	for j < len(s.src) && s.src[j] == ' ' {
		j++
	}
	s.lineStart = false
	if j == len(s.src) || s.src[j] == '\n' || s.src[j] == '#' {
		return j, nil
	}
	n, top := j-i, s.indents[len(s.indents)-1]
	switch {
	case n > top && !s.expectIndent:
		return 0, fmt.Errorf("line %d: an indent no colon opened", s.line)
	case n > top:
		s.indents = append(s.indents, n)
	case s.expectIndent:
		return 0, fmt.Errorf("line %d: a block that is not indented", s.line)
	default:
		for n < s.indents[len(s.indents)-1] {
			s.indents = s.indents[:len(s.indents)-1]
		}
		if n != s.indents[len(s.indents)-1] {
			return 0, fmt.Errorf("line %d: a dedent to no level opened before", s.line)
		}
	}
	s.expectIndent = false
	return j, nil
}

// token reads the token at i and returns where the next one may start.
func (s *scanner) token(i int) (int, error) {
	src := s.src
	r, _ := utf8.DecodeRuneInString(src[i:])
	switch {
	case r == '\n':
		s.line++
		if len(s.stack) == 0 {
			// A blank or comment line leaves the colon's block to come.
			if s.last != "" {
				s.expectIndent = s.last == ":"
			}
			s.lineStart, s.last = true, ""
		}
		return i + 1, nil
	case r == ' ':
		return i + 1, nil
	case r == '#':
		for i < len(src) && src[i] != '\n' {
			i++
		}
		return i, nil
	case r == '"' || r == '\'':
		return s.str(i)
	case strings.ContainsRune("([{", r):
		s.stack, s.last = append(s.stack, r), string(r)
		return i + 1, nil
	case strings.ContainsRune(")]}", r):
		open := map[rune]rune{')': '(', ']': '[', '}': '{'}[r]
		if len(s.stack) == 0 || s.stack[len(s.stack)-1] != open {
			return 0, fmt.Errorf("line %d: %c closes nothing it opened", s.line, r)
		}
		s.stack, s.last = s.stack[:len(s.stack)-1], string(r)
		return i + 1, nil
	case r >= '0' && r <= '9' || r == '-' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
		i++ // a digit, or the sign of a negative amount or index in the definition
		for i < len(src) && (src[i] >= '0' && src[i] <= '9' || src[i] == '_') {
			i++
		}
		s.last = "number"
		return i, nil
	case r == '-' && strings.HasPrefix(src[i:], "->"):
		s.last = "->"
		return i + 2, nil
	case strings.ContainsRune(",:.=*|@/", r): // a lone / ends the positional-only parameters of a def
		s.last = string(r)
		return i + 1, nil
	}
	return s.word(i, r)
}

// str reads the string literal that starts at i.
func (s *scanner) str(i int) (int, error) {
	j, lines, err := stringEnd(s.src, i)
	if err != nil {
		return 0, fmt.Errorf("line %d: %v", s.line, err)
	}
	s.line, s.last = s.line+lines, "string"
	return j, nil
}

// word reads the identifier that starts at i with r, or the f-string it
// prefixes.
func (s *scanner) word(i int, r rune) (int, error) {
	src := s.src
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
		return 0, fmt.Errorf("line %d: %q cannot start a token", s.line, r)
	}
	if !norm.NFKC.IsNormalString(word) {
		return 0, fmt.Errorf("line %d: the identifier %q is not in the NFKC form Python reads it in", s.line, word)
	}
	if word == "f" && j < len(src) && (src[j] == '"' || src[j] == '\'') {
		return s.str(j)
	}
	s.last = word
	return j, nil
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
