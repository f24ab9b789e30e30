package cli

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree lists every file and directory under dir with its content ("/"
// for a directory), so that a test can say exactly what a failed write
// left behind.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel] = "/"
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("left %v, want %v", got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("left %v, want %v", got, want)
			return
		}
	}
}

// A write that fails on its second file leaves the first as it was (or
// absent), no temporary file, and no directory it made.
func TestWriteFilesAllOrNothing(t *testing.T) {
	for _, c := range []struct {
		name   string
		before map[string]string // "/" makes a directory
		files  []string
		why    string
	}{
		{"a directory where the second file goes, first file new",
			map[string]string{"b.go": "/"}, []string{"a.sql", "b.go"}, "is a directory"},
		{"a directory where the second file goes, first file there",
			map[string]string{"a.sql": "old", "b.go": "/", "b.go/x": "keep"}, []string{"a.sql", "b.go"}, "is a directory"},
		{"a directory where the second file goes, in new directories",
			map[string]string{"pkg/book.go": "/"}, []string{"new/deeper/a.sql", "pkg/book.go"}, "is a directory"},
		{"a file where the second file's directory goes",
			map[string]string{"a.sql": "old", "pkg": "a file"}, []string{"a.sql", "pkg/book.go"}, "not a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var keys []string
			for k := range c.before {
				keys = append(keys, k)
			}
			slices.Sort(keys) // parents first
			for _, k := range keys {
				p := filepath.Join(dir, k)
				var err error
				if c.before[k] == "/" {
					err = os.MkdirAll(p, 0o755)
				} else {
					err = os.WriteFile(p, []byte(c.before[k]), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			before := tree(t, dir)
			var files []outFile
			for _, f := range c.files {
				files = append(files, outFile{filepath.Join(dir, f), []byte("new " + f)})
			}
			err := writeFiles(files)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Path != files[1].Path || !strings.Contains(err.Err.Error(), c.why) {
				t.Errorf("error %v, want one about %s: %s", err, files[1].Path, c.why)
			}
			if strings.Contains(err.Error(), ".chobo-") {
				t.Errorf("the error names a temporary file: %v", err)
			}
			sameTree(t, tree(t, dir), before)
		})
	}
}

// A rename that fails after others were done puts back what they
// replaced.
func TestWriteFilesUndoesRenames(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "sub", "c")
	if err := os.WriteFile(a, []byte("old a"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	defer func() { renameFile = os.Rename }()
	renameFile = func(from, to string) error {
		if to == c {
			return errors.New("the disk is gone")
		}
		return os.Rename(from, to)
	}
	err := writeFiles([]outFile{{a, []byte("new a")}, {b, []byte("new b")}, {c, []byte("new c")}})
	if err == nil || err.Path != c {
		t.Fatalf("error %v, want one about %s", err, c)
	}
	sameTree(t, tree(t, dir), before)
}

func TestWriteFilesReplaces(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.sql"), filepath.Join(dir, "pkg", "book.go")
	if err := os.WriteFile(a, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFiles([]outFile{{a, []byte("new a")}, {b, []byte("new b")}}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, tree(t, dir), map[string]string{"a.sql": "new a", "pkg": "/", "pkg/book.go": "new b"})
}

// chobo build says which file it could not write and that it wrote
// nothing, and leaves nothing behind.
func TestBuildWritesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "shop", "book.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	env, _, errb := testEnv(nil)
	if code := Main([]string{"build", "clean.book", "--target", "postgres-go", "--out", dir}, env); code != ExitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, ExitUsage, errb)
	}
	if want := "cannot write " + filepath.Join(dir, "shop", "book.go") + ": it is a directory; nothing was written"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q lacks %q", errb, want)
	}
	sameTree(t, tree(t, dir), before)
}
