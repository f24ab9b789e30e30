package conformance

import (
	"fmt"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
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
}

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
	l := &Loaded{Name: src.Name, Book: res.Book, Copy: cp, CopySrc: copySrc, Scenarios: scenario.Generate(res.Book)}
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

// SQL is what `chobo build --target postgres` writes for the test copy.
func (l *Loaded) SQL() (string, error) {
	files, ds := postgres.Build(l.Copy, gen.NewSource(l.Name, l.CopySrc), gen.Options{})
	if len(ds) > 0 {
		return "", fmt.Errorf("%s: the SQL of the test copy: %+v", l.Name, ds)
	}
	return string(files[0].Data), nil
}

// Jobs are the scenarios of l on one backend, each for a tenant of its
// own: tenant(i) names the i-th.
func (l *Loaded) Jobs(where string, be Backend, tenant func(i int) string) []Job {
	var jobs []Job
	for i, sc := range l.Scenarios {
		jobs = append(jobs, Job{Where: where, Book: l.Copy, Original: l.Book, Scenario: sc, Backend: be, Tenant: tenant(i)})
	}
	return jobs
}
