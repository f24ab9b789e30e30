package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// A scenario's passes are written in the book's time: minutes, days.
// On a backend, holds expire in real time, so the backend holds the test
// copy (Shorten), whose holds all last Lifetime. Before a scenario runs
// there, each pass gets the length scenario.Timing solves for, the rule
// `chobo run` holds every scenario to, and the solution is checked by
// running the interpreter on both books.

// copyLifetime is Lifetime in the interpreter's unit.
const copyLifetime = scenario.CopyLifetime

// Scale returns sc ready for the test copy cp of orig: its calls bound
// to cp's transfers and each pass given a length in cp's time such that
// the interpreter on cp answers exactly as it does on orig, pass by pass
// (the same holds expire at the same passes). sc may be bound to either
// book; its passes are read in orig's time. A scenario no such lengths
// exist for is refused, with the holds whose deadlines cannot all keep
// their order.
func Scale(orig, cp *book.Book, sc scenario.Scenario) (scenario.Scenario, error) {
	return scale(orig, cp, nil, sc)
}

// scale is Scale for a scenario that may deploy new versions: each deploy
// step puts in place the test copy of its version (versions, by the
// version as read), and the calls after it are bound to that copy.
func scale(orig, cp *book.Book, versions map[*book.Book]*Version, sc scenario.Scenario) (scenario.Scenario, error) {
	onOrig, err := bind(orig, sc)
	if err != nil {
		return sc, err
	}
	want := scenario.Run(orig, onOrig)
	lens, err := scenario.Timing(onOrig, want)
	if err != nil {
		return sc, err
	}
	out, err := bindWith(cp, sc, func(d *scenario.Deploy) (*book.Book, error) {
		if v := versions[d.Book]; v != nil {
			return v.Copy, nil
		}
		return nil, fmt.Errorf("deploy %q: no test copy of that version was made (conformance.LoadDeploys makes one)", d.File)
	})
	if err != nil {
		return sc, err
	}
	k := 0
	for i, st := range out.Steps {
		if isPass(st) {
			out.Steps[i].Pass = lens[k]
			out.Steps[i].PassText = passText(lens[k])
			k++
		}
	}
	// The limits are meant to be exactly what keeps the run the same; a
	// difference here is a fault of this file, not of the scenario, and
	// must not pass for a backend's.
	if got := scenario.Run(cp, out); !sameRuns(want, got) {
		return sc, fmt.Errorf("its passes, scaled to the test copy (%s), make the interpreter answer differently than on the book: a fault of conformance.Scale", passList(out))
	}
	return out, nil
}

// bind returns sc with its calls on b's transfers, found by name: the
// interpreter reads a hold's lifetime from the call's transfer, not from
// the book it runs on.
func bind(b *book.Book, sc scenario.Scenario) (scenario.Scenario, error) {
	return bindWith(b, sc, func(d *scenario.Deploy) (*book.Book, error) { return d.Book, nil })
}

// bindWith is bind where each deploy step puts in place the book version
// gives for it, and the calls after it are bound to that book.
func bindWith(b *book.Book, sc scenario.Scenario, version func(*scenario.Deploy) (*book.Book, error)) (scenario.Scenario, error) {
	out := sc
	out.Steps = make([]scenario.Step, len(sc.Steps))
	rebind := func(c *scenario.Call) (*scenario.Call, error) {
		t := b.Transfer(c.Transfer.Name)
		if t == nil {
			return nil, fmt.Errorf("%s has no transfer %s", b.File, c.Transfer.Name)
		}
		n := *c
		n.Transfer = t
		return &n, nil
	}
	for i, st := range sc.Steps {
		var err error
		switch {
		case st.Deploy != nil:
			nb, e := version(st.Deploy)
			if e != nil {
				return sc, e
			}
			b = nb
			st.Deploy = &scenario.Deploy{File: st.Deploy.File, Book: nb}
		case st.Call != nil:
			st.Call, err = rebind(st.Call)
		case st.Together != nil:
			callers := make([][]*scenario.Call, len(st.Together))
			for ci, calls := range st.Together {
				for _, c := range calls {
					nc, e := rebind(c)
					if e != nil {
						err = e
						break
					}
					callers[ci] = append(callers[ci], nc)
				}
			}
			st.Together = callers
		}
		if err != nil {
			return sc, err
		}
		out.Steps[i] = st
	}
	return out, nil
}

// isPass reports whether st is a pass of time.
func isPass(st scenario.Step) bool {
	return st.Call == nil && st.Together == nil && st.Read == nil && st.Deploy == nil
}

// passText writes a scaled pass in the scenario format.
func passText(secs int64) string {
	if secs == 1 {
		return "1 second"
	}
	return fmt.Sprintf("%d seconds", secs)
}

func passList(sc scenario.Scenario) string {
	var out []string
	for i, st := range sc.Steps {
		if isPass(st) {
			out = append(out, fmt.Sprintf("step %d: %s", i+1, st.PassText))
		}
	}
	return strings.Join(out, ", ")
}

// sameRuns compares two runs as conformance does, and also what expired
// at each pass.
func sameRuns(a, b []scenario.Outcome) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if FromOutcome(a[i]).String() != FromOutcome(b[i]).String() ||
			!maps.EqualFunc(a[i].Expired, b[i].Expired, slices.Equal) {
			return false
		}
	}
	return true
}
