package typescript

import (
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// Language is TypeScript as a client language: one file, <book>.ts. A
// module is named by its file, so a client has no package name and
// leaves --package unread.
var Language = client.Language{
	Name: "typescript",
	Naming: diag.T("A TypeScript client makes names CamelCase as well, with the same collisions: `pay_out` and `payOut` are both `PayOut` there too.",
		"TypeScript のクライアントも名前を CamelCase にするので、同じように `pay_out` と `payOut` はどちらも `PayOut` になります。"),
	Files:      []string{"<book>.ts"},
	Generate:   generate,
	Collisions: Collisions,
	Describe:   describe,
	Read:       readAPI,
	Summary: map[string]diag.Text{
		model.Postgres:    diag.T("one TypeScript file that calls the PostgreSQL functions through pg, or anything with query(text, values)", "PostgreSQL の関数を pg(か query(text, values) を持つもの)で呼ぶ TypeScript のファイル一つ"),
		model.TigerBeetle: diag.T("one TypeScript file that sends each operation to TigerBeetle as one linked chain, through tigerbeetle-node", "操作ごとに一つのチェーンを tigerbeetle-node で TigerBeetle に送る TypeScript のファイル一つ"),
	},
	Valid: Valid,
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
