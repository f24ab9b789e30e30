package typescript

import (
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// Language is TypeScript as a client language: one file, <book>.ts. A
// module is named by its file, so a client has no package name and
// leaves --package unread.
var Language = client.Language{
	Name:       "typescript",
	Files:      []string{"<book>.ts"},
	Generate:   generate,
	Collisions: Collisions,
	Describe:   describe,
	Read:       readAPI,
}

// FileName is the file a client is written to.
func FileName(b *book.Book) string { return b.Name + ".ts" }

func generate(m *model.Model, src gen.Source, _ gen.Options) ([]gen.File, error) {
	data, err := Generate(m, gen.Header(m.Book, src))
	if err != nil {
		return nil, err
	}
	return []gen.File{{Path: FileName(m.Book), Data: data}}, nil
}
