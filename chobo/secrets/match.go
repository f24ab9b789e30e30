package secrets

import "strings"

// rule describes one credential format: any of its prefixes, then a tail
// that body accepts. body gets the offset just behind the prefix and returns
// the offset just behind the value.
type rule struct {
	kind     Kind
	prefixes []string
	body     func(s string, i int) (int, bool)
}

// rules are tried in order and the first that fits wins. Order matters only
// where prefixes share a start: "sk-ant-" and "sk-proj-" must be tried
// before the bare legacy "sk-", which would otherwise claim them or, worse,
// reject them for having a '-' too early.
//
// Stripe publishable keys (pk_live_, pk_test_) are left out on purpose: they
// are meant to be shipped to browsers and warning about them would be noise.
var rules = []rule{
	{AWSAccessKeyID,
		[]string{"AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"},
		exactly(16, isUpperOrDigit, isWord)},
	{GoogleAPIKey, []string{"AIza"}, exactly(35, isKeyChar, isKeyChar)},
	{GitHubToken,
		[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		exactly(36, isAlnum, isWord)},
	{GitHubToken, []string{"github_pat_"}, atLeast(22, isWord)},
	{SlackToken,
		[]string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-"},
		atLeast(10, isAlnumOrDash)},
	{SlackWebhookURL, []string{"https://hooks.slack.com/services/"}, webhookBody},
	{StripeKey,
		[]string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"},
		atLeast(16, isAlnum)},
	{AnthropicKey, []string{"sk-ant-"}, atLeast(20, isKeyChar)},
	{OpenAIKey,
		[]string{"sk-proj-", "sk-svcacct-", "sk-admin-"},
		atLeast(20, isKeyChar)},
	{OpenAIKey, []string{"sk-"}, atLeast(32, isAlnum)},
}

// starts holds every first byte a value can have, so that most positions
// are rejected with a single lookup.
const starts = "Agxhsr-"

// matchAt reports the value that starts at byte i of s, if any.
func matchAt(s string, i int) (hit, bool) {
	if strings.IndexByte(starts, s[i]) < 0 {
		return hit{}, false
	}
	if s[i] == '-' {
		// A PEM marker is a line of its own kind, not a word, so whatever
		// sits to its left does not matter.
		return matchPEM(s, i)
	}
	// A value glued to a name on its left (xAKIA…, my_ghp_…) is part of
	// that name. Only ASCII counts as glue: Japanese prose has no spaces,
	// and "キーはAKIA…" must still be caught.
	if i > 0 && isWord(s[i-1]) {
		return hit{}, false
	}
	rest := s[i:]
	for _, r := range rules {
		for _, p := range r.prefixes {
			if !strings.HasPrefix(rest, p) {
				continue
			}
			if end, ok := r.body(s, i+len(p)); ok {
				return hit{start: i, end: end, kind: r.kind, prefix: p}, true
			}
		}
	}
	return hit{}, false
}

// exactly accepts n bytes of the alphabet ok, and then insists that the
// next byte does not satisfy stop. Fixed-length formats need that check
// because a longer run is some other thing that merely starts alike.
func exactly(n int, ok, stop func(byte) bool) func(string, int) (int, bool) {
	return func(s string, i int) (int, bool) {
		end := i + n
		if end > len(s) {
			return 0, false
		}
		for j := i; j < end; j++ {
			if !ok(s[j]) {
				return 0, false
			}
		}
		if end < len(s) && stop(s[end]) {
			return 0, false
		}
		return end, true
	}
}

// atLeast takes the longest run of the alphabet ok and accepts it when it
// is at least least bytes long. The run is never backed off, which keeps
// the cost linear in the length of the run.
func atLeast(least int, ok func(byte) bool) func(string, int) (int, bool) {
	return func(s string, i int) (int, bool) {
		end := span(s, i, ok)
		return end, end-i >= least
	}
}

// webhookBody accepts the T…/B…/… path that follows the services/ prefix of
// an incoming-webhook URL.
func webhookBody(s string, i int) (int, bool) {
	for _, lead := range []byte{'T', 'B'} {
		if i >= len(s) || s[i] != lead {
			return 0, false
		}
		end := span(s, i+1, isAlnum)
		if end == i+1 || end >= len(s) || s[end] != '/' {
			return 0, false
		}
		i = end + 1
	}
	end := span(s, i, isAlnum)
	return end, end > i
}

// span returns the offset just behind the run of bytes from i that ok
// accepts.
func span(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

// The pieces of a PEM marker are kept apart so that this file does not
// itself contain a complete marker for other scanners to trip over.
const (
	pemDashes = "-----"
	pemBegin  = pemDashes + "BEGIN "
	pemEnd    = pemDashes + "END "
	pemKey    = "PRIVATE KEY"
)

// pemAlgorithms are the words that may come before PRIVATE KEY; the empty
// one stands for PKCS#8, which names no algorithm.
var pemAlgorithms = []string{"RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED ", "PGP ", ""}

// matchPEM recognises a BEGIN marker for a private key at byte i and
// stretches the value to the end of the matching END marker. Without an END
// the whole rest of the text is treated as key material, trailing line
// breaks aside: there is no way to tell where the key stops, and revealing
// part of a key is worse than hiding too much.
func matchPEM(s string, i int) (hit, bool) {
	if !strings.HasPrefix(s[i:], pemBegin) {
		return hit{}, false
	}
	j := i + len(pemBegin)
	for _, alg := range pemAlgorithms {
		if !strings.HasPrefix(s[j:], alg+pemKey) {
			continue
		}
		k := j + len(alg) + len(pemKey)
		if strings.HasPrefix(s[k:], " BLOCK") {
			k += len(" BLOCK")
		}
		if !strings.HasPrefix(s[k:], pemDashes) {
			return hit{}, false
		}
		label := s[j:k]
		k += len(pemDashes)
		end := len(strings.TrimRight(s, "\r\n"))
		closing := pemEnd + label + pemDashes
		if e := strings.Index(s[k:], closing); e >= 0 {
			end = k + e + len(closing)
		}
		// Clone so that a Finding does not keep the whole source alive.
		return hit{start: i, end: end, kind: PEMPrivateKey, prefix: strings.Clone(s[i:k])}, true
	}
	return hit{}, false
}

func isWord(c byte) bool  { return c == '_' || isAlnum(c) }
func isAlnum(c byte) bool { return isDigit(c) || isUpper(c) || 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// isUpperOrDigit is wider than the base32 alphabet AWS documents, because
// older key IDs and the documentation's own examples use 0, 1, 8 and 9.
func isUpperOrDigit(c byte) bool { return isUpper(c) || isDigit(c) }
func isAlnumOrDash(c byte) bool  { return c == '-' || isAlnum(c) }
func isKeyChar(c byte) bool      { return c == '-' || isWord(c) }
