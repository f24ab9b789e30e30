package chobopg

import (
	"crypto/rand"
	"encoding/hex"
)

// Every operation (do, hold, post, void) and every expire() is sent with
// an id of its own as its last value, made once for the call and sent
// unchanged with each sending of it: after a lost connection, a retryable
// failure, or a Bulk's call going again alone. The book's function keeps
// the id with the key the call writes, so that a sending that finds its
// own id there answers what the first sending answered (done, or the
// refusal with its reason) rather than done_before or already_refused,
// which stay the answer to another call with the same key. A new call,
// with the same arguments or not, gets a new id.

// NewCallID makes the id of one call: a random UUID, version 4, in its
// lowercase text form, which the statements cast to uuid, so that it goes
// as text like every other value. A program that calls the book's
// functions with statements of its own makes one per call with it and
// sends that one again with every sending of the call.
func NewCallID() string {
	var b [16]byte
	rand.Read(b[:])         // never fails: crypto/rand crashes the program instead
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // the variant of RFC 9562
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}
