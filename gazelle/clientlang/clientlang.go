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
	// file); "" when neither makes one. Nil when ImportLang is "".
	ImportOf func(out, bookFile string) string
}
