package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// outFile is one file a command writes.
type outFile struct {
	Path string
	Data []byte
}

// writeFile writes one file as writeFiles does.
func writeFile(path string, data []byte) *writeError {
	return writeFiles([]outFile{{path, data}})
}

// writeError is a file that could not be written, and why.
type writeError struct {
	Path string
	Err  error
}

func (e *writeError) Error() string { return e.Path + ": " + e.Err.Error() }

// bare is what went wrong without the name of the temporary file it went
// wrong with, which means nothing to the user.
func bare(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// writeFiles writes every file or none, so that a build that fails half
// way never leaves a mix of old and new files, or stray temporary files,
// for the next build or a compiler to trip over. Each file is first
// written to a temporary file beside it (a rename within one directory
// is atomic), and only when every one is written are they renamed into
// place. On any failure every temporary file goes, so do the directories
// made for them, and the files that were there stay as they were.
//
// Files are made as os.WriteFile makes them: mode 0666 less the umask.
func writeFiles(files []outFile) (err *writeError) {
	w := &writer{}
	defer func() {
		if err != nil {
			w.undo()
		}
	}()
	for _, f := range files {
		if err := w.mkdirAll(filepath.Dir(f.Path)); err != nil {
			return &writeError{f.Path, err}
		}
		tmp, err := w.writeTemp(filepath.Dir(f.Path), f.Data)
		if err != nil {
			return &writeError{f.Path, bare(err)}
		}
		w.pending = append(w.pending, rename{tmp: tmp, path: f.Path})
	}
	// Before anything is replaced: a directory where a file goes would
	// stop its rename after the files before it had been replaced, and a
	// file already there is kept under a second name (a hard link) until
	// the end, so that a rename that still fails can be undone.
	for i, r := range w.pending {
		fi, err := os.Lstat(r.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return &writeError{r.path, err}
		case fi.IsDir():
			return &writeError{r.path, syscall.EISDIR}
		}
		w.pending[i].existed = true
		// A file system without hard links cannot keep it: the build goes
		// on, and only a failed rename after this one could not be undone.
		w.pending[i].old, _ = w.keep(r.path)
	}
	for i, r := range w.pending {
		if err := renameFile(r.tmp, r.path); err != nil {
			return &writeError{r.path, bare(err)}
		}
		w.pending[i].done = true
	}
	for _, r := range w.pending {
		if r.old != "" {
			os.Remove(r.old)
		}
	}
	return nil
}

// renameFile puts a written file in place; tests make it fail.
var renameFile = os.Rename

// writer is what writeFiles has made so far, for undo.
type writer struct {
	dirs    []string // made here, parents first
	pending []rename
}

// rename is one file on its way: its temporary file, its place, the
// link that keeps the file it replaces (empty when there was none or it
// could not be kept), whether there was one, and whether the new file is
// in place.
type rename struct {
	tmp, path, old string
	existed, done  bool
}

// undo puts back what was there before writeFiles began.
func (w *writer) undo() {
	for _, r := range slices.Backward(w.pending) {
		switch {
		case r.done && r.old != "":
			os.Rename(r.old, r.path)
		case r.done && !r.existed:
			os.Remove(r.path)
		case r.done:
			// Replaced, and the old file could not be kept: the new one
			// stays rather than none.
		default:
			os.Remove(r.tmp)
			if r.old != "" {
				os.Remove(r.old)
			}
		}
	}
	for _, d := range slices.Backward(w.dirs) {
		os.Remove(d) // only when empty: someone else may have put a file there
	}
}

// mkdirAll makes dir and the parents it lacks, noting those it made.
func (w *writer) mkdirAll(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range slices.Backward(missing) {
		if err := os.Mkdir(d, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		} else if err == nil {
			w.dirs = append(w.dirs, d)
		}
	}
	return nil
}

// writeTemp writes data to a new file in dir and returns its name.
func (w *writer) writeTemp(dir string, data []byte) (string, error) {
	f, err := createTemp(dir)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// keep links a second name to the file at path, beside it, and returns
// that name ("" when it could not).
func (w *writer) keep(path string) (string, error) {
	for try := 0; ; try++ {
		name := tempName(filepath.Dir(path))
		err := os.Link(path, name)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return "", err
		}
	}
}

// createTemp is os.CreateTemp(dir, ".chobo-*") but for the mode:
// os.CreateTemp makes files 0600 whatever the umask, and a generated file
// is the user's to share as any file they write. Opening with 0666 lets
// the umask decide, as it does for os.WriteFile.
func createTemp(dir string) (*os.File, error) {
	for try := 0; ; try++ {
		f, err := os.OpenFile(tempName(dir), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil || !errors.Is(err, fs.ErrExist) || try == 100 {
			return f, err
		}
	}
}

func tempName(dir string) string {
	return filepath.Join(dir, fmt.Sprintf(".chobo-%d", rand.Uint32()))
}
