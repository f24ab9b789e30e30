package cli

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check/checktest"
	"github.com/chobo-lang/chobo/chobo/target"
)

// BenchmarkCommands runs every command that reads a book on the books
// of checktest.Hostile, side by side:
//
//	go test -run '^$' -bench Commands ./chobo/cli/
//
// Each command on each book should stay well under two seconds, and
// check of the 5,000-line book under a quarter of one, on a quiet
// machine.
func BenchmarkCommands(b *testing.B) {
	commands := []struct {
		name string
		args []string
	}{
		{"check", []string{"check"}},
		{"scenarios", []string{"scenarios"}},
		{"api", []string{"api"}},
		{"doc", []string{"doc"}},
		{"doc-html", []string{"doc", "--format", "html"}},
		{"build-postgres", []string{"build", "--target", "postgres"}},
	}
	// And each client target of the registry.
	for _, tg := range target.All {
		if tg.Client() != nil {
			commands = append(commands, struct {
				name string
				args []string
			}{"build-" + tg.Name, []string{"build", "--target", tg.Name}})
		}
	}
	for _, bk := range checktest.Hostile() {
		for _, c := range commands {
			b.Run(bk.Name+"/"+c.name, func(b *testing.B) {
				out := b.TempDir()
				args := append(append([]string{}, c.args...), "bench.book")
				if c.args[0] == "build" || c.args[0] == "scenarios" {
					args = append(args, "--out", out)
				}
				env := Env{
					Stdout: io.Discard, Stderr: io.Discard,
					Getenv: func(string) string { return "" },
					ReadFile: func(name string) ([]byte, error) {
						if filepath.Base(name) == "bench.book" {
							return bk.Src, nil
						}
						return nil, os.ErrNotExist
					},
					Dir: out,
				}
				for range b.N {
					if code := Main(args, env); code == ExitUsage {
						b.Fatalf("chobo %v: exit %d", args, code)
					}
				}
			})
		}
	}
}
