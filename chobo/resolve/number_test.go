package resolve

import (
	"testing"

	"github.com/chobo-lang/chobo/chobo/diag"
)

func TestScaled(t *testing.T) {
	tests := []struct {
		text  string
		scale int
		want  int64
		prob  numberProblem
	}{
		{"0", 0, 0, numberOK},
		{"12", 0, 12, numberOK},
		{"12.50", 2, 1250, numberOK},
		{"12.5", 2, 1250, numberOK},
		{"12.500", 2, 1250, numberOK},
		{"12.505", 2, 0, tooManyDecimals},
		{"1.5", 0, 0, tooManyDecimals},
		{"-100", 0, -100, numberOK},
		{"-0.01", 2, -1, numberOK},
		{"9223372036854775807", 0, 9223372036854775807, numberOK},
		{"-9223372036854775807", 0, -9223372036854775807, numberOK},
		{"9223372036854775808", 0, 0, outOfRange},
		{"-9223372036854775808", 0, 0, outOfRange},
		{"92233720368547758.08", 2, 0, outOfRange},
		{"92233720368547758.07", 2, 9223372036854775807, numberOK},
		{"000001", 0, 1, numberOK},
	}
	for _, tt := range tests {
		got, prob := scaled(tt.text, tt.scale)
		if got != tt.want || prob != tt.prob {
			t.Errorf("scaled(%q, %d) = %d, %v; want %d, %v", tt.text, tt.scale, got, prob, tt.want, tt.prob)
		}
	}
}

// TestNumberMessages: E011 gives the 64-bit limit at the unit's scale,
// and a hint that fits the number and the scale.
func TestNumberMessages(t *testing.T) {
	checkMessages(t, []messageCase{
		{"too large at scale 2", "book r v1\nunit USD scale 2\naccount a : USD\n  at most 92233720368547758.08 refused as x\n", "E011",
			diag.T("92233720368547758.08 USD does not fit in 64 bits: amounts and bounds in USD (scale 2) stay within ±92233720368547758.07",
				"92233720368547758.08 USD は 64 ビットに収まりません。USD(scale 2)の額と境界は ±92233720368547758.07 までです"),
			diag.T("use a smaller number", "小さい数にしてください")},
		{"too negative", "book r v1\nunit 個\naccount a : 個\n  at least -9223372036854775808 refused as x\n", "E011",
			diag.T("amounts and bounds in 個 (scale 0) stay within ±9223372036854775807", "個(scale 0)の額と境界は ±9223372036854775807 までです"),
			diag.T("bring it closer to 0", "絶対値を小さくしてください")},
		{"decimals at scale 0", "book r v1\nunit 個\naccount a : 個\n  at least 0.5 refused as x\n", "E011",
			diag.T("0.5 has more decimals than the unit `個` allows (scale 0)", "0.5 の小数の桁が"),
			diag.T("this unit (scale 0) takes no decimals", "この単位(scale 0)に小数は書けません")},
		{"decimals at scale 2", "book r v1\nunit USD scale 2\naccount a : USD\n  at least 0.005 refused as x\n", "E011",
			diag.T("", ""), diag.T("write at most 2 decimals", "小数は 2 桁までにするか")},
		{"negative scale", "book r v1\nunit USD scale -1\n", "E011",
			diag.T("the scale -1 is not a whole number from 0 to 18", "scale -1 は 0 から 18 までの整数ではありません"),
			diag.T("so it cannot be negative", "負にはできません")},
		{"scale with decimals", "book r v1\nunit USD scale 1.5\n", "E011",
			diag.T("", ""), diag.T("so it is a whole number", "それ自体も整数です")},
		{"scale above 18", "book r v1\nunit USD scale 19\n", "E011",
			diag.T("", ""), diag.T("with more than 18", "18 を超えると")},
	})
}
