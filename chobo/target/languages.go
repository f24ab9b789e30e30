package target

import (
	"github.com/chobo-lang/chobo/chobo/client"
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
