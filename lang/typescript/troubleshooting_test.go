package typescript_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// TestTroubleshootingQuotes holds the quotes of Node and node-postgres on
// the troubleshooting pages (those a comment puts in this folder's care)
// to what they print here.
func TestTroubleshootingQuotes(t *testing.T) {
	langtest.HoldQuotes(t, "lang/typescript", []langtest.Producer{
		{Key: "ERR_UNKNOWN_FILE_EXTENSION", Produce: nodeRunsTS},
		{Key: "is not queryable", Produce: func(t *testing.T) string { return nodePostgresDrop(t, "client") }},
		{Key: "Unhandled 'error' event", Produce: func(t *testing.T) string { return nodePostgresDrop(t, "pool") }},
	})
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
	tt := tools(t)
	node, pg := tt.Node.Program, filepath.Join(tt.Node.Modules, "pg")
	srv := pgtest.Start(t)
	script := filepath.Join(t.TempDir(), "drop.cjs")
	if err := os.WriteFile(script, []byte(dropScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, pg, mode, srv.SocketDir, strconv.Itoa(srv.Port), pgtest.User, pgtest.DefaultDB)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if mode == "pool" && err == nil {
		t.Fatalf("node went on after the pool's connection was dropped:\n%s", out.String())
	}
	if mode == "client" && err != nil {
		t.Fatalf("node: %v\n%s", err, out.String())
	}
	return out.String()
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
