package golang

import (
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// BuildPostgres is the postgres-go target: <package>/book.go, where the
// package is opt.Package, or PackageName when that is empty. The book has
// passed the PostgreSQL backend's checks (chobo/target runs them).
func BuildPostgres(b *book.Book, src gen.Source, opt gen.Options) ([]gen.File, diag.List) {
	return build(b, src, opt, model.Postgres)
}

// BuildTigerBeetle is the tigerbeetle-go target: <package>/book.go, as
// BuildPostgres, over runtime/go/chobotb. The book has passed the
// TigerBeetle backend's checks (E060).
func BuildTigerBeetle(b *book.Book, src gen.Source, opt gen.Options) ([]gen.File, diag.List) {
	return build(b, src, opt, model.TigerBeetle)
}

func build(b *book.Book, src gen.Source, opt gen.Options, backend string) ([]gen.File, diag.List) {
	pkg := opt.Package
	if pkg == "" {
		pkg = PackageName(b)
	}
	m, err := model.New(b, backend)
	if err != nil {
		panic("chobo: " + err.Error()) // every book has a model on every backend
	}
	data, err := Generate(m, pkg, gen.Header(b, src))
	if err != nil {
		panic("chobo: " + err.Error())
	}
	return []gen.File{{Path: pkg + "/book.go", Data: data}}, nil
}
