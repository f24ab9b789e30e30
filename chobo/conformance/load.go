package conformance

import (
	"fmt"
	"slices"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/evolve"
	"github.com/chobo-lang/chobo/chobo/gen"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// File is a file's name, for messages, and its bytes.
type File struct {
	Name string
	Data []byte
}

// Loaded is a book ready to run on a backend: the book as written, whose
// time the scenarios' passes are in, its test copy (Shorten), and every
// scenario of it, the generated ones first.
type Loaded struct {
	Name      string // the book's file name
	Book      *book.Book
	Copy      *book.Book
	CopySrc   []byte
	Scenarios []scenario.Scenario
	// Versions are the versions of the book the scenarios deploy
	// (LoadDeploys), the first one (Book) among them, each with its test
	// copy, by the book as read; nil when none deploys.
	Versions map[*book.Book]*Version
}

// Version is a version of a book a scenario deploys: the book as read,
// its test copy made as Load makes the first version's (Shorten), and
// the copy's source, which a backend builds what it loads from.
type Version struct {
	File    string // as the deploy step names it, or scenario.DerivedName
	Book    *book.Book
	Copy    *book.Book
	CopySrc []byte
	// Src is the version's text, which a version derived from it is
	// written from (scenario.Derive).
	Src []byte
}

// ReadVersion reads the version of the book a deploy step names (file,
// as the scenario wrote it) and checks that it may follow cur, as
// `chobo run` checks it: the book and its source, or why not.
type ReadVersion func(cur *book.Book, file string) (*book.Book, []byte, error)

// Load checks a book, makes its test copy and reads its scenarios: the
// ones chobo generates, then those of each hand-written file.
func Load(src File, scenarios ...File) (*Loaded, error) {
	res := check.Check(src.Name, src.Data)
	if res.Book == nil {
		return nil, fmt.Errorf("%s does not check: %+v", src.Name, res.Diags)
	}
	copySrc, cp, err := Shorten(res.Book, src.Data)
	if err != nil {
		return nil, err
	}
	l := &Loaded{Name: src.Name, Book: res.Book, Copy: cp, CopySrc: copySrc}
	l.Versions = map[*book.Book]*Version{l.Book: {File: l.Name, Book: l.Book, Copy: l.Copy, CopySrc: l.CopySrc, Src: src.Data}}
	l.Scenarios = scenario.GenerateWith(res.Book, l.deployer(nil))
	if !slices.ContainsFunc(l.Scenarios, hasDeploys) {
		l.Versions = nil
	}
	for _, f := range scenarios {
		more, err := scenario.Read(res.Book, f.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.Name, err)
		}
		// A scenario no test copy can time is refused before any server
		// starts, in the words `chobo run` refuses it with.
		for i, sc := range more {
			if _, err := scenario.Timing(sc, scenario.Run(res.Book, sc)); err != nil {
				return nil, fmt.Errorf("%s: scenario %d: %q: %v", f.Name, i+1, sc.Name, err)
			}
		}
		l.Scenarios = append(l.Scenarios, more...)
	}
	return l, nil
}

// LoadDeploys reads a scenario file whose scenarios deploy new versions
// of the book, each version read by read, and adds its scenarios to l,
// with a test copy of each version made as the first version's is, so
// that every version's holds last Lifetime and the passes scale alike.
func (l *Loaded) LoadDeploys(f File, read ReadVersion) error {
	deploy := l.deployer(read)
	more, err := scenario.ReadWith(l.Book, f.Data, deploy)
	if err != nil {
		return fmt.Errorf("%s: %v", f.Name, err)
	}
	for i, sc := range more {
		if _, err := scenario.Timing(sc, scenario.Run(l.Book, sc)); err != nil {
			return fmt.Errorf("%s: scenario %d: %q: %v", f.Name, i+1, sc.Name, err)
		}
	}
	l.Scenarios = append(l.Scenarios, more...)
	return nil
}

