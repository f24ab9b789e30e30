package tests

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/runtime/driverkits"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// The conformance tests drive every client language the same way: its
// client of each case, beside the language's driver, as a process
// speaking the driver protocol, opened with what conformance.Open says of
// the target. So they range over the languages' driver kits
// (runtime/driverkits) and the backends, and a new language is one kit
// and its driver, not a copy of the tests. Where a kit's traits decide
// what runs:
//
//   - ViaWire: the driver also reaches TigerBeetle through tbwire, served
//     by this process, when the address it is opened with starts with
//     "wire:": its client then runs on the model of TigerBeetle too,
//     which sees every request it sends. Without it, a client reaches
//     only a real replica, through its official client.
//   - Record: what a recording driver sends is held to `chobo run --show`
//     wherever it runs but on the model of TigerBeetle, which sees every
//     request itself.
//   - Bulk: on those backends every scenario also runs through the
//     client's bulk call.

// newClient is a client to build a driver for: a case's own, or, with of
// naming the case, that of a later version of its book.
func newClient(name string, f gen.File, of string) driverkit.Client {
	return driverkit.Client{Name: name, Path: f.Path, Data: f.Data, Of: of}
}

// languageOf is the driver kit of a client target's language.
func languageOf(t *testing.T, tg string) (target.Target, driverkit.Kit) {
	t.Helper()
	g, ok := target.Lookup(tg)
	if !ok || g.Client() == nil {
		t.Fatalf("%q is not a client target", tg)
	}
	kit, ok := driverkits.Of(g.Language)
	if !ok {
		t.Fatalf("runtime/driverkits has no kit for %s clients", g.Language)
	}
	return g, kit
}

// targetsOn lists the client targets of a backend whose language has a
// kit, in the registry's order.
func targetsOn(backend string) []string {
	var out []string
	for _, g := range target.All {
		if g.Backend != backend || g.Client() == nil {
			continue
		}
		if _, ok := driverkits.Of(g.Language); ok {
			out = append(out, g.Name)
		}
	}
	return out
}

// checkout is this checkout of chobo, as the kits find their toolchains
// in it: the tests run in tests/, and a language that builds its drivers
// with the module's packages writes them here for a while.
func checkout() (driverkit.Checkout, error) {
	here, err := os.Getwd()
	if err != nil {
		return driverkit.Checkout{}, err
	}
	return driverkit.Checkout{Root: filepath.Dir(here), Scratch: here, ScratchImport: "github.com/chobo-lang/chobo/tests"}, nil
}

type languageSetup struct {
	builder driverkit.Builder
	why     string // why the language's clients cannot be driven here; "" when they can
}

var languageSetups struct {
	mu   sync.Mutex
	done map[string]languageSetup // by language
}

// useLanguage has the language's kit find its toolchain once, or skips t
// with a SKIP line printed once (so that it shows in a log written
// without -test.v, as Bazel's is); under CI, outside Bazel, a missing
// toolchain fails t. It returns what builds the language's drivers.
func useLanguage(t *testing.T, kit driverkit.Kit) driverkit.Builder {
	t.Helper()
	name := kit.Language()
	languageSetups.mu.Lock()
	s, done := languageSetups.done[name]
	if !done {
		c, err := checkout()
		if err != nil {
			s.why = err.Error()
		} else {
			s.builder, s.why = kit.Checkout(c)
		}
		if languageSetups.done == nil {
			languageSetups.done = map[string]languageSetup{}
		}
		languageSetups.done[name] = s
	}
	languageSetups.mu.Unlock()
	if s.why != "" {
		langtest.Skip(t, name+" clients: "+s.why)
	}
	return s.builder
}

// built are the drivers of one target's clients.
type built struct {
	once  sync.Once
	dir   string // removed when the tests end (TestMain)
	start func(caseName string) *exec.Cmd
	err   error
}

var builtDrivers struct {
	mu    sync.Mutex
	by    map[string]*built // by target
	dirs  []string
	books map[string][]loaded
}

