package ids

import (
	"crypto/sha256"
	"testing"
)

// TestSumByHand rebuilds one id from the bytes the scheme describes, so
// the test does not only compare the code with itself.
func TestSumByHand(t *testing.T) {
	msg := []byte{0, 0, 0, 7}
	msg = append(msg, "chobo/1"...)
	msg = append(msg, 0, 0, 0, 7)
	msg = append(msg, "account"...)
	msg = append(msg, 0, 0, 0, 1, 'b')
	msg = append(msg, 0, 0, 0, 0) // empty tenant
	msg = append(msg, 0, 0, 0, 6)
	msg = append(msg, "在庫"...)
	d := sha256.Sum256(msg)
	var want ID
	copy(want[:], d[:16])
	if got := Account("b", "", "在庫"); got != want {
		t.Fatalf("got %s, want %s", got.Hex(), want.Hex())
	}
}

func TestLengthPrefixKeepsPartsApart(t *testing.T) {
	if Sum("x", "a:b", "c") == Sum("x", "a", "b:c") {
		t.Error("parts that join to the same text gave the same id")
	}
	if Sum("x", "", "a") == Sum("x", "a", "") {
		t.Error("empty parts in other places gave the same id")
	}
	if Account("b", "t", "k") == Account("b", "t", "k", "") {
		t.Error("an empty argument is an argument")
	}
}

func TestFormats(t *testing.T) {
	id := ID{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0, 1, 2, 3, 4, 5, 6, 7}
	if id.Hex() != "0123456789abcdef0001020304050607" {
		t.Error(id.Hex())
	}
	if id.UUID() != "01234567-89ab-cdef-0001-020304050607" {
		t.Error(id.UUID())
	}
}

func TestSmallCodes(t *testing.T) {
	if Ledger("pcs", 0) == 0 || Code("b", "account", "stock") == 0 {
		t.Error("zero code")
	}
	if Ledger("USD", 2) == Ledger("USD", 0) {
		t.Error("the scale is not part of the ledger")
	}
}

func TestVectorsAreStable(t *testing.T) {
	if len(Vectors) < 10 {
		t.Fatal("too few vectors")
	}
	for _, v := range Vectors {
		if got := Sum(v.Role, v.Parts...).Hex(); got != v.Hex {
			t.Errorf("Sum(%q, %q) = %s, want %s", v.Role, v.Parts, got, v.Hex)
		}
	}
}
