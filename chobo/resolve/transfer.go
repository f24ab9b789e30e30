package resolve

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

func (r *resolver) transfers(ts []*syntax.TransferDecl) {
	seen := map[string]syntax.Pos{}
	for _, t := range ts {
		if !r.declare(seen, t.Name, named("the transfer", "振替", t.Name.Name)) {
			continue
		}
		r.b.Transfers = append(r.b.Transfers, r.transfer(t))
	}
}

func (r *resolver) transfer(t *syntax.TransferDecl) *book.Transfer {
	name := quote(t.Name.Name)
	tr := &book.Transfer{Pos: book.Pos(t.Pos), Name: t.Name.Name}
	tr.Description = r.description(t.Descriptions, named("the transfer", "振替", t.Name.Name))
	seen := map[string]syntax.Pos{}
	for _, p := range t.Params {
		if !r.declare(seen, p.Name, named("the parameter", "引数", p.Name.Name)) {
			continue
		}
		param := &book.Param{Pos: book.Pos(p.Name.Pos), Name: p.Name.Name, Index: len(tr.Params)}
		if p.Type.Name != "string" {
			param.Unit = r.b.Unit(p.Type.Name)
			if param.Unit == nil {
				r.unknownUnit(p.Type)
				r.untyped[param] = true
			}
		}
		tr.Params = append(tr.Params, param)
	}
	r.key(t, tr)
	r.pending(t, tr)
	if len(t.Moves) == 0 {
		r.report("E013", t.Pos,
			diag.T(fmt.Sprintf("the transfer %s has no `move` line, so it would move nothing", name),
				fmt.Sprintf("振替 %s に `move` の行がなく、何も動かしません", name)),
			diag.T("add a line `move AMOUNT from ACCOUNT to ACCOUNT` under the transfer",
				"振替の下に `move <額> from <勘定> to <勘定>` の行を足してください"))
	}
	for i, m := range t.Moves {
		if mv := r.move(tr, i+1, m); mv != nil {
			tr.Moves = append(tr.Moves, mv)
		}
	}
	return tr
}

func (r *resolver) key(t *syntax.TransferDecl, tr *book.Transfer) {
	name := quote(t.Name.Name)
	if len(t.Keys) == 0 {
		r.report("E030", t.Pos,
			diag.T(fmt.Sprintf("the transfer %s has no `key`: without one, a retried call would move twice", name),
				fmt.Sprintf("振替 %s に `key` がありません。キーが無いと、リトライした呼び出しが二度動きます", name)),
			diag.T("add `key` with the parameters that tell one call from another, such as `key order, sku`",
				"呼び出しを見分ける引数を `key` に書いてください(`key 注文, sku` など)"))
		return
	}
	for _, k := range t.Keys[1:] {
		r.twice(k.Pos, diag.T("the key of "+name, name+" の `key`"), t.Keys[0].Pos)
	}
	tr.KeyPos = book.Pos(t.Keys[0].Pos)
	inKey := map[string]syntax.Pos{}
	for _, id := range t.Keys[0].Names {
		if !r.once(inKey, id, diag.T(quote(id.Name)+" in the key", "`key` の中の "+quote(id.Name))) {
			continue
		}
		p := tr.Param(id.Name)
		switch {
		case p == nil:
			// Amounts are left out of the choice: E031 refuses them.
			var strs []string
			for _, p := range tr.Params {
				if !p.IsAmount() && !r.untyped[p] {
					strs = append(strs, p.Name)
				}
			}
			msg := diag.T(fmt.Sprintf("the key names %s, which is not a parameter of %s", quote(id.Name), name),
				fmt.Sprintf("`key` に書いた %s は、%s の引数にありません", quote(id.Name), name))
			hint := diag.T("a key lists string parameters of its transfer: "+strings.Join(strs, ", "),
				"`key` には振替の string の引数を書きます: "+strings.Join(strs, "、"))
			if len(strs) == 0 {
				hint = diag.T(fmt.Sprintf("a key lists string parameters of its transfer, and %s has none: add one that tells calls apart, such as `order: string`", name),
					fmt.Sprintf("`key` には振替の string の引数を書きますが、%s にはありません。呼び出しを見分ける引数(`注文: string` など)を足してください", name))
			}
			r.missing("E030", id, strs, msg, hint)
		case p.IsAmount():
			r.report("E031", id.Pos,
				diag.T(fmt.Sprintf("the key holds the amount %s: two calls that differ only in the amount would both go through", quote(id.Name)),
					fmt.Sprintf("`key` に額 %s があります。額だけが違う二つの呼び出しが、どちらも通ってしまいます", quote(id.Name))),
				diag.T("keep amounts out of the key; a second call with another amount is then refused with key_conflict",
					"額は `key` から外してください。そうすれば、額の違う二度目の呼び出しは key_conflict で拒否されます"))
		default:
			tr.Key = append(tr.Key, p)
		}
	}
}

