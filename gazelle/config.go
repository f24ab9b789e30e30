package gazelle

import (
	"flag"
	"fmt"
	"log"
	"path"
	"slices"
	"strings"

	"github.com/bazelbuild/bazel-gazelle/config"
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
	// none. The default is defaultClient alone.
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

func (*choboLang) KnownDirectives() []string { return slices.Clone(choboDirectives) }

// Configure reads the directives of the BUILD file of rel (f may be nil).
//
// A directive that chobo cannot follow stops the run. Going on without it
// would write (or delete) targets by the defaults instead: a list of
// clients with one mistyped word would remove every client it names, and
// the Go rules' deps on them. Configure cannot return an error, and
// Gazelle calls it while it walks the tree and emits every BUILD file (or
// its diff) only after the walk, so exiting here leaves all of them as
// they were; TestGazelleBinaryStopsOnBadDirective holds the gazelle
// command to that order.
func (*choboLang) Configure(c *config.Config, rel string, f *rule.File) {
	cc := getConfig(c).clone()
	c.Exts[languageName] = cc
	if f == nil {
		return
	}
	if errs := cc.applyAll(f.Directives, rel); len(errs) > 0 {
		for _, err := range errs {
			log.Printf("%s: %v", f.Path, err)
		}
		log.Fatal("chobo: stopped before writing any BUILD file; correct what is named above and run Gazelle again")
	}
}

// applyAll applies the directives of one BUILD file in order and returns
// an error for each of chobo's that it could not follow: a bad value, or
// a name that looks like one of chobo's and is none of them.
func (cc *choboConfig) applyAll(directives []rule.Directive, rel string) []error {
	var errs []error
	for _, d := range directives {
		if name, ok := joinedName(d.Key, d.Value); ok {
			if err := unknownDirective(name); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if !knownDirective(d.Key) {
			if err := unknownDirective(d.Key); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if err := cc.apply(d.Key, d.Value, rel); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// choboDirectives are the names Configure follows.
var choboDirectives = []string{directiveChobo, directiveClient, directiveImportPath, directiveConformance, directiveDoc}

func knownDirective(key string) bool { return slices.Contains(choboDirectives, key) }

// joinedName is the name as written of a directive that Gazelle read as
// key and value: a name is letters, digits and underscores, so Gazelle
// takes "# gazelle:chobo-client go" for the directive chobo with the
// value "-client go". A value starting with a dash or a dot was part of
// the name.
func joinedName(key, value string) (string, bool) {
	if value == "" || !strings.ContainsRune("-.", rune(value[0])) {
		return "", false
	}
	return key + strings.Fields(value)[0], true
}

// unknownDirective is the error for a directive chobo does not know, when
// its name starts like chobo's: chobo_clients, Chobo-doc, and chobbo_client
// or chob_doc, whose first word is one letter off. Every other name
// belongs to Gazelle or another language, which report it themselves.
// Gazelle itself logs a name that no language knows as an unknown
// directive, and stops on it only with -strict; this adds what was meant,
// and stops always: going on would write the BUILD files by the defaults.
func unknownDirective(key string) error {
	if !startsLikeChobo(key) {
		return nil
	}
	if d, ok := nearest(key, choboDirectives); ok {
		return fmt.Errorf("gazelle:%s is not a directive of chobo; did you mean # gazelle:%s?", key, d)
	}
	return fmt.Errorf("gazelle:%s is not a directive of chobo; chobo's are %s", key, strings.Join(choboDirectives, ", "))
}

// startsLikeChobo reports whether a directive's name starts with chobo, or
// with a first word (its letters up to the first that is not one) a
// letter off chobo. Two letters off would take in words of their own
// (combo, cobol), which may name another language's directives.
func startsLikeChobo(key string) bool {
	k := strings.ToLower(key)
	if strings.HasPrefix(k, languageName) {
		return true
	}
	head := k
	if i := strings.IndexFunc(k, func(r rune) bool { return r < 'a' || r > 'z' }); i >= 0 {
		head = k[:i]
	}
	return edits([]rune(head), []rune(languageName)) == 1
}

// apply sets what one directive says; on an error it changes nothing.
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
		// An import path is one word; more than one is most likely a
		// second directive run into this one.
		if len(strings.Fields(value)) > 1 {
			return fmt.Errorf("gazelle:%s: %q is not one import path", key, value)
		}
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
	return false, fmt.Errorf("%q is neither on nor off%s", value, didYouMean(value, []string{"on", "off", "true", "false", "yes", "no"}))
}

// didYouMean is the end of the message for word when it looks like a
// typo of one of cands, else "".
func didYouMean(word string, cands []string) string {
	if c, ok := nearest(word, cands); ok {
		return fmt.Sprintf("; did you mean %s?", c)
	}
	return ""
}

// clientLike is the client target word was most likely meant as: one
// whose name it nearly spells, or, for a language's name alone (or a
// near spelling of it), that language's client of the default backend, as
// chobo_client's default names the backend.
func clientLike(word string) (string, bool) {
	if t, ok := nearest(word, knownClientTargets()); ok {
		return t, true
	}
	backend, _, _ := strings.Cut(defaultClient, "-")
	byLanguage := map[string]string{}
	var languages []string
	for _, t := range knownClientTargets() {
		if strings.HasPrefix(t, backend+"-") {
			byLanguage[clientTargets[t].language] = t
			languages = append(languages, clientTargets[t].language)
		}
	}
	if t, ok := byLanguage[strings.ToLower(word)]; ok {
		return t, true
	}
	if l, ok := nearest(word, languages); ok {
		return byLanguage[l], true
	}
	return "", false
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
			hint := ""
			if t, ok := clientLike(f); ok {
				hint = fmt.Sprintf("; did you mean %s?", t)
			}
			return nil, fmt.Errorf("unknown client target %q%s (known: %s, or none)", f, hint, strings.Join(knownClientTargets(), ", "))
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
			return nil, fmt.Errorf("unknown page format %q%s (known: %s, or off)", f,
				didYouMean(f, append(knownDocFormats(), "off", "none", "on")), strings.Join(knownDocFormats(), ", "))
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out, nil
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
