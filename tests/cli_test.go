// Package tests runs chobo end to end on the books under tests/ and
// examples/ and compares its output with goldens.
package tests

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/chobo-lang/chobo/chobo/cli"
)

// run calls the command line in-process, reading files relative to dir so
// that file names in the output do not depend on where the test runs.
func run(dir string, env map[string]string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = cli.Main(args, cli.Env{
		Stdout: &out,
		Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
		ReadFile: func(name string) ([]byte, error) {
			if !filepath.IsAbs(name) {
				name = filepath.Join(dir, name)
			}
			return os.ReadFile(name)
		},
		Dir: dir,
	})
	return out.String(), errb.String(), code
}
