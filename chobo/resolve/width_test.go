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
