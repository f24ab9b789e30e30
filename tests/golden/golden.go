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
		t.Errorf("%s differs from the output (run with CHOBO_BLESS=1 to rewrite, then review the diff)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
