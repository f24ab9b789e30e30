package gazelle

import (
	"sort"

	"github.com/bazelbuild/bazel-gazelle/rule"

	"github.com/chobo-lang/chobo/gazelle/registry"
)

// The kinds this language writes, as @chobo//rules:defs.bzl defines them.
const (
	bookKind        = "chobo_book"
	sqlKind         = "chobo_sql"
	clientKind      = "chobo_client"
	conformanceKind = "chobo_conformance_test"
	docKind         = "chobo_doc"
)

// choboKinds says how Gazelle merges each kind with a rule already in a
// BUILD file. Mergeable attributes are the ones Gazelle owns: it rewrites
// them, and removes them when it no longer writes them. Every other
// attribute (size, visibility, tags, timeout, ...) is the user's: written
// once when the rule is new, then never touched. A rule whose non-empty
// attribute is gone after merging with an empty rule is deleted.
var choboKinds = map[string]rule.KindInfo{
	bookKind: {
		MatchAttrs:     []string{"src"},
		NonEmptyAttrs:  map[string]bool{"src": true},
		MergeableAttrs: map[string]bool{"src": true, "baseline": true},
	},
	sqlKind: {
		MatchAttrs:      []string{"book"},
		NonEmptyAttrs:   map[string]bool{"book": true},
		SubstituteAttrs: map[string]bool{"book": true},
		MergeableAttrs:  map[string]bool{"book": true},
	},
	clientKind: {
		MatchAttrs:      []string{"importpath"},
		NonEmptyAttrs:   map[string]bool{"book": true},
		SubstituteAttrs: map[string]bool{"book": true},
		MergeableAttrs:  map[string]bool{"book": true, "importpath": true, "target": true, "package": true},
	},
	conformanceKind: {
		MatchAttrs:      []string{"book"},
		NonEmptyAttrs:   map[string]bool{"book": true},
		SubstituteAttrs: map[string]bool{"book": true, "clients": true},
		MergeableAttrs:  map[string]bool{"book": true, "clients": true, "scenarios": true, "versions": true},
	},
	// A book has one page per format, so a page is matched by name only:
	// matched by book, the page of a format newly turned on would be
	// merged into the page of another. lang is the user's: Gazelle writes
	// it when it creates the rule (from the book's name, bookLang) and
	// keeps what is there after, so a page in the other language set by
	// hand stays so.
	docKind: {
		NonEmptyAttrs:   map[string]bool{"book": true},
		SubstituteAttrs: map[string]bool{"book": true},
		MergeableAttrs:  map[string]bool{"book": true, "format": true, "scenarios": true},
	},
}

func (*choboLang) Kinds() map[string]rule.KindInfo { return choboKinds }

// choboModule is the name of chobo's Bazel module.
const choboModule = "chobo"

// loadsFor is where the kinds come from, with repo the apparent name of
// the chobo module ("" for chobo's own repository).
func loadsFor(repo string) []rule.LoadInfo {
	name := "//rules:defs.bzl"
	if repo != "" {
		name = "@" + repo + name
	}
	return []rule.LoadInfo{{
		Name:    name,
		Symbols: []string{bookKind, clientKind, conformanceKind, docKind, sqlKind},
	}}
}

// Loads is for WORKSPACE builds, where chobo is @chobo.
func (*choboLang) Loads() []rule.LoadInfo { return loadsFor(choboModule) }

// ApparentLoads is for Bzlmod: the load names chobo by the name the root
// module gives it (chobo unless its bazel_dep says repo_name).
func (*choboLang) ApparentLoads(moduleToApparentName func(string) string) []rule.LoadInfo {
	return loadsFor(apparentRepo(moduleToApparentName))
}

func apparentRepo(moduleToApparentName func(string) string) string {
	if moduleToApparentName != nil {
		if name := moduleToApparentName(choboModule); name != "" {
			return name
		}
	}
	return choboModule
}

// clientTarget is what Gazelle writes for one client target of chobo:
// the target's name is <book>_<short>_client; what else its rule takes
// is its language's (clientLanguages). Each language's gazelle package
// lists its targets (gazelle/registry), which make clientTargets; a test
// in chobo/target holds them to the compiler's registry of targets,
// which Gazelle may not link.
type clientTarget struct {
	short string
	// language is the one of the registry; its row in clientLanguages
	// says what Gazelle writes for it and how programs find the client.
	language string
}

// defaultClient is the target of a chobo_client that names none, which
// the registry of languages gives (registry.DefaultClient).
var defaultClient = registry.DefaultClient

// clientTargetOf is the client target of r, a chobo_client, with the
// default filled in.
func clientTargetOf(r *rule.Rule) string {
	if t := r.AttrString("target"); t != "" {
		return t
	}
	return defaultClient
}

func knownClientTargets() []string {
	out := make([]string, 0, len(clientTargets))
	for t := range clientTargets {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// docFormat is what Gazelle writes for one format of chobo_doc: the
// target's name is <book>_doc for markdown, <book>_<short>_doc for the
// others.
type docFormat struct {
	short string
}

var docFormats = map[string]docFormat{
	"markdown": {},
	"html":     {short: "html"},
}

func knownDocFormats() []string {
	out := make([]string, 0, len(docFormats))
	for f := range docFormats {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
