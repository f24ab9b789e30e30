package api

import (
	"github.com/chobo-lang/chobo/chobo/show"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Show is `chobo run --show <backend> --format json`: what a client sends
// for each step of each scenario, instead of the answers.
type Show struct {
	V         int            `json:"v"`
	File      string         `json:"file"`
	Target    string         `json:"target"`
	Scenarios []ShowScenario `json:"scenarios"`
}

// ShowScenario is one scenario's statements, in step order.
type ShowScenario struct {
	Name  string     `json:"name"`
	Steps []ShowStep `json:"steps"`
}

// ShowStep is one statement and its arguments. Caller numbers the callers
// of a together from 1; Pass is set for the expire call that stands for a
// pass of time. CallID says that the last of Args is show.CallIDText,
// where a client sends a call id of its own for every call.
type ShowStep struct {
	Step   int    `json:"step"`
	Caller int    `json:"caller,omitempty"`
	Pass   string `json:"pass,omitempty"`
	SQL    string `json:"sql"`
	Args   []any  `json:"args"`
	CallID bool   `json:"call_id,omitempty"`
}

// ShowOf converts the steps of each scenario, named in order by names.
func ShowOf(file, target string, names []string, steps [][]show.Step) Show {
	out := Show{V: Version, File: file, Target: target, Scenarios: []ShowScenario{}}
	for i, name := range names {
		sc := ShowScenario{Name: name, Steps: []ShowStep{}}
		for _, st := range steps[i] {
			sc.Steps = append(sc.Steps, ShowStep{Step: st.Step, Caller: st.Caller, Pass: st.Pass, SQL: st.SQL, Args: st.Args, CallID: st.CallID})
		}
		out.Scenarios = append(out.Scenarios, sc)
	}
	return out
}

// ShowTB is `chobo run --show tigerbeetle --format json`: what a client
// sends to TigerBeetle for each step of each scenario. Ids are 32 hex
// digits; the two ids of a status chain, drawn afresh on every call, are
// "random". Amounts are decimal strings (TigerBeetle's are 128 bits).
type ShowTB struct {
	V         int              `json:"v"`
	File      string           `json:"file"`
	Target    string           `json:"target"`
	Scenarios []ShowTBScenario `json:"scenarios"`
}

// ShowTBScenario is one scenario's steps, in order.
type ShowTBScenario struct {
	Name  string       `json:"name"`
	Steps []ShowTBStep `json:"steps"`
}

// ShowTBStep is what one call sends: new accounts, their openings, the
// lookup of a post or void, then the chain. Unsent says why nothing (more)
// is sent; Pass marks a pass of time, for which nothing is sent.
type ShowTBStep struct {
	Step     int              `json:"step"`
	Caller   int              `json:"caller,omitempty"`
	Pass     string           `json:"pass,omitempty"`
	Call     string           `json:"call,omitempty"`
	Accounts []ShowTBAccount  `json:"accounts,omitempty"`
	Openings []ShowTBTransfer `json:"openings,omitempty"`
	Lookup   []string         `json:"lookup,omitempty"`
	Chain    []ShowTBTransfer `json:"chain,omitempty"`
	// Again is the chain sent a second time when the first answers
	// key_conflict on a kind whose legacy hash differs: as an earlier
	// chobo, whose hash had the bounds in it, laid it out.
	Again  []ShowTBTransfer `json:"again,omitempty"`
	Unsent string           `json:"unsent,omitempty"`
}

// ShowTBAccount is an account as create_accounts receives it, and its name.
type ShowTBAccount struct {
	Name        string `json:"name"`
	ID          string `json:"id"`
	UserData128 string `json:"user_data_128"`
	Ledger      uint32 `json:"ledger"`
	Code        uint16 `json:"code"`
	Flags       string `json:"flags"`
}

// ShowTBTransfer is a transfer as create_transfers receives it. Role and
// Move say what an event of a chain is for; Reason is the refusal when
// TigerBeetle answers exceeds_credits for it.
type ShowTBTransfer struct {
	Role        string `json:"role,omitempty"`
	Move        int    `json:"move,omitempty"`
	Reason      string `json:"reason,omitempty"`
	ID          string `json:"id"`
	Debit       string `json:"debit_account_id"`
	Credit      string `json:"credit_account_id"`
	Amount      string `json:"amount"`
	PendingID   string `json:"pending_id"`
	UserData128 string `json:"user_data_128"`
	// UserData64 is 16 hex digits, or - for none: on the events of a
	// hold, the definition hash of its transfer kind.
	UserData64 string `json:"user_data_64"`
	Timeout    uint32 `json:"timeout"`
	Ledger     uint32 `json:"ledger"`
	Code       uint16 `json:"code"`
	Flags      string `json:"flags"`
}

// ShowTBOf converts the steps of each scenario, named in order by names.
func ShowTBOf(file, target string, names []string, steps [][]show.TBStep) ShowTB {
	out := ShowTB{V: Version, File: file, Target: target, Scenarios: []ShowTBScenario{}}
	transfer := func(t chobotb.Transfer, random bool) ShowTBTransfer {
		return ShowTBTransfer{ID: show.IDText(t.ID, random), Debit: show.IDText(t.DebitAccountID, random),
			Credit: show.IDText(t.CreditAccountID, random), Amount: t.Amount.String(), PendingID: show.IDText(t.PendingID, false),
			UserData128: show.IDText(t.UserData128, false), UserData64: show.Tag64Text(t.UserData64), Timeout: t.Timeout, Ledger: t.Ledger, Code: t.Code, Flags: show.TBFlags(t.Flags, true)}
	}
	for i, name := range names {
		sc := ShowTBScenario{Name: name, Steps: []ShowTBStep{}}
		for _, st := range steps[i] {
			s := ShowTBStep{Step: st.Step, Caller: st.Caller, Pass: st.Pass, Call: st.Call, Unsent: st.Unsent}
			for j, a := range st.Accounts {
				s.Accounts = append(s.Accounts, ShowTBAccount{Name: st.Names[j], ID: a.ID.Hex(), UserData128: show.IDText(a.UserData128, false),
					Ledger: a.Ledger, Code: a.Code, Flags: show.TBFlags(a.Flags, false)})
			}
			for _, o := range st.Openings {
				s.Openings = append(s.Openings, transfer(o, false))
			}
			for _, id := range st.Lookup {
				s.Lookup = append(s.Lookup, id.Hex())
			}
			for _, e := range st.Chain {
				t := transfer(e.Transfer, st.Random)
				t.Role, t.Move, t.Reason = string(e.Role), e.Move, e.Reason
				s.Chain = append(s.Chain, t)
			}
			for _, e := range st.Again {
				t := transfer(e.Transfer, false)
				t.Role, t.Move, t.Reason = string(e.Role), e.Move, e.Reason
				s.Again = append(s.Again, t)
			}
			sc.Steps = append(sc.Steps, s)
		}
		out.Scenarios = append(out.Scenarios, sc)
	}
	return out
}
