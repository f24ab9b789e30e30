package chobo

import (
	"errors"
	"strings"
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

func TestCheckText(t *testing.T) {
	for _, v := range []string{"", "o-1", "在庫-1", "\ufffd", "\x01\x7f", "\U0010ffff"} {
		if err := CheckText("order", v); err != nil {
			t.Errorf("CheckText(%q) = %v", v, err)
		}
	}
	for _, c := range []struct {
		v      string
		offset int
		nul    bool
		msg    string
	}{
		{"o\x00-1", 1, true, "chobo: the value of order holds a NUL character (U+0000) at byte 1; strings are UTF-8 text without NUL"},
		{"\x00", 0, true, ""},
		{"在\xff", 3, false, "chobo: the value of order is not valid UTF-8 (byte 3 is 0xff); strings are UTF-8 text without NUL"},
		{"\xe5\x9c", 0, false, ""},     // a sequence cut short
		{"\xed\xa0\x80", 0, false, ""}, // a surrogate half
		{"\xc0\x80", 0, false, ""},     // NUL written in two bytes
		{"a\x80\x00", 1, false, ""},    // the first problem wins
		{"a\x00\x80", 1, true, ""},
	} {
		err := CheckText("order", c.v)
		var te *TextError
		if !errors.As(err, &te) || te.Name != "order" || te.Value != c.v || te.Offset != c.offset || te.NUL != c.nul {
			t.Errorf("CheckText(%q) = %#v, want a *TextError at %d (NUL %v)", c.v, err, c.offset, c.nul)
			continue
		}
		if c.msg != "" && err.Error() != c.msg {
			t.Errorf("CheckText(%q): message %q, want %q", c.v, err, c.msg)
		}
	}
}

func TestCheckSize(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, c := range []struct {
		name   string
		tenant string
		values []string
		err    string
	}{
		{"nothing", "", nil, ""},
		{"a tenant at the limit", long(MaxTenant), nil, ""},
		{"a tenant past it", long(MaxTenant + 1), nil, "the tenant is 257 bytes"},
		{"a tenant counts bytes", strings.Repeat("在", 86), nil, "the tenant is 258 bytes"},
		{"one value at the limit", "", []string{long(MaxTexts - TextOverhead)}, ""},
		{"one value past it", "", []string{long(MaxTexts - TextOverhead + 1)}, "take 2049 bytes"},
		{"values add up", "t", []string{long(1000), long(1000), long(33)}, "take 2057 bytes"},
		{"empty values count too", "", make([]string, MaxTexts/TextOverhead+1), "take 2056 bytes"},
	} {
		err := CheckSize(c.tenant, c.values...)
		var se *SizeError
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (!errors.As(err, &se) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want a *SizeError saying %q", c.name, err, c.err)
		}
	}
}
