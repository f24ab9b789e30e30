// Package clientlang says what a client language that lives in a folder
// of its own (lang/<language>/gazelle) tells chobo's Gazelle language of
// its clients: the rules Gazelle writes for them, and how a program of
// another Gazelle language finds one by its import. It imports nothing,
// so that a language's part links nothing of Gazelle nor of chobo.
package clientlang

// Language is what Gazelle knows of the clients of one language.
type Language struct {
	// Name is the language as the registry of targets (chobo/target)
	// names it.
	Name string
	// Targets are the language's client targets, by name, with the short
	// name Gazelle gives each one's rule: <book>_<short>_client.
	Targets map[string]string
	// ImportLang is the name of the Gazelle language whose programs
	// import these clients, and the Lang of the import specs they are
	// indexed under; "" when no Gazelle language that chobo's can work
	// beside resolves them.
	ImportLang string
	// ImportOf is the import a program finds a client by, from the
	// chobo_client's out ("" when it has none) and the file name of its
	// book's .book file ("" when that cannot be told from the BUILD
	// file); "" when neither makes one. Nil when ImportLang is "" or
	// ImportAttr says the import.
	ImportOf func(out, bookFile string) string
	// ImportAttr, when not "", is the attribute of the client's rule,
	// one that Attrs writes, whose value is the import a program finds
	// the client by.
	ImportAttr string
	// Attrs are the attributes Gazelle writes on the rule of a client of
	// target, besides book and target, from its book's name and the
	// import path Gazelle gives the rule's directory (base: from
	// chobo_importpath, else Gazelle's Go language's). Nil when there are
	// none.
	Attrs func(base, book, target string) map[string]string
	// Builtin answers an import of ImportLang that no client provides but
	// that the clients' own code makes programs write (the language's
	// runtime): the package of the chobo module and the target there that
	// provide it, ok false when imp is none of them. Nil when there is
	// none.
	Builtin func(imp string) (pkg, name string, ok bool)
}
