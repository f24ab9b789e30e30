package show

import (
	"fmt"
	"io"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// TBStep is what a TigerBeetle client sends for one call of a scenario,
// or for a pass of time (nothing: TigerBeetle gives holds back itself).
type TBStep struct {
	Step   int
	Caller int    // inside a together, from 1
	Pass   string // set for a pass of time
	Call   string // the call as the scenario writes it
	// Accounts and Openings are those the client has not made yet in this
	// scenario, sent before the chain in requests of their own. Names
	// name the accounts, one each.
	Accounts []chobotb.Account
	Names    []string
	Openings []chobotb.Transfer
	// Lookup lists the moves of the hold a post or void reads first.
	Lookup []ids.ID
	Chain  []chobotb.Event
	// Random: the chain is a status chain, whose two ids are drawn afresh
	// on every call (shown as zero).
	Random bool
	// Again is the chain sent a second time, as an earlier chobo laid it
	// out (chobotb.Def.Legacy), when the first answers key_conflict on a
	// kind with a legacy hash: the key was used with other content, or by
	// that chobo.
	Again []chobotb.Event
	// Unsent says why nothing, or nothing more, is sent: same_account,
	// no_such_hold, or a value the client refuses.
	Unsent string
}

// TigerBeetleSteps lists what a TigerBeetle client sends for every step
// of a scenario, for a tenant (the scenario's own in `chobo run --show`).
// Post and void read the hold first; what they send next depends on what
// they find, which is taken from the reference interpreter run alongside.
// The callers of a together are taken in order, one of the orders the
// interpreter allows. d is what tigerbeetle.Def makes of b, made once for
// all the scenarios of a book.
func TigerBeetleSteps(b *book.Book, d *chobotb.Def, sc scenario.Scenario, tenant string) ([]TBStep, error) {
	st := interp.New(b)
	made := map[ids.ID]bool{}
	var out []TBStep
	one := func(step, caller int, c *scenario.Call) error {
		s, err := tbCall(d, st, made, c, tenant)
		if err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		s.Step, s.Caller = step, caller
		if c.Bad != "" {
			// The client sends nothing, and the call changes nothing.
			out = append(out, s)
			return nil
		}
		r, err := st.Apply(c.Call) // a failure leaves the state as it was
		if err == nil && r.Outcome == interp.Refused && r.Reason == chobotb.ReasonKeyConflict && len(s.Chain) > 0 && !s.Random &&
			d.HasLegacy(c.Call.Transfer.Index) {
			if s.Again, err = again(d, c, tenant, s.Chain); err != nil {
				return fmt.Errorf("step %d: %w", step, err)
			}
		}
		out = append(out, s)
		return nil
	}
	for i, step := range sc.Steps {
		switch {
		case step.Call != nil:
			if err := one(i+1, 0, step.Call); err != nil {
				return nil, err
			}
		case step.Together != nil:
			for ci, calls := range step.Together {
				for _, c := range calls {
					if err := one(i+1, ci+1, c); err != nil {
						return nil, err
					}
				}
			}
		case step.Read != nil:
			// A read of the history sends nothing a client has yet.
		case step.Deploy != nil:
			return nil, errDeploy(i + 1)
		default:
			if _, err := st.Pass(step.Pass); err != nil {
				return nil, fmt.Errorf("step %d: %w", i+1, err)
			}
			out = append(out, TBStep{Step: i + 1, Pass: step.PassText})
		}
	}
	return out, nil
}

// again is the chain of a call as an earlier chobo laid it out; sent is
// the chain of this version, whose amounts a post sends again.
func again(d *chobotb.Def, sc *scenario.Call, tenant string, sent []chobotb.Event) ([]chobotb.Event, error) {
	c, l := sc.Call, d.Legacy()
	t := c.Transfer
	vals := values(t, c)
	switch c.Op {
	case book.Do, book.Hold:
		p, err := l.Build(tenant, t.Index, string(c.Op), vals)
		if err != nil {
			return nil, err
		}
		return p.Chain, nil
	case book.Void:
		return l.Finish(tenant, t.Index, "void", d.KeyValues(t.Index, vals), nil)
	}
	amounts := make([]uint64, len(t.Moves))
	for _, e := range sent {
		amounts[e.Move-1] = e.Amount.Lo
	}
	return l.Finish(tenant, t.Index, "post", d.KeyValues(t.Index, vals), amounts)
}

// values lists a call's values in the transfer's declaration order.
func values(t *book.Transfer, c interp.Call) chobotb.Values {
	vals := make(chobotb.Values, len(t.Params))
	for i, p := range t.Params {
		if p.IsAmount() {
			vals[i] = c.Amounts[p.Name]
		} else {
			vals[i] = c.Strings[p.Name]
		}
	}
	return vals
}

// checkTexts says why a client refuses the call's texts (and tenant)
// before it sends anything, if it does.
func checkTexts(t *book.Transfer, c interp.Call, tenant string) error {
	var texts []string
	for _, p := range t.Params {
		if v, ok := c.Strings[p.Name]; ok {
			if err := chobo.CheckText(p.Name, v); err != nil {
				return err
			}
			texts = append(texts, v)
		}
	}
	return chobo.CheckSize(tenant, texts...)
}

func tbCall(d *chobotb.Def, st *interp.State, made map[ids.ID]bool, sc *scenario.Call, tenant string) (TBStep, error) {
	c := sc.Call
	t := c.Transfer
	s := TBStep{Call: sc.String()}
	if sc.Bad != "" {
		s.Unsent = sc.Bad
		return s, nil
	}
	if err := checkTexts(t, c, tenant); err != nil {
		s.Unsent = err.Error()
		return s, nil
	}
	vals := values(t, c)
	switch c.Op {
	case book.Do, book.Hold:
		p, err := d.Build(tenant, t.Index, string(c.Op), vals)
		if err != nil {
			return s, err
		}
		if p.SameAccount {
			s.Unsent = chobotb.ReasonSameAccount
			return s, nil
		}
		for i, a := range p.Accounts {
			if !made[a.ID] {
				made[a.ID] = true
				s.Accounts, s.Names = append(s.Accounts, a), append(s.Names, p.Names[i])
			}
		}
		for _, o := range p.Openings {
			if !made[o.ID] {
				made[o.ID] = true
				s.Openings = append(s.Openings, o)
			}
		}
		s.Chain = p.Chain
		return s, nil
	}
	key := d.KeyValues(t.Index, vals)
	var err error
	if s.Lookup, err = d.Lookups(tenant, t.Index, key); err != nil {
		return s, err
	}
	h := st.FindHold(c)
	if h == nil {
		s.Unsent = chobotb.ReasonNoSuchHold
		return s, nil
	}
	if c.Op == book.Void {
		s.Chain, err = d.Finish(tenant, t.Index, "void", key, nil)
		return s, err
	}
	want := make([]uint64, len(t.Moves))
	over := false
	for i, m := range t.Moves {
		want[i] = uint64(h.Amounts[i])
		if m.Amount.Param != nil {
			if v, ok := c.Amounts[m.Amount.Param.Name]; ok {
				want[i] = uint64(v)
				over = over || v > h.Amounts[i]
			}
		}
	}
	if over {
		s.Random = true
		s.Chain, err = d.StatusChain(tenant, t.Index, key, ids.ID{}, ids.ID{})
		return s, err
	}
	s.Chain, err = d.Finish(tenant, t.Index, "post", key, want)
	return s, err
}

// TBFlags writes transfer or account flags by name.
func TBFlags(flags uint16, transfer bool) string {
	names := []string{"linked", "debits_must_not_exceed_credits", "credits_must_not_exceed_debits"}
	if transfer {
		names = []string{"linked", "pending", "post_pending_transfer", "void_pending_transfer", "balancing_debit", "balancing_credit"}
	}
	var out []string
	for i, n := range names {
		if flags&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, "|")
}

// IDText writes an id as 32 hex digits, or "random" for the zero id of a
// status chain, "-" elsewhere.
func IDText(id ids.ID, random bool) string {
	if id == (ids.ID{}) {
		if random {
			return "random"
		}
		return "-"
	}
	return id.Hex()
}

// Tag64Text writes a user_data_64 as its 16 hex digits, - for none.
func Tag64Text(v uint64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%016x", v)
}

// WriteTigerBeetle prints the steps of one scenario for people.
func WriteTigerBeetle(w io.Writer, file string, sc scenario.Scenario, steps []TBStep, lang diag.Lang) {
	var b strings.Builder
	tr := func(en, ja string) string { return diag.T(en, ja).In(lang) }
	fmt.Fprintf(&b, "%s: %s\n", diag.Paren(lang, diag.Printable(file), diag.Printable(sc.Title(lang))), tr("what a client sends to TigerBeetle", "クライアントが TigerBeetle に送るもの"))
	for _, st := range steps {
		if st.Pass != "" {
			fmt.Fprintf(&b, "  %3d  %s: %s\n", st.Step, scenario.PassText(st.Pass, lang), tr("nothing sent; TigerBeetle gives expired holds back itself", "何も送らない。期限の切れた仮押さえは TigerBeetle が自分で戻す"))
			continue
		}
		who := ""
		if st.Caller > 0 {
			who = tr(fmt.Sprintf("caller %d: ", st.Caller), fmt.Sprintf("呼び出し元 %d: ", st.Caller))
		}
		fmt.Fprintf(&b, "  %3d  %s%s\n", st.Step, who, diag.Printable(st.Call))
		if len(st.Accounts) > 0 {
			fmt.Fprintf(&b, "       create_accounts\n")
			for i, a := range st.Accounts {
				fmt.Fprintf(&b, "         %s  ledger %d  code %d  flags %s  user_data_128 %s  %s\n", a.ID.Hex(), a.Ledger, a.Code, TBFlags(a.Flags, false), IDText(a.UserData128, false), diag.Printable(st.Names[i]))
			}
		}
		if len(st.Openings) > 0 {
			fmt.Fprintf(&b, "       %s\n", diag.Paren(lang, "create_transfers", tr("openings", "開始の振替")))
			for _, o := range st.Openings {
				writeTransfer(&b, "         ", o, false)
			}
		}
		if len(st.Lookup) > 0 {
			fmt.Fprintf(&b, "       lookup_transfers\n")
			for _, id := range st.Lookup {
				fmt.Fprintf(&b, "         %s\n", id.Hex())
			}
		}
		if len(st.Chain) > 0 {
			fmt.Fprintf(&b, "       %s\n", diag.Paren(lang, "create_transfers", tr("chain", "チェーン")))
			for i, e := range st.Chain {
				// The reason is how a refusal of this event would be
				// answered; whether it is refused depends on the balance.
				reason := ""
				if e.Reason != "" {
					r := diag.Printable(e.Reason)
					reason = "  " + tr("(on exceeds_credits: "+r+")", "(exceeds_credits なら "+r+")")
				}
				move := diag.Paren(lang, string(e.Role), tr(fmt.Sprintf("move %d", e.Move), fmt.Sprintf("%dつ目の移動", e.Move)))
				if e.Role == chobotb.RoleKeyGuard {
					move = diag.Paren(lang, string(e.Role), tr("after the chain, with the id of event 0", "チェーンのあと、0 番の振替の ID で"))
				}
				fmt.Fprintf(&b, "         %d %s%s\n", i, move, reason)
				writeTransfer(&b, "           ", e.Transfer, st.Random)
			}
		}
		if len(st.Again) > 0 {
			fmt.Fprintf(&b, "       %s\n", diag.Paren(lang, "create_transfers", tr("on key_conflict, the chain again as an earlier chobo laid it out, whose hash had the bounds in it",
				"key_conflict なら、境界をハッシュに入れていた以前の chobo の形で、チェーンをもう一度")))
			for i, e := range st.Again {
				fmt.Fprintf(&b, "         %d %s\n", i, diag.Paren(lang, string(e.Role), tr(fmt.Sprintf("move %d", e.Move), fmt.Sprintf("%dつ目の移動", e.Move))))
				writeTransfer(&b, "           ", e.Transfer, false)
			}
		}
		if st.Unsent != "" {
			fmt.Fprintf(&b, "       %s: %s\n", tr("not sent", "送らない"), diag.Printable(st.Unsent))
		}
	}
	io.WriteString(w, b.String())
}

func writeTransfer(b *strings.Builder, indent string, t chobotb.Transfer, random bool) {
	fmt.Fprintf(b, "%sid %s  debit %s  credit %s  amount %s  pending_id %s\n", indent,
		IDText(t.ID, random), IDText(t.DebitAccountID, random), IDText(t.CreditAccountID, random), t.Amount, IDText(t.PendingID, false))
	fmt.Fprintf(b, "%s  user_data_128 %s  user_data_64 %s  timeout %d  ledger %d  code %d  flags %s\n", indent,
		IDText(t.UserData128, false), Tag64Text(t.UserData64), t.Timeout, t.Ledger, t.Code, TBFlags(t.Flags, true))
}
