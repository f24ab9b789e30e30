package cli

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/report"
)

// runAPI prints what a tool needs to call a book, as JSON.
func runAPI(inv *Invocation) int {
	b, src, code := loadBookSource(inv, inv.Args[0])
	if b == nil {
		return code
	}
	// The report's search is bounded in work as check's is (W109 there
	// names what it gave up on).
	doc := api.Describe(b, src, report.Build(b), inv.Lang)
	if err := api.Write(inv.Env.Stdout, doc); err != nil {
		fmt.Fprintf(inv.Env.Stderr, "chobo api: %v\n", err)
		return ExitUsage
	}
	return ExitOK
}
