package syntax

import (
	"strings"
	"testing"
)

func TestParseInventory(t *testing.T) {
	src := `# comment
book inventory v2
description "stock per \"SKU\""
unit pcs
unit USD scale 2 excl_tax

account stock(sku: string) : pcs
  description "shelves"
  at least 0 refused as out_of_stock
  at most 100 refused as full
account world : pcs outside

transfer reserve(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 30 minutes
  move qty from stock(sku) to world
  move 1.5 from world to stock(sku)   # literal amount
transfer forever(day: string)
  key day
  pending never expires
  move 1 from world to stock(day)
`
	f, ds := Parse("inv.book", []byte(src))
	if len(ds) != 0 {
		t.Fatalf("unexpected diagnostics: %+v", ds)
	}
	if f.Book.Name.Name != "inventory" || f.Book.Version != 2 {
		t.Errorf("book = %+v", f.Book)
	}
	if got := f.Descriptions[0].Text; got != `stock per "SKU"` {
		t.Errorf("description = %q", got)
	}
	if u := f.Units[1]; u.Scale == nil || u.Scale.Text != "2" || u.Tax != ExclTax {
		t.Errorf("unit = %+v", u)
	}
	a := f.Accounts[0]
	if len(a.Bounds) != 2 || a.Bounds[1].Kind != AtMost || a.Bounds[1].Reason.Name != "full" {
		t.Errorf("bounds = %+v", a.Bounds)
	}
	if !f.Accounts[1].Outside {
		t.Error("world is not outside")
	}
	tr := f.Transfers[0]
	if p := tr.Pendings[0]; !p.Ends || p.Never || p.Amount.Text != "30" || p.TimeWord.Name != "minutes" {
		t.Errorf("pending = %+v", p)
	}
	if m := tr.Moves[1]; m.Amount.Literal == nil || m.Amount.Literal.Text != "1.5" || m.To.Args[0].Name != "sku" {
		t.Errorf("move = %+v", m)
	}
	if m := tr.Moves[0]; m.Pos != (Pos{16, 3}) || m.From.Name.Pos != (Pos{16, 17}) {
		t.Errorf("move positions = %+v, %+v", m.Pos, m.From.Name.Pos)
	}
	if f.Transfers[1].Params[0].Name.Name != "day" || !f.Transfers[1].Pendings[0].Never {
		t.Errorf("forever = %+v", f.Transfers[1])
	}
}

