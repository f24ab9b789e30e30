package postgres

import (
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/target"
)

// Build is the postgres target: <book>.sql.
func Build(b *book.Book, src target.Source, _ target.Options) ([]target.File, diag.List) {
	if ds := Check(b); len(ds) > 0 {
		return nil, ds
	}
	header := append(target.Header(b, src), "PostgreSQL: schema, tables and functions. Safe to run again.")
	sql := strings.TrimLeft(Generate(b, header), "\n")
	return []target.File{{Path: b.Name + ".sql", Data: []byte(sql)}}, nil
}
