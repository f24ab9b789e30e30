// Package ids derives the identifiers chobo gives accounts, holds and
// transfers, the same in every backend and every language: a key (book,
// tenant, kind, key values…) always maps to the same 128-bit number, so a
// retry from any client names the same transfer.
//
// id = first 16 bytes, big-endian, of
//
//	SHA-256(enc("chobo/1") ‖ enc(role) ‖ enc(part 1) ‖ enc(part 2) ‖ …)
//	enc(s) = len(UTF-8 of s) as a big-endian uint32 ‖ UTF-8 of s
//
// The length prefix keeps ("a:b", "c") and ("a", "b:c") apart. Zero and
// 2^128-1 are not valid TigerBeetle ids; they become 1 and 2^128-2.
package ids

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
)

// Version is the first part of every hash; changing the scheme changes it.
const Version = "chobo/1"

// ID is a 128-bit identifier, big-endian.
type ID [16]byte

// Hex writes the id as 32 lowercase hex digits.
func (id ID) Hex() string { return hex.EncodeToString(id[:]) }

// UUID writes the id in the form PostgreSQL's uuid type reads.
func (id ID) UUID() string {
	h := id.Hex()
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// digest hashes the role and parts as the scheme says. The message is
// laid out in one buffer (on the stack when it is short, as ids mostly
// are) and hashed at once: a client computes several ids per call.
func digest(role string, parts ...string) [32]byte {
	return digestOf(role, parts)
}

// digestOf is digest of the parts of every group in turn: the callers that
// join fixed parts to a list hash them without building the joined list.
func digestOf(role string, groups ...[]string) [32]byte {
	var stack [512]byte
	b := stack[:0]
	b = enc(enc(b, Version), role)
	for _, g := range groups {
		for _, s := range g {
			b = enc(b, s)
		}
	}
	return sha256.Sum256(b)
}

// enc appends s with its length before it.
func enc(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// Sum returns the id for a role and its parts.
func Sum(role string, parts ...string) ID {
	return idOf(digest(role, parts...))
}

// idOf is the id of a digest: its first 16 bytes, kept off the two values
// TigerBeetle reserves.
func idOf(d [32]byte) ID {
	var id ID
	copy(id[:], d[:16])
	switch id {
	case ID{}:
		id[15] = 1
	case ID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}:
		id[15] = 0xfe
	}
	return id
}

// Account identifies one account: book, tenant, kind, argument values in
// declaration order. The book's version is not part of it, so accounts
// carry on from v1 to v2.
func Account(book, tenant, kind string, args ...string) ID {
	return idOf(digestOf("account", []string{book, tenant, kind}, args))
}

// Transfer identifies the transfer at position pos of the chain an
// operation sends; position 0 is the hold itself, which is also the id of
// the hold in PostgreSQL.
func Transfer(book, tenant, kind, op string, key []string, pos int) ID {
	return idOf(digestOf("transfer", []string{book, tenant, kind, op}, key, []string{strconv.Itoa(pos)}))
}

// Floor and Room identify the helper accounts that carry a lower and an
// upper bound of an account in TigerBeetle.
func Floor(account ID) ID { return Sum("floor", account.Hex()) }

// Room: see Floor.
func Room(account ID) ID { return Sum("room", account.Hex()) }

// Shortfall identifies the account that records what a floor or room
// owes: how far a narrowed bound left its account outside.
func Shortfall(helper ID) ID { return Sum("shortfall", helper.Hex()) }

// Sink identifies the account of a unit that helper transfers balance
// against.
func Sink(book, tenant, unit string) ID { return Sum("sink", book, tenant, unit) }

// Opening identifies the transfer that opens a floor or room account.
func Opening(helper ID) ID { return Sum("opening", helper.Hex()) }

// Never identifies a transfer chobo never makes. The key guard of a do or
// hold voids it: a void of a transfer that is not there is refused, which
// uses up the guard's id whenever the guard is reached at all.
func Never() ID { return Sum("never") }

// Kind is what an account of a kind carries to say which kind it is.
func Kind(book, tenant, kind string) ID { return Sum("kind", book, tenant, kind) }

// Content hashes what a key is compared on, together with the hash of the
// transfer's definition, so that a retry after the book changed is a
// conflict rather than a silent mix of old and new.
func Content(book, tenant, kind, op, definition, content string) ID {
	return Sum("content", book, tenant, kind, op, definition, content)
}

// Ledger is the 32-bit ledger of a unit: the first 4 bytes of its hash,
// 1 when they are all zero.
func Ledger(unit string, scale int) uint32 {
	d := digest("ledger", unit, strconv.Itoa(scale))
	v := binary.BigEndian.Uint32(d[:4])
	if v == 0 {
		v = 1
	}
	return v
}

// Code is the 16-bit code of an account kind, a transfer kind or a sink
// (category "account", "transfer" or "sink"): the first 2 bytes of its
// hash, 1 when both are zero.
func Code(book, category, name string) uint16 {
	d := digest("code", book, category, name)
	v := binary.BigEndian.Uint16(d[:2])
	if v == 0 {
		v = 1
	}
	return v
}
