// Command chobo checks books of bounded accounts and turns them into
// PostgreSQL and clients. Run `chobo --help` for the commands.
package main

import (
	"os"
	"runtime/debug"

	"github.com/chobo-lang/chobo/chobo/cli"
)

func main() {
	// A run of chobo is short and makes much garbage (the interpreter runs
	// every example and scenario): collecting it four times less often
	// saves about a quarter of the time of a large book, and a soft limit
	// keeps the heap of the largest from growing past what the collector
	// would have allowed anyway. GOGC and GOMEMLIMIT, when set, still rule.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1 << 30)
	}
	os.Exit(cli.Main(os.Args[1:], cli.OSEnv()))
}
