package evolve

import (
	"fmt"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
)

// A bound judges only where a move pushes an account: what leaves it
// against its lower bound, what reaches it against its upper bound. No
// deployment changes a balance, so a new bound needs nothing of the
// accounts already made but to be known by the code that judges their
// moves, and most bounds may change in place. The one that may not is a
// lower bound that crosses 0: on TigerBeetle, an account whose lower
// bound is 0 or more is made with the flag debits_must_not_exceed_credits,
// which cannot be set or cleared afterwards.

// boundChange reports the change of one bound of an account kind whose
// unit, outside and parameters stayed: E050 when its lower bound crossed
// 0, W110 otherwise. lower picks the side.
func (c *comparer) boundChange(oa, na *book.Account, lower bool) {
	ob, nb := bound(oa, lower), bound(na, lower)
	sameValue := (ob == nil) == (nb == nil) && (ob == nil || ob.Value == nb.Value)
	renamed := ob != nil && nb != nil && ob.Reason != nb.Reason
	if sameValue && !renamed {
		return
	}
	ts, _ := c.throughAccount(na.Name)
	for _, t := range ts {
		c.boundMoved[t] = true
	}
	side := diag.T("upper bound", "上限")
	if lower {
		side = diag.T("lower bound", "下限")
	}
	pos := na.Pos
	if nb != nil {
		pos = nb.Pos
	}
	subject := diag.T("the account kind "+q(na.Name), "勘定の種類 "+q(na.Name))
	ch := arrow(boundValue(oa, lower), boundValue(na, lower))
	if lower && !sameValue && flagged(ob) != flagged(nb) {
		c.accountChange(oa, na, pos, diag.T(
			fmt.Sprintf("%s changed its lower bound across 0, %s: on TigerBeetle an account whose lower bound is 0 or more carries the flag debits_must_not_exceed_credits, set when the account is made and fixed from then on, and one whose lower bound is below 0, or that has none, does not; its accounts already made cannot take the new bound",
				subject.En, ch.En),
			fmt.Sprintf("%s の下限が 0 をまたいで変わりました(%s)。TigerBeetle では、下限が 0 以上の勘定は作るときに debits_must_not_exceed_credits のフラグを付け、あとから付け外しはできません。下限が 0 未満の勘定と下限の無い勘定には付けません。作ってある勘定は、新しい下限に従えません",
				subject.Ja, ch.Ja)), []string{boundLine(oa, lower)}, crossingChange)
		return
	}
	msg := c.boundMessage(na, lower, side, ch, ob, nb, sameValue)
	if renamed {
		rc := arrow(ob.Reason, nb.Reason)
		reason := diag.T(
			fmt.Sprintf("calls refused by it from now on answer %s; calls answered before keep the old reason %s, and a retry of one of them that was refused answers already_refused, as before",
				q(nb.Reason), q(ob.Reason)),
			fmt.Sprintf("これから拒否される呼び出しは %s と答えます。前に答えた呼び出しは前の理由 %s のままで、拒否された呼び出しのリトライは前と同じく already_refused です",
				q(nb.Reason), q(ob.Reason)))
		if sameValue {
			msg = diag.T(fmt.Sprintf("renamed the reason of its %s, %s: %s", side.En, rc.En, reason.En),
				fmt.Sprintf("%s の%sの理由が変わりました(%s)。%s", subject.Ja, side.Ja, rc.Ja, reason.Ja))
		} else {
			msg = diag.T(fmt.Sprintf("%s; its reason is renamed too, %s: %s", msg.En, rc.En, reason.En),
				fmt.Sprintf("%s。理由も変わりました(%s)。%s", msg.Ja, rc.Ja, reason.Ja))
		}
	}
	notes := []diag.Text{
		before(accountLine(oa), boundLine(oa, lower)),
		diag.T("no balance changes with the new version; holds made before are posted, voided and expire as before; a key keeps its answer: a call done before is done_before, one refused before already_refused",
			"新しいバージョンで変わる残高はありません。前に作った仮押さえは、前と同じように確定、取消、期限切れになります。キーの答えも変わりません。前に済んだ呼び出しは done_before、前に拒否された呼び出しは already_refused です"),
	}
	if !sameValue {
		notes = append(notes, deployNote(lower, ob, nb))
	} else {
		notes = append(notes, diag.T("no account stores the reason: the new version's SQL and clients bring it, with nothing else to run",
			"理由はどの勘定にも記録されていません。新しいバージョンの SQL とクライアントが持ってくるので、ほかに流すものはありません"))
	}
	c.add("W110", pos,
		diag.T(subject.En+" "+msg.En, msg.Ja),
		notes,
		diag.T("if this is the change meant, the book needs nothing more: deploy it as docs/targets.md says under \"Changing a bound\"",
			"意図した変更なら、帳簿はこのままでかまいません。docs/targets.ja.md の「境界を変えるとき」のとおりにデプロイしてください"))
}

// flagged says whether an account with the lower bound b carries the flag
// debits_must_not_exceed_credits on TigerBeetle: a bound of 0 or more.
func flagged(b *book.Bound) bool { return b != nil && b.Value >= 0 }

