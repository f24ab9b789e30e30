package model

import (
	"fmt"
	"strings"
)

// Set hands out the names a generator gives, in any language, and keeps
// them distinct: the second of two equal
// names gets _2, the third _3.
type Set struct{ used map[string]int }

// Unique returns name, or name with a suffix when it was handed out.
func (s *Set) Unique(name string) string {
	if s.used == nil {
		s.used = map[string]int{}
	}
	s.used[name]++
	if n := s.used[name]; n > 1 {
		name = fmt.Sprintf("%s_%d", name, n)
		s.used[name]++
	}
	return name
}

// Reserve marks names as taken without handing them out.
func (s *Set) Reserve(names ...string) {
	for _, n := range names {
		s.Unique(n)
	}
}

// Joined writes a book name as the start of an exported name in languages
// that spell types in CamelCase: the parts between underscores joined,
// each with its first letter raised when that is an ASCII letter
// (take_back -> TakeBack, 在庫 -> 在庫). Each language then makes what it
// cannot hold of the result fit its own rules.
func Joined(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part == "" {
			continue
		}
		if c := part[0]; c >= 'a' && c <= 'z' {
			b.WriteByte(c - 'a' + 'A')
			b.WriteString(part[1:])
		} else {
			b.WriteString(part)
		}
	}
	return b.String()
}
