package version

import (
	"os"
	"regexp"
	"testing"
)

// moduleVersion finds the version in the module() call of a MODULE.bazel,
// not in a bazel_dep, which names the version of a dependency.
var moduleVersion = regexp.MustCompile(`(?s)\bmodule\((?:[^()]*?)\bversion\s*=\s*"([^"]*)"`)

// The path is the same under go test (the package folder) and under
// Bazel (the package folder inside the runfiles, where the data lands).
func TestMatchesModuleBazel(t *testing.T) {
	src, err := os.ReadFile("../../MODULE.bazel")
	if err != nil {
		t.Fatal(err)
	}
	m := moduleVersion.FindSubmatch(src)
	if m == nil {
		t.Fatal("MODULE.bazel: no version in its module() call")
	}
	if got := string(m[1]); got != Version {
		t.Errorf("MODULE.bazel says version %q, chobo/version says %q: change both together", got, Version)
	}
}
