package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
)

func (o Operation) name() string { return diag.Printable(o.Transfer.Name + "." + string(o.Op)) }

// Where says, for people, which bound a refusal comes from: the bound
// as its account declares it (`stock(sku) at least 0`), or, in a
// transfer of several moves, the move and its account as the move
// names it (`move 2: stock(to_sku) at least 0`); empty for chobo's own
// reasons.
func (r Refusal) Where(t *book.Transfer, lang diag.Lang) string {
	switch {
	case r.Account == nil:
		return ""
	case len(t.Moves) < 2:
		return r.Bound
	}
	return MovesText(r.Moves, lang) + ": " + r.Ref + " " + r.Limit
}

// MovesText names moves for people: `move 2`, `moves 2, 3`, `moves
// 1–43` (a run of three or more is written as its ends).
func MovesText(moves []int, lang diag.Lang) string {
	var parts []string
	for i := 0; i < len(moves); {
		j := i
		for j+1 < len(moves) && moves[j+1] == moves[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, fmt.Sprintf("%d%s%d", moves[i], diag.T("–", "〜").In(lang), moves[j]))
		default:
			for k := i; k <= j; k++ {
				parts = append(parts, fmt.Sprint(moves[k]))
			}
		}
		i = j + 1
	}
	list := strings.Join(parts, diag.T(", ", "、").In(lang))
	if lang == diag.Japanese {
		return "移動 " + list
	}
	if len(moves) == 1 {
		return "move " + list
	}
	return "moves " + list
}

// Texts writes the refusals of o for people, one entry per reason in
// the order first listed, with every bound that gives it:
// `out_of_stock (move 1: stock(from) at least 0; move 3: stock(to) at
// least 0)`.
func (o Operation) Texts(lang diag.Lang) []string {
	var order []string
	where := map[string][]string{}
	for _, rf := range o.Refusals {
		if _, ok := where[rf.Reason]; !ok {
			order = append(order, rf.Reason)
			where[rf.Reason] = nil
		}
		if w := rf.Where(o.Transfer, lang); w != "" {
			where[rf.Reason] = append(where[rf.Reason], w)
		}
	}
	out := make([]string, len(order))
	for i, reason := range order {
		out[i] = reason
		if ws := where[reason]; len(ws) > 0 {
			out[i] = diag.Paren(lang, reason, strings.Join(ws, diag.T("; ", "、").In(lang)))
		}
	}
	return out
}

// WriteText prints the report under a file's summary line.
func WriteText(w io.Writer, r Report, lang diag.Lang) {
	var b strings.Builder
	width := 0
	for _, o := range r.Operations {
		width = max(width, diag.Width(o.name()))
	}
	for _, o := range r.Operations {
		pad := strings.Repeat(" ", width-diag.Width(o.name()))
		if len(o.Refusals) == 0 {
			fmt.Fprintf(&b, "  %s%s  %s\n", o.name(), pad, diag.T("no refusal found", "拒否される例は見つかりません").In(lang))
			continue
		}
		var parts []string
		for _, text := range o.Texts(lang) {
			parts = append(parts, diag.Printable(text))
		}
		if lang == diag.Japanese {
			fmt.Fprintf(&b, "  %s%s  拒否されうる理由: %s\n", o.name(), pad, strings.Join(parts, "、"))
		} else {
			fmt.Fprintf(&b, "  %s%s  may be refused: %s\n", o.name(), pad, strings.Join(parts, ", "))
		}
	}
	for _, t := range r.Keys {
		label := "key: "
		if lang == diag.Japanese {
			label = "キー: "
		}
		fmt.Fprintf(&b, "  %s%s\n", label, diag.Printable(KeyText(t, r.Operations).In(lang)))
	}
	io.WriteString(w, b.String())
}

// KeyText says what the key of t means for callers, promising
// key_conflict only when ops, the report's operations, hold it for t's do
// or hold: the key line and the reasons listed above it agree.
func KeyText(t *book.Transfer, ops []Operation) diag.Text {
	conflict := false
	for _, o := range ops {
		if o.Transfer != t || (o.Op != book.Do && o.Op != book.Hold) {
			continue
		}
		for _, rf := range o.Refusals {
			conflict = conflict || rf.Reason == book.KeyConflict
		}
	}
	return KeySentence(t, conflict)
}

// KeySentence says what the key of t means for callers; conflict says
// whether a second call with the same key and other content can be
// refused with key_conflict (it cannot when no first call is ever done).
func KeySentence(t *book.Transfer, conflict bool) diag.Text {
	inKey := map[*book.Param]bool{}
	var keys []string
	for _, p := range t.Key {
		inKey[p] = true
		keys = append(keys, p.Name)
	}
	var others []string
	for _, p := range t.Params {
		if !inKey[p] {
			others = append(others, p.Name)
		}
	}
	en := fmt.Sprintf("%s once per %s", t.Name, strings.Join(keys, ", "))
	var ja string
	switch len(keys) {
	case 1:
		ja = fmt.Sprintf("%s は、%s ごとに一度だけ実行されます。", t.Name, keys[0])
	case 2:
		ja = fmt.Sprintf("%s は、%s と %s の組ごとに一度だけ実行されます。", t.Name, keys[0], keys[1])
	default:
		ja = fmt.Sprintf("%s は、%s の組ごとに一度だけ実行されます。", t.Name, strings.Join(keys, "・"))
	}
	if !conflict {
		others = nil
	}
	switch len(others) {
	case 0:
	case 1:
		en += fmt.Sprintf("; a second call that differs only in %s is refused with key_conflict", others[0])
		ja += fmt.Sprintf("キーが同じで %s が違う二度目の呼び出しは、key_conflict で拒否されます。", others[0])
	default:
		en += fmt.Sprintf("; a second call that differs only in %s or %s is refused with key_conflict",
			strings.Join(others[:len(others)-1], ", "), others[len(others)-1])
		ja += fmt.Sprintf("キーが同じで %s のいずれかが違う二度目の呼び出しは、key_conflict で拒否されます。", strings.Join(others, "、"))
	}
	if t.Pending != nil {
		en += "; holding again with the same key after the hold has ended answers done_before and holds nothing"
		ja += "仮押さえが終わったあとに同じキーでもう一度押さえると、done_before が返り、何も押さえません。"
	}
	return diag.T(en, ja)
}
