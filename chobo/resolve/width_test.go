package resolve

import (
	"testing"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// TestWidthVariants: a name not found that differs from a declared one
// only in full-width or half-width characters is told so, with the
// declared name as the hint; any other name keeps the list.
func TestWidthVariants(t *testing.T) {
	const stock = "book r v1\nunit 個\naccount 在庫２ : 個\n  at least 0 refused as 空\naccount 客 : 個 outside\n"
	checkMessages(t, []messageCase{
		{"account differing in width", stock + "transfer t(id: string, n: 個)\n  key id\n  move n from 在庫2 to 客\n", "E002",
			diag.T("there is no account named `在庫2`; `在庫２` differs only in a full-width `２`, and names are compared as written",
				"勘定 `在庫2` はありません。全角の「２」で書いた `在庫２` がありますが、名前は書いたとおりに比べます"),
			diag.T("write it as declared, `在庫２`", "宣言のとおり `在庫２` と書くか")},
		{"unit differing in width", "book r v1\nunit ｋｇ\naccount a : kg outside\n", "E002",
			diag.T("`ｋｇ` is the same name in full-width characters", "全角で書いた `ｋｇ` がありますが"),
			diag.T("`ｋｇ`", "`ｋｇ`")},
		{"parameter differing in width", stock + "transfer t(id: string, 数量２: 個)\n  key id\n  move 数量2 from 在庫２ to 客\n", "E002",
			diag.T("`数量2` is not a parameter of `t`; `数量２` differs only in a full-width `２`", "`数量2` は `t` の引数にありません。全角の「２」で書いた `数量２` がありますが"),
			diag.T("write it as declared, `数量２`", "宣言のとおり `数量２` と書くか")},
		{"parameter of another name", stock + "transfer t(id: string, 数量: 個)\n  key id\n  move 数 from 在庫２ to 客\n", "E002",
			diag.T("`数` is not a parameter of `t`", "`数` は `t` の引数にありません"),
			diag.T("the parameters of `t` are: id, 数量", "`t` の引数: id、数量")},
		{"key differing in width", stock + "transfer t(ＩＤ: string, n: 個)\n  key ID\n  move n from 在庫２ to 客\n", "E030",
			diag.T("the key names `ID`, which is not a parameter of `t`; `ＩＤ` is the same name in full-width characters",
				"`key` に書いた `ID` は、`t` の引数にありません。全角で書いた `ＩＤ` がありますが"),
			diag.T("`ＩＤ`", "`ＩＤ`")},
	})
}

// TestMisspeltNames: a name a letter or two from a declared one is
// answered with that name; a name near none, or as near two, keeps the
// list to choose from.
func TestMisspeltNames(t *testing.T) {
	const head = "book r v1\nunit pcs\naccount handled : pcs\n  at least 0 refused as none\naccount handler : pcs outside\naccount world : pcs outside\n"
	checkMessages(t, []messageCase{
		{"account", head + "transfer t(id: string, n: pcs)\n  key id\n  move n from world to handeld\n", "E002",
			diag.T("there is no account named `handeld`", "勘定 `handeld` はありません"),
			diag.T("did you mean `handled`?", "`handled` のことですか")},
		{"account near none", head + "transfer t(id: string, n: pcs)\n  key id\n  move n from world to workshop\n", "E002",
			diag.T("there is no account named `workshop`", "勘定 `workshop` はありません"),
			diag.T("or use one of: handled, handler, world", "次のどれかを使ってください: handled、handler、world")},
		{"account as near two", head + "transfer t(id: string, n: pcs)\n  key id\n  move n from world to handlex\n", "E002",
			diag.T("there is no account named `handlex`", "勘定 `handlex` はありません"),
			diag.T("or use one of: handled, handler, world", "次のどれかを使ってください: handled、handler、world")},
		{"unit", "book r v1\nunit items\naccount a : itmes outside\n", "E002",
			diag.T("there is no unit named `itmes`", "単位 `itmes` はありません"),
			diag.T("did you mean `items`?", "`items` のことですか")},
		{"parameter", head + "transfer t(id: string, qty: pcs)\n  key id\n  move qyt from world to handled\n", "E002",
			diag.T("`qyt` is not a parameter of `t`", "`qyt` は `t` の引数にありません"),
			diag.T("did you mean `qty`?", "`qty` のことですか")},
		{"key", head + "transfer t(order: string, n: pcs)\n  key ordre\n  move n from world to handled\n", "E030",
			diag.T("the key names `ordre`", "`key` に書いた `ordre`"),
			diag.T("did you mean `order`?", "`order` のことですか")},
		{"short japanese name", "book r v1\nunit 個\naccount 在庫 : 個\n  at least 0 refused as 空\naccount 客 : 個 outside\ntransfer t(id: string, n: 個)\n  key id\n  move n from 客 to 在高\n", "E002",
			diag.T("there is no account named `在高`", "勘定 `在高` はありません"),
			diag.T("did you mean `在庫`?", "`在庫` のことですか")},
		{"japanese name near none", "book r v1\nunit 個\naccount 在庫 : 個\n  at least 0 refused as 空\naccount 客 : 個 outside\ntransfer t(id: string, n: 個)\n  key id\n  move n from 客 to 倉庫番\n", "E002",
			diag.T("there is no account named `倉庫番`", "勘定 `倉庫番` はありません"),
			diag.T("or use one of: 在庫, 客", "次のどれかを使ってください: 在庫、客")},
	})
}
