// Package typescript holds the TypeScript runtime of chobo's clients:
// the part of every generated TypeScript client that is the same for every
// book. The runtime is a TypeScript package of its own (package.json,
// src/, test/); this Go package carries its sources into the compiler,
// which writes them into each client it generates, so that a client is
// one file. The driver and what compiles a client with it are in
// lang/typescript/driver.
package typescript

import (
	"embed"
	"fmt"
)

//go:embed src/chobo.ts src/ids.ts src/postgres.ts src/tigerbeetle.ts
var sources embed.FS

// Files lists the runtime's files a client on a backend ("postgres" or
// "tigerbeetle") carries, in the order they are written into it: each
// file before the files that import it.
func Files(backend string) ([]string, error) {
	switch backend {
	case "postgres":
		return []string{"chobo.ts", "postgres.ts"}, nil
	case "tigerbeetle":
		return []string{"chobo.ts", "ids.ts", "tigerbeetle.ts"}, nil
	}
	return nil, fmt.Errorf("no TypeScript runtime for the backend %q", backend)
}

// Source returns one file of the runtime, as it is under src/.
func Source(name string) ([]byte, error) {
	return sources.ReadFile("src/" + name)
}
