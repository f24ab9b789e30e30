package api

import (
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
)

// Machine is the life of the holds of one pending transfer kind as a
// state machine: a hold starts held and ends posted, voided or expired.
// The keys are those a state machine of the rule language is written
// with, plus Events and External; Certificate holds the same machine as
// a decision table, one row per state and event.
type Machine struct {
	Name string `json:"name"`
	// Over is the transfer kind whose holds the machine follows.
	Over  string `json:"over"`
	Carry Carry  `json:"carry"`
	// Held, Never and Once are the properties the machine promises: a
	// hold machine promises none, so they are empty.
	Held  []string `json:"held"`
	Never []string `json:"never"`
	Once  []string `json:"once"`
	// States, Initial and Final name the states of a hold.
	States  []string `json:"states"`
	Initial string   `json:"initial"`
	Final   []string `json:"final"`
	// Events lists what may happen to a hold; External, those that come
	// from outside the caller's calls (expiry, when holds expire).
	Events      []string    `json:"events"`
	External    []string    `json:"external"`
	Certificate Certificate `json:"certificate"`
}

// Carry says how the machine's state goes through its table: read from
// the axis Input, written by the decision Output, its values the enum
// Enum.
type Carry struct {
	Input  string `json:"input"`
	Output string `json:"output"`
	Enum   string `json:"enum"`
}

// Certificate is the machine written out in full: the table that decides
// every step, the machine's move for each row, and the enums and types
// the table uses.
type Certificate struct {
	Machine CertificateMachine `json:"machine"`
	Tables  []Table            `json:"tables"`
	Enums   []Enum             `json:"enums"`
	Types   []Type             `json:"types"`
}

// CertificateMachine is the machine over its table: states by number
// (1-based, in the order of the hold_state enum) and, for each row of the
// table, the state it goes to or that it stays.
type CertificateMachine struct {
	Table   string       `json:"table"`
	Carry   string       `json:"carry"`
	Axis    string       `json:"axis"`
	Initial int          `json:"initial"`
	Finals  []int        `json:"finals"`
	Rows    []MachineRow `json:"rows"`
}

// MachineRow is where one row of the table leaves the machine: To names
// the next state by number, or Stay is true. The other key is left out.
type MachineRow struct {
	Row  int  `json:"row"`
	To   int  `json:"to,omitempty"`
	Stay bool `json:"stay,omitempty"`
}

// Table is a decision table: every row accepts one value of each axis
// and produces one value of each decision.
type Table struct {
	Name    string     `json:"name"`
	Axes    []Column   `json:"axes"`
	Decides []Column   `json:"decides"`
	Rows    []TableRow `json:"rows"`
}

// Column is an axis or a decision of a table, with its type.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// TableRow is one row: an event in a state, and what follows.
type TableRow struct {
	Row      int      `json:"row"`
	Accepts  Accepts  `json:"accepts"`
	Produces Produces `json:"produces"`
}

// Accepts is the event and the state a row is for.
type Accepts struct {
	Event string `json:"event"`
	State string `json:"state"`
}

// Produces is what a row decides: the next state, and whether the call
// is refused and with which reason ("" when it is not).
type Produces struct {
	NextState string `json:"next_state"`
	Refused   bool   `json:"refused"`
	Reason    string `json:"reason"`
}

// Enum is a closed set of names.
type Enum struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// Type is a type a column uses: an enum of the same name, "bool" or
// "string".
type Type struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// The events of a hold.
const (
	EventPost   = "post"
	EventVoid   = "void"
	EventExpire = "expire"
)

// HoldStates are the states of a hold, in the order the certificate
// numbers them from 1.
var HoldStates = []string{
	interp.Held.String(), interp.Posted.String(), interp.Voided.String(), interp.HoldExpired.String(),
}

// HoldRow is one state and event of a hold's life and what follows.
type HoldRow struct {
	State, Event string
	Next         string
	Refused      bool
	Reason       string
}

