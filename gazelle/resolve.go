package gazelle

import (
	"github.com/bazelbuild/bazel-gazelle/config"
	"github.com/bazelbuild/bazel-gazelle/label"
	"github.com/bazelbuild/bazel-gazelle/repo"
	"github.com/bazelbuild/bazel-gazelle/resolve"
	"github.com/bazelbuild/bazel-gazelle/rule"
)

// Imports indexes each chobo_client by the import its language's row
// (clientLanguages) says programs find it by, as an import spec of the
// Gazelle language those programs are written in. A client of a language
// no such Gazelle language resolves, and the other chobo rules, are not
// imported by code and are not indexed.
func (*choboLang) Imports(c *config.Config, r *rule.Rule, f *rule.File) []resolve.ImportSpec {
	if r.Kind() != clientKind {
		return nil
	}
	l, ok := languageOf(clientTargetOf(r))
	if !ok || l.importLang == "" || l.importOf == nil {
		return nil
	}
	imp := l.importOf(r, f)
	if imp == "" {
		return nil
	}
	return []resolve.ImportSpec{{Lang: l.importLang, Imp: imp}}
}

func (*choboLang) Embeds(r *rule.Rule, from label.Label) []label.Label { return nil }

// Resolve has nothing to do: the rules this language writes name their
// book and clients by labels of their own package.
func (*choboLang) Resolve(c *config.Config, ix *resolve.RuleIndex, rc *repo.RemoteCache, r *rule.Rule, imports interface{}, from label.Label) {
}

// CrossResolve answers another language's questions about imports that
// none of its own rules provides. The index records a chobo_client under
// this language, so that language's own lookup (for its rules) misses
// it; here an import of a client, asked by the language its row names,
// finds the chobo_client. Imports the row answers itself (chobo's
// runtime) come next.
func (*choboLang) CrossResolve(c *config.Config, ix *resolve.RuleIndex, imp resolve.ImportSpec, lang string) []resolve.FindResult {
	l, ok := languageImportedBy(lang)
	if !ok || imp.Lang != lang {
		return nil
	}
	if found := ix.FindRulesByImport(imp, languageName); len(found) > 0 {
		return found
	}
	if l.builtin != nil {
		return l.builtin(c, imp.Imp)
	}
	return nil
}
