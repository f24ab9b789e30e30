package target

import (
	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/codes"
	golang "github.com/chobo-lang/chobo/lang/go"
	"github.com/chobo-lang/chobo/lang/python"
	"github.com/chobo-lang/chobo/lang/typescript"
)

// languages are the client languages, in the order help lists them: the
// one place the compiler names them. A language that lives in a folder of
// its own, lang/<language>, is its root package's Language here.
var languages = []*client.Language{
	&golang.Language,
	&typescript.Language,
	&python.Language,
}

// Codes is the catalogue of diagnostic codes as `chobo explain` prints
// it (withNaming), in code order.
func Codes() []codes.Code {
	out := make([]codes.Code, len(codes.All))
	for i, c := range codes.All {
		out[i] = withNaming(c)
	}
	return out
}

// Code is the code named c as Codes has it, if chobo knows it.
func Code(c string) (codes.Code, bool) {
	x, ok := codes.Lookup(c)
	return withNaming(x), ok
}

// withNaming is c, its text gone on, when it goes on by language
// (codes.Code.PerLanguage), with what every client language says of the
// book's names, in the order above: so the catalogue itself names no
// language.
func withNaming(c codes.Code) codes.Code {
	if c.PerLanguage {
		for _, l := range languages {
			c = c.WithWhen(l.Naming)
		}
	}
	return c
}
