// Package pyruntime holds the Python runtime of chobo's clients: the part
// of every generated Python client that is the same for every book. The
// runtime is a Python package of its own (pyproject.toml, src/chobo,
// tests/); this Go package carries its modules into the compiler, which
// writes them into each client it generates, so that a client is one
// file that needs nothing of chobo installed.
package pyruntime

import (
	"embed"
	"fmt"
)

//go:embed src/chobo/*.py
var sources embed.FS

// Files lists the runtime's modules a client on a backend ("postgres" or
// "tigerbeetle") carries, in the order they are written into it: each
// module before the modules that import it, since a module's top level
// runs as the file is read.
func Files(backend string) ([]string, error) {
	switch backend {
	case "postgres":
		return []string{"chobo.py", "postgres.py"}, nil
	case "tigerbeetle":
		return []string{"chobo.py", "ids.py", "tigerbeetle.py", "tbclient.py"}, nil
	}
	return nil, fmt.Errorf("no Python runtime for the backend %q", backend)
}

// Source returns one module of the runtime, as it is under src/chobo/.
func Source(name string) ([]byte, error) {
	return sources.ReadFile("src/chobo/" + name)
}
