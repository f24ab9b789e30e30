package diag

// Width is the number of terminal columns s takes: East Asian wide
// characters take two, so Japanese columns line up.
func Width(s string) int {
	w := 0
	for _, r := range s {
		w++
		if wide(r) {
			w++
		}
	}
	return w
}

func wide(r rune) bool {
	return (r >= 0x1100 && r <= 0x115F) || (r >= 0x2E80 && r <= 0xA4CF) ||
		(r >= 0xAC00 && r <= 0xD7A3) || (r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0xFE30 && r <= 0xFE4F) || (r >= 0xFF00 && r <= 0xFF60) ||
		(r >= 0xFFE0 && r <= 0xFFE6) || (r >= 0x20000 && r <= 0x3FFFD)
}
