// Package secrets spots credentials that were typed into a book, so the
// checker can warn about them (W901) and so that no other diagnostic prints
// them again when it quotes the line they sit on.
//
// The matchers only know the published shape of each credential: a fixed
// prefix followed by a run of characters of a known alphabet and length.
// They do not try to prove that a value is live, which is why the rules lean
// towards exact lengths and narrow alphabets: a false alarm on an ordinary
// name would teach authors to ignore W901.
package secrets

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Finding is one secret-shaped value in a text.
type Finding struct {
	Line   int // 1-based line number
	Col    int // 1-based column, counted in runes
	Kind   Kind
	Prefix string // the fixed, non-secret start of the value, safe to print
	Length int    // length of the whole value in runes
}

// Kind tells which credential format a value has.
type Kind int

// The zero Kind is deliberately left unused so that a Finding that was never
// filled in cannot pass for an AWS key.
const (
	AWSAccessKeyID Kind = iota + 1
	GitHubToken
	SlackToken
	SlackWebhookURL
	StripeKey
	OpenAIKey
	AnthropicKey
	GoogleAPIKey
	PEMPrivateKey
)

// English names the kind for an English diagnostic.
func (k Kind) English() string {
	switch k {
	case AWSAccessKeyID:
		return "AWS access key ID"
	case GitHubToken:
		return "GitHub token"
	case SlackToken:
		return "Slack token"
	case SlackWebhookURL:
		return "Slack webhook URL"
	case StripeKey:
		return "Stripe secret key"
	case OpenAIKey:
		return "OpenAI API key"
	case AnthropicKey:
		return "Anthropic API key"
	case GoogleAPIKey:
		return "Google API key"
	case PEMPrivateKey:
		return "PEM private key"
	}
	return "secret"
}

// Japanese names the kind for a Japanese diagnostic.
func (k Kind) Japanese() string {
	switch k {
	case AWSAccessKeyID:
		return "AWS のアクセスキー ID"
	case GitHubToken:
		return "GitHub のトークン"
	case SlackToken:
		return "Slack のトークン"
	case SlackWebhookURL:
		return "Slack の Webhook URL"
	case StripeKey:
		return "Stripe のシークレットキー"
	case OpenAIKey:
		return "OpenAI の API キー"
	case AnthropicKey:
		return "Anthropic の API キー"
	case GoogleAPIKey:
		return "Google の API キー"
	case PEMPrivateKey:
		return "PEM 形式の秘密鍵"
	}
	return "秘密の値"
}

// ellipsis stands in for the hidden part of a masked value.
const ellipsis = "…"

// Scan finds every secret-shaped value in src, in order of position.
//
// A value is not reported when the comment on its line contains the words
// "test secret", so fixtures can carry fake credentials on purpose. For a
// PEM block the BEGIN line is the one that counts, because that is where an
// author naturally puts the remark.
func Scan(src []byte) []Finding {
	text := string(src)
	hits := find(text)
	if len(hits) == 0 {
		return nil
	}
	out := make([]Finding, 0, len(hits))
	for _, h := range hits {
		if isTestLine(lineAt(text, h.lineStart)) {
			continue
		}
		out = append(out, Finding{
			Line:   h.line,
			Col:    utf8.RuneCountInString(text[h.lineStart:h.start]) + 1,
			Kind:   h.kind,
			Prefix: h.prefix,
			Length: utf8.RuneCountInString(text[h.start:h.end]),
		})
	}
	return out
}

// Mask returns line with every secret-shaped value in it cut back to its
// prefix followed by "…". A "test secret" comment is ignored here: hiding a
// fake value costs nothing, while trusting the comment could leak a real one.
//
// A line from the middle of a PEM block carries no marker and so comes back
// unchanged; only the caller, who has the whole text, could know better.
func Mask(line string) string {
	hits := find(line)
	if len(hits) == 0 {
		return line
	}
	var b strings.Builder
	b.Grow(len(line))
	last := 0
	for _, h := range hits {
		b.WriteString(line[last:h.start])
		b.WriteString(h.prefix)
		b.WriteString(ellipsis)
		last = h.end
	}
	b.WriteString(line[last:])
	return b.String()
}

// hit is a value found by find, located by byte offsets into the text.
type hit struct {
	start, end int
	line       int // 1-based line of start
	lineStart  int // byte offset of the first byte of that line
	kind       Kind
	prefix     string
}

// find walks text once from left to right. After a match it resumes behind
// the value, so values never overlap and the body of a PEM block is never
// searched for other keys (its base64 could spell one by chance).
func find(text string) []hit {
	var hits []hit
	line, lineStart := 1, 0
	for pos := 0; pos < len(text); {
		if text[pos] == '\n' {
			pos++
			line++
			lineStart = pos
			continue
		}
		h, ok := matchAt(text, pos)
		if !ok {
			pos++
			continue
		}
		h.line, h.lineStart = line, lineStart
		hits = append(hits, h)
		if n := strings.Count(text[pos:h.end], "\n"); n > 0 {
			line += n
			lineStart = strings.LastIndexByte(text[:h.end], '\n') + 1
		}
		pos = h.end
	}
	return hits
}

// lineAt returns the line that begins at byte offset start.
func lineAt(text string, start int) string {
	rest := text[start:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		return rest[:i]
	}
	return rest
}

// isTestLine reports whether the comment of line marks its values as
// deliberate fakes. Matching whole words, case-insensitively, keeps
// "Test Secret:" and "test secrets" working without letting "latest secret"
// through.
func isTestLine(line string) bool {
	comment, ok := commentOf(line)
	if !ok {
		return false
	}
	words := strings.FieldsFunc(comment, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i := 0; i+1 < len(words); i++ {
		if strings.EqualFold(words[i], "test") &&
			(strings.EqualFold(words[i+1], "secret") || strings.EqualFold(words[i+1], "secrets")) {
			return true
		}
	}
	return false
}

// commentOf returns what follows the first '#' outside a string. Strings end
// at the end of the line in chobo, so the state starts fresh on each line;
// an unclosed string simply swallows the rest of it.
func commentOf(line string) (string, bool) {
	inString := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == '#':
			return line[i+1:], true
		}
	}
	return "", false
}
