package scenario_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/scenario"
)

// TestReadStrict covers what a lenient JSON reader lets through: each is
// an *Error when the file is read, in both languages, before any call.
func TestReadStrict(t *testing.T) {
	b := load(t)
	ok := `{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}}`
	tests := []struct {
		name, js, en, ja string
	}{
		{"trailing text", `{"name": "x", "steps": []} x`, "line 1, column 28: more text after the end of the JSON value", "1 行 28 列: JSON の値が終わった後にまだ文字があります"},
		{"a second value", "[]\n[]", "line 2, column 1: more text", "2 行 1 列"},
		{"duplicate key", `{"name": "x", "steps": [], "name": "y"}`, `line 1, column 28: the key "name" appears twice in one object`, `キー "name" が一つのオブジェクトに二度あります`},
		{"duplicate key deep inside", `{"name": "x", "steps": [{"op": "receive.do", "args": {"qty": 1, "qty": 2}}]}`, `the key "qty" appears twice`, `キー "qty"`},
		{"not utf-8", "{\"name\": \"\xff\", \"steps\": []}", "line 1, column 11: byte 0xff is not UTF-8", "1 行 11 列: バイト 0xff は UTF-8 ではありません"},
		{"byte order mark", "\ufeff{\"name\": \"x\", \"steps\": []}", "byte order mark (U+FEFF)", "バイト順マーク(U+FEFF)"},
		{"empty", "", "the file is empty", "ファイルが空です"},
		{"a book", "book shop v1\nunit pcs\n", "line 1, column 1: the file is not valid JSON here (b); it looks like a book: --scenario takes a JSON scenario file",
			"1 行 1 列: ここが JSON として読めません(b)。帳簿のファイルのようです。--scenario には JSON のシナリオのファイルを渡します"},
		{"a book under a comment", "# the shop\n\nbook shop v1\n", "it looks like a book", "帳簿のファイルのようです"},
		{"not JSON, not a book", "bookkeeping\n", "line 1, column 1: the file is not valid JSON here (b)", "1 行 1 列: ここが JSON として読めません(b)"},
		{"only white space", " \n\t", "the file is empty", "ファイルが空です"},
		{"a number", "12", "the file holds a number; write one scenario object", "ファイルの中身が数です"},
		{"a string", `"x"`, "the file holds a string", "ファイルの中身が文字列です"},
		{"null", "null", "the file holds null", "ファイルの中身がnullです"},
		{"an array of numbers", "[1]", "scenario 1: a scenario is an object, not a number", "シナリオ 1: シナリオにはオブジェクトを書きます(ここは数です)"},
		{"string cut short", `{"name": "x`, "the file ends inside a JSON value", "JSON の値の途中で"},
		{"missing colon", `{"name" "x"}`, `line 1, column 9: the file is not valid JSON here (")`, `1 行 9 列`},
		{"missing comma", "[{\"name\": \"x\", \"steps\": []}\n {}]", "line 2, column 2: the file is not valid JSON here ({)", "2 行 2 列"},
		{"cut short", `{"name": "x", "steps": [`, "the file ends inside a JSON value", "JSON の値の途中でファイルが終わっています"},
		{"bad character", `{"name": x}`, "line 1, column 10: the file is not valid JSON here (x)", "1 行 10 列: ここが JSON として読めません(x)"},
		{"control in a bad place", "{\"name\": \x1b}", `line 1, column 10: the file is not valid JSON here (\x1b)`, `(\x1b)`},
		{"name of the wrong type", `{"name": 1, "steps": []}`, `"name" is a string, not a number`, `"name" には文字列を書きます(ここは数です)`},
		{"outcomes not a count", `{"name": "x", "outcomes": 1.5, "steps": []}`, `"outcomes" is a count: a whole number from 0, not 1.5`, `"outcomes" には 0 以上の整数を書きます(ここは 1.5 です)`},
		{"steps not an array", `{"name": "x", "steps": {}}`, `"x": "steps" is an array, not an object`, `"steps" には配列を書きます`},
		{"missing parameter", `{"name": "x", "steps": [{"op": "receive.do", "args": {"delivery": "d-1", "qty": 1}}]}`,
			`"x": step 1: op "receive.do": sku is missing from "args", which takes delivery, sku, qty`, `ステップ 1: op "receive.do": "args" に sku がありません。delivery、sku、qty を書きます`},
		{"no args", `{"name": "x", "steps": [{"op": "receive.do"}]}`, `delivery is missing from "args"`, `"args" に delivery がありません`},
		{"missing key of a post", `{"name": "x", "steps": [{"op": "reserve.post", "args": {"order": "o-1"}}]}`, `sku is missing from "args", which takes order, sku`, `"args" に sku がありません`},
		{"more than the key for a void", `{"name": "x", "steps": [{"op": "reserve.void", "args": {"order": "o-1", "sku": "s-1", "qty": 1}}]}`, `qty is not part of the key; a void takes only the key (order, sku) in "args"`, `qty はキーではありません`},
		{"amounts of a post in args", `{"name": "x", "steps": [{"op": "reserve.post", "args": {"order": "o-1", "sku": "s-1", "qty": 1}}]}`, `give a post's amounts in "amounts", not in "args"`, `post の額は "args" ではなく "amounts" に書きます`},
		{"unknown amounts name", `{"name": "x", "steps": [{"op": "reserve.post", "args": {"order": "o-1", "sku": "s-1"}, "amounts": {"qtty": 1}}]}`,
			`amounts: "qtty" is not an amount the moves of reserve use; give qty`, `amounts: "qtty" は reserve の移動が使う額ではありません`},
		{"empty amounts", `{"name": "x", "steps": [{"op": "reserve.post", "args": {"order": "o-1", "sku": "s-1"}, "amounts": {}}]}`, `give every amount the moves use (qty)`, `移動が使う額(qty)を全部書くか`},
		{"amounts on a hold", `{"name": "x", "steps": [{"op": "reserve.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}, "amounts": {"qty": 1}}]}`, `only post takes "amounts"`, `"amounts" を取るのは post だけです`},
		{"call keys on a pass", `{"name": "x", "steps": [{"pass": "1 day", "expect": "done"}]}`, `"expect" belongs to a call; a "pass" step has nothing else`, `"expect" は呼び出しに書くもの`},
		{"expect inside together", `{"name": "x", "steps": [{"together": [[{"op": "reserve.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}, "expect": "done"}]]}]}`,
			`together, caller 1, op 1: unknown field "expect"; a call has "op", "args", "amounts"; inside "together" the answers depend on the order, so write "outcomes"`, `together の呼び出し元 1 の 1 番目: "expect" という項目はありません。呼び出しの項目は "op"、"args"、"amounts" です。together の中の答えは順序で変わるので、expect は書けません。シナリオに "outcomes"`},
		{"expect on a together step", `{"name": "x", "steps": [{"together": [[{"op": "reserve.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}}]], "expect": "done"}]}`,
			`"expect" belongs to a call; a "together" step has nothing else; inside "together" the answers depend on the order`, `together の中の答えは順序で変わるので、expect は書けません`},
		{"a caller that is not a list", `{"name": "x", "steps": [{"together": [` + ok + `]}]}`, `together, caller 1: a caller is an array of calls, not an object`, `together の呼び出し元 1: 呼び出し元には呼び出しの配列を書きます`},
		{"unknown field", `{"name": "x", "steps": [], "extra": 1}`, `unknown field "extra"; a scenario has "name", "title_ja", "tenant", "outcomes", "steps"`, `"extra" という項目はありません。シナリオの項目は "name"、"title_ja"、"tenant"、"outcomes"、"steps" です`},
		{"bad pass", `{"name": "x", "steps": [{"pass": "3 weeks"}]}`, `pass "3 weeks": write a whole number and seconds, minutes, hours or days`, `pass "3 weeks": 整数と単位(seconds、minutes、hours、days のどれか)を書いてください`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenario.Read(b, []byte(tt.js))
			var se *scenario.Error
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *scenario.Error", err)
			}
			if msg := se.Text(); !strings.Contains(msg.En, tt.en) || !strings.Contains(msg.Ja, tt.ja) {
				t.Errorf("got\n  %s\n  %s\nwant\n  %s\n  %s", msg.En, msg.Ja, tt.en, tt.ja)
			}
		})
	}
}

