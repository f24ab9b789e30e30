package postgres

import (
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// Build is the postgres target: <book>.sql.
func Build(b *book.Book, src gen.Source, _ gen.Options) ([]gen.File, diag.List) {
	if ds := Check(b); len(ds) > 0 {
		return nil, ds
	}
	header := append(gen.Header(b, src), "PostgreSQL: schema, tables and functions. Safe to run again.")
	sql := strings.TrimLeft(Generate(b, header), "\n")
	return []gen.File{{Path: b.Name + ".sql", Data: []byte(sql)}}, nil
}
