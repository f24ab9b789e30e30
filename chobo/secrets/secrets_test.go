package secrets

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fake values are glued together from pieces so that this file never
// holds a whole token for a repository scanner to complain about.
var (
	fakeAWS        = "AKIA" + "IOSFODNN7EXAMPLE"
	fakeAWSTemp    = "ASIA" + "Q3EGRDM2EXAMPLE7"
	fakeGitHub     = "ghp_" + strings.Repeat("a1B2", 9)
	fakeGitHubPAT  = "github_pat_" + "11ABCDEFG0" + strings.Repeat("x_Y9", 8)
	fakeSlack      = "xoxb-" + "1234567890-0987654321-" + "AbCdEfGhIj"
	fakeWebhook    = "https://hooks.slack.com/services/" + "T0000AAAA/B1111BBBB/" + "abcdefghijklmnopqrstuvwx"
	fakeStripe     = "sk_test_" + strings.Repeat("4eC3", 6)
	fakeStripeRK   = "rk_live_" + strings.Repeat("Zq7W", 5)
	fakeAnthropic  = "sk-ant-" + "api03-" + strings.Repeat("Ab9_", 6)
	fakeOpenAI     = "sk-proj-" + strings.Repeat("Zy8-", 6)
	fakeOpenAIOld  = "sk-" + strings.Repeat("a1", 10) + "T3Blbk" + "FJ" + strings.Repeat("Q9", 10)
	fakeGoogle     = "AIza" + strings.Repeat("Sy-_", 8) + "abc"
	pemBeginRSA    = "-----" + "BEGIN RSA " + "PRIVATE KEY-----"
	pemEndRSA      = "-----" + "END RSA " + "PRIVATE KEY-----"
	pemBeginPKCS8  = "-----" + "BEGIN " + "PRIVATE KEY-----"
	pemBeginPGP    = "-----" + "BEGIN PGP " + "PRIVATE KEY BLOCK-----"
	pemBody        = "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ=="
	pemBlockRSA    = pemBeginRSA + "\n" + pemBody + "\n" + pemEndRSA
	pemPublicBegin = "-----" + "BEGIN " + "PUBLIC KEY-----"
)