// driversOf builds, once per test binary, the drivers of the clients of
// target tg of every case that has one, and returns how to start the one
// of a case. It skips t where the language is not set up.
func driversOf(t *testing.T, tg string) func(caseName string) *exec.Cmd {
	t.Helper()
	g, lang := languageOf(t, tg)
	builder := useLanguage(t, lang)
	builtDrivers.mu.Lock()
	if builtDrivers.by == nil {
		builtDrivers.by = map[string]*built{}
	}
	b := builtDrivers.by[tg]
	if b == nil {
		b = &built{}
		builtDrivers.by[tg] = b
	}
	builtDrivers.mu.Unlock()
	b.once.Do(func() {
		var clients []driverkit.Client
		cases := clientCases(t, tg)
		for i, l := range cases {
			f, err := clientOf(g, l, i)
			if err != nil {
				b.err = err
				return
			}
			clients = append(clients, newClient(l.name, f, ""))
		}
		// The client of every version a case's scenarios deploy is built
		// with the rest, once: a deploy step starts its driver.
		for _, l := range withDeploys(t, cases) {
			for _, v := range laterVersions(l) {
				name := versionDriver(l.name, v)
				if slices.ContainsFunc(clients, func(c driverkit.Client) bool { return c.Name == name }) {
					continue
				}
				f, err := versionClientOf(g, l, v, len(clients))
				if err != nil {
					b.err = err
					return
				}
				clients = append(clients, newClient(name, f, l.name))
			}
		}
		b.dir, b.err = os.MkdirTemp("", "chobo-"+tg+"-")
		if b.err != nil {
			return
		}
		builtDrivers.mu.Lock()
		builtDrivers.dirs = append(builtDrivers.dirs, b.dir)
		builtDrivers.mu.Unlock()
		b.start, b.err = builder.Build(g.Name, g.Backend, b.dir, clients)
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	if b.start == nil {
		t.Fatalf("the drivers of the %s clients were not built (see the test that first asked for them)", tg)
	}
	return b.start
}

// removeDrivers removes what driversOf built.
func removeDrivers() {
	for _, dir := range builtDrivers.dirs {
		os.RemoveAll(dir)
	}
}

// clientGlob is the pattern of the client of target tg among a case's
// expected files.
func clientGlob(g target.Target) string {
	var files []string
	for _, f := range g.Files {
		f = strings.ReplaceAll(strings.ReplaceAll(f, "<book>", "*"), "<package>", "*")
		files = append(files, filepath.Join(g.Name, filepath.FromSlash(f)))
	}
	if len(files) != 1 {
		panic(fmt.Sprintf("%s writes %d files; the tests drive clients of one", g.Name, len(files)))
	}
	return files[0]
}

// clientCases are the cases with a client of target tg, loaded, without
// the generated bound-change families: a client driven as a process
// deploys a version by starting a driver of it, a second or more on a
// busy machine for each scenario, while the families' answers come from
// where the bounds are kept, the SQL (TestPostgresConformance) and the
// TigerBeetle chains (TestTigerBeetleDeploysInProcess, whose chains every
// language's runtime is held to by the shared vectors). The deploys the
// cases' files name run on every pair.
func clientCases(t *testing.T, tg string) []loaded {
	t.Helper()
	g, _ := target.Lookup(tg)
	var out []loaded
	for _, c := range casesWith(t, clientGlob(g), tg) {
		l := loadForBackends(t, c)
		l.Loaded = l.WithoutDerived()
		out = append(out, l)
	}
	return out
}

// clientCase is the case named name among clientCases(t, tg); it fails t
// when there is none.
func clientCase(t *testing.T, tg, name string) loaded {
	t.Helper()
	for _, c := range clientCases(t, tg) {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("%s: no case %s", tg, name)
	return loaded{}
}

// clientOf is the client of target g that the tests drive for l, the
// i-th case: on PostgreSQL the case's expected client; on TigerBeetle one
// written from the book's test copy, since TigerBeetle counts a hold's
// lifetime from the timeout the client sends. A language with packages
// gets one of its own per case.
func clientOf(g target.Target, l loaded, i int) (gen.File, error) {
	if g.Backend == "postgres" {
		found, _ := filepath.Glob(filepath.Join(filepath.Dir(l.path), "expected", clientGlob(g)))
		if len(found) != 1 {
			return gen.File{}, fmt.Errorf("%s: %d expected %s clients", l.path, len(found), g.Name)
		}
		data, err := os.ReadFile(found[0])
		return gen.File{Path: filepath.Base(found[0]), Data: data}, err
	}
	files, ds, err := g.Build(l.Copy, gen.NewSource(filepath.Base(l.path), l.CopySrc), gen.Options{Package: fmt.Sprintf("c%d", i)})
	if err != nil || len(ds) > 0 || len(files) != 1 {
		return gen.File{}, fmt.Errorf("%s: building the test copy's %s client: %v %v", l.path, g.Name, ds, err)
	}
	return files[0], nil
}

// laterVersions are the versions of l's book its scenarios deploy, the
// first left out, in the order of their version numbers, then of their
// files and text (versions derived by different scenarios may share a
// number and a name).
func laterVersions(l loaded) []*conformance.Version {
	var out []*conformance.Version
	for b, v := range l.Versions {
		if b != l.Book {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b *conformance.Version) int {
		return cmp.Or(a.Book.Version-b.Book.Version, strings.Compare(a.File, b.File), bytes.Compare(a.CopySrc, b.CopySrc))
	})
	return out
}

// versionDriver names, among the drivers of a target, the one of the
// client of a later version v of the book of the case caseName: by the
// text of its test copy, since versions derived by different scenarios,
// or a file read by each scenario that deploys it, may share a number
// and a name, and the same text needs one client.
func versionDriver(caseName string, v *conformance.Version) string {
	sum := sha256.Sum256(v.CopySrc)
	return fmt.Sprintf("%s_v%d_%x", caseName, v.Book.Version, sum[:6])
}

// versionClientOf is the client of target g of a version v of l's book,
// the i-th client of the target, written from v's test copy (no case
// expects it).
func versionClientOf(g target.Target, l loaded, v *conformance.Version, i int) (gen.File, error) {
	files, ds, err := g.Build(v.Copy, gen.NewSource(filepath.Base(l.path), v.CopySrc), gen.Options{Package: fmt.Sprintf("c%d", i)})
	if err != nil || len(ds) > 0 || len(files) != 1 {
		return gen.File{}, fmt.Errorf("%s: building the %s client of %s: %v %v", l.path, g.Name, v.File, ds, err)
	}
	return files[0], nil
}

// clientDrivers is the driver p of l's client of target tg, on the
// backend at, as a pair that deploys: a deploy step puts the version in
// place with put, ends the driver in place, and the one of the version's
// client, started ahead, takes the calls; it reads the backend through
// read(v).
func clientDrivers(t *testing.T, tg string, l loaded, p *conformance.Process, at protocol.Request,
	read func(v *conformance.Version) conformance.Reader, put func(ctx context.Context, v *conformance.Version) error) *conformance.Drivers {
	t.Helper()
	start := driversOf(t, tg)
	later := laterVersions(l)
	d := conformance.NewDrivers(p, l.Versions[l.Book], func(v *conformance.Version) (*conformance.Process, error) {
		name := l.name
		if v.Book != l.Book {
			name = versionDriver(l.name, v)
		}
		cmd := start(name)
		if cmd == nil {
			return nil, fmt.Errorf("no %s client of %s was built", tg, v.File)
		}
		return startDriverErr(t, tg, cmd, v.Copy, filepath.Base(l.path), v.CopySrc, at, read(v), "")
	}, put)
	d.Later = later
	return d
}

// startClient runs the driver of l's client of target tg, opened on the
// test copy with what at says of where the backend is, reading the
// backend through read. With record set, the driver writes down every
// request its client sends into that file. The driver stops at the end
// of the test.
func startClient(t *testing.T, tg string, l loaded, at protocol.Request, read conformance.Reader, record string) *conformance.Process {
	t.Helper()
	cmd := driversOf(t, tg)(l.name)
	if cmd == nil {
		t.Fatalf("%s: no %s client", l.path, tg)
	}
	// The driver opens the book whose SQL is loaded, or whose hold
	// lifetimes the TigerBeetle client was written from: the test copy.
	return startDriver(t, tg, cmd, l.Copy, filepath.Base(l.path), l.CopySrc, at, read, record)
}

// startDriver runs cmd, a driver of a client of target tg written from
// b, whose source src it is given as a file of that name; the rest is as
// startClient says.
func startDriver(t *testing.T, tg string, cmd *exec.Cmd, b *book.Book, name string, src []byte, at protocol.Request, read conformance.Reader, record string) *conformance.Process {
	t.Helper()
	p, err := startDriverErr(t, tg, cmd, b, name, src, at, read, record)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startDriverErr is startDriver, saying why the driver did not start
// rather than ending the test: a deploy step starts one in the middle of
// a run.
func startDriverErr(t *testing.T, tg string, cmd *exec.Cmd, b *book.Book, name string, src []byte, at protocol.Request, read conformance.Reader, record string) (*conformance.Process, error) {
	t.Helper()
	_, lang := languageOf(t, tg)
	bookPath := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(bookPath, src, 0o644); err != nil {
		return nil, err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	if record != "" {
		if lang.Record() == "" {
			return nil, fmt.Errorf("the %s driver writes nothing down", lang.Language())
		}
		cmd.Env = append(cmd.Env, lang.Record()+"="+record)
	}
	p, err := conformance.StartDriver(cmd, b, tg, bookPath, at, read)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	})
	if p.Client() != tg {
		t.Errorf("%s: the driver says it drives %q, want %q", name, p.Client(), tg)
	}
	return p, nil
}

// startPostgresClient runs the driver of l's client of tg on d, as the
// application's role.
func startPostgresClient(t *testing.T, tg string, d pgDeployment, l loaded) *conformance.Process {
	t.Helper()
	return startClient(t, tg, l, protocol.Request{DSN: d.srv.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)},
		conformance.PostgresReader{Pool: d.admin, Book: l.Copy}, "")
}

// TestEveryClientLanguageIsDriven fails for a language of the registry
// without a driver kit: its clients would otherwise go untested on every
// backend without a word.
func TestEveryClientLanguageIsDriven(t *testing.T) {
	for _, g := range target.All {
		if g.Client() != nil {
			languageOf(t, g.Name)
		}
	}
}
