package evolve

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/diag"
)

// clientName is one name a client gives: which target, whose (a transfer
// or account kind of the book), which of its names, and the name.
type clientName struct {
	target, kind, owner, what, name string
	whatJa                          string
}

// whatJa says in Japanese which name of a kind what is.
func whatJa(what string) string {
	for _, w := range []struct{ en, ja string }{
		{"Book field", "Book のフィールド"}, {"Balances method", "Balances のメソッド"}, {"balance member", "balance のメンバー"},
		{"member", "メンバー"}, {"type", "型"}, {"class", "クラス"}, {"asyncio class", "asyncio のクラス"},
	} {
		if what == w.en {
			return w.ja
		}
	}
	for _, w := range []struct{ en, ja string }{{"arguments", "引数"}, {"key", "キー"}, {"amounts", "数量"}} {
		if rest, ok := strings.CutPrefix(what, w.en+" "); ok {
			if param, ok := strings.CutPrefix(rest, "field of "); ok {
				return w.ja + "の構造体の、引数 " + param + " のフィールド"
			}
			return w.ja + "の型"
		}
	}
	if op, ok := strings.CutPrefix(what, "method of "); ok {
		return op + " のメソッド"
	}
	if param, ok := strings.CutPrefix(what, "field of "); ok {
		return "引数 " + param + " のフィールド"
	}
	if param, ok := strings.CutPrefix(what, "keyword of "); ok {
		return "引数 " + param + " のキーワード"
	}
	return what
}

// clientNames lists every name the client targets give the book's
// transfer and account kinds and their parameters, target by target.
func clientNames(ts api.Targets) []clientName {
	var out []clientName
	for _, c := range ts.Clients {
		if c.Names == nil {
			continue
		}
		for _, n := range c.Names.Names() {
			out = append(out, clientName{c.Target, n.Kind, n.Owner, n.What, n.Name, whatJa(n.What)})
		}
	}
	return out
}

// names reports every name a client gave a transfer or account kind of
// the deployed version that the new version's client would give it no
// more (E052): code built against the deployed client keeps that name,
// which would now be another's, or none. One diagnostic per kind and
// target, for its first name that moved.
func (c *comparer) names() {
	now := map[[4]string]string{}
	for _, n := range clientNames(api.TargetsOf(c.cur)) {
		now[[4]string{n.target, n.kind, n.owner, n.what}] = n.name
	}
	if len(now) == 0 {
		return // the new version goes to no client: E061 or E060 says why
	}
	reported := map[[3]string]bool{}
	for _, o := range clientNames(c.prev.Targets) {
		n, ok := now[[4]string{o.target, o.kind, o.owner, o.what}]
		if !ok || n == o.name || reported[[3]string{o.target, o.kind, o.owner}] {
			continue
		}
		reported[[3]string{o.target, o.kind, o.owner}] = true
		pos := c.cur.Pos
		kindJa, of := "振替", "の"
		if w := o.whatJa; w != "" && w[0] < 0x80 {
			of = "の " // a name in Latin letters stands apart
		}
		if o.kind == "transfer" {
			if t := c.cur.Transfer(o.owner); t != nil {
				pos = t.Pos
			}
		} else {
			kindJa = "勘定"
			if a := c.cur.Account(o.owner); a != nil {
				pos = a.Pos
			}
		}
		c.add("E052", pos,
			diag.T(fmt.Sprintf("in the %s client, the %s of %s %s was %s and would be %s: code built against the deployed client would reach something else by its old name", o.target, o.what, o.kind, q(o.owner), q(o.name), q(n)),
				fmt.Sprintf("%s のクライアントで、%s %s %s%sが %s から %s に変わります。デプロイしてあるクライアントで書いたコードは、前の名前で別のものを呼ぶことになります", o.target, kindJa, q(o.owner), of, o.whatJa, q(o.name), q(n))),
			nil,
			diag.T("rename what now takes the name, so that every name stays with what it named (`chobo check --target "+o.target+"` names the two that meet, E062)",
				"その名前を取るようになった方の名前を変え、どの名前も前と同じものを指すようにしてください(`chobo check --target "+o.target+"` が、ぶつかる二つを E062 で言います)"))
	}
}
