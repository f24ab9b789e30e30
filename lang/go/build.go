package golang

import (
	"go/token"

	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// Language is Go as a client language: one package, <package>/book.go,
// whose name is --package, or PackageName when that is empty.
var Language = client.Language{
	Name: "go",
	Naming: diag.T("A Go client makes names CamelCase: `pay_out` and `payOut` are both `PayOut`, and a transfer `stock_account` has the type `StockAccount` of the account `stock`.",
		"Go のクライアントは名前を CamelCase にするので、`pay_out` と `payOut` はどちらも `PayOut` になり、振替 `stock_account` の型は勘定 `stock` の型 `StockAccount` と同じになります。"),
	Files:        []string{"<package>/book.go"},
	Generate:     generate,
	ValidPackage: validPackage,
	Collisions:   Collisions,
	Describe:     describe,
	Read:         readAPI,
	Summary: map[string]diag.Text{
		model.Postgres:    diag.T("a Go package that calls the PostgreSQL functions through pgx", "PostgreSQL の関数を pgx で呼ぶ Go のパッケージ"),
		model.TigerBeetle: diag.T("a Go package that sends each operation to TigerBeetle as one linked chain, through tigerbeetle-go", "操作ごとに一つのチェーンを tigerbeetle-go で TigerBeetle に送る Go のパッケージ"),
	},
	Valid: Valid,
}

func generate(m *model.Model, src gen.Source, opt gen.Options) ([]gen.File, error) {
	pkg := opt.Package
	if pkg == "" {
		pkg = PackageName(m.Book)
	}
	data, err := Generate(m, pkg, gen.Header(m.Book, src))
	if err != nil {
		return nil, err
	}
	return []gen.File{{Path: pkg + "/book.go", Data: data}}, nil
}

func validPackage(name string) diag.Text {
	if token.IsIdentifier(name) {
		return diag.Text{}
	}
	return diag.T("not a Go identifier", "Go の識別子ではありません")
}
