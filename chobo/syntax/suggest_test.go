package syntax

import (
	"strings"
	"testing"
)

// TestKeywordSuggestions: a mistyped keyword is named, and so is the
// keyword for a word said instead of it.
func TestKeywordSuggestions(t *testing.T) {
	const head = "book b v1\nunit 個\n"
	const acct = head + "account a : 個\n"
	const tr = head + "transfer t(id: string, n: 個)\n"
	checkHints(t, []hintCase{
		{"transfer", head + "tranfer t(id: string)\n", "cannot start with `tranfer`", "did you mean `transfer`?", "`transfer` のことですか"},
		{"account", head + "acount a : 個\n", "", "did you mean `account`?", "`account` のことですか"},
		{"capital", head + "Account a : 個\n", "", "did you mean `account`?", "`account` のことですか"},
		{"swapped letters", head + "uint x\n", "", "did you mean `unit`?", "`unit` のことですか"},
		{"full-width keyword", head + "ｕｎｉｔ 枚\n", "", "write keywords in half-width letters: `unit`", "キーワードは半角で書きます: `unit`"},
		{"move", tr + "  mov n from a to b\n", "cannot start with `mov`", "did you mean `move`?", "`move` のことですか"},
		{"key", tr + "  kye id\n", "", "did you mean `key`?", "`key` のことですか"},
		{"pending", tr + "  pendng never expires\n", "", "did you mean `pending`?", "`pending` のことですか"},
		{"at least as one word", acct + "  atleast 0 refused as x\n", "", "did you mean `at least`?", "`at least` のことですか"},
		{"least", acct + "  at lest 0 refused as x\n", "found `lest`", "did you mean `at least`?", "`at least` のことですか"},
		{"most", acct + "  at mots 0 refused as x\n", "", "did you mean `at most`?", "`at most` のことですか"},
		{"refused as", acct + "  at least 0 refuse as x\n", "unexpected `refuse`", "did you mean `refused as`?", "`refused as` のことですか"},
		{"from", tr + "  move n form a to b\n", "found `form`", "did you mean `from`?", "`from` のことですか"},
		{"into", tr + "  move n from a into b\n", "expected `to`, found `into`", "the word here is `to`", "ここは `to` と書きます"},
		{"in", tr + "  pending expires in 30 minutes\n", "expected `after`, found `in`", "the word here is `after`: `pending expires after 30 minutes`", "ここは `after` と書きます: `pending expires after 30 minutes`"},
		{"in, a day", tr + "  pending expires in 1 day\n", "", "`pending expires after 1 day`", "`pending expires after 1 day`"},
		{"expires", tr + "  pending expire after 30 minutes\n", "", "did you mean `expires after`?", "`expires after` のことですか"},
		{"never", tr + "  pending nevr expires\n", "", "did you mean `never expires`?", "`never expires` のことですか"},
		{"time word", tr + "  pending expires after 30 minuts\n", "", "did you mean `minutes`?", "`minutes` のことですか"},
		{"one time word", tr + "  pending expires after 1 minut\n", "", "did you mean `minute`?", "`minute` のことですか"},
		{"outside", head + "account a : 個 outsde\n", "unexpected `outsde`", "did you mean `outside`?", "`outside` のことですか"},
		{"scale", head + "unit USD scal 2\n", "", "did you mean `scale`?", "`scale` のことですか"},
		{"full-width scale", head + "unit USD ｓｃａｌｅ 2\n", "", "write keywords in half-width letters: `scale`", "キーワードは半角で書きます: `scale`"},
	})
}

// TestNoSuggestionForOtherWords: a word near no keyword, or as near two,
// keeps the list of what may start a line.
func TestNoSuggestionForOtherWords(t *testing.T) {
	for _, line := range []string{"ledger x", "在庫 x", "ab x"} {
		_, en, _ := firstError(t, "book b v1\n"+line+"\n")
		if strings.Contains(en, "did you mean") {
			t.Errorf("%q: hint %q", line, en)
		}
	}
}

// TestParserHints: the hints for the other common slips.
func TestParserHints(t *testing.T) {
	const head = "book b v1\nunit 個\n"
	const acct = head + "account a : 個\n"
	const tr = head + "transfer t(id: string, n: 個)\n"
	checkHints(t, []hintCase{
		{"japanese time unit", tr + "  pending expires after 30 分\n", "found `分`", "time units are written in English: `30 minutes`", "時間の単位は英語で書きます(`30 minutes`)"},
		{"japanese hours", tr + "  pending expires after 2 時間\n", "found `時間`", "`2 hours`", "(`2 hours`)"},
		{"japanese one day", tr + "  pending expires after 1 日\n", "found `日`", "`1 day`", "(`1 day`)"},
		{"other japanese time unit", tr + "  pending expires after 2 週\n", "found `週`", "seconds, minutes, hours or days", "seconds・minutes・hours・days"},
		{"quoted reason", acct + "  at least 0 refused as \"売り切れ\"\n", "found a string", "without quotes: `refused as 売り切れ`", "理由は引用符で囲まずに、名前として書きます: `refused as 売り切れ`"},
		{"quoted reason with a space", acct + "  at least 0 refused as \"sold out\"\n", "found a string", "`refused as sold_out`", "`refused as sold_out`"},
		{"quoted reason that is no name", acct + "  at least 0 refused as \"1 left\"\n", "found a string", "`refused as out_of_stock`", "`refused as 在庫切れ`"},
		{"name starting with a digit", head + "account 1番棚 : 個\n", "expected an account name, found `1`", "a name cannot start with a digit", "名前は数字で始められません"},
		{"bound under a transfer", tr + "  at least 0 refused as x\n", "`at least` cannot stand under a transfer", "under an account", "勘定の下には"},
		{"upper bound under a transfer", tr + "  at most 0 refused as x\n", "`at most` cannot stand under a transfer", "under an account", "勘定の下には"},
	})
}

// TestOneErrorPerMistypedHeader: the indented lines under a line that
// starts with a mistyped keyword are that line's, not orphans.
func TestOneErrorPerMistypedHeader(t *testing.T) {
	for _, head := range []string{"tranfer 売る(注文: string, 数: 個)", "acount 棚 : 個", "ledger x", "unit 個 ＃"} {
		src := "book b v1\n" + head + "\n  key 注文\n  move 数 from 棚 to 客\n"
		_, ds := Parse("t.book", []byte(src))
		if len(ds) != 1 || ds[0].Line != 2 {
			t.Errorf("%q: want one error on line 2, got %+v", head, ds)
		}
	}
}
