package syntax

import (
	"fmt"
	"testing"
)

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		secs int64
		want string
	}{
		{1, "1 second"},
		{90, "90 seconds"},
		{60, "1 minute"},
		{1800, "30 minutes"},
		{3600, "1 hour"},
		{5400, "90 minutes"},
		{86400, "1 day"},
		{2 * 86400, "2 days"},
		{0, "0 days"},
	} {
		if got := FormatDuration(tc.secs); got != tc.want {
			t.Errorf("FormatDuration(%d) = %q, want %q", tc.secs, got, tc.want)
		}
	}
}

// What FormatDuration writes, the parser and the scenario reader read back.
func TestFormatDurationReadsBack(t *testing.T) {
	for _, secs := range []int64{1, 59, 60, 61, 3600, 86399, 86400, 1 << 40} {
		text := FormatDuration(secs)
		var n int64
		var word string
		if _, err := fmt.Sscan(text, &n, &word); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		per, ok := TimeUnitSeconds(word)
		if !ok || n*per != secs {
			t.Errorf("%d seconds written as %q, read back as %d", secs, text, n*per)
		}
	}
}

func TestTimeWordChoice(t *testing.T) {
	got := TimeWordChoice()
	if got.En != "seconds, minutes, hours or days" || got.Ja != "seconds、minutes、hours、days のどれか" {
		t.Errorf("TimeWordChoice() = %+v", got)
	}
	if ja := TimeUnitsJa(); ja != "秒・分・時間・日" {
		t.Errorf("TimeUnitsJa() = %q", ja)
	}
}
