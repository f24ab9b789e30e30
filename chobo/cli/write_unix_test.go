//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Generated files are made as os.WriteFile makes them: 0666 less the
// umask, not os.CreateTemp's 0600.
func TestWriteFilesModeFollowsUmask(t *testing.T) {
	for _, mask := range []int{0o022, 0o002, 0o077, 0} {
		old := syscall.Umask(mask)
		dir := t.TempDir()
		p := filepath.Join(dir, "new", "book.go")
		err := writeFile(p, []byte("x"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		for path, want := range map[string]os.FileMode{p: os.FileMode(0o666 &^ mask), filepath.Dir(p): os.FileMode(0o777&^mask) | os.ModeDir} {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode() != want {
				t.Errorf("umask %03o: %s has mode %v, want %v", mask, filepath.Base(path), fi.Mode(), want)
			}
		}
	}
}
