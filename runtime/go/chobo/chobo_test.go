package chobo

import (
	"errors"
	"testing"
)

func TestParseOutcome(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Outcome
		ok   bool
	}{
		{"done", Done, true},
		{"done_before", DoneBefore, true},
		{"refused", Refused, true},
		{"", "", false},
		{"Done", "", false},
	} {
		got, err := ParseOutcome(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseOutcome(%q) = %q, %v", c.in, got, err)
		}
	}
}

func TestParseHoldState(t *testing.T) {
	for _, s := range []string{"", "held", "posted", "voided", "expired"} {
		if got, err := ParseHoldState(s); err != nil || string(got) != s {
			t.Errorf("ParseHoldState(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseHoldState("gone"); err == nil {
		t.Error("ParseHoldState(gone) gave no error")
	}
}

func TestResultString(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Result{Outcome: Done}, "done"},
		{Result{Outcome: DoneBefore}, "done_before"},
		{Result{Outcome: Refused, Reason: "out_of_stock"}, "refused(out_of_stock)"},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.r, got, c.want)
		}
	}
}

func TestCheckAmount(t *testing.T) {
	for _, v := range []int64{0, 1, 1<<63 - 1} {
		if err := CheckAmount("qty", v); err != nil {
			t.Errorf("CheckAmount(%d) = %v", v, err)
		}
	}
	err := CheckAmount("qty", -1)
	var ae *AmountError
	if !errors.As(err, &ae) || ae.Name != "qty" || ae.Value != -1 {
		t.Fatalf("CheckAmount(-1) = %#v, want an *AmountError", err)
	}
	if want := "chobo: the amount qty is -1; amounts run from 0 to 9223372036854775807"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}
