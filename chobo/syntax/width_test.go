package syntax

import (
	"strings"
	"testing"
)

// firstError parses src and returns its first diagnostic, failing when
// there is none.
func firstError(t *testing.T, src string) (msg, hintEn, hintJa string) {
	t.Helper()
	_, ds := Parse("t.book", []byte(src))
	if len(ds) == 0 {
		t.Fatalf("%q: no diagnostic", src)
	}
	d := ds[0]
	return d.Message.En, d.Hint.En, d.Hint.Ja
}

// hintCase is a book and what its first diagnostic says: words of the
// message, and of the hint in each language.
type hintCase struct {
	name, src, msg, en, ja string
}

func checkHints(t *testing.T, cases []hintCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg, en, ja := firstError(t, c.src)
			if !strings.Contains(msg, c.msg) || !strings.Contains(en, c.en) || !strings.Contains(ja, c.ja) {
				t.Errorf("%q, hint %q / %q; want %q, %q / %q", msg, en, ja, c.msg, c.en, c.ja)
			}
		})
	}
}

// TestCharacterHints: a full-width character an input method types in
// place of the ASCII one gets a hint that names the ASCII one.
func TestCharacterHints(t *testing.T) {
	const head = "book b v1\n"
	checkHints(t, []hintCase{
		{"full-width bracket", head + "account 財布（会員: string） : 円\n", "`（` (U+FF08)", "use the half-width `(`", "半角の `(` にしてください"},
		{"full-width closing bracket", head + "account 財布(会員: string） : 円\n", "`）`", "use the half-width `)`", "半角の `)` にしてください"},
		{"full-width colon", head + "account 財布(会員： string) : 円\n", "`：`", "use the half-width `:`", "半角の `:` にしてください"},
		{"ideographic comma", head + "transfer t(a: string、b: string)\n", "`、`", "the separator is the half-width `,`", "区切りは半角の `,` です"},
		{"full-width comma", head + "transfer t(a: string，b: string)\n", "`，`", "the separator is the half-width `,`", "区切りは半角の `,` です"},
		{"ideographic space", head + "unit\u3000円\n", "U+3000", "full-width space", "全角スペースです。字下げと区切りは半角スペースで書きます"},
		{"full-width digit", head + "unit USD scale ２\n", "`２`", "half-width digits: `2`, not `２`", "数は半角の数字で書きます(`２` ではなく `2`)"},
		{"full-width number", head + "unit USD scale １８\n", "`１`", "`18`, not `１８`", "(`１８` ではなく `18`)"},
		{"full-width hash", head + "unit 個 ＃ 税込\n", "`＃`", "use the half-width `#`", "半角の `#` にしてください"},
		{"middle dot", head + "account ギフト・カード : 個\n", "`・`", "cannot hold `・`", "名前に「・」は使えません(`_` を使うか、取ってください)"},
		{"half-width middle dot", head + "account ｷﾞﾌﾄ･ｶｰﾄﾞ : 個\n", "`･`", "cannot hold `・`", "名前に「・」は使えません"},
		{"corner quotes", head + "description 「棚」\n", "`「`", "half-width double quotes", "半角の二重引用符"},
		{"full stop", head + "unit 個。\n", "`。`", "needs no `。`", "「。」は要りません"},
		{"other full-width ASCII", head + "unit 個 ＝\n", "`＝`", "use the half-width `=`", "半角の `=` にしてください"},
		{"other character", head + "unit 個 ☆\n", "`☆`", "names are letters, digits and `_`", "名前には文字、数字、`_` が使えます"},
	})
}

// TestVersionHints: a version typed full-width, or without its `v`.
func TestVersionHints(t *testing.T) {
	checkHints(t, []hintCase{
		{"full-width version", "book 全角 ｖ1\n", "found `ｖ1`", "half-width lowercase letters and digits: `v1`", "バージョンは半角の小文字と数字で書きます: `v1`"},
		{"version without v", "book b 1\n", "found `1`", "`v1`", "`v1`"},
	})
}

// TestFullWidthIndentKeepsTheBlock: a line indented with ideographic
// spaces was meant for the block, whose next lines are still read.
func TestFullWidthIndentKeepsTheBlock(t *testing.T) {
	f, ds := Parse("t.book", []byte("book b v1\naccount a : pcs\n\u3000\u3000at least 0 refused as x\n  at most 5 refused as y\n"))
	if len(ds) != 1 || ds[0].Line != 3 {
		t.Fatalf("want one error on line 3, got %+v", ds)
	}
	if len(f.Accounts) != 1 || len(f.Accounts[0].Bounds) != 1 {
		t.Errorf("the bound on line 4 is not read into the account: %+v", f.Accounts)
	}
}

func TestFoldWidth(t *testing.T) {
	for in, want := range map[string]string{
		"在庫２":      "在庫2",
		"ＳＫＵ":      "SKU",
		"ｶｰﾄﾞ":     "カード",
		"ﾊﾟﾝ":      "パン",
		"ｳﾞ":       "ヴ",
		"ﾞ":        "゛",
		"a\u3000b": "a b",
		"カード":      "カード",
		"ｶﾞｶﾞｶﾞｶﾞ": "ガガガガ",
	} {
		if got := FoldWidth(in); got != want {
			t.Errorf("FoldWidth(%q) = %q, want %q", in, got, want)
		}
	}
	if len(halfKana) != 0xFF9F-0xFF61+1 {
		t.Errorf("halfKana has %d characters", len(halfKana))
	}
}

func TestWidthNote(t *testing.T) {
	for _, c := range []struct {
		written, declared, en, ja string
	}{
		{"在庫2", "在庫２", "`在庫２` differs only in a full-width `２`", "全角の「２」で書いた `在庫２` がありますが、名前は書いたとおりに比べます"},
		{"在庫２", "在庫2", "`在庫2` is declared, but here it is written with a full-width `２`", "`在庫2` がありますが、ここでは全角の「２」で書いています"},
		{"SKU", "ＳＫＵ", "`ＳＫＵ` is the same name in full-width characters", "全角で書いた `ＳＫＵ` があります"},
		{"ｶｰﾄﾞ", "カード", "here the name is in half-width characters", "ここでは半角で書いています"},
		{"ｶｰﾄﾞ2", "カード２", "differs only in the width of some characters", "文字の幅だけが違う `カード２` があります"},
	} {
		twin, ok := WidthTwin(c.written, []string{"other", c.declared})
		if !ok || twin != c.declared {
			t.Errorf("WidthTwin(%q) = %q, %v", c.written, twin, ok)
			continue
		}
		n := WidthNote(c.written, twin)
		if !strings.Contains(n.En, c.en) || !strings.Contains(n.Ja, c.ja) {
			t.Errorf("%q for %q: %q / %q", c.written, c.declared, n.En, n.Ja)
		}
	}
	if _, ok := WidthTwin("ＳＫＵ2", []string{"SKU2", "SKU２"}); ok {
		t.Error("a twin among two alike names should not be named")
	}
	if _, ok := WidthTwin("在庫3", []string{"在庫２"}); ok {
		t.Error("names that differ in more than width are no twins")
	}
}
