package gazelle

import (
	"flag"
	"fmt"
	"log"
	"path"
	"strings"

	"github.com/bazelbuild/bazel-gazelle/config"
	golang "github.com/bazelbuild/bazel-gazelle/language/go"
	"github.com/bazelbuild/bazel-gazelle/rule"
)

// The directives of the chobo language. Each one applies to the directory
// of the BUILD file that holds it and to every directory below, until a
// directive of the same name says otherwise.
const (
	// # gazelle:chobo on|off
	// Whether chobo targets are written at all.
	directiveChobo = "chobo"
	// # gazelle:chobo_client postgres-go tigerbeetle-go
	// The client targets written for each book, in this order; "none" for
	// none. The default is postgres-go.
	directiveClient = "chobo_client"
	// # gazelle:chobo_importpath example.com/warehouse/books
	// The import path of this directory's clients: each is placed under it
	// (<importpath>/<book>, <importpath>/<book>tb). Directories below add
	// their relative path, as with the Go prefix. Without it, the import
	// path is the Go one: the prefix and the directory.
	directiveImportPath = "chobo_importpath"
	// # gazelle:chobo_conformance on|off
	// Whether each book gets a chobo_conformance_test. On by default.
	directiveConformance = "chobo_conformance"
	// # gazelle:chobo_doc markdown html
	// The pages written for each book with chobo_doc, one per format, in
	// this order; "off" (or "none") for none, "on" for the default,
	// markdown.
	directiveDoc = "chobo_doc"
)

// choboConfig is what the directives say for one directory.
type choboConfig struct {
	enabled     bool
	clients     []string
	conformance bool
	// docs are the formats of the chobo_doc targets of each book.
	docs []string
	// importPath, when set, is the import path of the directory
	// importPathRel (relative to the repository root).
	importPath, importPathRel string
	// importPathSet tells an empty chobo_importpath (back to the Go rule)
	// from none.
	importPathSet bool
}

func defaultConfig() *choboConfig {
	return &choboConfig{enabled: true, clients: []string{defaultClient}, conformance: true, docs: []string{"markdown"}}
}

func (cc *choboConfig) clone() *choboConfig {
	c := *cc
	c.clients = append([]string(nil), cc.clients...)
	c.docs = append([]string(nil), cc.docs...)
	return &c
}

// getConfig returns the chobo settings of c, the defaults before
// Configure has run.
func getConfig(c *config.Config) *choboConfig {
	if cc, ok := c.Exts[languageName].(*choboConfig); ok {
		return cc
	}
	return defaultConfig()
}

func (*choboLang) RegisterFlags(fs *flag.FlagSet, cmd string, c *config.Config) {
	c.Exts[languageName] = defaultConfig()
}

func (*choboLang) CheckFlags(fs *flag.FlagSet, c *config.Config) error { return nil }

func (*choboLang) KnownDirectives() []string {
	return []string{directiveChobo, directiveClient, directiveImportPath, directiveConformance, directiveDoc}
}

// Configure reads the directives of the BUILD file of rel (f may be nil).
func (*choboLang) Configure(c *config.Config, rel string, f *rule.File) {
	cc := getConfig(c).clone()
	c.Exts[languageName] = cc
	if f == nil {
		return
	}
	for _, d := range f.Directives {
		if err := cc.apply(d.Key, d.Value, rel); err != nil {
			log.Printf("%s: %v", f.Path, err)
		}
	}
}

// apply sets what one directive says.
func (cc *choboConfig) apply(key, value, rel string) error {
	value = strings.TrimSpace(value)
	switch key {
	case directiveChobo:
		on, err := onOff(value)
		if err != nil {
			return fmt.Errorf("gazelle:%s: %v", key, err)
		}
		cc.enabled = on
	case directiveConformance:
		on, err := onOff(value)
		if err != nil {
			return fmt.Errorf("gazelle:%s: %v", key, err)
		}
		cc.conformance = on
	case directiveClient:
		clients, err := parseClients(value)
		if err != nil {
			return fmt.Errorf("gazelle:%s: %v", key, err)
		}
		cc.clients = clients
	case directiveDoc:
		docs, err := parseDocs(value)
		if err != nil {
			return fmt.Errorf("gazelle:%s: %v", key, err)
		}
		cc.docs = docs
	case directiveImportPath:
		cc.importPath = strings.Trim(value, "/")
		cc.importPathRel = rel
		cc.importPathSet = value != ""
	}
	return nil
}

func onOff(value string) (bool, error) {
	switch strings.ToLower(value) {
	case "on", "true", "yes", "1":
		return true, nil
	case "off", "false", "no", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is neither on nor off", value)
}

// parseClients reads the list of a chobo_client directive: known client
// targets, each once, or "none".
func parseClients(value string) ([]string, error) {
	fields := strings.Fields(value)
	if len(fields) == 0 {
		return nil, fmt.Errorf("names no client target; write none for none")
	}
	if len(fields) == 1 && fields[0] == "none" {
		return []string{}, nil
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range fields {
		if _, ok := clientTargets[f]; !ok {
			return nil, fmt.Errorf("unknown client target %q; known: %s", f, strings.Join(knownClientTargets(), ", "))
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out, nil
}

// parseDocs reads the list of a chobo_doc directive: known page formats,
// each once; "off" or "none" for none; "on" for markdown alone.
func parseDocs(value string) ([]string, error) {
	fields := strings.Fields(value)
	if len(fields) == 0 {
		return nil, fmt.Errorf("names no format; write off for none")
	}
	if len(fields) == 1 {
		switch strings.ToLower(fields[0]) {
		case "off", "none":
			return []string{}, nil
		case "on":
			return []string{"markdown"}, nil
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range fields {
		if _, ok := docFormats[f]; !ok {
			return nil, fmt.Errorf("unknown page format %q; known: %s, or off", f, strings.Join(knownDocFormats(), ", "))
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out, nil
}

// baseImportPath is the import path of the directory rel, under which
// its clients are placed: from chobo_importpath when set above rel, else
// the Go language's (the prefix and the directory), else rel itself.
func baseImportPath(c *config.Config, rel string) string {
	cc := getConfig(c)
	if cc.importPathSet {
		return joinBelow(cc.importPath, cc.importPathRel, rel)
	}
	if _, ok := c.Exts["go"]; ok {
		return golang.InferImportPath(c, rel)
	}
	return rel
}

// joinBelow is base, the import path of the directory baseRel, extended by
// the path from baseRel down to rel.
func joinBelow(base, baseRel, rel string) string {
	if rel == baseRel {
		return base
	}
	if baseRel == "" {
		return path.Join(base, rel)
	}
	return path.Join(base, strings.TrimPrefix(rel, baseRel+"/"))
}
