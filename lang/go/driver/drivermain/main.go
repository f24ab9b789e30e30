// drivermain writes the main package of a Go client's driver
// (driver.MainSource, or MainSourceTigerBeetle for a tigerbeetle-go
// client): chobo_conformance_test runs it at build time, so that the text
// of that package is written in one place only.
//
//	drivermain TARGET IMPORTPATH OUT
package main

import (
	"fmt"
	"os"

	"github.com/chobo-lang/chobo/lang/go/driver"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: drivermain TARGET IMPORTPATH OUT")
		os.Exit(2)
	}
	var src []byte
	switch os.Args[1] {
	case driver.PostgresTarget:
		src = driver.MainSource(os.Args[2])
	case driver.TigerBeetleTarget:
		src = driver.MainSourceTigerBeetle(os.Args[2])
	default:
		fmt.Fprintf(os.Stderr, "drivermain: no Go driver for the target %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[3], src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "drivermain:", err)
		os.Exit(1)
	}
}
