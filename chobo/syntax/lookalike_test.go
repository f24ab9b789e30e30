package syntax

import (
	"strings"
	"testing"
)

func TestMixedLookalike(t *testing.T) {
	for _, c := range []struct {
		name   string
		letter rune // 0: no warning
		script string
	}{
		{"card", 0, ""},
		{"склад", 0, ""},          // Cyrillic alone, though с and а look Latin
		{"ζυγός", 0, ""},          // Greek alone
		{"在庫sku", 0, ""},          // Latin with Japanese
		{"cаrd", 'а', "Cyrillic"}, // U+0430
		{"Сard", 'С', "Cyrillic"},
		{"wallet_ο", 'ο', "Greek"},
		{"склaд", 'с', "Cyrillic"}, // Cyrillic with a Latin a: the first look-alike is named
		{"cаrd残高", 'а', "Cyrillic"},
		{"latin_жизнь", 0, ""}, // mixed, but no letter of it passes for another
	} {
		l, ok := MixedLookalike(c.name)
		if ok != (c.letter != 0) || ok && (l.Letter != c.letter || l.Script != c.script) {
			t.Errorf("%q: %+v %v, want %q (%s)", c.name, l, ok, c.letter, c.script)
		}
	}
}

func TestLookalikeTwin(t *testing.T) {
	declared := []string{"card", "wallet", "cash"}
	if twin, ok := LookalikeTwin("cаrd", declared); !ok || twin != "card" {
		t.Errorf("cаrd: %q %v", twin, ok)
	}
	if _, ok := LookalikeTwin("cart", declared); ok {
		t.Error("cart found a twin")
	}
	note := LookalikeNote("cаrd", "card")
	for _, want := range []string{"`card` is declared", "the Cyrillic `а` (U+0430)", "the Latin `a` (U+0061)"} {
		if !strings.Contains(note.En, want) {
			t.Errorf("note %q lacks %q", note.En, want)
		}
	}
	if !strings.Contains(note.Ja, "キリル文字 `а`(U+0430)") {
		t.Errorf("note %q", note.Ja)
	}
}