// HoldTable is the one table of a hold's life that the machines are
// written from, read state by state and, within a state, in the order
// post, void, expire. A post or void answers from the state alone (a hold
// reached by its deadline has already expired, as expiry happens at that
// instant); a repeat of the call that ended the hold answers done_before,
// not refused. Expiry happens only to a held hold: in any other state its
// row stays and refuses nothing. Without expiry (`never expires`) the
// expire rows are left out.
//
// Two refusals do not depend on the state and are not rows: over_hold
// (a post above what is held) and key_conflict (a second post of other
// amounts); no_such_hold comes before there is a hold at all. Each
// operation's refusals list them.
func HoldTable(expires bool) []HoldRow {
	held, posted, voided, expired := HoldStates[0], HoldStates[1], HoldStates[2], HoldStates[3]
	rows := []HoldRow{
		{State: held, Event: EventPost, Next: posted},
		{State: held, Event: EventVoid, Next: voided},
		{State: held, Event: EventExpire, Next: expired},
		{State: posted, Event: EventPost, Next: posted},
		{State: posted, Event: EventVoid, Next: posted, Refused: true, Reason: book.AlreadyPosted},
		{State: posted, Event: EventExpire, Next: posted},
		{State: voided, Event: EventPost, Next: voided, Refused: true, Reason: book.AlreadyVoided},
		{State: voided, Event: EventVoid, Next: voided},
		{State: voided, Event: EventExpire, Next: voided},
		{State: expired, Event: EventPost, Next: expired, Refused: true, Reason: book.Expired},
		{State: expired, Event: EventVoid, Next: expired, Refused: true, Reason: book.Expired},
		{State: expired, Event: EventExpire, Next: expired},
	}
	if expires {
		return rows
	}
	var out []HoldRow
	for _, r := range rows {
		if r.Event != EventExpire {
			out = append(out, r)
		}
	}
	return out
}

// The names the machines give their enums, axes and decisions.
const (
	enumState  = "hold_state"
	enumEvent  = "event"
	axisEvent  = "event"
	axisState  = "state"
	decideNext = "next_state"
)

// MachineOf is the hold machine of a pending transfer kind.
func MachineOf(t *book.Transfer) Machine {
	expires := t.Pending.Expires
	events := []string{EventPost, EventVoid}
	external := []string{}
	if expires {
		events = append(events, EventExpire)
		external = append(external, EventExpire)
	}
	number := map[string]int{}
	for i, s := range HoldStates {
		number[s] = i + 1
	}
	initial := HoldStates[0]
	finals := HoldStates[1:]
	cm := CertificateMachine{Table: t.Name, Carry: decideNext, Axis: axisState, Initial: number[initial], Finals: []int{}, Rows: []MachineRow{}}
	for _, s := range finals {
		cm.Finals = append(cm.Finals, number[s])
	}
	table := Table{
		Name:    t.Name,
		Axes:    []Column{{axisEvent, enumEvent}, {axisState, enumState}},
		Decides: []Column{{decideNext, enumState}, {"refused", "bool"}, {"reason", "string"}},
		Rows:    []TableRow{},
	}
	for i, r := range HoldTable(expires) {
		n := i + 1
		table.Rows = append(table.Rows, TableRow{Row: n,
			Accepts:  Accepts{Event: r.Event, State: r.State},
			Produces: Produces{NextState: r.Next, Refused: r.Refused, Reason: r.Reason}})
		if r.Next == r.State {
			cm.Rows = append(cm.Rows, MachineRow{Row: n, Stay: true})
		} else {
			cm.Rows = append(cm.Rows, MachineRow{Row: n, To: number[r.Next]})
		}
	}
	return Machine{
		Name: t.Name, Over: t.Name,
		Carry: Carry{Input: axisState, Output: decideNext, Enum: enumState},
		Held:  []string{}, Never: []string{}, Once: []string{},
		States: append([]string{}, HoldStates...), Initial: initial, Final: append([]string{}, finals...),
		Events: events, External: external,
		Certificate: Certificate{
			Machine: cm,
			Tables:  []Table{table},
			Enums: []Enum{
				{Name: enumState, Values: append([]string{}, HoldStates...)},
				{Name: enumEvent, Values: append([]string{}, events...)},
			},
			Types: []Type{{enumState, "enum"}, {enumEvent, "enum"}, {"bool", "bool"}, {"string", "string"}},
		},
	}
}
