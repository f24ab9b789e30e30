package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	choboids "github.com/chobo-lang/chobo/chobo/ids"
)

// TestInlineID works out every pinned id with the written-out expression
// on a real server. Parts alternate between constants and expressions,
// in both phases, so that runs of constants of every length meet text
// parts on both sides.
func TestInlineID(t *testing.T) {
	conn := pgtest.Start(t).Connect(t)
	ctx := context.Background()
	eval := func(sql string) string {
		t.Helper()
		var got string
		if err := conn.QueryRow(ctx, "select "+sql+"::text").Scan(&got); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return got
	}
	for _, v := range choboids.Vectors {
		all := append([]string{v.Role}, v.Parts...)
		for phase := 0; phase < 3; phase++ {
			var parts []idPart
			for i, p := range all {
				switch {
				case phase == 2 || (i+phase)%2 == 0:
					parts = append(parts, constPart(p))
				default:
					parts = append(parts, exprPart(Lit(p)))
				}
			}
			if got := strings.ReplaceAll(eval(inlineID(parts)), "-", ""); got != v.Hex {
				t.Errorf("inline id of %q (phase %d) = %s, want %s", all, phase, got, v.Hex)
			}
		}
	}
	for _, c := range []struct{ in, want string }{
		{`'\x00000000000000000000000000000000'::bytea`, `\x00000000000000000000000000000001`},
		{`'\xffffffffffffffffffffffffffffffff'::bytea`, `\xfffffffffffffffffffffffffffffffe`},
		{`'\x00000000000000000000000000000001'::bytea`, `\x00000000000000000000000000000001`},
		{`'\x0123456789abcdef0123456789abcdef'::bytea`, `\x0123456789abcdef0123456789abcdef`},
	} {
		if got := eval(movedAside(c.in)); got != c.want {
			t.Errorf("movedAside(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
