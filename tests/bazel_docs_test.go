package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Bazel page's reference is held to the rules: every public name of
// rules/defs.bzl has a row whose signature lists every attribute (or
// macro parameter, or provider field) the .bzl files give it, and every
// excerpt headed "From `<file>`" is text that file holds.

// readRepoFile reads a file by its path from the repository root, or
// skips t when it is not at hand (under Bazel the .bzl files and the
// example workspace are not data of the tests).
func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", rel))
	if os.IsNotExist(err) && os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: " + rel + " is not among the test's data under Bazel; `go test ./tests/` checks it")
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	publicName = regexp.MustCompile(`(?m)^(\w+) = _\w+$`)
	attrName   = regexp.MustCompile(`(?m)^\s+(?:(\w+) = |"(\w+)": )attr\.`)
	fieldName  = regexp.MustCompile(`(?m)^\s+"(\w+)": "`)
)

// bzlAttributes is what a user may pass to the public name: a macro's
// parameters, or a rule's public attributes and its name, or a provider's
// fields.
func bzlAttributes(t *testing.T, name string, private map[string]string) (kind string, attrs []string) {
	t.Helper()
	for _, src := range private {
		if i := strings.Index(src, "\ndef "+name+"("); i >= 0 {
			sig := src[i+len("\ndef "+name+"("):]
			sig = sig[:strings.Index(sig, "):")]
			for _, p := range strings.Split(sig, ",") {
				p, _, _ = strings.Cut(strings.TrimSpace(p), "=")
				if p = strings.TrimSpace(p); p != "" {
					attrs = append(attrs, p)
				}
			}
			return "macro", attrs
		}
		for _, form := range []string{"rule(", "provider("} {
			i := strings.Index(src, "\n"+name+" = "+form)
			if i < 0 {
				continue
			}
			body := src[i+1:]
			if end := strings.Index(body, "\n)\n"); end >= 0 {
				body = body[:end]
			}
			if form == "provider(" {
				for _, m := range fieldName.FindAllStringSubmatch(body, -1) {
					attrs = append(attrs, m[1])
				}
				return "provider", attrs
			}
			attrs = append(attrs, "name")
			for _, m := range attrName.FindAllStringSubmatch(body, -1) {
				a := m[1] + m[2]
				if !strings.HasPrefix(a, "_") {
					attrs = append(attrs, a)
				}
			}
			return "rule", attrs
		}
	}
	t.Fatalf("rules/private/*.bzl define no %s", name)
	return "", nil
}

// TestBazelRuleTable keeps the rule and provider tables of docs/bazel.md
// complete.
func TestBazelRuleTable(t *testing.T) {
	defs := readRepoFile(t, filepath.Join("rules", "defs.bzl"))
	files, err := filepath.Glob(filepath.Join("..", "rules", "private", "*.bzl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rules/private/*.bzl: %v", err)
	}
	private := map[string]string{}
	for _, f := range files {
		private[filepath.Base(f)] = readRepoFile(t, filepath.Join("rules", "private", filepath.Base(f)))
	}
	page := readRepoFile(t, filepath.Join("docs", "bazel.md"))
	names := publicName.FindAllStringSubmatch(defs, -1)
	if len(names) < 5 {
		t.Fatalf("rules/defs.bzl exports %d names", len(names))
	}
	for _, m := range names {
		name := m[1]
		kind, attrs := bzlAttributes(t, name, private)
		row := ""
		for _, l := range strings.Split(page, "\n") {
			if strings.HasPrefix(l, "| `"+name+"(") {
				row = l
			}
		}
		if row == "" {
			t.Errorf("docs/bazel.md has no table row for the %s %s", kind, name)
			continue
		}
		sig := row[len("| `"):]
		sig = sig[:strings.Index(sig, "`")]
		for _, a := range attrs {
			if !regexp.MustCompile(`[(, ]` + regexp.QuoteMeta(a) + `\b`).MatchString(sig) {
				t.Errorf("docs/bazel.md: the row of %s, `%s`, lacks %s", name, sig, a)
			}
		}
	}
}

// TestBazelExcerpts holds every block of docs/bazel.md headed "From
// `<file>`" to that file: the block's text, and each later block up to
// the next heading that the text calls "further down the same file", must
// appear in it as written.
func TestBazelExcerpts(t *testing.T) {
	page := readRepoFile(t, filepath.Join("docs", "bazel.md"))
	fences, err := parseFences(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(page, "\n")
	from := regexp.MustCompile("^From `([^`]+)`")
	checked := 0
	file := ""
	for _, f := range fences {
		// The paragraph before the block says where it comes from.
		intro := ""
		i := f.line - 2
		for i >= 0 && strings.TrimSpace(lines[i]) == "" {
			i--
		}
		for ; i >= 0 && strings.TrimSpace(lines[i]) != ""; i-- {
			intro = lines[i] + "\n" + intro
		}
		switch m := from.FindStringSubmatch(intro); {
		case m != nil:
			file = m[1]
		case strings.Contains(intro, "further down the same file") && file != "":
		default:
			file = ""
			continue
		}
		src := readRepoFile(t, file)
		body := strings.Join(f.body, "\n")
		if !strings.Contains(src, body) {
			t.Errorf("docs/bazel.md:%d: the excerpt is not text of %s as it stands:\n%s", f.line, file, body)
		}
		checked++
	}
	if checked == 0 {
		t.Error("docs/bazel.md has no excerpt headed \"From `<file>`\"")
	}
}
