package postgres

import (
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
)

// idPart is one part of an id: a constant known when the SQL is
// written, or a text expression known only at the call.
type idPart struct {
	text string // the constant, when expr is ""
	expr string // a SQL text expression
}

func constPart(s string) idPart { return idPart{text: s} }
func exprPart(e string) idPart  { return idPart{expr: e} }

// idCall is the call of the book's chobo_id that gives the id of parts.
func idCall(b *book.Book, parts []idPart) string {
	args := make([]string, len(parts))
	for i, p := range parts {
		args[i] = p.expr
		if p.expr == "" {
			args[i] = Lit(p.text)
		}
	}
	return Ident(b.Name) + ".chobo_id(array[" + strings.Join(args, ", ") + "])"
}

// The two hashes chobo_id moves aside, and where it moves them.
const (
	idZero = `'\x00000000000000000000000000000000'::bytea`
	idOne  = `'\x00000000000000000000000000000001'::bytea`
	idFF   = `'\xffffffffffffffffffffffffffffffff'::bytea`
	idFE   = `'\xfffffffffffffffffffffffffffffffe'::bytea`
)

// inlineID is the SQL of the id chobo_id gives for parts, written out as
// one expression: the length-prefixed bytes of each run of constant
// parts are one bytea literal, a text part is converted at the call, and
// the two hashes chobo_id moves aside are moved with nullif and coalesce
// (so the hash is worked out once). A call of chobo_id, a PL/pgSQL
// function with a loop, cost a measurable part of a short operation; this
// costs one expression.
func inlineID(parts []idPart) string {
	var terms []string
	var run []byte
	flush := func() {
		if len(run) > 0 {
			terms = append(terms, `'\x`+hex.EncodeToString(run)+`'::bytea`)
			run = nil
		}
	}
	add := func(s string) {
		run = binary.BigEndian.AppendUint32(run, uint32(len(s)))
		run = append(run, s...)
	}
	add("chobo/1")
	for _, p := range parts {
		if p.expr == "" {
			add(p.text)
			continue
		}
		flush()
		u := "convert_to(" + p.expr + ", 'UTF8')"
		terms = append(terms, "int4send(octet_length("+u+")) || "+u)
	}
	flush()
	return "encode(" + movedAside("substring(sha256("+strings.Join(terms, " || ")+") from 1 for 16)") + ", 'hex')::uuid"
}

// movedAside is the bytea expression h with the two values chobo_id
// moves aside moved, h written once.
func movedAside(h string) string {
	return "coalesce(nullif(coalesce(nullif(" + h + ", " + idZero + "), " + idOne + "), " + idFF + "), " + idFE + ")"
}
