// Package golden compares output with files kept in the repository and,
// when CHOBO_BLESS=1, rewrites those files instead.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Bless reports whether goldens are being rewritten.
func Bless() bool { return os.Getenv("CHOBO_BLESS") == "1" }

// Check compares got with the file at path.
func Check(t *testing.T, path string, got []byte) {
	t.Helper()
	if Bless() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with CHOBO_BLESS=1 to write it)", err)
	}
	if !bytes.Equal(got, want) {
		line, g, w := firstDifference(got, want)
		t.Errorf("%s differs from the output from line %d (run with CHOBO_BLESS=1 to rewrite, then review the diff)\n--- got ---\n%s\n--- want ---\n%s", path, line, g, w)
	}
}

// context is how many lines firstDifference shows of each side.
const context = 5

// firstDifference names the first line where got and want part, with a
// few lines of each from there: a golden may be megabytes long, and the
// whole of both would bury the one line that matters.
func firstDifference(got, want []byte) (line int, g, w string) {
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	i := 0
	for i < len(gl) && i < len(wl) && bytes.Equal(gl[i], wl[i]) {
		i++
	}
	show := func(lines [][]byte) string {
		if i >= len(lines) {
			return "(end of file)"
		}
		part := lines[i:min(i+context, len(lines))]
		for j, l := range part {
			if len(l) > 300 {
				part[j] = append(l[:300:300], "…"...)
			}
		}
		return string(bytes.Join(part, []byte("\n")))
	}
	return i + 1, show(gl), show(wl)
}
