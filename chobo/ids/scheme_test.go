package ids

import (
	"encoding/binary"
	"testing"
)

// TestRolesMatchFunctions calls every function of the scheme with distinct
// values and checks that hashing those values in the order Roles gives
// yields the same id: the table says what the functions do.
func TestRolesMatchFunctions(t *testing.T) {
	acc := Account("b", "t", "k", "a1", "a2")
	helper := Floor(acc)
	got := map[string]func() ([]string, []byte){
		"account": func() ([]string, []byte) { return []string{"b", "t", "k", "a1", "a2"}, acc[:] },
		"floor":   func() ([]string, []byte) { return []string{acc.Hex()}, helper[:] },
		"room":    func() ([]string, []byte) { id := Room(acc); return []string{acc.Hex()}, id[:] },
		"sink":    func() ([]string, []byte) { id := Sink("b", "t", "u"); return []string{"b", "t", "u"}, id[:] },
		"opening": func() ([]string, []byte) { id := Opening(helper); return []string{helper.Hex()}, id[:] },
		"kind":    func() ([]string, []byte) { id := Kind("b", "t", "k"); return []string{"b", "t", "k"}, id[:] },
		"never":   func() ([]string, []byte) { id := Never(); return nil, id[:] },
		"content": func() ([]string, []byte) {
			id := Content("b", "t", "x", "do", "d", "c")
			return []string{"b", "t", "x", "do", "d", "c"}, id[:]
		},
		"transfer": func() ([]string, []byte) {
			id := Transfer("b", "t", "x", "hold", []string{"k1", "k2"}, 3)
			return []string{"b", "t", "x", "hold", "k1", "k2", "3"}, id[:]
		},
		"ledger": func() ([]string, []byte) {
			var out [4]byte
			binary.BigEndian.PutUint32(out[:], Ledger("u", 2))
			return []string{"u", "2"}, out[:]
		},
		"code": func() ([]string, []byte) {
			var out [2]byte
			binary.BigEndian.PutUint16(out[:], Code("b", "transfer", "x"))
			return []string{"b", "transfer", "x"}, out[:]
		},
	}
	if len(Roles) != len(got) {
		t.Errorf("Roles lists %d roles, the test knows %d", len(Roles), len(got))
	}
	for _, r := range Roles {
		call, ok := got[r.Name]
		if !ok {
			t.Errorf("no function for the role %q", r.Name)
			continue
		}
		values, id := call()
		if len(id)*8 != r.Bits {
			t.Errorf("%s: the table keeps %d bits, the function %d", r.Name, r.Bits, len(id)*8)
		}
		fixed := 0
		for _, p := range r.Parts {
			if !p.Many {
				fixed++
			}
		}
		if fixed > len(values) || fixed < len(values) && fixed == len(r.Parts) {
			t.Errorf("%s: the table has %d parts, the call %d values", r.Name, len(r.Parts), len(values))
		}
		d := digest(r.Name, values...)
		if string(d[:len(id)]) != string(id) {
			t.Errorf("%s: the function does not hash %q in the order of the table", r.Name, values)
		}
	}
}
