// Command chobo checks books of bounded accounts and turns them into
// PostgreSQL and clients. Run `chobo --help` for the commands.
package main

import (
	"os"

	"github.com/chobo-lang/chobo/chobo/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.OSEnv()))
}