// TestParseErrors checks that each malformed line gives one E001 at the
// right place and that parsing goes on to the next line.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		pos  Pos
		msg  string
	}{
		{"keyword as name", "book b v1\nunit from\n", Pos{2, 6}, "`from` is a keyword"},
		{"keyword as account", "book b v1\naccount at : pcs outside\n", Pos{2, 9}, "`at` is a keyword"},
		{"tab", "book b v1\nunit\tpcs\n", Pos{2, 5}, "tab"},
		{"bom", "\uFEFFbook b v1\n", Pos{1, 1}, "byte order mark"},
		{"unclosed string", "book b v1\ndescription \"open\n", Pos{2, 13}, "not closed"},
		{"bad escape", "book b v1\ndescription \"a\\nb\"\n", Pos{2, 15}, "unknown escape"},
		{"unknown character", "book b v1\nunit pcs;\n", Pos{2, 9}, "unexpected character `;`"},
		{"combining mark", "book b v1\nunit cafe\u0301\n", Pos{2, 10}, "combining character U+0301"},
		{"kana voicing mark", "book b v1\nunit か\u3099\n", Pos{2, 7}, "combining character U+3099"},
		{"Hangul filler", "book b v1\nunit wallet\u3164\n", Pos{2, 12}, "holds U+3164, which draws nothing"},
		{"half-width Hangul filler", "book b v1\nunit a\uFFA0\n", Pos{2, 7}, "holds U+FFA0"},
		{"variation selector", "book b v1\nunit 在\uFE0F\n", Pos{2, 7}, "holds U+FE0F"},
		{"variation selector supplement", "book b v1\nunit 在\U000E0100\n", Pos{2, 7}, "holds U+E0100"},
		{"combining mark for symbols", "book b v1\nunit a\u20D7\n", Pos{2, 7}, "holds U+20D7"},
		{"combining diacritics supplement", "book b v1\nunit a\u1DC4\n", Pos{2, 7}, "holds U+1DC4"},
		{"enclosing mark", "book b v1\nunit a\u20DD\n", Pos{2, 7}, "holds U+20DD"},
		{"Mongolian variation selector", "book b v1\nunit ᠠ\u180B\n", Pos{2, 7}, "holds U+180B"},
		{"unknown start", "book b v1\nledger x\n", Pos{2, 1}, "cannot start with `ledger`"},
		{"move at top level", "book b v1\nmove 1 from a to b\n", Pos{2, 1}, "belongs inside a transfer"},
		{"indent without block", "book b v1\nunit pcs\n  at least 0\n", Pos{3, 3}, "no account or transfer comes before it"},
		{"uneven indent", "book b v1\naccount a : pcs\n  at least 0 refused as x\n    at most 1 refused as y\n", Pos{4, 5}, "indented by 4 spaces"},
		{"move under account", "book b v1\naccount a : pcs\n  move 1 from a to a\n", Pos{3, 3}, "cannot stand under an account"},
		{"bound under transfer", "book b v1\ntransfer t(x: string)\n  at least 0\n", Pos{3, 3}, "cannot stand under a transfer"},
		{"missing version", "book b\n", Pos{1, 7}, "expected a version such as `v1`"},
		{"version zero", "book b v0\n", Pos{1, 8}, "expected a version"},
		{"trailing words", "book b v1 extra\n", Pos{1, 11}, "unexpected `extra`"},
		{"time word without number", "book b v1\ntransfer t(x: string)\n  pending expires after minutes\n", Pos{3, 25}, "expected a number"},
		{"unknown time word", "book b v1\ntransfer t(x: string)\n  pending expires after 3 weeks\n", Pos{3, 27}, "expected seconds, minutes, hours or days"},
		{"refused without as", "book b v1\naccount a : pcs\n  at least 0 refused\n", Pos{3, 21}, "expected `as`"},
		{"point without digits", "book b v1\nunit u scale 2.\n", Pos{2, 14}, "no digits after the point"},
		{"no book line", "unit pcs\n", Pos{1, 1}, "no `book` line"},
		{"book after a declaration", "unit pcs\nbook b v1\n", Pos{2, 1}, "must come before every declaration"},
		{"invalid utf-8", "book b v1\nunit \xff\n", Pos{2, 1}, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := Parse("t.book", []byte(tt.src))
			if len(ds) == 0 {
				t.Fatal("no diagnostic")
			}
			d := ds[0]
			if d.Code != "E001" || d.Line != tt.pos.Line || d.Col != tt.pos.Col || !strings.Contains(d.Message.En, tt.msg) {
				t.Errorf("got %s at %d:%d %q; want E001 at %d:%d containing %q", d.Code, d.Line, d.Col, d.Message.En, tt.pos.Line, tt.pos.Col, tt.msg)
			}
			if d.Message.Ja == "" {
				t.Error("no Japanese message")
			}
		})
	}
}

func TestParseGoesOnAfterAnError(t *testing.T) {
	_, ds := Parse("t.book", []byte("book b v1\nunit from\nunit to\naccount x : pcs\n  at least 0 refused as ok\n"))
	if len(ds) != 2 || ds[0].Line != 2 || ds[1].Line != 3 {
		t.Fatalf("want errors on lines 2 and 3, got %+v", ds)
	}
}

func TestBrokenHeaderSkipsItsBlock(t *testing.T) {
	_, ds := Parse("t.book", []byte("book b v1\naccount from : pcs\n  at least 0 refused as x\n  at most 9 refused as y\n"))
	if len(ds) != 1 {
		t.Fatalf("want one error for the header only, got %+v", ds)
	}
}

func TestKeywords(t *testing.T) {
	for _, w := range []string{"book", "at", "least", "refused", "as", "string", "never", "expires", "after", "from", "to", "incl_tax"} {
		if !Reserved(w) {
			t.Errorf("%q should be reserved", w)
		}
	}
	for _, w := range []string{"day", "days", "minutes", "second", "sku", "v1"} {
		if Reserved(w) {
			t.Errorf("%q should be usable as a name", w)
		}
	}
	seen := map[string]bool{}
	for _, k := range Keywords {
		if seen[k.Phrase] {
			t.Errorf("%q is listed twice", k.Phrase)
		}
		seen[k.Phrase] = true
	}
}

// TestOrdinaryMarksStayNames: the marks of a script's own spelling are
// part of its names, and a name in it reads whole.
func TestOrdinaryMarksStayNames(t *testing.T) {
	for _, name := range []string{
		"สินค้า", "ราคา", "ยอดคงเหลือ", // Thai vowel and tone marks
		"मूल्य", "खाता", "शेष", // Devanagari vowel signs and virama
		"在庫", "ポイント", "引当_済み", "ｶｰﾄﾞ", // Japanese
		"재고", "포인트", "잔액", // Korean
		"رصيد", "مخزون", // Arabic
		"café", "Ärger", "ζυγός", "склад", // precomposed Latin, Greek, Cyrillic
	} {
		src := "book b v1\nunit " + name + "\n"
		f, ds := Parse("t.book", []byte(src))
		if len(ds) > 0 || len(f.Units) != 1 || f.Units[0].Name.Name != name {
			t.Errorf("%q: %v", name, ds)
		}
	}
}
