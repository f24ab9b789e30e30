package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
)

// readmeProgram is the README's first block of language lang and the
// text block after it, which shows what the program prints.
func readmeProgram(t *testing.T, lang string) (program, shown string) {
	t.Helper()
	fences := readmeFences(t)
	for i, f := range fences {
		if f.info != lang {
			continue
		}
		if i+1 >= len(fences) || fences[i+1].info != "text" {
			t.Fatalf("README.md:%d: the %s program is not followed by a text block of what it prints", f.line, lang)
		}
		return strings.Join(f.body, "\n") + "\n", strings.Join(fences[i+1].body, "\n") + "\n"
	}
	t.Fatalf("README.md shows no %s program", lang)
	return "", ""
}

// TestReadmeGoProgram builds the Go program of the README as a user
// would: in a module of its own (example.com/shop) that holds the
// postgres-go client of the README's book and takes chobo from this
// checkout. It then runs the program twice on a real server where the
// book's SQL is deployed, as the application's role, and holds what the
// two runs print to the block the README shows after the program.
func TestReadmeGoProgram(t *testing.T) {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel the go command and the module cache are not at hand")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go command to build the README's program with")
		}
		t.Skip("SKIP: no go command")
	}
	program, shown := readmeProgram(t, "go")

	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bookPath := filepath.Join(dir, "inventory.book")
	if err := os.WriteFile(bookPath, []byte(readmeBook(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The client as the README's command writes it.
	if _, errOut, code := run(dir, nil, "build", "inventory.book", "--target", "postgres-go", "--out", "."); code != 0 {
		t.Fatalf("chobo build: exit %d: %s", code, errOut)
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := fmt.Sprintf("module example.com/shop\n\ngo 1.25.0\n\nrequire github.com/chobo-lang/chobo v0.0.0\n\nreplace github.com/chobo-lang/chobo => %s\n", repo)
	for name, data := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum, "main.go": []byte(program)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Offline: what the module needs beyond chobo (pgx and what it
	// brings) is what chobo's own go.mod asks for, already in the module
	// cache for this test to have been built.
	bin := filepath.Join(dir, "shop")
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the README's program: %v\n%s", err, out)
	}

	b, src := loadBook(t, bookPath)
	d := deployBook(t, b, src, 4)
	dsn := fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", d.srv.SocketDir, d.srv.Port, pgdeploy.App, pgtest.DefaultDB)
	var got strings.Builder
	for range 2 {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "DATABASE_URL="+dsn)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("the README's program: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		got.WriteString("$ go run .\n" + stdout.String())
	}
	if got.String() != shown {
		t.Errorf("the README's program printed, run twice:\n%s\nbut README.md shows:\n%s", got.String(), shown)
	}
}

// TestReadmePythonProgram runs the Python program of the README as a user
// would: beside the postgres-python client the README's command writes,
// on the interpreter of the Python runtime's virtual environment (which
// holds the psycopg the README pins), twice, on a real server where the
// book's SQL is deployed, as the application's role, and holds what the
// two runs print to the block the README shows after the program.
func TestReadmePythonProgram(t *testing.T) {
	_, lang := languageOf(t, "postgres-python")
	useLanguage(t, lang)
	program, shown := readmeProgram(t, "python")
	dir := t.TempDir()
	bookPath := filepath.Join(dir, "inventory.book")
	if err := os.WriteFile(bookPath, []byte(readmeBook(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(dir, nil, "build", "inventory.book", "--target", "postgres-python", "--out", "."); code != 0 {
		t.Fatalf("chobo build: exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop.py"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	b, src := loadBook(t, bookPath)
	d := deployBook(t, b, src, 4)
	dsn := fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", d.srv.SocketDir, d.srv.Port, pgdeploy.App, pgtest.DefaultDB)
	var got strings.Builder
	for range 2 {
		cmd := exec.Command(pyTools.python, "-B", "shop.py")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "DATABASE_URL="+dsn, "PYTHONPATH=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("the README's program: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		got.WriteString("$ python shop.py\n" + stdout.String())
	}
	if got.String() != shown {
		t.Errorf("the README's program printed, run twice:\n%s\nbut README.md shows:\n%s", got.String(), shown)
	}
}
