package typescript

import (
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	tsruntime "github.com/chobo-lang/chobo/lang/typescript/runtime"
)

// TestRuntimeMarker: every runtime file a client carries starts on the
// line after RuntimeMarker, and nothing written from the book comes after
// the first one, so that a reader of the book's part may stop there.
func TestRuntimeMarker(t *testing.T) {
	res := check.Check("shop.book", []byte(`book shop v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out
account world : pcs outside
transfer receive(id: string, sku: string, qty: pcs)
  key id
  move qty from world to stock(sku)
`))
	if res.Book == nil {
		t.Fatalf("%v", res.Diags)
	}
	for _, backend := range []string{model.Postgres, model.TigerBeetle} {
		m, err := model.New(res.Book, backend)
		if err != nil {
			t.Fatal(err)
		}
		src, err := Generate(m, []string{"header"})
		if err != nil {
			t.Fatal(err)
		}
		files, err := tsruntime.Files(backend)
		if err != nil {
			t.Fatal(err)
		}
		text := string(src)
		if got := strings.Count(text, "\n"+RuntimeMarker+" "); got != len(files) {
			t.Errorf("%s: the marker starts %d lines, want one for each of the %d runtime files", backend, got, len(files))
		}
		first := strings.Index(text, "\n"+RuntimeMarker)
		if first < 0 {
			continue
		}
		if book, rest := text[:first], text[first:]; !strings.Contains(book, "ReceiveArgs") || strings.Contains(rest, "ReceiveArgs") {
			t.Errorf("%s: the book's part of the client is not all above the first marker", backend)
		}
	}
}
