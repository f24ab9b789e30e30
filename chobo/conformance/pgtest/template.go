package pgtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// initdb costs a few seconds of CPU; copying its result costs a few tens of
// milliseconds. So the first Start on a machine runs initdb once into a
// template, kept per server build, user and initdb arguments, and every
// cluster starts as a copy of it: the same bytes initdb would have written.
// Set CHOBO_PGTEST_NO_TEMPLATE=1 to run initdb for every cluster instead.

var templateMu sync.Mutex

// initdbArgs are the arguments, after -D DIR, of every initdb we run.
// 1 MB WAL segments (instead of 16) make each copy smaller and faster.
var initdbArgs = []string{"-U", User, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--wal-segsize=1"}

// templatesDir holds the templates. It must be enterable by the server
// user, while each template's data directory is private to that user.
func templatesDir() string {
	return filepath.Join(clusterBase(os.Geteuid() == 0), fmt.Sprintf("chobo-pgtest-templates-%d", os.Geteuid()))
}

// templateKey names a template: it changes whenever the server build, the
// user it runs as, or the initdb arguments change.
func templateKey(bin, runAs string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", bin, runAs, strings.Join(initdbArgs, " "))
	for _, prog := range []string{"initdb", "postgres"} {
		fi, err := os.Stat(filepath.Join(bin, prog))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d %d\x00", prog, fi.Size(), fi.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// initCluster fills s.Dir (an empty directory owned by the server user) with
// a fresh cluster.
func (s *Server) initCluster(uid, gid int) error {
	if os.Getenv("CHOBO_PGTEST_NO_TEMPLATE") != "1" {
		tmpl, err := s.template(uid, gid)
		if err == nil {
			out, err := exec.Command("cp", "-a", tmpl+"/.", s.Dir).CombinedOutput()
			if err == nil {
				return nil
			}
			return fmt.Errorf("copying template %s: %v: %s", tmpl, err, out)
		}
		// No template (e.g. an unwritable temp dir): initdb directly.
	}
	if out, err := s.run("initdb", append([]string{"-D", s.Dir}, initdbArgs...)...); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	return nil
}

// template returns the data directory of the template for s's server build,
// making it when missing. Concurrent makers (other test processes) each
// build in their own directory and rename it into place; the first rename
// wins and the others throw theirs away.
func (s *Server) template(uid, gid int) (string, error) {
	templateMu.Lock()
	defer templateMu.Unlock()
	key, err := templateKey(s.bin, s.runAs)
	if err != nil {
		return "", err
	}
	parent := templatesDir()
	final := filepath.Join(parent, "template-"+key)
	ready := func() bool {
		_, err := os.Stat(filepath.Join(final, "data", "PG_VERSION"))
		return err == nil
	}
	if ready() {
		now := time.Now()
		_ = os.Chtimes(final, now, now) // marks it as in use, see pruneTemplates
		return filepath.Join(final, "data"), nil
	}
	if err := os.MkdirAll(parent, 0o711); err != nil {
		return "", err
	}
	pruneTemplates(parent)
	work, err := os.MkdirTemp(parent, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work) // gone after a successful rename
	if s.runAs != "" {
		if err := os.Chown(work, uid, gid); err != nil {
			return "", err
		}
	}
	b := &Server{bin: s.bin, runAs: s.runAs, uid: s.uid, gid: s.gid, rootDir: work}
	if out, err := b.run("initdb", append([]string{"-D", filepath.Join(work, "data")}, initdbArgs...)...); err != nil {
		return "", fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if err := os.Rename(work, final); err != nil && !ready() {
		return "", err
	}
	return filepath.Join(final, "data"), nil
}

// pruneTemplates removes builds that a killed process left and templates
// that no Start used for a day (an older server build, another user).
func pruneTemplates(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		var maxAge time.Duration
		switch {
		case strings.HasPrefix(name, "build-"):
			maxAge = 30 * time.Minute
		case strings.HasPrefix(name, "template-"):
			maxAge = 24 * time.Hour
		default:
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > maxAge {
			_ = os.RemoveAll(filepath.Join(parent, name))
		}
	}
}
