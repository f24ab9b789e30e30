package evolve

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/diag"
)

// clientName is one name a client gives: which target, whose (a transfer
// or account kind of the book), which of its names, and the name.
type clientName struct {
	target, kind, owner, what, name string
	whatJa                          string
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
			out = append(out, clientName{c.Target, n.Kind, n.Owner, n.What, n.Name, n.WhatJa})
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
	now := map[[4]string]clientName{}
	for _, n := range clientNames(api.TargetsOf(c.cur)) {
		now[[4]string{n.target, n.kind, n.owner, n.what}] = n
	}
	if len(now) == 0 {
		return // the new version goes to no client: E061 or E060 says why
	}
	reported := map[[3]string]bool{}
	for _, o := range clientNames(c.prev.Targets) {
		cur, ok := now[[4]string{o.target, o.kind, o.owner, o.what}]
		n := cur.name
		if !ok || n == o.name || reported[[3]string{o.target, o.kind, o.owner}] {
			continue
		}
		reported[[3]string{o.target, o.kind, o.owner}] = true
		pos := c.cur.Pos
		kindJa, of := "振替", "の"
		// The deployed version's description may be older than the
		// Japanese; the new client's says the same thing.
		whatJa := cur.whatJa
		if w := whatJa; w != "" && w[0] < 0x80 {
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
				fmt.Sprintf("%s のクライアントで、%s %s %s%sが %s から %s に変わります。デプロイしてあるクライアントで書いたコードは、前の名前で別のものを呼ぶことになります", o.target, kindJa, q(o.owner), of, whatJa, q(o.name), q(n))),
			nil,
			diag.T("rename what now takes the name, so that every name stays with what it named (`chobo check --target "+o.target+"` names the two that meet, E062)",
				"その名前を取るようになった方の名前を変え、どの名前も前と同じものを指すようにしてください(`chobo check --target "+o.target+"` が、ぶつかる二つを E062 で言います)"))
	}
}
