// Package chobo is the part of every generated Go client of a chobo book
// that does not depend on the book or the backend: how an operation
// ends, where a hold stands, what an account holds, and the marker that
// ties generated code to this version of the runtime.
//
// Generated clients import it; a program that only calls a client needs
// nothing from it beyond the names the client re-exports.
package chobo

import (
	"fmt"
	"unicode/utf8"
)

// SupportPackageIsVersion1 is named by every client generated for version
// 1 of this runtime. A client generated for another version names another
// constant and so stops at compile time, with "undefined:
// chobo.SupportPackageIsVersionN", instead of misbehaving at run time.
// The fix is to generate the client again with the chobo of this module,
// or to require the module version the client was generated for.
const SupportPackageIsVersion1 = true

// Version is the version of this runtime, the N of SupportPackageIsVersionN.
const Version = 1

// Outcome is how an operation ended.
type Outcome string

const (
	// Done: the operation took effect now.
	Done Outcome = "done"
	// DoneBefore: the same call, with the same key and content, took effect
	// before; nothing changed now.
	DoneBefore Outcome = "done_before"
	// Refused: nothing changed; the Result's Reason says why.
	Refused Outcome = "refused"
)

// ParseOutcome reads an outcome as a backend writes it.
func ParseOutcome(s string) (Outcome, error) {
	switch o := Outcome(s); o {
	case Done, DoneBefore, Refused:
		return o, nil
	}
	return "", fmt.Errorf("chobo: unknown outcome %q", s)
}

// Result is the answer to an operation. A refusal is an answer, not an
// error: an error means the call could not be made or its answer not read.
type Result struct {
	Outcome Outcome
	Reason  string // set when Outcome is Refused
	// Resent says the answer is that of the call sent again, with the same
	// arguments and call id, after its connection was lost while it was
	// out. The server answers such a sending with what the first one
	// answered when that one was applied (done, or the refusal with its
	// reason), so the answer is the call's whichever sending applied it; a
	// done_before says another call with the same key came first.
	Resent bool
}

// String writes a result as chobo's tools do: done, done_before, or
// refused(reason).
func (r Result) String() string {
	if r.Outcome == Refused {
		return "refused(" + r.Reason + ")"
	}
	return string(r.Outcome)
}

// HoldState is where a hold stands. The zero value means there is no hold.
type HoldState string

const (
	Held    HoldState = "held"
	Posted  HoldState = "posted"
	Voided  HoldState = "voided"
	Expired HoldState = "expired"
)

// ParseHoldState reads a hold state as a backend writes it; "" is no hold.
func ParseHoldState(s string) (HoldState, error) {
	switch h := HoldState(s); h {
	case "", Held, Posted, Voided, Expired:
		return h, nil
	}
	return "", fmt.Errorf("chobo: unknown hold state %q", s)
}

// Balance is what an account holds, in the smallest step of its unit:
// posted, held on the way in, held on the way out.
type Balance struct {
	Posted  int64
	HeldIn  int64
	HeldOut int64
}

// AmountError is a negative amount, refused before anything is sent.
type AmountError struct {
	Name  string // the amount's parameter in the book
	Value int64
}

func (e *AmountError) Error() string {
	return fmt.Sprintf("chobo: the amount %s is %d; amounts run from 0 to 9223372036854775807", e.Name, e.Value)
}

// CheckAmount returns an *AmountError when v is negative.
func CheckAmount(name string, v int64) error {
	if v < 0 {
		return &AmountError{Name: name, Value: v}
	}
	return nil
}

// TextError is a string argument that no backend can store, refused
// before anything is sent: text that is not valid UTF-8, or that holds a
// NUL character (U+0000). PostgreSQL's text type holds neither, so the
// rule is the same on every backend and in the reference interpreter.
type TextError struct {
	Name   string // the string's parameter in the book
	Value  string
	Offset int  // the byte of Value where the problem starts
	NUL    bool // a NUL character; otherwise a byte that is not UTF-8
}

func (e *TextError) Error() string {
	if e.NUL {
		return fmt.Sprintf("chobo: the value of %s holds a NUL character (U+0000) at byte %d; strings are UTF-8 text without NUL", e.Name, e.Offset)
	}
	return fmt.Sprintf("chobo: the value of %s is not valid UTF-8 (byte %d is 0x%02x); strings are UTF-8 text without NUL", e.Name, e.Offset, e.Value[e.Offset])
}

// CheckText returns a *TextError when v is not valid UTF-8 or holds a NUL
// character; the first problem in v is the one reported.
func CheckText(name, v string) error {
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRuneInString(v[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return &TextError{Name: name, Value: v, Offset: i}
		case r == 0:
			return &TextError{Name: name, Value: v, Offset: i, NUL: true}
		}
		i += n
	}
	return nil
}

// The most text a call may carry, the same on every backend and in the
// reference interpreter, refused before anything is sent or written. A
// key and its tenant are stored in an index of PostgreSQL's, whose rows
// hold about 2.7 kB at the most; these leave room for the rest of a row.
const (
	// MaxTenant is the most bytes of UTF-8 a tenant has.
	MaxTenant = 256
	// MaxTexts is the most bytes the text values of one call take
	// together: the UTF-8 of each, and TextOverhead more for each value.
	MaxTexts     = 2048
	TextOverhead = 8
)

// SizeError is a tenant, or the text values of one call, longer than
// every backend takes.
type SizeError struct {
	Tenant bool // the tenant; otherwise the text values together
	Size   int  // in bytes, as the limit counts them
}

func (e *SizeError) Error() string {
	if e.Tenant {
		return fmt.Sprintf("chobo: the tenant is %d bytes; a tenant is at most %d bytes of UTF-8", e.Size, MaxTenant)
	}
	return fmt.Sprintf("chobo: the text values of the call take %d bytes; they take at most %d together, each counted with %d bytes more than its UTF-8", e.Size, MaxTexts, TextOverhead)
}

// TextsSize is what the text values of one call take, as MaxTexts counts.
func TextsSize(values ...string) int {
	n := 0
	for _, v := range values {
		n += len(v) + TextOverhead
	}
	return n
}

// CheckSize returns a *SizeError when the tenant or the text values of a
// call are longer than every backend takes.
func CheckSize(tenant string, values ...string) error {
	if len(tenant) > MaxTenant {
		return &SizeError{Tenant: true, Size: len(tenant)}
	}
	if n := TextsSize(values...); n > MaxTexts {
		return &SizeError{Size: n}
	}
	return nil
}
