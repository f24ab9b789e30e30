package model

import "testing"

func TestSet(t *testing.T) {
	var s Set
	s.Reserve("Balance")
	if got := s.Unique("Balance"); got != "Balance_2" {
		t.Error(got)
	}
	if got := s.Unique("Stock"); got != "Stock" {
		t.Error(got)
	}
	if got := s.Unique("Stock"); got != "Stock_2" {
		t.Error(got)
	}
}
