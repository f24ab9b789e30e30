// Package protocol holds the messages of the driver protocol: how the
// conformance runner drives a client of a book, in whatever language,
// through a process that reads one JSON request per line on stdin and
// writes one JSON answer per line on stdout. docs/formats.md ("Driver
// protocol") is the description drivers in other languages are written
// from; these types are the Go side of it, shared by the runner
// (conformance.Process) and the Go driver (lang/go/driver).
package protocol

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// The values of Request.Op.
const (
	Open    = "open"
	Call    = "call"
	Expire  = "expire"
	Balance = "balance"
	// Bulk sends Calls through the client's bulk call, all at once, for
	// the request's Tenant; the answer's Answers are theirs, in order.
	Bulk = "bulk"
	// The history reads: an account's statement, the entries of one call
	// (the key by parameter name in Args), the open holds (of an account,
	// a transfer kind, both or neither) and an account's balance at a
	// time. Times are RFC 3339 with nanoseconds, in UTC.
	Statement = "statement"
	Entries   = "entries"
	Holds     = "holds"
	BalanceAt = "balance_at"
	// Bench times Times calls of one operation, sent one after another,
	// each its own key: Args give the values, the one of KeyParam with
	// "-" and the call's number after it. The driver makes every call's
	// values before it starts the clock, and answers Nanos, the time the
	// calls took. With SQL, a PostgreSQL driver sends that statement (the
	// client's own) through its database library instead of calling the
	// client, as the client sends it (unnamed, parsed at every call): the
	// tenant, the values of Params in that order (amounts as integers)
	// and a new call id; with Prepared too, prepared once on its
	// connection. With Raw, a TigerBeetle driver sends Times requests of
	// one transfer each through the official client itself, between two
	// accounts it makes first. The figures are a benchmark's, read
	// against each other (docs/performance.md); the conformance runner
	// never sends this.
	Bench = "bench"
)

// Request is one line the runner writes. Which fields are set depends on
// Op; a field left out is its zero value (a missing tenant is the empty
// tenant).
type Request struct {
	ID int64  `json:"id"`
	Op string `json:"op"`

	// open
	Book string `json:"book,omitempty"` // path of the .book file
	// Target is the chobo build target of the client driven; the driver
	// answers it back as Response.Client.
	Target string `json:"target,omitempty"`
	// Names is the target's entry under "targets" in `chobo api` for the
	// book: the names the client gives the book's parts, which is all a
	// driver needs to call it without reading the book.
	Names json.RawMessage `json:"names,omitempty"`
	DSN   string          `json:"dsn,omitempty"` // libpq connection string
	// TigerBeetle is where a TigerBeetle client's driver finds TigerBeetle:
	// a replica's address (host:port), a cluster's (its replicas'
	// addresses joined by commas), or another address its Dial knows.
	TigerBeetle string `json:"tigerbeetle,omitempty"`
	// HoldSeconds, when above 0, is the timeout a TigerBeetle driver sends
	// with every hold that expires, in place of the book's: TigerBeetle
	// counts a hold's life from the timeout it is sent, and the runner
	// cannot shorten what a driver sends to a replica it dials itself.
	HoldSeconds int `json:"hold_seconds,omitempty"`
	// TimeoutMS, when above 0, is how long a TigerBeetle driver's client
	// waits for an answer, in place of its default of 30 s: the client's
	// own option (timeoutMs, timeout_ms), or in Go the deadline of each
	// call's context. A test that stops replicas sets it, so that calls
	// meet the timeout and are sent again.
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// RequestEvents, when above 0, is how many events a TigerBeetle
	// driver's client puts in one request, in place of its default of
	// 253: the client's own setting (RequestEvents, requestEvents,
	// request_events). A test on a cluster started without --development
	// sets the cluster's 8,189.
	RequestEvents int `json:"request_events,omitempty"`

	// call and balance
	Tenant    string `json:"tenant,omitempty"`
	Transfer  string `json:"transfer,omitempty"`
	Operation string `json:"operation,omitempty"` // do, hold, post, void or status
	Account   string `json:"account,omitempty"`
	// Args are the call's values by parameter name; amounts are written
	// with FormatAmount. A post without its amounts posts the whole hold.
	Args map[string]string `json:"args,omitempty"`

	// expire
	Max int `json:"max,omitempty"`

	// bulk
	Calls []BulkCall `json:"calls,omitempty"`

	// statement: Account and Args name the account; the rest is its
	// query, each left out for the default (oldest first, every time and
	// transfer kind, a page of 100, from the start).
	Transfers []string `json:"transfers,omitempty"`
	From      string   `json:"from,omitempty"`
	To        string   `json:"to,omitempty"`
	Newest    bool     `json:"newest,omitempty"`
	Limit     int      `json:"limit,omitempty"`
	After     string   `json:"after,omitempty"`
	// balance_at
	At string `json:"at,omitempty"`

	// bench
	KeyParam string   `json:"key_param,omitempty"`
	Times    int      `json:"times,omitempty"`
	SQL      string   `json:"sql,omitempty"`
	Params   []string `json:"params,omitempty"`
	Prepared bool     `json:"prepared,omitempty"`
	Raw      bool     `json:"raw,omitempty"`
	// Flavor picks one of a driver's books where it has more than one,
	// as its kit lists them (driverkit.Flavored).
	Flavor string `json:"flavor,omitempty"`
}

