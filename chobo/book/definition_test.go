package book

import "testing"

// defBook is a small book in the model's terms: a wallet bounded below,
// an outside bank, a shelf bounded on both sides.
func defBook() (wallet, bank, shelf *Account, pay, reserve, refill *Transfer) {
	yen := &Unit{Name: "yen"}
	pcs := &Unit{Name: "pcs", Scale: 2}
	wallet = &Account{Name: "wallet", Params: []string{"user"}, Unit: yen, Lower: &Bound{Value: 0, Reason: "insufficient_funds"}}
	bank = &Account{Name: "bank", Unit: yen, Outside: true}
	shelf = &Account{Name: "shelf", Params: []string{"sku"}, Unit: pcs,
		Lower: &Bound{Value: -500, Reason: "short"}, Upper: &Bound{Value: 10000, Reason: "full"}}
	supplier := &Account{Name: "supplier", Unit: pcs, Outside: true}

	user := &Param{Name: "user"}
	amount := &Param{Name: "amount", Index: 1, Unit: yen}
	ref := &Param{Name: "ref", Index: 2}
	pay = &Transfer{Name: "pay", Params: []*Param{user, amount, ref}, Key: []*Param{ref},
		Moves: []*Move{{Index: 1, Amount: Amount{Param: amount}, From: AccountRef{Account: wallet, Args: []*Param{user}}, To: AccountRef{Account: bank}}}}

	sku := &Param{Name: "sku"}
	n := &Param{Name: "n", Index: 1, Unit: pcs}
	order := &Param{Name: "order", Index: 2}
	reserve = &Transfer{Name: "reserve", Params: []*Param{sku, n, order}, Key: []*Param{order, sku},
		Pending: &Pending{Expires: true, Seconds: 900},
		Moves:   []*Move{{Index: 1, Amount: Amount{Param: n}, From: AccountRef{Account: shelf, Args: []*Param{sku}}, To: AccountRef{Account: supplier}}}}

	refill = &Transfer{Name: "refill", Params: []*Param{{Name: "sku"}}, Pending: &Pending{},
		Moves: []*Move{{Index: 1, Amount: Amount{Literal: 100}, From: AccountRef{Account: supplier}, To: AccountRef{Account: shelf, Args: []*Param{sku}}}}}
	return
}

// The hashes are pinned: ledgers hold them, and LegacyDefinition's are
// what earlier versions of chobo recorded.
func TestDefinitionHashesArePinned(t *testing.T) {
	_, _, _, pay, reserve, refill := defBook()
	for _, c := range []struct {
		t           *Transfer
		now, legacy string
	}{
		{pay, "65039c9d19b74a21", "31367fde55abf6b6"},
		{reserve, "b2f2d5ce35f4ab01", "7b66f3d896c9ac6c"},
		{refill, "3adf55825b9cdfe6", "13085dadb25163c8"},
	} {
		if got := c.t.Definition(); got != c.now {
			t.Errorf("%s: Definition %s, want %s", c.t.Name, got, c.now)
		}
		if got := c.t.LegacyDefinition(); got != c.legacy {
			t.Errorf("%s: LegacyDefinition %s, want %s", c.t.Name, got, c.legacy)
		}
	}
}

// A bound changed on an account, value or reason, leaves the definitions
// of the transfers through it as they were and changes their legacy hash;
// a transfer through no bounded account has one hash.
func TestDefinitionLeavesBoundsOut(t *testing.T) {
	wallet, _, shelf, pay, reserve, _ := defBook()
	now, legacy := pay.Definition(), pay.LegacyDefinition()
	if now == legacy {
		t.Fatalf("pay moves through a bounded wallet, yet both hashes are %s", now)
	}
	for name, change := range map[string]func(){
		"lower value":  func() { wallet.Lower.Value = -100 },
		"lower reason": func() { wallet.Lower.Reason = "broke" },
		"upper added":  func() { wallet.Upper = &Bound{Value: 1000, Reason: "rich"} },
		"lower gone":   func() { wallet.Lower = nil },
	} {
		w := *wallet
		change()
		if got := pay.Definition(); got != now {
			t.Errorf("%s: Definition %s, was %s", name, got, now)
		}
		if got := pay.LegacyDefinition(); got == legacy {
			t.Errorf("%s: LegacyDefinition stayed %s", name, got)
		}
		*wallet = w
	}
	r := reserve.Definition()
	shelf.Upper.Value = 20000
	if reserve.Definition() != r {
		t.Errorf("a wider shelf changed reserve's definition")
	}
	shelf.Unit = &Unit{Name: "boxes"}
	if reserve.Definition() == r {
		t.Errorf("another unit left reserve's definition as it was")
	}
	unbounded := &Transfer{Name: "gift", Moves: []*Move{{Index: 1, Amount: Amount{Literal: 1},
		From: AccountRef{Account: &Account{Name: "a", Unit: &Unit{Name: "yen"}}}, To: AccountRef{Account: &Account{Name: "b", Unit: &Unit{Name: "yen"}}}}}}
	if unbounded.Definition() != unbounded.LegacyDefinition() {
		t.Errorf("a transfer through unbounded accounts has two hashes")
	}
}
