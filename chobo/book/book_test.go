package book

import "testing"

func TestFormatAmount(t *testing.T) {
	tests := []struct {
		v     int64
		scale int
		want  string
	}{
		{0, 0, "0"}, {1250, 2, "12.50"}, {5, 2, "0.05"}, {-5, 2, "-0.05"}, {-100, 0, "-100"},
		{-9223372036854775808, 0, "-9223372036854775808"}, {9223372036854775807, 18, "9.223372036854775807"},
	}
	for _, tt := range tests {
		if got := FormatAmount(tt.v, tt.scale); got != tt.want {
			t.Errorf("FormatAmount(%d, %d) = %q, want %q", tt.v, tt.scale, got, tt.want)
		}
	}
}
