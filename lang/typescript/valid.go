package typescript

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Valid reads a generated TypeScript file token by token: every comment
// and string closed on its line (or, for a block comment, at all), every
// bracket closed by its own kind, every identifier made of characters an
// identifier may hold, and nothing a client never writes (template
// literals, regular expressions outside the runtime). It is not a parser:
// clients_test.go compiles the clients of every test case with
// tsc; this is what the fuzzer can afford on every input.
func Valid(data []byte) error {
	src := string(data)
	if !utf8.ValidString(src) {
		return fmt.Errorf("not UTF-8")
	}
	// The runtime's text is chobo's own, compiled by its tests; only
	// the part written from the book is read here.
	if i := strings.Index(src, "\n"+RuntimeMarker); i >= 0 {
		src = src[:i]
	}
	var stack []rune
	line := 1
	for i := 0; i < len(src); {
		r, _ := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == '\n':
			line++
			i++
		case r == ' ' || r == '\t':
			i++
		case strings.HasPrefix(src[i:], "//"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			if strings.ContainsAny(src[i:i+end], "\r\u2028\u2029") {
				return fmt.Errorf("line %d: a line terminator inside a line comment", line)
			}
			i += end
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return fmt.Errorf("line %d: a block comment that does not end", line)
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += end + 4
		case r == '"' || r == '\'':
			j, err := stringEnd(src, i, r)
			if err != nil {
				return fmt.Errorf("line %d: %v", line, err)
			}
			i = j
		case r == '`':
			return fmt.Errorf("line %d: a template literal, which the generator never writes", line)
		case strings.ContainsRune("([{", r):
			stack = append(stack, r)
			i++
		case strings.ContainsRune(")]}", r):
			open := map[rune]rune{')': '(', ']': '[', '}': '{'}[r]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return fmt.Errorf("line %d: %c closes nothing it opened", line, r)
			}
			stack = stack[:len(stack)-1]
			i++
		case r >= '0' && r <= '9':
			for i < len(src) && (src[i] >= '0' && src[i] <= '9' || src[i] == 'n' || src[i] == '_' || src[i] == '.') {
				i++
			}
		case strings.ContainsRune(";,:.=<>|&?!+-*/%", r):
			i++
		default:
			j, err := identifierEnd(src, i, line)
			if err != nil {
				return err
			}
			i = j
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("%c is never closed", stack[len(stack)-1])
	}
	return nil
}

// identifierEnd returns where the identifier that starts at i, on line
// line, ends.
func identifierEnd(src string, i, line int) (int, error) {
	j := i
	for j < len(src) {
		c, m := utf8.DecodeRuneInString(src[j:])
		if c < utf8.RuneSelf && !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			break
		}
		if c >= utf8.RuneSelf && !Identifier("a"+string(c)) {
			break
		}
		j += m
	}
	if j == i || !Identifier(src[i:j]) {
		r, _ := utf8.DecodeRuneInString(src[i:])
		return 0, fmt.Errorf("line %d: %q cannot start a token", line, r)
	}
	return j, nil
}

// stringEnd returns where the string literal that starts at i ends.
func stringEnd(src string, i int, quote rune) (int, error) {
	for j := i + 1; j < len(src); {
		c, m := utf8.DecodeRuneInString(src[j:])
		switch {
		case c == quote:
			return j + 1, nil
		case c == '\\':
			if j+1 >= len(src) || src[j+1] == '\n' {
				return 0, fmt.Errorf("a string that goes on to the next line")
			}
			_, e := utf8.DecodeRuneInString(src[j+1:])
			j += 1 + e
			continue
		case c == '\n' || c == '\r' || c == '\u2028' || c == '\u2029':
			return 0, fmt.Errorf("a line terminator inside a string")
		}
		j += m
	}
	return 0, fmt.Errorf("a string that does not end")
}
