package search

import (
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/resolve"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

func resolved(t *testing.T, src string) *book.Book {
	t.Helper()
	f, ds := syntax.Parse("t.book", []byte(src))
	if ds.Errors() > 0 {
		t.Fatalf("parse: %+v", ds)
	}
	b, ds := resolve.Resolve(f)
	if b == nil || ds.Errors() > 0 {
		t.Fatalf("resolve: %+v", ds)
	}
	return b
}

const reachHead = `book r v1
unit pcs
account a(k: string) : pcs
  at least 0 refused as a_short
  at most 100 refused as a_full
account world : pcs outside
`

func TestShadowed(t *testing.T) {
	for _, c := range []struct {
		name  string
		moves string
		held  bool
		move  int
		lower bool
		want  bool
	}{
		// The same take again after the amount came back: no worse off.
		{"take after a round trip", "move n from a(x) to world\nmove n from world to a(x)\nmove n from a(x) to world", false, 3, true, true},
		// In a hold what came in does not count: the second take is worse.
		{"take after a round trip, held", "move n from a(x) to world\nmove n from world to a(x)\nmove n from a(x) to world", true, 3, true, false},
		// A second take with nothing in between takes more.
		{"two takes", "move n from a(x) to world\nmove n from a(x) to world", false, 2, true, false},
		// A larger take later may be refused where the first was not.
		{"other amount", "move n from a(x) to world\nmove n from world to a(x)\nmove m from a(x) to world", false, 3, true, false},
		// The first move is never shadowed.
		{"first move", "move n from a(x) to world", false, 1, true, false},
		// An account of the same kind with other arguments may be the same
		// account: what it takes in between is not known.
		{"another argument between", "move n from a(x) to world\nmove n from world to a(x)\nmove n from a(y) to world\nmove n from a(x) to world", false, 4, true, false},
		// Upper bounds: a put after the amount went out again.
		{"put after a round trip", "move n from world to a(x)\nmove n from a(x) to world\nmove n from world to a(x)", false, 3, false, true},
		{"two puts", "move n from world to a(x)\nmove n from world to a(x)", false, 2, false, false},
		// A literal of zero in between changes nothing.
		{"literal zero between", "move n from a(x) to world\nmove 0 from world to a(x)\nmove n from a(x) to world", false, 3, true, false},
		{"literal put back covers a literal take", "move 5 from a(x) to world\nmove 5 from world to a(x)\nmove 5 from a(x) to world", false, 3, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := reachHead + "transfer t(id: string, x: string, y: string, n: pcs, m: pcs)\n  key id\n"
			if c.held {
				src += "  pending expires after 1 hours\n"
			}
			for _, l := range splitLines(c.moves) {
				src += "  " + l + "\n"
			}
			b := resolved(t, src)
			if got := shadowed(b.Transfer("t"), c.move, c.lower); got != c.want {
				t.Errorf("shadowed(move %d, lower %v) = %v, want %v", c.move, c.lower, got, c.want)
			}
		})
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := range len(s) {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// TestShadowedIsNeverFound holds shadowed to the search: on transfers of
// moves back and forth, a move it calls shadowed is one where, searched
// without the shortcut, no refusal is found either.
func TestShadowedIsNeverFound(t *testing.T) {
	src := reachHead + "transfer fill(id: string, x: string, n: pcs)\n  key id\n  move n from world to a(x)\n" +
		"transfer t(id: string, x: string, n: pcs)\n  key id\n" +
		"  move n from a(x) to world\n  move n from world to a(x)\n  move n from a(x) to world\n  move n from world to a(x)\n  move n from a(x) to world\n"
	b := resolved(t, src)
	tr := b.Transfer("t")
	n := 0
	for _, m := range tr.Moves {
		for _, lower := range []bool{true, false} {
			if m.Bound(lower) == nil || !shadowed(tr, m.Index, lower) {
				continue
			}
			n++
			s := New(b)
			if _, ok := s.findAtMove(tr, m.Index, lower, nil); ok {
				t.Errorf("move %d (lower %v) is called shadowed, yet the search finds a refusal there", m.Index, lower)
			}
		}
	}
	if n < 3 {
		t.Fatalf("only %d moves are shadowed; the test needs the takes 3 and 5 and the put 4", n)
	}
}

// TestFinishKeepsValuesApart: steps added to a found example bring fresh
// values, which finish names without taking a name the example uses.
func TestFinishKeepsValuesApart(t *testing.T) {
	b := resolved(t, reachHead+"transfer fill(id: string, x: string, n: pcs)\n  key id\n  move n from world to a(x)\n")
	fill := b.Transfer("fill")
	s := New(b)
	named := interp.Call{Transfer: fill, Op: book.Do, Strings: map[string]string{"id": "id-1", "x": "x-2"}, Amounts: map[string]int64{"n": 1}}
	fresh := interp.Call{Transfer: fill, Op: book.Do, Strings: map[string]string{"id": s.value("id"), "x": s.value("x")}, Amounts: map[string]int64{"n": 1}}
	run, _, ok := s.simulate([]Step{{Call: named}, {Call: fresh}})
	if !ok {
		t.Fatal("the run failed")
	}
	ex, ok := s.finish(run)
	if !ok {
		t.Fatal("finish refused the run")
	}
	got := ex.Steps[1].Call.Strings
	if got["id"] == "id-1" || got["x"] == "x-2" || got["id"] == got["x"] {
		t.Errorf("the fresh values were named %v, alongside %v", got, ex.Steps[0].Call.Strings)
	}
	if ex.Steps[0].Call.Strings["id"] != "id-1" {
		t.Errorf("a value named before was renamed: %v", ex.Steps[0].Call.Strings)
	}
}