// boundMessage says what a change of the value of a bound does: which
// way it moved and, for a bound that got tighter, which accounts it
// leaves outside and what calls on them answer. The English leaves out
// the subject, which the caller puts before it. It is empty when only
// the reason changed.
func (c *comparer) boundMessage(na *book.Account, lower bool, side, ch diag.Text, ob, nb *book.Bound, sameValue bool) diag.Text {
	if sameValue {
		return diag.Text{}
	}
	subjectJa := "勘定の種類 " + q(na.Name)
	switch {
	case nb == nil:
		return diag.T(fmt.Sprintf("removed its %s, %s: calls it would refuse pass now, under keys not refused before", side.En, ch.En),
			fmt.Sprintf("%s の%sが無くなりました(%s)。この境界なら拒否された呼び出しも、前に拒否されていないキーなら、これからは通ります", subjectJa, side.Ja, ch.Ja))
	case ob != nil && (lower && nb.Value < ob.Value || !lower && nb.Value > ob.Value):
		return diag.T(fmt.Sprintf("widened its %s, %s: calls the old bound would refuse can pass now, under keys not refused before", side.En, ch.En),
			fmt.Sprintf("%s の%sが広がりました(%s)。前の境界なら拒否された呼び出しも、前に拒否されていないキーなら、これからは通りえます", subjectJa, side.Ja, ch.Ja))
	}
	amount := book.FormatAmount(nb.Value, na.Unit.Scale) + " " + na.Unit.Name
	outside := diag.T(
		fmt.Sprintf("accounts holding more than %s, holds on their way in counted, are outside it: calls that add to them are refused with %s, calls that take from them pass, and once back inside, an account is held by the bound like any other",
			amount, q(nb.Reason)),
		fmt.Sprintf("%sを超えて持つ勘定(入ってくる仮押さえも数えます)は、境界の外になります。そこへ入れる呼び出しは %s で拒否され、そこから取る呼び出しは通ります。境界の内に戻れば、ほかの勘定と同じく境界が効きます",
			beforeJa(amount), q(nb.Reason)))
	if lower {
		outside = diag.T(
			fmt.Sprintf("accounts holding less than %s, holds on their way out counted, are outside it: calls that take from them are refused with %s, calls that add to them pass, and once back inside, an account is held by the bound like any other",
				amount, q(nb.Reason)),
			fmt.Sprintf("%sより少なく持つ勘定(出ていく仮押さえも数えます)は、境界の外になります。そこから取る呼び出しは %s で拒否され、そこへ入れる呼び出しは通ります。境界の内に戻れば、ほかの勘定と同じく境界が効きます",
				beforeJa(amount), q(nb.Reason)))
	}
	if ob == nil {
		return diag.T(fmt.Sprintf("added %s %s, %s: %s", map[bool]string{true: "a", false: "an"}[lower], side.En, ch.En, outside.En),
			fmt.Sprintf("%s に%sが加わりました(%s)。%s", subjectJa, side.Ja, ch.Ja, outside.Ja))
	}
	return diag.T(fmt.Sprintf("narrowed its %s, %s: %s", side.En, ch.En, outside.En),
		fmt.Sprintf("%s の%sが狭まりました(%s)。%s", subjectJa, side.Ja, ch.Ja, outside.Ja))
}

// deployNote says what deploying a new value of a bound takes on each
// database. On PostgreSQL the functions carry the bounds, so loading
// them is all. On TigerBeetle a lower bound of 0 or more is judged by the
// chain a client sends, which the new client sends at once; a lower
// bound below 0 is the balance of the account's floor account, and an
// upper bound that of its room account, which `chobo migrate` moves.
func deployNote(lower bool, ob, nb *book.Bound) diag.Text {
	pg := diag.T("on PostgreSQL, loading the new version's SQL changes the bound for every account at once",
		"PostgreSQL では、新しいバージョンの SQL を読み込めば、どの勘定の境界も一度に変わります")
	tb := diag.T("on TigerBeetle, the new version's clients apply it at once",
		"TigerBeetle では、新しいバージョンのクライアントがすぐに当てはめます")
	switch {
	case !lower:
		tb = diag.T("on TigerBeetle, an upper bound is kept by each account's room account: run `chobo migrate` after deploying; until it reaches an account, that account answers by the old bound",
			"TigerBeetle では、上限は勘定ごとの空きの勘定が持っています。デプロイしたら `chobo migrate` を流してください。migrate が届くまで、その勘定は前の境界で答えます")
	case !flagged(ob) || !flagged(nb):
		tb = diag.T("on TigerBeetle, a lower bound below 0 is kept by each account's floor account: run `chobo migrate` after deploying; until it reaches an account, that account answers by the old bound",
			"TigerBeetle では、0 未満の下限は勘定ごとの余裕の勘定が持っています。デプロイしたら `chobo migrate` を流してください。migrate が届くまで、その勘定は前の境界で答えます")
	}
	return diag.T(pg.En+"; "+tb.En, pg.Ja+"。"+tb.Ja)
}

// beforeJa ends s with a space when it ends in a Latin letter or digit,
// to keep it apart from the Japanese that follows (`350 seats を`), and
// leaves it as it is after Japanese (`350 席を`).
func beforeJa(s string) string {
	if r, _ := utf8.DecodeLastRuneInString(s); r < utf8.RuneSelf {
		return s + " "
	}
	return s
}
