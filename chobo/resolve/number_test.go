package resolve

import "testing"

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
