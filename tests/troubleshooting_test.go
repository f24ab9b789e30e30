package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/tbtest"
	"github.com/chobo-lang/chobo/runtime/go/chobopg"
)

// troubleshootingProducers make the messages of other programs that the
// troubleshooting pages quote, keyed by a part of the quote: each returns
// what the program printed.
var troubleshootingProducers = []struct {
	key     string
	produce func(t *testing.T) string
}{
	{"missing go.sum entry", goSumMissing},
	{"ERR_UNKNOWN_FILE_EXTENSION", nodeRunsTS},
	// The pages write the path the tests fall back on as /path/to/tigerbeetle.
	{"SKIP: real TigerBeetle", func(*testing.T) string {
		return strings.ReplaceAll(tbtest.SkipMessage, tbtest.SharedBin, "/path/to/tigerbeetle")
	}},
	{"chobo: an account keeps bounds", func(*testing.T) string { return chobopg.ErrBoundsChanged.Error() }},
	{"chobo: the connection was lost", func(*testing.T) string { return chobopg.ErrOutcomeUnknown.Error() }},
	{"chobo: the call was not sent", func(*testing.T) string { return chobopg.ErrNotSent.Error() }},
	{"is not queryable", func(t *testing.T) string { return nodePostgresDrop(t, "client") }},
	{"Unhandled 'error' event", func(t *testing.T) string { return nodePostgresDrop(t, "pool") }},
}

// dropScript has the server end a node-postgres connection while it is
// idle, as a failover or a restart does, then, for "client", sends a query
// on it and prints the error; for "pool", leaves the dropped connection
// in a pool that has no error listener, so that Node ends the process.
const dropScript = `const pg = require(process.argv[2]);
const cfg = { host: process.argv[4], port: Number(process.argv[5]), user: process.argv[6], database: process.argv[7] };
(async () => {
  const killer = new pg.Client(cfg);
  await killer.connect();
  if (process.argv[3] === "client") {
    const c = new pg.Client(cfg);
    // The drop comes as more than one error event: keep listening.
    const dropped = new Promise((resolve) => c.on("error", resolve));
    await c.connect();
    const pid = (await c.query("select pg_backend_pid() as pid")).rows[0].pid;
    await killer.query("select pg_terminate_backend($1)", [pid]);
    await dropped;
    await killer.end();
    try {
      await c.query("select 1");
      console.log("the query on the dropped connection answered");
    } catch (e) {
      console.log(e.message);
    }
    return;
  }
  const pool = new pg.Pool(cfg);
  const c = await pool.connect();
  const pid = (await c.query("select pg_backend_pid() as pid")).rows[0].pid;
  c.release();
  await killer.query("select pg_terminate_backend($1)", [pid]);
  await killer.end();
  // Keeps the process alive for the pool's error event, which ends it.
  setTimeout(() => console.log("the process outlived the dropped connection"), 10000);
})();
`

// nodePostgresDrop runs dropScript in mode on a throwaway PostgreSQL
// server with the pg package the TypeScript runtime pins, and answers
// what Node printed.
func nodePostgresDrop(t *testing.T, mode string) string {
	node, err := exec.LookPath("node")
	if err != nil || os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: no node command at hand")
	}
	pg, err := filepath.Abs(filepath.Join(tsRuntimeDir, "node_modules", "pg"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pg); err != nil {
		t.Skip("SKIP: the TypeScript runtime's packages are not installed: run npm ci in lang/typescript/runtime (tests/setup.sh does)")
	}
	srv := pgtest.Start(t)
	script := filepath.Join(t.TempDir(), "drop.cjs")
	if err := os.WriteFile(script, []byte(dropScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, pg, mode, srv.SocketDir, strconv.Itoa(srv.Port), pgtest.User, pgtest.DefaultDB)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if mode == "pool" && err == nil {
		t.Fatalf("node went on after the pool's connection was dropped:\n%s", out.String())
	}
	if mode == "client" && err != nil {
		t.Fatalf("node: %v\n%s", err, out.String())
	}
	return out.String()
}

// goSumMissing builds the README's Go program as the review found it
// built: chobo's module required, and nothing run to add the checksums
// of what the program imports.
func goSumMissing(t *testing.T) string {
	goBin, err := exec.LookPath("go")
	if err != nil || os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: no go command at hand to show `missing go.sum entry` with")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var program string
	for _, f := range readmeFences(t) {
		if f.info == "go main.go" {
			program = strings.Join(f.body, "\n") + "\n"
		}
	}
	if program == "" {
		t.Fatal("README.md has no main.go block")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "inventory.book"), []byte(readmeBook(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(dir, nil, "build", "inventory.book", "--target", "postgres-go", "--out", "."); code != 0 {
		t.Fatalf("chobo build: %s", errOut)
	}
	mod := "module example.com/shop\n\ngo 1.25.0\n\nrequire github.com/chobo-lang/chobo v0.0.0\n\nreplace github.com/chobo-lang/chobo => " + repo + "\n"
	for name, data := range map[string]string{"go.mod": mod, "main.go": program} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "build", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("the program built without its checksums")
	}
	// Go names the runtime's files by where the module is: the pages
	// write /path/to/chobo.
	return strings.ReplaceAll(string(out), repo, "/path/to/chobo")
}

// nodeRunsTS runs a TypeScript file with node, as one would who expects it
// to run. Node names the file by its absolute path, which the pages write
// as /path/to.
func nodeRunsTS(t *testing.T) string {
	node, err := exec.LookPath("node")
	if err != nil || os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: no node command at hand")
	}
	dir := t.TempDir()
	for name, data := range map[string]string{"package.json": `{"type": "module"}` + "\n", "shop.ts": "const n: number = 1;\nconsole.log(n);\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(node, "shop.ts")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err == nil {
		t.Skip("SKIP: this node runs TypeScript itself (newer than Node 20)")
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(out.String(), real, "/path/to")
}

// TestTroubleshootingQuotes holds every line of every `text` block of the
// troubleshooting pages to what the program it quotes prints: each block
// must name a producer, and each of its lines must be a line of that
// producer's output.
func TestTroubleshootingQuotes(t *testing.T) {
	outputs := map[string]string{}
	quoted := 0
	for _, file := range []string{"troubleshooting.md", "troubleshooting.ja.md"} {
		src, err := os.ReadFile(filepath.Join("..", "docs", file))
		if err != nil {
			t.Fatal(err)
		}
		fences, err := parseFences(string(src))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, f := range fences {
			if f.info != "text" {
				continue
			}
			quote := strings.Join(f.body, "\n")
			var key string
			for _, p := range troubleshootingProducers {
				if strings.Contains(quote, p.key) {
					key = p.key
					if _, ok := outputs[key]; !ok {
						t.Run(key, func(t *testing.T) { outputs[key] = p.produce(t) })
					}
				}
			}
			if key == "" {
				t.Errorf("docs/%s:%d: the quote is held to no program's output; add a producer to troubleshootingProducers", file, f.line)
				continue
			}
			out, ok := outputs[key]
			if !ok {
				continue // skipped: the producer printed why
			}
			lines := strings.Split(out, "\n")
			for i, l := range f.body {
				found := false
				for _, o := range lines {
					found = found || o == l
				}
				if !found {
					t.Errorf("docs/%s:%d: %q is not a line the program prints; it printed:\n%s", file, f.line+1+i, l, out)
				}
				quoted++
			}
		}
	}
	if quoted == 0 && len(outputs) > 0 {
		t.Error("no quoted line was compared")
	}
}
