package langtest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A Fence is a fenced block of a Markdown text.
type Fence struct {
	Info string   // the info string, trimmed
	Line int      // 1-based line of the opening fence
	Body []string // the lines between the fences
	// Note is the comment on the line before the fence, blank lines
	// aside (`<!-- … -->`, its text trimmed), or "".
	Note string
}

// Fences finds the fenced blocks of a Markdown text. Only fences of
// backticks at the start of a line are recognised: that is all the docs
// use, and a reader that also knew tildes or indented fences would only
// be more code to trust.
func Fences(src string) ([]Fence, error) {
	var out []Fence
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		open := lines[i]
		n := len(open) - len(strings.TrimLeft(open, "`"))
		if n < 3 {
			continue
		}
		f := Fence{Info: strings.TrimSpace(open[n:]), Line: i + 1, Note: noteBefore(lines, i)}
		closed := false
		for i++; i < len(lines); i++ {
			l := strings.TrimRight(lines[i], " ")
			if len(l) >= n && strings.Trim(l, "`") == "" {
				closed = true
				break
			}
			f.Body = append(f.Body, lines[i])
		}
		if !closed {
			return nil, fmt.Errorf("line %d: the fenced block is never closed", f.Line)
		}
		out = append(out, f)
	}
	return out, nil
}

// noteBefore is the text of the comment on the line before lines[i],
// blank lines aside.
func noteBefore(lines []string, i int) string {
	for j := i - 1; j >= 0; j-- {
		l := strings.TrimSpace(lines[j])
		if l == "" {
			continue
		}
		if c, ok := strings.CutPrefix(l, "<!--"); ok {
			if c, ok := strings.CutSuffix(c, "-->"); ok {
				return strings.TrimSpace(c)
			}
		}
		return ""
	}
	return ""
}

// A Producer makes the output of another program (Node, the go
// command) that a troubleshooting page quotes. Key is a part of the
// quote, by which a block finds its producer.
type Producer struct {
	Key     string
	Produce func(t *testing.T) string
}

// heldBy starts the comment that puts the quote of the block after it in
// the care of a folder's tests: `<!-- quote held by lang/<language> -->`.
// A quote of a language's tools is held in the language's folder.
const heldBy = "quote held by "

// troubleshootingPages are the pages whose `text` blocks are quotes.
var troubleshootingPages = []string{"troubleshooting.md", "troubleshooting.ja.md"}

// HoldQuotes holds every line of every `text` block of the
// troubleshooting pages that folder holds (from the root of the checkout,
// "" for the blocks no comment puts elsewhere) to what the program it
// quotes prints: each block must contain the key of one of producers,
// and each of its lines must be a line of that producer's output. It
// returns the other folders the pages put quotes in the care of.
func HoldQuotes(t *testing.T, folder string, producers []Producer) (others []string) {
	t.Helper()
	outputs := map[string]string{}
	asked := map[string]bool{}
	quoted := 0
	for _, file := range troubleshootingPages {
		src, err := os.ReadFile(filepath.Join(Root(t), "docs", file))
		if err != nil {
			t.Fatal(err)
		}
		fences, err := Fences(string(src))
		if err != nil {
			t.Fatalf("docs/%s: %v", file, err)
		}
		for _, f := range fences {
			if f.Info != "text" {
				continue
			}
			if by, _ := strings.CutPrefix(f.Note, heldBy); by != folder {
				if by != "" && !slices.Contains(others, by) {
					others = append(others, by)
				}
				continue
			}
			quote := strings.Join(f.Body, "\n")
			var key string
			for _, p := range producers {
				if strings.Contains(quote, p.Key) {
					key = p.Key
					if !asked[key] {
						asked[key] = true
						t.Run(key, func(t *testing.T) { outputs[key] = p.Produce(t) })
					}
				}
			}
			if key == "" {
				t.Errorf("docs/%s:%d: the quote is held to no program's output; add a producer for it", file, f.Line)
				continue
			}
			out, ok := outputs[key]
			if !ok {
				continue // skipped: the producer said why
			}
			lines := strings.Split(out, "\n")
			for i, l := range f.Body {
				if !slices.Contains(lines, l) {
					t.Errorf("docs/%s:%d: %q is not a line the program prints; it printed:\n%s", file, f.Line+1+i, l, out)
				}
				quoted++
			}
		}
	}
	for _, p := range producers {
		if !asked[p.Key] {
			t.Errorf("no quote in the care of %q (\"\" for none) has %q: its producer stands for nothing the pages show", folder, p.Key)
		}
	}
	if quoted == 0 && len(outputs) > 0 {
		t.Error("no quoted line was compared")
	}
	return others
}