// TestReadKeepsWhatIsAllowed reads what the format allows, including the
// one thing it reads although it cannot be sent: an amount past 64 bits.
func TestReadKeepsWhatIsAllowed(t *testing.T) {
	b := load(t)
	scs := read(t, b, `
	[{"name": "a", "title_ja": "あ", "tenant": "t", "outcomes": 2, "steps": [
		{"op": "receive.do", "args": {"qty": 99999999999999999999, "sku": "s-1", "delivery": "d-1"}, "expect": "failed"},
		{"op": "reserve.post", "args": {"order": "o-1", "sku": "s-1"}, "amounts": {"qty": 1}},
		{"op": "reserve.void", "args": {"sku": "s-1", "order": "o-1"}},
		{"pass": "2 hours"}]},
	 {"name": "b", "steps": []}]
	`)
	if len(scs) != 2 || scs[0].Outcomes != 2 || scs[0].TitleJa != "あ" || scs[0].Tenant != "t" || len(scs[0].Steps) != 4 {
		t.Fatalf("%+v", scs)
	}
	if c := scs[0].Steps[0].Call; c.Bad == "" || !strings.Contains(c.String(), "qty: 99999999999999999999") {
		t.Errorf("bad amount: %q, %s", c.Bad, c)
	}
	if c := scs[0].Steps[1].Call; c.Amounts["qty"] != 1 {
		t.Errorf("partial post: %+v", c.Amounts)
	}
}
