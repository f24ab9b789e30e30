package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// serverTools are the programs a directory must hold to be usable.
var serverTools = []string{"initdb", "pg_ctl", "postgres"}

// pinnedVersions maps the short names accepted in CHOBO_PG_VERSION to the
// package versions that tests/setup.sh knows how to fetch and verify. A full
// version string (one of the values) is accepted as well.
var pinnedVersions = map[string]string{
	"15": "15.18.0-beta.17",
	"18": "18.4.0-beta.17",
}

// cacheDir is where tests/setup.sh unpacks version-pinned server packages:
// CHOBO_PG_CACHE when set, else /var/cache/chobo/postgresql for root, else
// $XDG_CACHE_HOME/chobo/postgresql (or ~/.cache/chobo/postgresql). Each
// version sits in its own subdirectory, with the binaries in native/bin.
// The setup script computes the same path.
func cacheDir() string {
	if d := os.Getenv("CHOBO_PG_CACHE"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		return "/var/cache/chobo/postgresql"
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "chobo", "postgresql")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".cache", "chobo", "postgresql")
	}
	return filepath.Join(os.TempDir(), "chobo-cache", "postgresql")
}

// Bin returns the directory of the server binaries in use. The order is:
//
//  1. CHOBO_PG_BIN, a directory holding initdb, pg_ctl and postgres;
//  2. when CHOBO_PG_VERSION is set (e.g. "15", "18" or a full package
//     version), the pinned package that tests/setup.sh installed for it
//     under the cache directory (CHOBO_PG_CACHE, else
//     /var/cache/chobo/postgresql for root, else ~/.cache/chobo/postgresql)
//     — an error if it is missing, never another version;
//  3. the newest /usr/lib/postgresql/*/bin (Debian's packages);
//  4. the directory of initdb found on PATH.
func Bin() (string, error) {
	if d := os.Getenv("CHOBO_PG_BIN"); d != "" {
		if err := hasTools(d); err != nil {
			return "", fmt.Errorf("CHOBO_PG_BIN=%s: %w", d, err)
		}
		return d, nil
	}
	if v := os.Getenv("CHOBO_PG_VERSION"); v != "" {
		full := v
		if p, ok := pinnedVersions[v]; ok {
			full = p
		}
		d := filepath.Join(cacheDir(), full, "native", "bin")
		if err := hasTools(d); err != nil {
			return "", fmt.Errorf("CHOBO_PG_VERSION=%s: pinned server %s is not installed in %s (run: CHOBO_PG_VERSION=%s bash tests/setup.sh): %w",
				v, full, cacheDir(), v, err)
		}
		return d, nil
	}
	if d := newestDebian(); d != "" {
		return d, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		d := filepath.Dir(p)
		if err := hasTools(d); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server binaries: set CHOBO_PG_BIN, or run tests/setup.sh (installs Debian's postgresql), or put initdb, pg_ctl and postgres on PATH")
}

func hasTools(dir string) error {
	for _, name := range serverTools {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("missing %s", name)
		}
		if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return fmt.Errorf("%s is not executable", name)
		}
	}
	return nil
}

// newestDebian returns the bin directory of the highest-numbered
// /usr/lib/postgresql/<version> that holds all server tools, or "".
func newestDebian() string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	type cand struct {
		dir string
		ver []int
	}
	var cands []cand
	for _, m := range matches {
		if hasTools(m) != nil {
			continue
		}
		var ver []int
		for _, part := range strings.Split(filepath.Base(filepath.Dir(m)), ".") {
			n, err := strconv.Atoi(part)
			if err != nil {
				break
			}
			ver = append(ver, n)
		}
		cands = append(cands, cand{m, ver})
	}
	if len(cands) == 0 {
		return ""
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i].ver, cands[j].ver
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] > b[k]
			}
		}
		return len(a) > len(b)
	})
	return cands[0].dir
}
