// Package show writes what a client sends to a backend for each step of
// a scenario: `chobo run --show postgres`. It reads the client model for
// the statements and the order of their arguments, so what it prints is
// what every generated client sends.
package show

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// Sent is one statement a client sends, with its arguments.
type Sent struct {
	SQL  string
	Args []any
	// CallID: the last of Args is CallIDText, where a client sends the
	// call's id.
	CallID bool
}

// CallIDText stands in Args for the call id a client sends last with every
// do, hold, post, void and expire: a random UUID made afresh for each
// call (and sent again unchanged only with a resend of it), so that what
// is shown stays the same from run to run.
const CallIDText = "(call id)"

// Expire is what a client sends to give back holds past their deadline,
// up to 1000 of them, as a pass of time does.
func Expire(m *model.Model) Sent {
	return Sent{SQL: m.Expire, Args: []any{1000, CallIDText}, CallID: true}
}

// Step is one step of a scenario as sent. chobo/api writes it as JSON.
type Step struct {
	Step   int
	Caller int    // inside a together, from 1
	Pass   string // the pass of time an expire call stands for
	Sent
}

// Args are the arguments of a call in the order the model's operation
// sends them: the tenant, then its parameters; an amount the call leaves
// out (a full post) is sent as null; then CallIDText when the operation
// takes a call id.
func Args(op *model.Operation, c interp.Call, tenant string) []any {
	args := []any{tenant}
	for _, p := range op.Params {
		if !p.Amount {
			args = append(args, c.Strings[p.Name])
		} else if v, ok := c.Amounts[p.Name]; ok {
			args = append(args, v)
		} else {
			args = append(args, nil)
		}
	}
	if op.CallID {
		args = append(args, CallIDText)
	}
	return args
}

// Statement is what a client sends for a call.
func Statement(m *model.Model, c interp.Call, tenant string) (Sent, error) {
	t := m.Transfer(c.Transfer.Name)
	if t == nil {
		return Sent{}, fmt.Errorf("the book has no transfer %s", c.Transfer.Name)
	}
	op := t.Operation(string(c.Op))
	if op == nil {
		return Sent{}, fmt.Errorf("%s has no operation %s", t.Name, c.Op)
	}
	return Sent{SQL: op.Statement, Args: Args(op, c, tenant), CallID: op.CallID}, nil
}

// errDeploy refuses a deploy step: what a client sends is shown for the
// one version of the book it was built from.
func errDeploy(step int) error {
	return fmt.Errorf("step %d: a deploy step puts another version of the book in place, and what a client sends is shown for one version", step)
}

// Steps lists what a client sends for every step of a scenario, for the
// scenario's tenant (empty when it names none). A pass is a call of the
// book's expire, which serves every tenant at once.
func Steps(m *model.Model, sc scenario.Scenario) ([]Step, error) {
	var out []Step
	add := func(step, caller int, c interp.Call) error {
		s, err := Statement(m, c, sc.Tenant)
		out = append(out, Step{Step: step, Caller: caller, Sent: s})
		return err
	}
	for i, st := range sc.Steps {
		switch {
		case st.Call != nil:
			if err := add(i+1, 0, st.Call.Call); err != nil {
				return nil, err
			}
		case st.Together != nil:
			for ci, calls := range st.Together {
				for _, c := range calls {
					if err := add(i+1, ci+1, c.Call); err != nil {
						return nil, err
					}
				}
			}
		case st.Read != nil:
			// A read of the history sends nothing a client has yet.
		case st.Deploy != nil:
			return nil, errDeploy(i + 1)
		default:
			out = append(out, Step{Step: i + 1, Pass: st.PassText, Sent: Expire(m)})
		}
	}
	return out, nil
}

// WriteText prints the steps of one scenario for people.
func WriteText(w io.Writer, file string, sc scenario.Scenario, steps []Step, lang diag.Lang) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", diag.Paren(lang, diag.Printable(file), diag.Printable(sc.Title(lang))), diag.T("what a client sends to PostgreSQL", "クライアントが PostgreSQL に送るもの").In(lang))
	for _, st := range steps {
		args, _ := json.Marshal(st.Args)
		who := ""
		if st.Caller > 0 {
			who = diag.T(fmt.Sprintf("caller %d: ", st.Caller), fmt.Sprintf("呼び出し元 %d: ", st.Caller)).In(lang)
		}
		if st.Pass != "" {
			who = scenario.PassText(st.Pass, lang) + ": "
		}
		// JSON escapes controls but leaves marks that reorder text.
		fmt.Fprintf(&b, "  %3d  %s%s  %s\n", st.Step, diag.Printable(who), diag.Printable(st.SQL), diag.Printable(string(args)))
	}
	io.WriteString(w, b.String())
}