func paramNames(tr *book.Transfer) string {
	names := paramList(tr)
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ", ")
}

// paramList lists the parameters of tr resolved so far.
func paramList(tr *book.Transfer) []string {
	var names []string
	for _, p := range tr.Params {
		names = append(names, p.Name)
	}
	return names
}

func (r *resolver) pending(t *syntax.TransferDecl, tr *book.Transfer) {
	if len(t.Pendings) == 0 {
		return
	}
	for _, p := range t.Pendings[1:] {
		r.twice(p.Pos, diag.T("`pending` of "+quote(t.Name.Name), quote(t.Name.Name)+" の `pending`"), t.Pendings[0].Pos)
	}
	p := t.Pendings[0]
	tr.Pending = &book.Pending{Pos: book.Pos(p.Pos)}
	switch {
	case !p.Ends:
		r.report("E040", p.Pos,
			diag.T(fmt.Sprintf("the hold of %s does not say how it ends", quote(t.Name.Name)),
				fmt.Sprintf("%s の仮押さえに終わり方が書いてありません", quote(t.Name.Name))),
			diag.T("write `pending expires after 30 minutes` (or seconds, hours, days), or `pending never expires` when only a post or a void ends it",
				"`pending expires after 30 minutes`(seconds、hours、days も可)か、確定か取消でしか終わらないなら `pending never expires` と書いてください"))
	case p.Never:
	default:
		tr.Pending.Expires = true
		secs, ok := r.lifetime(p)
		if ok {
			tr.Pending.Seconds = secs
		}
	}
}

func (r *resolver) lifetime(p *syntax.PendingDecl) (int64, bool) {
	per, _ := syntax.TimeUnitSeconds(p.TimeWord.Name)
	text := p.Amount.Text + " " + p.TimeWord.Name
	hint := diag.T(fmt.Sprintf("write a whole number of %s from 1 second to %d seconds (about 136 years), such as 90 minutes rather than 1.5 hours; every target keeps this range, because TigerBeetle keeps a hold's timeout in 32 bits", syntax.TimeWordChoice().En, book.MaxHoldSeconds),
		fmt.Sprintf("%s のどれかで、1 秒から %d 秒(約 136 年)までの整数を書いてください(1.5 hours ではなく 90 minutes)。TigerBeetle が仮押さえの期限を 32 ビットで持つので、どのターゲットでもこの範囲です", syntax.TimeWords("・"), book.MaxHoldSeconds))
	if strings.Contains(p.Amount.Text, ".") {
		r.report("E041", p.Amount.Pos,
			diag.T(fmt.Sprintf("the lifetime %s is not a whole number", text), fmt.Sprintf("有効期限 %s が整数ではありません", text)),
			hint)
		return 0, false
	}
	n, prob := scaled(p.Amount.Text, 0)
	if prob != numberOK || n > book.MaxHoldSeconds/per || n*per < 1 {
		r.report("E041", p.Amount.Pos,
			diag.T(fmt.Sprintf("the lifetime %s is outside 1 second to %d seconds", text, book.MaxHoldSeconds),
				fmt.Sprintf("有効期限 %s が 1 秒から %d 秒の範囲外です", text, book.MaxHoldSeconds)),
			hint)
		return 0, false
	}
	return n * per, true
}
