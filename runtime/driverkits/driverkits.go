// Package driverkits is every client language's driver kit, the one list
// that the conformance runner of the Bazel rules and chobo's own tests
// range over: a new language adds its kit here, and neither of them names
// it.
package driverkits

import (
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	godriver "github.com/chobo-lang/chobo/lang/go/driver"
	pydriver "github.com/chobo-lang/chobo/lang/python/driver"
	tsdriver "github.com/chobo-lang/chobo/lang/typescript/driver"
)

// All are the kits, in the order of the registry of targets' languages.
var All = []driverkit.Kit{
	godriver.Kit{},
	tsdriver.Kit{},
	pydriver.Kit{},
}

// Of is the kit of a language of the registry.
func Of(language string) (driverkit.Kit, bool) { return driverkit.Find(All, language) }
