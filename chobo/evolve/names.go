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
		{"member", "メンバー"}, {"type", "型"},
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
	return what
}

// clientNames lists every name the Go and TypeScript targets give the
// book's transfer and account kinds and their parameters.
func clientNames(ts api.Targets) []clientName {
	var out []clientName
	add := func(target, kind, owner, what, name string) {
		if name != "" {
			out = append(out, clientName{target, kind, owner, what, name, whatJa(what)})
		}
	}
	goStruct := func(target, kind, owner, what string, s *api.GoStruct) {
		if s == nil {
			return
		}
		add(target, kind, owner, what+" type", s.Type)
		for _, f := range s.Fields {
			add(target, kind, owner, what+" field of "+f.Param, f.Name)
		}
	}
	goNames := func(target string, transfers []api.GoTransfer, accounts []api.GoAccount) {
		for _, t := range transfers {
			add(target, "transfer", t.Transfer, "Book field", t.Field)
			add(target, "transfer", t.Transfer, "type", t.Type)
			for _, m := range t.Methods {
				add(target, "transfer", t.Transfer, "method of "+m.Op, m.Method)
			}
			goStruct(target, "transfer", t.Transfer, "arguments", &t.Args)
			goStruct(target, "transfer", t.Transfer, "key", t.Key)
			goStruct(target, "transfer", t.Transfer, "amounts", t.Amounts)
		}
		for _, a := range accounts {
			add(target, "account", a.Account, "Balances method", a.Method)
			add(target, "account", a.Account, "type", a.Type)
			for _, f := range a.Fields {
				add(target, "account", a.Account, "field of "+f.Param, f.Name)
			}
		}
	}
	if g := ts.PostgresGo; g != nil {
		goNames("postgres-go", g.Transfers, g.Accounts)
	}
	if g := ts.TigerBeetleGo; g != nil {
		goNames("tigerbeetle-go", g.Transfers, g.Accounts)
	}
	tsNames := func(target string, x *api.TypeScript) {
		if x == nil {
			return
		}
		for _, t := range x.Transfers {
			add(target, "transfer", t.Transfer, "member", t.Member)
			add(target, "transfer", t.Transfer, "arguments type", t.Args.Type)
			if t.Key != nil {
				add(target, "transfer", t.Transfer, "key type", t.Key.Type)
			}
			if t.Amounts != nil {
				add(target, "transfer", t.Transfer, "amounts type", t.Amounts.Type)
			}
		}
		for _, a := range x.Accounts {
			add(target, "account", a.Account, "balance member", a.Member)
			add(target, "account", a.Account, "type", a.Type)
		}
	}
	tsNames("postgres-typescript", ts.PostgresTypeScript)
	tsNames("tigerbeetle-typescript", ts.TigerBeetleTypeScript)
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