// deployer makes the versions of l's deploy steps, with a test copy of
// each: a file's by read, a derived one from the text of the version in
// place (scenario.Derive), checked as `chobo run` checks it (Follow).
func (l *Loaded) deployer(read ReadVersion) scenario.Deployer {
	if l.Versions == nil {
		l.Versions = map[*book.Book]*Version{l.Book: {File: l.Name, Book: l.Book, Copy: l.Copy, CopySrc: l.CopySrc}}
	}
	return func(cur *book.Book, step *scenario.Deploy) (*book.Book, error) {
		var nb *book.Book
		var src []byte
		var err error
		switch {
		case step.File == "":
			v := l.Versions[cur]
			if v == nil || v.Src == nil {
				return nil, fmt.Errorf("no text of %s v%d to derive the next version from", cur.Name, cur.Version)
			}
			if src, err = scenario.Derive(cur, v.Src, step.Bounds); err == nil {
				nb, err = Follow(cur, scenario.DerivedName(cur), src)
			}
		case read == nil:
			return nil, fmt.Errorf("deploy %q: no reader of files", step.File)
		default:
			nb, src, err = read(cur, step.File)
		}
		if err != nil {
			return nil, err
		}
		copySrc, cp, err := Shorten(nb, src)
		if err != nil {
			return nil, err
		}
		file := step.File
		if file == "" {
			// What the version's SQL and messages name it by.
			file = scenario.DerivedName(cur)
		}
		l.Versions[nb] = &Version{File: file, Book: nb, Copy: cp, CopySrc: copySrc, Src: src}
		return nb, nil
	}
}

// Follow checks the text src of a version of a book, named name, and
// that it may follow cur as `chobo run` lets a deploy step's version
// follow: the same book, no error of its own, and none from the
// comparison with cur (E050, E051, E052).
func Follow(cur *book.Book, name string, src []byte) (*book.Book, error) {
	res := check.Errors(name, src)
	if res.Book != nil && res.Book.Name != cur.Name {
		return nil, fmt.Errorf("%s holds the book %s, not %s", name, res.Book.Name, cur.Name)
	}
	if res.Book != nil {
		res.Extend(src, evolve.Compare(evolve.FromBook(cur), res.Book))
	}
	if res.Book == nil {
		var codes []string
		for _, d := range res.Diags {
			if d.Severity == diag.Error {
				codes = append(codes, d.Code+" "+d.Message.En)
			}
		}
		return nil, fmt.Errorf("%s cannot follow %s v%d: %v", name, cur.Name, cur.Version, codes)
	}
	return res.Book, nil
}

// SQL is what `chobo build --target postgres` writes for the test copy.
func (l *Loaded) SQL() (string, error) {
	return BuildSQL(l.Name, l.Copy, l.CopySrc)
}

// BuildSQL is what `chobo build --target postgres` writes for the test
// copy cp of a book named name, made from src.
func BuildSQL(name string, cp *book.Book, src []byte) (string, error) {
	files, ds := postgres.Build(cp, gen.NewSource(name, src), gen.Options{})
	if len(ds) > 0 {
		return "", fmt.Errorf("%s: the SQL of the test copy: %+v", name, ds)
	}
	return string(files[0].Data), nil
}

// Jobs are the scenarios of l on one backend, each for a tenant of its
// own: tenant(i) names the i-th.
func (l *Loaded) Jobs(where string, be Backend, tenant func(i int) string) []Job {
	var jobs []Job
	for i, sc := range l.Scenarios {
		jobs = append(jobs, Job{Where: where, Book: l.Copy, Original: l.Book, Scenario: sc, Backend: be, Tenant: tenant(i),
			Versions: l.Versions})
	}
	return jobs
}

// Deploying is l with only the scenarios that deploy a new version: what
// a pair runs beside pairs that cannot deploy. Nil when none does.
func (l *Loaded) Deploying() *Loaded {
	out := *l
	out.Scenarios = nil
	for _, sc := range l.Scenarios {
		if hasDeploys(sc) {
			out.Scenarios = append(out.Scenarios, sc)
		}
	}
	if len(out.Scenarios) == 0 {
		return nil
	}
	return &out
}

// WithoutDerived is l without the scenarios that deploy a version derived
// by changing bounds (the families `chobo scenarios` writes) and without
// the versions only they deploy. A pair that runs the rest runs every
// deploy a file names; one whose deploys cost a process each leaves the
// families to the pairs that hold the bounds themselves.
func (l *Loaded) WithoutDerived() *Loaded {
	out := *l
	out.Scenarios = nil
	keep := map[*book.Book]bool{l.Book: true}
	for _, sc := range l.Scenarios {
		if sc.Derives() {
			continue
		}
		for _, st := range sc.Steps {
			if st.Deploy != nil {
				keep[st.Deploy.Book] = true
			}
		}
		out.Scenarios = append(out.Scenarios, sc)
	}
	out.Versions = nil
	if len(keep) > 1 {
		out.Versions = map[*book.Book]*Version{}
		for b, v := range l.Versions {
			if keep[b] {
				out.Versions[b] = v
			}
		}
	}
	return &out
}
