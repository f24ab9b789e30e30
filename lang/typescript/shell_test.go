package typescript_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestShellStandsInForNpmInstall: the docs' walks get the runtime's
// installed packages in place of `npm install`, and nothing else is taken.
func TestShellStandsInForNpmInstall(t *testing.T) {
	sh := tools(t)
	dir := t.TempDir()
	if took, err := sh.StandIn("npx tsc --strict shop.ts", dir); took || err != nil {
		t.Errorf("npx tsc taken: %v, %v", took, err)
	}
	if took, err := sh.StandIn("npm install pg@8.23.1 tigerbeetle-node@0.17.9", dir); !took || err != nil {
		t.Fatalf("npm install: taken %v, %v", took, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "pg", "package.json")); err != nil {
		t.Errorf("after the stand-in, pg is not there: %v", err)
	}
	if did, err := sh.CheckProgram(dir, "shop.ts"); did || err != nil {
		t.Errorf("CheckProgram: %v, %v; the docs compile their programs themselves", did, err)
	}
}
