package gazelle

import (
	"testing"

	"github.com/bazelbuild/bazel-gazelle/language"
	"github.com/bazelbuild/bazel-gazelle/resolve"
)

func TestLanguage(t *testing.T) {
	lang := NewLanguage()
	if lang.Name() != "chobo" {
		t.Errorf("name %q", lang.Name())
	}
	// The resolver is found by kind prefix and by the kinds it declares.
	for kind := range lang.Kinds() {
		if kind[:len("chobo_")] != "chobo_" {
			t.Errorf("kind %s does not start with chobo_", kind)
		}
	}
	if _, ok := lang.(resolve.CrossResolver); !ok {
		t.Error("not a CrossResolver: Go code could not find the clients")
	}
	if _, ok := lang.(language.ModuleAwareLanguage); !ok {
		t.Error("not module aware: loads would not follow the bazel_dep's repo_name")
	}
	for _, d := range lang.KnownDirectives() {
		if d != "chobo" && d[:len("chobo_")] != "chobo_" {
			t.Errorf("directive %s is not chobo's", d)
		}
	}
}
