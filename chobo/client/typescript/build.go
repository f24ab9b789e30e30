package typescript

import (
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// BuildPostgres is the postgres-typescript target: <book>.ts. The book
// has passed the PostgreSQL backend's checks (chobo/target runs them).
func BuildPostgres(b *book.Book, src gen.Source, _ gen.Options) ([]gen.File, diag.List) {
	return build(b, src, model.Postgres)
}

// BuildTigerBeetle is the tigerbeetle-typescript target: <book>.ts. The
// book has passed the TigerBeetle backend's checks (E060).
func BuildTigerBeetle(b *book.Book, src gen.Source, _ gen.Options) ([]gen.File, diag.List) {
	return build(b, src, model.TigerBeetle)
}

// FileName is the file a client is written to.
func FileName(b *book.Book) string { return b.Name + ".ts" }

func build(b *book.Book, src gen.Source, backend string) ([]gen.File, diag.List) {
	m, err := model.New(b, backend)
	if err != nil {
		panic("chobo: " + err.Error()) // every book has a model on every backend
	}
	data, err := Generate(m, gen.Header(b, src))
	if err != nil {
		panic("chobo: " + err.Error())
	}
	return []gen.File{{Path: FileName(b), Data: data}}, nil
}
