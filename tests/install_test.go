package tests

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Once chobo is published, the README's Go commands take it from a module
// proxy by its version. No proxy serves it yet, so the test serves this
// checkout as a version from a proxy of its own (a folder, as GOPROXY's
// file:// reads it) and runs those commands against it: the README's `go
// install …@latest` line, the same with a tag's version, and the Go
// commands of the walk with the replace line left out, as the README says
// to once chobo is published.

// moduleProxy writes a module proxy folder that serves the files git
// knows of in repo as chobo's module at version. A folder with a go.mod
// of its own is another module (examples/workspace) and a symbolic link
// is no part of a module's zip, as the go command leaves both out.
func moduleProxy(t *testing.T, repo, version string) string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = repo
	list, err := cmd.Output()
	if err != nil {
		t.Skipf("SKIP: the checkout's files cannot be listed with git: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(list), "\x00"), "\x00")
	var nested []string
	for _, rel := range files {
		if strings.HasSuffix(rel, "/go.mod") {
			nested = append(nested, strings.TrimSuffix(rel, "go.mod"))
		}
	}
	const module = "github.com/chobo-lang/chobo"
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	count := 0
next:
	for _, rel := range files {
		for _, n := range nested {
			if strings.HasPrefix(rel, n) {
				continue next
			}
		}
		info, err := os.Lstat(filepath.Join(repo, rel))
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(repo, rel))
		if err != nil {
			t.Fatal(err)
		}
		w, err := z.Create(module + "@" + version + "/" + rel)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		count++
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := t.TempDir()
	dir := filepath.Join(proxy, filepath.FromSlash(module), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": []byte(fmt.Sprintf(`{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`+"\n", version)),
		version + ".mod":  gomod,
		version + ".zip":  buf.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("the proxy serves %s@%s: %d files, %d KB zipped", module, version, count, buf.Len()/1024)
	return proxy
}

// TestInstallOncePublished runs the README's commands for a published
// chobo against a proxy that serves this checkout as v0.1.0.
func TestInstallOncePublished(t *testing.T) {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel the go command and the module cache are not at hand")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIP: no go command")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	const version = "v0.1.0"
	cache, err := exec.Command(goBin, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	proxy := moduleProxy(t, repo, version)
	gobin := t.TempDir()
	env := append(os.Environ(),
		// chobo from the test's proxy, what it needs from the module
		// cache of this machine: nothing from the network.
		"GOPROXY=file://"+proxy+",file://"+filepath.Join(strings.TrimSpace(string(cache)), "cache", "download"),
		"GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off", "GOBIN="+gobin,
		"GOPATH="+t.TempDir(), "GOMODCACHE="+t.TempDir(), "CHOBO_LANG=")
	sh := func(dir, line string) string {
		t.Helper()
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("`%s`: %v\n%s", line, err, out)
		}
		return string(out)
	}
	defer sh(repo, "chmod -R u+w \"$GOMODCACHE\"") // the module cache is read-only, which t.TempDir cannot remove

	for _, file := range []string{"README.md", "README.ja.md"} {
		text, _ := installSection(t, file)
		var install string
		for _, b := range indentedBlocks(text) {
			for _, l := range b.lines {
				if strings.HasPrefix(l, "go install ") && strings.HasSuffix(l, "@latest") {
					install = l
				}
			}
		}
		if install == "" {
			t.Fatalf("%s: Install has no `go install …@latest` line", file)
		}
		tag := strings.TrimSuffix(install, "@latest") + "@" + version
		if !strings.Contains(text, "`@"+version+"`") {
			t.Errorf("%s: Install does not show a tag as `@%s`", file, version)
		}
		for _, line := range []string{install, tag} {
			os.Remove(filepath.Join(gobin, "chobo"))
			sh(t.TempDir(), line)
			if got := sh(t.TempDir(), filepath.Join(gobin, "chobo")+" --version"); got != "chobo 0.1.0\n" {
				t.Errorf("%s: `%s` installs a chobo whose --version says %q", file, line, got)
			}
		}
	}

	// The walk's Go program, with its module's commands as the README
	// writes them but the replace line, and the tag pinned first.
	fences := walkSection(t, "README.md", "## From a book to a call")
	dir := t.TempDir()
	var goLines []string
	for _, f := range fences {
		if name := namedFile(f.info); name == "inventory.book" || name == "main.go" {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(f.body, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if f.info == "sh" {
			for _, l := range f.body {
				if strings.HasPrefix(l, "go ") {
					goLines = append(goLines, l)
				}
			}
		}
	}
	if _, errOut, code := run(dir, nil, "build", "inventory.book", "--target", "postgres-go", "--out", "."); code != 0 {
		t.Fatalf("chobo build: %s", errOut)
	}
	replaced := false
	for _, l := range goLines {
		if strings.HasPrefix(l, "go mod edit -replace github.com/chobo-lang/chobo=") {
			replaced = true
			sh(dir, "go get github.com/chobo-lang/chobo@"+version)
			continue
		}
		sh(dir, l)
	}
	if !replaced || len(goLines) != 3 {
		t.Fatalf("README.md's walk runs the Go commands %q; the test expects go mod init, the replace line and go get", goLines)
	}
	sh(dir, "go build -o shop .")
	if mod := sh(dir, "cat go.mod"); !strings.Contains(mod, "github.com/chobo-lang/chobo "+version) || strings.Contains(mod, "replace") {
		t.Errorf("the published walk's go.mod should require chobo %s and replace nothing:\n%s", version, mod)
	}
}