// BulkCall is one call of a bulk request: what a call request gives,
// but the tenant, which is the bulk's.
type BulkCall struct {
	Transfer  string            `json:"transfer"`
	Operation string            `json:"operation"`
	Args      map[string]string `json:"args,omitempty"`
}

// Answer is what one call of a bulk got, written as a call's response
// writes it: an outcome (and reason), a state (status) or an error.
type Answer struct {
	Error   string  `json:"error,omitempty"`
	Outcome string  `json:"outcome,omitempty"`
	Reason  string  `json:"reason,omitempty"`
	State   *string `json:"state,omitempty"`
}

// Response is one line a driver writes: the answer to the request with
// the same ID. Error set means the request failed; for a call, that is
// the interpreter's "failed".
type Response struct {
	ID    int64  `json:"id"`
	Error string `json:"error,omitempty"`

	// open
	OK     bool   `json:"ok,omitempty"`
	Client string `json:"client,omitempty"` // the target driven, e.g. postgres-go

	// call
	Outcome string `json:"outcome,omitempty"` // done, done_before or refused
	Reason  string `json:"reason,omitempty"`  // of a refusal
	// State is the answer of a status call; a pointer because "" (no
	// hold) is an answer that must be written.
	State *string `json:"state,omitempty"`

	// expire; a pointer so that 0 is written
	Expired *int `json:"expired,omitempty"`

	// bulk: one answer per call, in the order of the request's calls
	Answers []Answer `json:"answers,omitempty"`

	// balance and balance_at
	Posted  string `json:"posted,omitempty"`
	HeldIn  string `json:"held_in,omitempty"`
	HeldOut string `json:"held_out,omitempty"`

	// statement and entries; a pointer so that no entry is written []
	Entries *[]Entry `json:"entries,omitempty"`
	// statement
	Next string `json:"next,omitempty"`
	More bool   `json:"more,omitempty"`
	// holds
	Holds *[]Hold `json:"holds,omitempty"`
	// bench: nanoseconds the calls took
	Nanos int64 `json:"nanos,omitempty"`
}

// Entry is one entry of a history read, as runtime/go/chobo.Entry holds
// it: amounts as FormatAmount writes them, At in RFC 3339 with
// nanoseconds, in UTC. Key and Args are null where the backend keeps
// neither (a TigerBeetle statement); After is null where it keeps no
// balance after the entry.
type Entry struct {
	Transfer    string            `json:"transfer"`
	Op          string            `json:"op"`
	Key         []string          `json:"key"`
	Args        map[string]string `json:"args"`
	ID          string            `json:"id,omitempty"`
	Move        int               `json:"move"`
	Out         bool              `json:"out"`
	Account     string            `json:"account"`
	AccountArgs []string          `json:"account_args"`
	Posted      string            `json:"posted"`
	HeldIn      string            `json:"held_in"`
	HeldOut     string            `json:"held_out"`
	After       *Amounts          `json:"after"`
	At          string            `json:"at"`
	Cursor      string            `json:"cursor"`
}

// Amounts is what an account held, amounts as FormatAmount writes them.
type Amounts struct {
	Posted  string `json:"posted"`
	HeldIn  string `json:"held_in"`
	HeldOut string `json:"held_out"`
}

// Hold is an open hold; Deadline is "" for one that never expires.
type Hold struct {
	Transfer string     `json:"transfer"`
	Key      []string   `json:"key"`
	ID       string     `json:"id,omitempty"`
	Moves    []HoldMove `json:"moves"`
	Created  string     `json:"created"`
	Deadline string     `json:"deadline"`
}

// HoldMove is what one move of an open hold holds.
type HoldMove struct {
	Move     int      `json:"move"`
	From     string   `json:"from"`
	FromArgs []string `json:"from_args"`
	To       string   `json:"to"`
	ToArgs   []string `json:"to_args"`
	Amount   string   `json:"amount"`
}

// TimeFormat is how the protocol writes a time.
const TimeFormat = time.RFC3339Nano

var amountText = regexp.MustCompile(`^-?[0-9]+$`)

// FormatAmount writes an amount as the protocol carries it: a JSON string
// of decimal digits, exact in every language, unlike a JSON number past
// 2^53.
func FormatAmount(v int64) string {
	return strconv.FormatInt(v, 10)
}

// ParseAmount reads an amount written by FormatAmount. A negative amount
// is read, not refused: a driver passes it on, and the client it drives
// must fail the call.
func ParseAmount(s string) (int64, error) {
	if !amountText.MatchString(s) {
		return 0, fmt.Errorf("%q is not an amount (decimal digits, in a string)", s)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a 64-bit amount", s)
	}
	return v, nil
}
