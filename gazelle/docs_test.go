package gazelle

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocsMatchTheCode holds the Gazelle section of docs/bazel.md to this
// package: its table of directives names each directive Configure follows
// and no other, with an example it accepts, and the messages it quotes are
// the ones Gazelle prints.
func TestDocsMatchTheCode(t *testing.T) {
	data, err := os.ReadFile("../docs/bazel.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)

	row := regexp.MustCompile("(?m)^\\| `# gazelle:(\\w+)([^`]*)` \\|")
	var documented []string
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		documented = append(documented, m[1])
		if !knownDirective(m[1]) {
			t.Errorf("docs/bazel.md documents # gazelle:%s, which chobo does not know", m[1])
			continue
		}
		if err := defaultConfig().apply(m[1], m[2], ""); err != nil {
			t.Errorf("docs/bazel.md's example # gazelle:%s%s: %v", m[1], m[2], err)
		}
	}
	for _, d := range choboDirectives {
		if !slices.Contains(documented, d) {
			t.Errorf("docs/bazel.md's table of directives lacks # gazelle:%s", d)
		}
	}

	// The page quotes the message with its list of the known client
	// targets cut out: a new client language is its folder and its lines
	// in the registries (docs/formats.md), and changes no page.
	unknown := defaultConfig().apply(directiveClient, "postgres-go typescrpt", "").Error()
	known := "(known: " + strings.Join(knownClientTargets(), ", ") + ", "
	if !strings.Contains(unknown, known) {
		t.Fatalf("the message of an unknown client target no longer lists the known ones as %q: %s", known, unknown)
	}
	quoted := []string{
		"BUILD.bazel: " + strings.Replace(unknown, known, "(known: …, ", 1),
		"BUILD.bazel: " + unknownDirective("chobo_clients").Error(),
		renameWarning("ledger", "在庫.book", "book_ee34caad", "在庫", map[string]bool{"在庫.more.json": true}),
	}
	for _, q := range quoted {
		if !strings.Contains(doc, "\ngazelle: "+q+"\n") {
			t.Errorf("docs/bazel.md does not quote, on a line of its own:\ngazelle: %s", q)
		}
	}
}
