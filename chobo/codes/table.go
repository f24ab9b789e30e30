package codes

import "github.com/chobo-lang/chobo/chobo/diag"

// All lists every code this version of chobo reports, in code order.
var All = []Code{
	{
		Code:     "E001",
		Severity: diag.Error,
		Title:    diag.T("a line that cannot be read", "読めない行"),
		When: diag.T("A line does not have the shape of any declaration: an unknown word, a keyword used as a name, a string not closed, a tab, a byte order mark, a combining character in a name, or indentation that does not fit a block.",
			"行がどの宣言の形にもなっていません。知らない語、名前に使ったキーワード、閉じていない文字列、タブ、バイト順マーク、名前の中の結合文字、ブロックに合わない字下げなどです。"),
		Fix: diag.T("Write the line in one of the shapes the message names. Nothing after a syntax error is resolved, so fix these first.",
			"メッセージが挙げる形で書き直してください。構文の誤りがあると名前の解決をしないので、まずこれを直します。"),
		Repro: "book repro v1\nunit pcs\naccount from : pcs outside\n",
	},
}
