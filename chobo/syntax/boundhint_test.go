package syntax

import "testing"

// TestBoundHints: a bound written as a comparison, or with a word a
// newcomer reaches for, is answered with the bound line the book takes,
// built from the number (and the reason) written.
func TestBoundHints(t *testing.T) {
	const head = "book b v1\nunit pcs\n"
	const acct = head + "account stock(sku: string) : pcs\n"
	const line = "a bound is written in words, on its own line under the account: "
	checkHints(t, []hintCase{
		{">= after the unit", head + "account stock(sku: string) : pcs >= 0\n", "unexpected character `>`",
			line + "`at least 0 refused as <reason>`", "境界は記号ではなく語で、勘定の下の行に書きます: `at least 0 refused as <理由>`"},
		{">= on its own line", acct + "  >= 0\n", "`>`", "`at least 0 refused as <reason>`", "`at least 0 refused as <理由>`"},
		{"balance >=", acct + "  balance >= 0\n", "`>`", "`at least 0 refused as <reason>`", "`at least 0 refused as <理由>`"},
		{"at least >=", acct + "  at least >= 0 refused as out_of_stock\n", "`>`",
			"`at least 0 refused as out_of_stock`", "`at least 0 refused as out_of_stock`"},
		{"> moves by one", acct + "  > 0\n", "`>`", "`at least 1 refused as <reason>`", "`at least 1 refused as <理由>`"},
		{"> with decimals", acct + "  > 0.5\n", "`>`", "`at least 0.6 refused", "`at least 0.6 refused"},
		{"<=", acct + "  <= 100\n", "`<`", "`at most 100 refused as <reason>`", "`at most 100 refused as <理由>`"},
		{"< moves by one", acct + "  < 100\n", "`<`", "`at most 99 refused", "`at most 99 refused"},
		{"negative", acct + "  >= -50\n", "`>`", "`at least -50 refused", "`at least -50 refused"},
		{"no number", acct + "  >= zero\n", "`>`", "`at least 0 refused as <reason>`", "`at least 0 refused as <理由>`"},
		{"≥", acct + "  ≥ 0\n", "`≥`", "`at least 0 refused", "`at least 0 refused"},
		{"≧ of a Japanese input method", acct + "  ≧ 0\n", "`≧`", "`at least 0 refused", "`at least 0 refused"},
		{"full-width >=", acct + "  ＞＝ 0\n", "`＞`", "`at least 0 refused", "`at least 0 refused"},
		{"min", acct + "  min 0\n", "cannot start with `min`", "`at least 0 refused as <reason>`", "`at least 0 refused as <理由>`"},
		{"minimum", acct + "  minimum 5\n", "", "`at least 5 refused", "`at least 5 refused"},
		{"max", acct + "  max 10\n", "cannot start with `max`", "`at most 10 refused", "`at most 10 refused"},
		{"not negative", acct + "  not negative\n", "", "`at least 0 refused", "`at least 0 refused"},
		{"at min", acct + "  at min 0\n", "found `min`", "the word here is `least`: `at least 0 refused as <reason>`", "ここは `least` と書きます: `at least 0 refused as <理由>`"},
		{"at max", acct + "  at max 10\n", "found `max`", "the word here is `most`: `at most 10 refused", "ここは `most` と書きます"},
		{"at least:", acct + "  at least: 0\n", "found `:`", "the number follows `at least` with nothing between: `at least 0 refused as <reason>`", "数は `at least` のすぐ後に書きます"},
		{"refused without as", acct + "  at least 0 refused out_of_stock\n", "expected `as`", "the word here is `as`: `at least 0 refused as out_of_stock`", "ここは `as` と書きます: `at least 0 refused as out_of_stock`"},
		{"refused:", acct + "  at least 0 refused: out_of_stock\n", "expected `as`", "`at least 0 refused as out_of_stock`", "`at least 0 refused as out_of_stock`"},
		{"as without refused", acct + "  at least 0 as out_of_stock\n", "unexpected `as`", "the reason follows `refused as`: `at least 0 refused as out_of_stock`", "理由は `refused as` の後に書きます: `at least 0 refused as out_of_stock`"},
	})
}

// TestComparisonOutsideABound: other characters keep their own hints.
func TestComparisonOutsideABound(t *testing.T) {
	_, en, _ := firstError(t, "book b v1\nunit pcs\naccount a : pcs ! 0\n")
	if en == "" || en == boundHint("at least", "0").En {
		t.Errorf("`!` got %q", en)
	}
}
