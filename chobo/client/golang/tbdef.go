package golang

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// defLiteral writes a book's chain definition as a Go expression of type
// *chobotb.Def, one field per line, so that a client carries it without
// reading anything at run time and a diff of two clients reads as a diff
// of two books.
func defLiteral(d *chobotb.Def) string {
	var b strings.Builder
	q := strconv.Quote
	ints := func(xs []int) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = strconv.Itoa(x)
		}
		return "[]int{" + strings.Join(s, ", ") + "}"
	}
	bound := func(x *chobotb.Bound) string {
		if x == nil {
			return "nil"
		}
		return fmt.Sprintf("&chobotb.Bound{Value: %d, Reason: %s}", x.Value, q(x.Reason))
	}
	fmt.Fprintf(&b, "&chobotb.Def{\n\tBook: %s,\n\tUnits: []chobotb.Unit{\n", q(d.Book))
	for _, u := range d.Units {
		fmt.Fprintf(&b, "\t\t{Name: %s, Scale: %d},\n", q(u.Name), u.Scale)
	}
	b.WriteString("\t},\n\tAccounts: []chobotb.AccountKind{\n")
	for _, a := range d.Accounts {
		fmt.Fprintf(&b, "\t\t{Name: %s, Unit: %d, Params: %d, Outside: %t, Lower: %s, Upper: %s},\n",
			q(a.Name), a.Unit, a.Params, a.Outside, bound(a.Lower), bound(a.Upper))
	}
	b.WriteString("\t},\n\tTransfers: []chobotb.TransferKind{\n")
	for _, t := range d.Transfers {
		fmt.Fprintf(&b, "\t\t{\n\t\t\tName: %s, Definition: %s, Pending: %t, Timeout: %d,\n\t\t\tParams: []chobotb.Param{", q(t.Name), q(t.Definition), t.Pending, t.Timeout)
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{Name: %s, Amount: %t}", q(p.Name), p.Amount)
		}
		fmt.Fprintf(&b, "},\n\t\t\tKey: %s, PostAmounts: %s,\n\t\t\tMoves: []chobotb.Move{\n", ints(t.Key), ints(t.PostAmounts))
		for _, m := range t.Moves {
			fmt.Fprintf(&b, "\t\t\t\t{Amount: %d, Literal: %d, From: chobotb.Side{Account: %d, Args: %s}, To: chobotb.Side{Account: %d, Args: %s}},\n",
				m.Amount, m.Literal, m.From.Account, ints(m.From.Args), m.To.Account, ints(m.To.Args))
		}
		b.WriteString("\t\t\t},\n\t\t},\n")
	}
	b.WriteString("\t},\n}")
	return b.String()
}
