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

// Owner is what of a book a generated name stands for: a transfer kind,
// an account kind, or a parameter of one (Of names the transfer or
// account it belongs to). What says which of its names it is, in English
// and Japanese ("type", "型"), for messages.
type Owner struct {
	Kind         string // "transfer", "account" or "parameter"
	Name         string // as the book writes it
	Of           string // for a parameter: the transfer or account kind
	What, WhatJa string
}

// Collision is one generated name that two things of a book would both
// take. A generator would have to tell them apart by the order they are
// declared in, and a name would then move to another transfer or account
// when a declaration is added above it; the target refuses the book
// instead (E062).
//
// It is also a name of one thing that the language cannot hold as the
// book writes it, because the language would read it as another name
// (a language that reads names in NFKC reads `ｉｆ` as the keyword
// `if`): Second is then the zero Owner. Either way the book is refused
// rather than given a name its reader would not recognise.
type Collision struct {
	Language string // the language as its users write its name ("Go")
	Name     string
	First    Owner
	Second   Owner
	// Why says what of the language makes the two one name, or the one
	// name unusable, when that is more than both being spelled the same
	// (where names are read in NFKC, `ｑｔｙ` is `qty`); "" when it is not.
	Why, WhyJa string
}

// Alone reports whether the collision is one thing's name that the
// language cannot hold, rather than a name two things take.
func (c Collision) Alone() bool { return c.Second == Owner{} }

// Claims records who takes each name of one namespace, and which names
// two of a book's things take.
type Claims struct {
	Language   string
	by         map[string]Owner
	Collisions []Collision
}

// Claim gives name to o; a name that another owner has already is a
// collision.
func (c *Claims) Claim(name string, o Owner) {
	if c.by == nil {
		c.by = map[string]Owner{}
	}
	if prev, ok := c.by[name]; ok {
		c.Collisions = append(c.Collisions, Collision{Language: c.Language, Name: name, First: prev, Second: o})
		return
	}
	c.by[name] = o
}