func TestScanKinds(t *testing.T) {
	tests := []struct {
		name   string
		value  string
		kind   Kind
		prefix string
	}{
		{"aws", fakeAWS, AWSAccessKeyID, "AKIA"},
		{"aws temporary", fakeAWSTemp, AWSAccessKeyID, "ASIA"},
		{"github classic", fakeGitHub, GitHubToken, "ghp_"},
		{"github fine-grained", fakeGitHubPAT, GitHubToken, "github_pat_"},
		{"slack token", fakeSlack, SlackToken, "xoxb-"},
		{"slack webhook", fakeWebhook, SlackWebhookURL, "https://hooks.slack.com/services/"},
		{"stripe secret", fakeStripe, StripeKey, "sk_test_"},
		{"stripe restricted", fakeStripeRK, StripeKey, "rk_live_"},
		{"anthropic", fakeAnthropic, AnthropicKey, "sk-ant-"},
		{"openai project", fakeOpenAI, OpenAIKey, "sk-proj-"},
		{"openai legacy", fakeOpenAIOld, OpenAIKey, "sk-"},
		{"google", fakeGoogle, GoogleAPIKey, "AIza"},
		{"pem rsa", pemBlockRSA, PEMPrivateKey, pemBeginRSA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "account cash\nkey = \"" + tt.value + "\" # keep this out of git\n"
			want := []Finding{{Line: 2, Col: 8, Kind: tt.kind, Prefix: tt.prefix, Length: len(tt.value)}}
			if got := Scan([]byte(src)); !reflect.DeepEqual(got, want) {
				t.Errorf("Scan:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestScanNegatives(t *testing.T) {
	tests := []struct {
		name string
		src  string
	}{
		{"ordinary names", "sku_key = 1\nask = 2\nsk_live = 3\ngh_token = 4\n"},
		{"short sk", "sk-1 = 5\nsk-ant-short\nsk-proj-short\n"},
		{"glued on the left", "x" + fakeAWS + "\nmy_" + fakeGitHub + "\n9" + fakeStripe + "\n"},
		{"aws too short", "AKIA" + "IOSFODNN7EXAMPL\n"},
		{"aws too long", fakeAWS + "X\n"},
		{"aws lowercase tail", "AKIA" + "iosfodnn7example\n"},
		{"github too short", "ghp_" + strings.Repeat("a", 35) + "\n"},
		{"github too long", fakeGitHub + "z\n"},
		{"github pat too short", "github_pat_" + strings.Repeat("a", 21) + "\n"},
		{"slack too short", "xoxb-" + "123456789\n"},
		{"slack unknown type", "xoxz-" + "1234567890abc\n"},
		{"webhook without path", "https://hooks.slack.com/services/" + "\n"},
		{"webhook wrong shape", "https://hooks.slack.com/services/" + "X000/B000/abc\n"},
		{"stripe publishable", "pk_live_" + strings.Repeat("4eC3", 6) + "\n"},
		{"stripe too short", "sk_live_" + strings.Repeat("a", 15) + "\n"},
		{"openai legacy too short", "sk-" + strings.Repeat("a", 31) + "\n"},
		{"anthropic too short", "sk-ant-" + strings.Repeat("a", 19) + "\n"},
		{"google wrong length", "AIza" + strings.Repeat("a", 34) + "\nAIza" + strings.Repeat("a", 36) + "\n"},
		{"pem public key", pemPublicBegin + "\nMIIB\n"},
		{"pem without dashes", "BEGIN RSA " + "PRIVATE KEY\n"},
		{"test secret comment", "key = \"" + fakeAWS + "\" # test secret\n"},
		{"test secret capitalised", "key = " + fakeStripe + " # Test Secret, not real\n"},
		{"test secrets plural", "# test secrets: " + fakeGoogle + "\n"},
		{"pem test secret", "key = \"" + pemBeginRSA + "\" # test secret\n" + pemBody + "\n" + fakeAWS + "\n" + pemEndRSA + "\n"},
		{"escaped quote then hash", "k = \"a\\\\\" # test secret " + fakeAWS + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Scan([]byte(tt.src)); len(got) != 0 {
				t.Errorf("Scan(%q) = %+v, want nothing", tt.src, got)
			}
		})
	}
}

func TestScanPositions(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Finding
	}{
		{
			name: "japanese before the value counts in runes",
			src:  "# 仕入れ\n鍵 = \"" + fakeAWS + "\"\n",
			want: []Finding{{Line: 2, Col: 6, Kind: AWSAccessKeyID, Prefix: "AKIA", Length: 20}},
		},
		{
			name: "japanese directly before the value",
			src:  "メモ：キーは" + fakeGitHub + "です\n",
			want: []Finding{{Line: 1, Col: 7, Kind: GitHubToken, Prefix: "ghp_", Length: 40}},
		},
		{
			name: "hash inside a string is not a comment",
			src:  "note = \"# test secret\" " + fakeAWS + "\n",
			want: []Finding{{Line: 1, Col: 24, Kind: AWSAccessKeyID, Prefix: "AKIA", Length: 20}},
		},
		{
			name: "escaped quote keeps the string open",
			src:  "note = \"q\\\"# test secret\" " + fakeAWS + "\n",
			want: []Finding{{Line: 1, Col: 27, Kind: AWSAccessKeyID, Prefix: "AKIA", Length: 20}},
		},
		{
			name: "secret in a comment is still reported",
			src:  "cash 10 # token " + fakeSlack + "\n",
			want: []Finding{{Line: 1, Col: 17, Kind: SlackToken, Prefix: "xoxb-", Length: len(fakeSlack)}},
		},
		{
			name: "several on one line, in order",
			src:  fakeGoogle + " " + fakeAnthropic + "\n\n" + fakeOpenAIOld,
			want: []Finding{
				{Line: 1, Col: 1, Kind: GoogleAPIKey, Prefix: "AIza", Length: 39},
				{Line: 1, Col: 41, Kind: AnthropicKey, Prefix: "sk-ant-", Length: len(fakeAnthropic)},
				{Line: 3, Col: 1, Kind: OpenAIKey, Prefix: "sk-", Length: len(fakeOpenAIOld)},
			},
		},
		{
			name: "test secret only covers its own line",
			src:  fakeAWS + " # test secret\n" + fakeAWSTemp + "\n",
			want: []Finding{{Line: 2, Col: 1, Kind: AWSAccessKeyID, Prefix: "ASIA", Length: 20}},
		},
		{
			name: "pem block spans lines and hides its body",
			src: "a = 1\r\nkey = \"" + pemBeginRSA + "\n" + pemBody + " " + fakeAWS + "\n" +
				pemEndRSA + "\" " + fakeStripe + "\nb = " + fakeGoogle + "\n",
			want: []Finding{
				{Line: 2, Col: 8, Kind: PEMPrivateKey, Prefix: pemBeginRSA, Length: len(pemBlockRSA) + 1 + len(fakeAWS)},
				{Line: 5, Col: len(pemEndRSA) + 3, Kind: StripeKey, Prefix: "sk_test_", Length: len(fakeStripe)},
				{Line: 6, Col: 5, Kind: GoogleAPIKey, Prefix: "AIza", Length: len(fakeGoogle)},
			},
		},
		{
			name: "pem without END runs to the end of the text",
			src:  "　" + pemBeginPKCS8 + "\nMIIB\nMIIC\n\n",
			want: []Finding{{Line: 1, Col: 2, Kind: PEMPrivateKey, Prefix: pemBeginPKCS8, Length: len(pemBeginPKCS8) + 10}},
		},
		{
			name: "pgp key block",
			src:  pemBeginPGP + "\n\nlQOYBF\n" + "-----" + "END PGP " + "PRIVATE KEY BLOCK-----\n",
			want: []Finding{{Line: 1, Col: 1, Kind: PEMPrivateKey, Prefix: pemBeginPGP, Length: 2*len(pemBeginPGP) - 2 + 9}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Scan([]byte(tt.src)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Scan(%q):\n got %+v\nwant %+v", tt.src, got, tt.want)
			}
		})
	}
}

func TestMask(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{"cash 10 # nothing to hide", "cash 10 # nothing to hide"},
		{"sku_key = sk-1", "sku_key = sk-1"},
		{"key = \"" + fakeAWS + "\"", "key = \"AKIA…\""},
		{"鍵：" + fakeGitHub + "です", "鍵：ghp_…です"},
		{fakeStripe + "," + fakeSlack, "sk_test_…,xoxb-…"},
		{"url " + fakeWebhook + "?x=1", "url https://hooks.slack.com/services/…?x=1"},
		{fakeAnthropic + " " + fakeOpenAI, "sk-ant-… sk-proj-…"},
		{"k = " + fakeGoogle + " # test secret", "k = AIza… # test secret"},
		{"key = \"" + pemBeginRSA + "\"", "key = \"" + pemBeginRSA + "…"},
		{"x = \"" + pemBeginRSA + "MIIB" + pemEndRSA + "\" y", "x = \"" + pemBeginRSA + "…\" y"},
		{pemEndRSA, pemEndRSA},
	}
	for _, tt := range tests {
		if got := Mask(tt.line); got != tt.want {
			t.Errorf("Mask(%q)\n got %q\nwant %q", tt.line, got, tt.want)
		}
	}
}

func TestKindNames(t *testing.T) {
	seen := map[string]Kind{}
	for k := AWSAccessKeyID; k <= PEMPrivateKey; k++ {
		for _, name := range []string{k.English(), k.Japanese()} {
			if other, dup := seen[name]; dup {
				t.Errorf("kinds %d and %d share the name %q", other, k, name)
			}
			seen[name] = k
		}
	}
	if AWSAccessKeyID.English() != "AWS access key ID" || AWSAccessKeyID.Japanese() != "AWS のアクセスキー ID" {
		t.Errorf("AWS names: %q, %q", AWSAccessKeyID.English(), AWSAccessKeyID.Japanese())
	}
	if Kind(0).English() == "" || Kind(0).Japanese() == "" {
		t.Error("the zero Kind has no name")
	}
}

// runeOffset turns a 0-based rune index into a byte offset, counting each
// invalid byte as one rune just as utf8.RuneCountInString does.
func runeOffset(s string, n int) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

func FuzzScan(f *testing.F) {
	for _, v := range []string{
		fakeAWS, fakeGitHub, fakeGitHubPAT, fakeSlack, fakeWebhook, fakeStripe,
		fakeAnthropic, fakeOpenAI, fakeOpenAIOld, fakeGoogle, pemBlockRSA,
	} {
		f.Add([]byte("k = \"" + v + "\" # note\n"))
		f.Add([]byte("鍵 " + v + " # test secret"))
	}
	f.Add([]byte(pemBeginPKCS8 + "\r\n" + fakeAWS))
	f.Fuzz(func(t *testing.T, src []byte) {
		text := string(src)
		lines := strings.Split(text, "\n")
		for _, fd := range Scan(src) {
			if fd.Line < 1 || fd.Line > len(lines) || fd.Col < 1 || fd.Length < utf8.RuneCountInString(fd.Prefix) {
				t.Fatalf("finding out of range: %+v", fd)
			}
			rest := strings.Join(lines[fd.Line-1:], "\n")
			start := runeOffset(rest, fd.Col-1)
			value := rest[start : start+runeOffset(rest[start:], fd.Length)]
			if !strings.HasPrefix(value, fd.Prefix) {
				t.Fatalf("value %q does not start with prefix %q", value, fd.Prefix)
			}
			// A PEM marker at the very end of the text has no secret part
			// to hide, and one that spans lines cannot be seen by Mask.
			if value == fd.Prefix || strings.Contains(value, "\n") {
				continue
			}
			// A value that also appears elsewhere on the line, outside any
			// match, may legitimately survive; only a unique one must go.
			line := lines[fd.Line-1]
			if strings.Index(line, value) != strings.LastIndex(line, value) {
				continue
			}
			if masked := Mask(line); strings.Contains(masked, value) {
				t.Fatalf("Mask(%q) = %q still holds %q", line, masked, value)
			}
		}
		for _, line := range lines {
			_ = Mask(line)
		}
		_ = Mask(text)
	})
}
