// drivermain writes the main package of a Go client's driver
// (godriver.MainSource): chobo_conformance_test runs it at build time, so
// that the text of that package is written in one place only.
//
//	drivermain IMPORTPATH OUT
package main

import (
	"fmt"
	"os"

	"github.com/chobo-lang/chobo/chobo/conformance/godriver"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: drivermain IMPORTPATH OUT")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[2], godriver.MainSource(os.Args[1]), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "drivermain:", err)
		os.Exit(1)
	}
}
