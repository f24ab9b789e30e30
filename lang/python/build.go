package python

import (
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// Language is Python as a client language: one file, <book>.py. A module
// is named by its file, so a client has no package name and leaves
// --package unread.
var Language = client.Language{
	Name: "python",
	Naming: diag.T("A Python client writes each name in the NFKC form Python reads identifiers in, so there the full-width `ｑｔｙ` and `qty` are one name; and a name that NFKC makes a keyword (`ｉｆ`), or that starts with two underscores, which Python keeps for itself and for a class's private names, cannot be written at all. The Python client is the file `<book>.py`, imported by the book's name, so a book whose name is a keyword, changes under NFKC, or is a module the client imports itself (`asyncio`, `typing`, `tigerbeetle`) could not be imported, or would take that module's place.",
		"Python のクライアントは、Python が識別子を読むときの NFKC の形で名前を書くので、全角の `ｑｔｙ` と `qty` は一つの名前になります。NFKC でキーワードになる名前(`ｉｆ`)と、Python が自分とクラスだけの名前のために取っておく二つの下線で始まる名前は、そもそも書けません。Python のクライアントは帳簿の名前で読み込むファイル `<book>.py` なので、帳簿の名前がキーワードのとき、NFKC で変わるとき、クライアント自身が読み込むモジュール(`asyncio`、`typing`、`tigerbeetle`)と同じときは、読み込めないか、そのモジュールの代わりに読み込まれてしまいます。"),
	Files:      []string{"<book>.py"},
	Generate:   generate,
	Collisions: Collisions,
	Describe:   describe,
	Read:       readAPI,
	Summary: map[string]diag.Text{
		model.Postgres:    diag.T("one Python file that calls the PostgreSQL functions through psycopg 3 or psycopg2, blocking or with asyncio", "PostgreSQL の関数を psycopg 3 か psycopg2 で呼ぶ Python のファイル一つ。同期でも asyncio でも呼べる"),
		model.TigerBeetle: diag.T("one Python file that sends each operation to TigerBeetle as one linked chain, through the official tigerbeetle package, blocking or with asyncio", "操作ごとに一つのチェーンを公式の tigerbeetle パッケージで TigerBeetle に送る Python のファイル一つ。同期でも asyncio でも呼べる"),
	},
	Valid: Valid,
}

// FileName is the file a client is written to.
func FileName(b *book.Book) string { return b.Name + ".py" }

func generate(m *model.Model, src gen.Source, _ gen.Options) ([]gen.File, error) {
	data, err := Generate(m, gen.Header(m.Book, src))
	if err != nil {
		return nil, err
	}
	return []gen.File{{Path: FileName(m.Book), Data: data}}, nil
}
