package golang

import "testing"

func TestExported(t *testing.T) {
	for in, want := range map[string]string{
		"sku": "Sku", "stock_level": "StockLevel", "在庫": "X在庫", "_x": "X", "day": "Day",
		"take_back": "TakeBack", "a__b": "AB", "ｓｋｕ": "Xｓｋｕ", "éclair": "Xéclair",
		// Marks of scripts (Mn, Mc) are in book names, never in Go's.
		"sk\u0e31u": "SkU0E31u", "สินค้า": "XสU0E34นคU0E49า", "मूल्य": "XमU0942लU094Dय",
	} {
		if got := Exported(in); got != want {
			t.Errorf("Exported(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocal(t *testing.T) {
	if Local("type", nil) != "type_" || Local("ctx", map[string]bool{"ctx": true}) != "ctx_" || Local("order", nil) != "order" || Local("sk\u0e31u", nil) != "skU0E31u" {
		t.Error("Local")
	}
}
