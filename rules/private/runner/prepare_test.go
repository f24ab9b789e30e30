package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/target"
)

// testKit is a language's kit whose Prepare uses what the runner lends it
// and says what it was handed.
type testKit struct {
	driverkit.Kit
	handed *driverkit.Handed
	dir    string
	fail   error
}

func (k *testKit) Prepare(h driverkit.Handed) (driverkit.Start, error) {
	k.handed = &h
	if k.fail != nil {
		return nil, k.fail
	}
	tool, err := h.Runfile("toolchain_0/bin/tool")
	if err != nil {
		return nil, err
	}
	if k.dir, err = h.TempDir(); err != nil {
		return nil, err
	}
	fmt.Fprintf(h.Log, "%s: %s\n", h.Target, tool)
	return func() *exec.Cmd { return exec.Command(tool, k.dir) }, nil
}

// A driver is made ready by its kit, with runfiles paths resolved as the
// runner's own and a folder of its own under the test's temporary
// directory, which goes at the end of the run.
func TestPrepare(t *testing.T) {
	runfiles := t.TempDir()
	t.Setenv("RUNFILES_DIR", runfiles)
	tmp := t.TempDir()
	t.Setenv("TEST_TMPDIR", tmp)
	kit := &testKit{}
	var out bytes.Buffer
	r := &run{out: &out, errOut: &bytes.Buffer{}}
	d := driver{target: "postgres-x", backend: "postgres", path: "/x/stock.x", kit: kit}
	drivers := []driver{d}
	if err := r.prepare(drivers); err != nil {
		t.Fatal(err)
	}
	if h := kit.handed; h.Target != d.target || h.Backend != d.backend || h.Path != d.path {
		t.Errorf("the kit was handed %+v", h)
	}
	if drivers[0].command == nil {
		t.Fatal("prepare set no command")
	}
	tool := filepath.Join(runfiles, "toolchain_0/bin/tool")
	if cmd := drivers[0].command(); cmd.Path != tool || cmd.Args[1] != kit.dir {
		t.Errorf("the driver is started by %q, want %s %s", cmd.Args, tool, kit.dir)
	}
	if filepath.Dir(kit.dir) != tmp || !strings.HasPrefix(filepath.Base(kit.dir), "chobo-postgres-x-") {
		t.Errorf("the driver's folder is %s, want one under %s named for the client", kit.dir, tmp)
	}
	if !strings.Contains(out.String(), "postgres-x: "+tool+"\n") {
		t.Errorf("what the kit logs is not in the log:\n%s", out.String())
	}
	r.finish()
	made, err := os.ReadDir(tmp)
	if err != nil || len(made) != 0 {
		t.Errorf("the drivers' folders are left after the run: %v, %v", made, err)
	}
}

// A kit that cannot make a driver ready fails the run, naming the client.
func TestPrepareFails(t *testing.T) {
	kit := &testKit{fail: errors.New("an X client: no X toolchain was handed over")}
	r := &run{out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
	d := driver{target: "tigerbeetle-x", backend: "tigerbeetle", path: "/x/stock.x", kit: kit}
	err := r.prepare([]driver{d})
	if err == nil || err.Error() != "tigerbeetle-x: an X client: no X toolchain was handed over" {
		t.Errorf("got %v", err)
	}
}

// A TigerBeetle client whose driver dials a replica itself is not run on
// the model: without a replica it is named in a SKIP line, as is the
// replica.
func TestDirectTigerBeetleSkipsWithoutReplica(t *testing.T) {
	n := 0
	for _, g := range target.All {
		if g.Backend != "tigerbeetle" || g.Client() == nil {
			continue
		}
		d, err := newDriver(g.Name, "/x/stock")
		if err != nil {
			t.Fatal(err)
		}
		if d.kit.ViaWire() {
			continue
		}
		n++
		var out bytes.Buffer
		r := &run{out: &out, errOut: &bytes.Buffer{}}
		cfg := config{drivers: []driver{d}, tbMissing: "no TigerBeetle binary"}
		if wire, _ := tigerBeetleDrivers(cfg.drivers); len(wire) != 0 {
			t.Errorf("%s is sorted among the drivers on the model", g.Name)
		}
		got, err := r.onReplica(cfg, r.startReplica(cfg, true), nil, []driver{d}, nil, "stock.book", "/x/stock.book")
		r.finish()
		if err != nil || len(got) != 0 {
			t.Fatalf("%s: got %v, %v; want nothing run", g.Name, got, err)
		}
		for _, want := range []string{
			"SKIP: real TigerBeetle: no TigerBeetle binary\n",
			"SKIP: " + g.Name + ": its driver reaches only a real replica, and there is none\n",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("the log lacks %q:\n%s", want, out.String())
			}
		}
	}
	if n == 0 {
		t.Error("no language's driver dials TigerBeetle itself: this test tests nothing")
	}
}
