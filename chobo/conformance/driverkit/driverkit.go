// Package driverkit says what a client language provides so that its
// clients are driven in conformance runs: by the runner of the Bazel
// rules, one client the rule hands over at a time, and by chobo's own
// tests, every case's client at once. Both range over the same kits
// (runtime/driverkits), so that neither names a language: a language is
// one Kit, written beside its driver (lang/<language>/driver).
//
// A driver is a program speaking the driver protocol (docs/formats.md)
// for one generated client; how it is made ready is the kit's business.
package driverkit

import (
	"io"
	"os/exec"
	"slices"
)

// Kit is one client language's driver and how to make it ready.
type Kit interface {
	// Language is the language as the registry of targets names it
	// (target.Target.Language).
	Language() string
	// ViaWire says the driver reaches TigerBeetle through chobo's wire
	// (tbwire) when the address it is opened with starts with "wire:",
	// served by the process that drives it, which may shorten hold
	// timeouts on the way and answer from chobo's model of TigerBeetle.
	// Without it, the driver dials a real replica itself, through the
	// official client, and is told the test copy's hold lifetime in open.
	ViaWire() bool
	// Record is the variable with which the driver writes down every
	// request its client hands to its PostgreSQL driver or to
	// TigerBeetle's client, one JSON line each into the file it names;
	// "" for a driver that does not.
	Record() string
	// Bulk are the backends on which the driver answers the bulk request
	// through its client's bulk call.
	Bulk() []string
	// Prepare makes the driver of the one client h hands over ready,
	// with the toolchain the conformance rule hands over (read from the
	// environment, as runfiles paths), and says how to start it; a nil
	// Start is the program at h.Path itself.
	Prepare(h Handed) (Start, error)
	// Checkout finds the language's toolchain in a checkout of chobo,
	// where chobo's own tests run, and returns what builds the drivers
	// of many clients with it; or why the language's clients cannot be
	// driven here, which the tests print as a SKIP line.
	Checkout(c Checkout) (b Builder, why string)
}

// Start starts a driver, a new process each call.
type Start func() *exec.Cmd

// Handed is one client the conformance rule hands over, and what the
// runner lends its kit to make it ready.
type Handed struct {
	Target  string // a client target of the registry, such as postgres-go
	Backend string // the target's backend
	// Path is what the rule hands over for the client: a driver program
	// Bazel built, or the client's source, which the kit lays out or
	// compiles beside its driver.
	Path string
	// Runfile turns a runfiles path, as the rule hands a toolchain's
	// files over, into one valid from the working directory.
	Runfile func(string) (string, error)
	// TempDir makes an empty folder of the client's own, removed when the
	// run ends.
	TempDir func() (string, error)
	// Log takes a line for the run's log, such as which toolchain drives
	// the client.
	Log io.Writer
}

// Checkout is the checkout of chobo that the tests run in.
type Checkout struct {
	Root string // the module's root folder, absolute
	// Scratch is a folder inside the module, and ScratchImport its import
	// path, where a kit may write packages for a while: a language whose
	// drivers are built with the module's own packages builds them there.
	Scratch, ScratchImport string
}

// Client is one generated client to build a driver for.
type Client struct {
	Name string // the name the driver is started by (a case, or a version of one)
	Path string // the file's name as the target writes it, such as book.go
	Data []byte // the file
	// Of is the client whose book's later version this is: the one it
	// takes over from when a scenario deploys; "" for none.
	Of string
}

// Builder builds the drivers of the clients of one target at once.
type Builder interface {
	// Build builds, in dir (empty), the drivers of clients, all of the
	// client target tg on backend, and returns how to start the one a
	// name picks: nil for a name it was not given.
	Build(tg, backend, dir string, clients []Client) (start func(name string) *exec.Cmd, err error)
}

// Find is the kit of a language among kits.
func Find(kits []Kit, language string) (Kit, bool) {
	for _, k := range kits {
		if k.Language() == language {
			return k, true
		}
	}
	return nil, false
}

// A Shell is a Builder that readies the shell of a test that follows the
// docs' commands (the README's walk, the whole programs of
// docs/targets.md) with what the checkout installed of the language, in
// place of what a user would install.
type Shell interface {
	Builder
	// ShellEnv is what the shell's environment gains: folders put first
	// on PATH, and KEY=value settings (a package manager kept offline).
	ShellEnv() (path, env []string)
	// StandIn takes a line of the docs that installs the language's
	// packages into dir, and does what stands for it; it says whether it
	// took the line (the rest run as written).
	StandIn(line, dir string) (bool, error)
	// CheckProgram checks a program of the docs, in dir with the client
	// beside it, as strictly as the generated clients are checked, where
	// the program is in the language and running it does not check it
	// already; it says whether it did.
	CheckProgram(dir, program string) (bool, error)
}

// A Variant is another way a kit's driver reaches a backend, such as a
// second database library, picked by what is added to the environment the
// driver starts in. A kit's Builder may already drive some books by a
// variant; tests that drive one book on their own ask for each variant.
type Variant struct {
	Name string   // a word for the test's name: psycopg2
	Env  []string // KEY=value lines added to the driver's environment
}

// Varied is a Kit with variants on some backend.
type Varied interface {
	Kit
	// Variants are the kit's variants on backend: none for most.
	Variants(backend string) []Variant
}

// VariantsOf are k's variants on backend, if it has any.
func VariantsOf(k Kit, backend string) []Variant {
	if v, ok := k.(Varied); ok {
		return v.Variants(backend)
	}
	return nil
}

// A Flavored kit's drivers drive more than one kind of book of one
// client (a sync one and an async one, say): a bench request's Flavor
// picks one (protocol.Bench).
type Flavored interface {
	Flavors() []string
}

// FlavorsOf are the flavors of k's drivers; one, "", for a kit with none.
func FlavorsOf(k Kit) []string {
	if f, ok := k.(Flavored); ok {
		return f.Flavors()
	}
	return []string{""}
}

// BulkOn says whether k's driver takes bulk requests on the backend.
func BulkOn(k Kit, backend string) bool { return slices.Contains(k.Bulk(), backend) }
