package postgres

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// Sent is one statement a client sends, with its arguments.
type Sent struct {
	SQL  string `json:"sql"`
	Args []any  `json:"args"`
}

// Args are the arguments of a call: the tenant, then Params in order;
// a full post sends null for every amount.
func Args(c interp.Call, tenant string) []any {
	args := []any{tenant}
	for _, p := range Params(c.Transfer, string(c.Op)) {
		if p.IsAmount() {
			if v, ok := c.Amounts[p.Name]; ok {
				args = append(args, v)
			} else {
				args = append(args, nil)
			}
			continue
		}
		args = append(args, c.Strings[p.Name])
	}
	return args
}

// Statement is what a client sends for a call.
func Statement(b *book.Book, c interp.Call, tenant string) Sent {
	return Sent{SQL: CallSQL(b, c.Transfer, string(c.Op)), Args: Args(c, tenant)}
}

// ShowStep is one step of `chobo run --show postgres`.
type ShowStep struct {
	Step   int    `json:"step"`
	Caller int    `json:"caller,omitempty"` // inside a together, from 1
	Pass   string `json:"pass,omitempty"`
	Sent
}

// Show lists what a client sends for every step of a scenario, with the
// empty tenant. A pass is followed by a call of expire().
func Show(b *book.Book, sc scenario.Scenario) []ShowStep {
	var out []ShowStep
	for i, st := range sc.Steps {
		switch {
		case st.Call != nil:
			out = append(out, ShowStep{Step: i + 1, Sent: Statement(b, st.Call.Call, "")})
		case st.Together != nil:
			for ci, calls := range st.Together {
				for _, c := range calls {
					out = append(out, ShowStep{Step: i + 1, Caller: ci + 1, Sent: Statement(b, c.Call, "")})
				}
			}
		default:
			out = append(out, ShowStep{Step: i + 1, Pass: st.PassText, Sent: Sent{SQL: ExpireSQL(b), Args: []any{1000}}})
		}
	}
	return out
}

// WriteShowText prints Show for people.
func WriteShowText(w io.Writer, file string, sc scenario.Scenario, steps []ShowStep, lang diag.Lang) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s\n", file, sc.Name, diag.T("what a client sends to PostgreSQL", "クライアントが PostgreSQL に送るもの").In(lang))
	for _, st := range steps {
		args, _ := json.Marshal(st.Args)
		who := ""
		if st.Caller > 0 {
			who = diag.T(fmt.Sprintf("caller %d: ", st.Caller), fmt.Sprintf("呼び出し元 %d: ", st.Caller)).In(lang)
		}
		if st.Pass != "" {
			who = "pass " + st.Pass + ": "
		}
		fmt.Fprintf(&b, "  %3d  %s%s  %s\n", st.Step, who, st.SQL, args)
	}
	io.WriteString(w, b.String())
}
