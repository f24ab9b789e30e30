package cli

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/chobo/show"
	"github.com/chobo-lang/chobo/chobo/target"
	"slices"
)

const cleanBook = `book shop v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account world : pcs outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from world to stock(sku)
transfer sell(order: string, sku: string, qty: pcs)
  key order, sku
  move qty from stock(sku) to world
`

// lifetimesBook gives its holds two lifetimes, which the conformance
// test's copy of a book makes one.
const lifetimesBook = `book counter v1
unit pcs
account shelf(sku: string) : pcs
  at least 0 refused as sold_out
account vendors : pcs outside
account buyers : pcs outside
transfer restock(delivery: string, sku: string, qty: pcs)
  key delivery, sku
  move qty from vendors to shelf(sku)
transfer cart(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 10 minutes
  move qty from shelf(sku) to buyers
transfer layaway(order: string, sku: string, qty: pcs)
  key order, sku
  pending expires after 1 hour
  move qty from shelf(sku) to buyers
`

const brokenBook = "book shop v1\nunit pcs\naccount stock : pieces\n  at least 0 refused as out\n"

func testEnv(env map[string]string) (Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	files := map[string]string{"clean.book": cleanBook, "broken.book": brokenBook,
		// The deployed version of clean.book, whose lower bound was
		// below 0: it cannot cross to 0.
		"older.book": strings.Replace(cleanBook, "at least 0", "at least -1", 1),
		// Versions a scenario deploys, beside it: one with an upper
		// bound added, one whose lower bound crosses 0, another book.
		"scen/v2.book": strings.Replace(strings.Replace(cleanBook, "book shop v1", "book shop v2", 1),
			"  at least 0 refused as out_of_stock\n", "  at least 0 refused as out_of_stock\n  at most 3 refused as stock_full\n", 1),
		"scen/cross.book": strings.Replace(cleanBook, "at least 0", "at least -5", 1),
		"scen/other.book": strings.Replace(cleanBook, "book shop v1", "book store v2", 1),
		"scen/deploy.json": `{"name": "deploy", "steps": [
			{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 5}},
			{"deploy": "v2.book"},
			{"op": "receive.do", "args": {"delivery": "d-2", "sku": "s-1", "qty": 1}, "expect": "refused: stock_full"},
			{"op": "sell.do", "args": {"order": "o-1", "sku": "s-1", "qty": 3}, "expect": "done"},
			{"op": "receive.do", "args": {"delivery": "d-3", "sku": "s-1", "qty": 1}, "expect": "done"}]}`,
		// The same versions, derived from the one in place: the scenario
		// stands alone.
		"derived.json": `{"name": "derived", "steps": [
			{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 5}},
			{"deploy": {"bounds": {"stock": {"at_most": "3 refused as stock_full"}}}},
			{"op": "receive.do", "args": {"delivery": "d-2", "sku": "s-1", "qty": 1}, "expect": "refused: stock_full"},
			{"deploy": {"bounds": {"stock": {"at_most": null}}}},
			{"op": "receive.do", "args": {"delivery": "d-3", "sku": "s-1", "qty": 1}, "expect": "done"}]}`,
		"derived-cross.json":   `{"name": "cross", "steps": [{"deploy": {"bounds": {"stock": {"at_least": "-5"}}}}]}`,
		"derived-twice.json":   `{"name": "twice", "steps": [{"deploy": {"bounds": {"stock": {"at_least": "1"}}}}, {"deploy": {"bounds": {"stock": {"at_least": "-1"}}}}]}`,
		"derived-unknown.json": `{"name": "unknown", "steps": [{"deploy": {"bounds": {"stok": {"at_least": "1"}}}}]}`,
		"scen/cross.json":      `{"name": "cross", "steps": [{"deploy": "cross.book"}]}`,
		"scen/other.json":      `{"name": "other", "steps": [{"deploy": "other.book"}]}`,
		"scen/missing.json":    `{"name": "missing", "steps": [{"deploy": "v9.book"}]}`,
		"race.json": `{"name": "race", "steps": [
			{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}},
			{"together": [[{"op": "sell.do", "args": {"order": "o-1", "sku": "s-1", "qty": 1}}],
			              [{"op": "sell.do", "args": {"order": "o-2", "sku": "s-1", "qty": 1}}]]}]}`,
		"tenant.json": `{"name": "for one tenant", "tenant": "shop-1", "steps": [
			{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}}]}`,
		"no_tenant.json": `{"name": "for one tenant", "steps": [
			{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 1}}]}`,
		"bad.json":       `{"name": "bad", "steps": [{"op": "nothing.do", "args": {}}]}`,
		"trailing.json":  `{"name": "x", "steps": []} {"name": "y", "steps": []}`,
		"twice.json":     `{"name": "x", "name": "y", "steps": []}`,
		"bom.json":       "\ufeff" + `{"name": "x", "steps": []}`,
		"empty.json":     " \n",
		"number.json":    "42",
		"latin1.json":    "{\"name\": \"caf\xe9\", \"steps\": []}",
		"missing.json":   `{"name": "x", "steps": [{"op": "sell.do", "args": {"order": "o-1", "qty": 1}}]}`,
		"escape.json":    "{\"name\": \"x\", \"steps\": [{\"op\": \"receive.do\", \"args\": {\"delivery\": \"\\u001b[31mred\", \"sku\": \"s\\u202e1\", \"qty\": 1}}]}",
		"lifetimes.book": lifetimesBook,
		// A cart and a layaway held at once, then a pass that ends the
		// cart only: on the copy both last as long, so no pass can.
		"together_held.json": `{"name": "held at once", "steps": [
			{"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}},
			{"op": "cart.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}},
			{"op": "layaway.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}},
			{"pass": "30 minutes"},
			{"op": "layaway.post", "args": {"order": "o-2", "sku": "s-1"}}]}`,
		// The same holds, the cart made near the layaway's end: the copy
		// keeps their deadlines apart.
		"apart.json": `{"name": "apart", "steps": [
			{"op": "restock.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}},
			{"op": "layaway.hold", "args": {"order": "o-1", "sku": "s-1", "qty": 1}},
			{"pass": "55 minutes"},
			{"op": "cart.hold", "args": {"order": "o-2", "sku": "s-1", "qty": 1}},
			{"pass": "5 minutes"},
			{"op": "layaway.post", "args": {"order": "o-1", "sku": "s-1"}, "expect": "refused: expired"},
			{"op": "cart.post", "args": {"order": "o-2", "sku": "s-1"}, "expect": "done"}]}`,
		"races.json": `{"name": "races", "steps": [
			{"op": "receive.do", "args": {"delivery": "d-1", "sku": "s-1", "qty": 2}},
			{"together": [[{"op": "sell.do", "args": {"order": "o-1", "sku": "s-1", "qty": 1}}], [{"op": "sell.do", "args": {"order": "o-2", "sku": "s-1", "qty": 1}}],
			              [{"op": "sell.do", "args": {"order": "o-3", "sku": "s-1", "qty": 1}}], [{"op": "sell.do", "args": {"order": "o-4", "sku": "s-1", "qty": 1}}]]}]}`,
	}
	return Env{
		Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
		ReadFile: func(name string) ([]byte, error) {
			if s, ok := files[name]; ok {
				return []byte(s), nil
			}
			return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("no such file")}
		},
	}, &out, &errb
}

func TestMain_exitCodes(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		code     int
		stdout   string // substring expected on stdout
		stderr   string // substring expected on stderr
		noStdout bool
	}{
		{name: "clean", args: []string{"check", "clean.book"}, code: 0, stdout: "clean.book: ok"},
		{name: "errors", args: []string{"check", "broken.book"}, code: 1, stdout: "error[E002]"},
		{name: "several files", args: []string{"check", "clean.book", "broken.book"}, code: 1, stdout: "clean.book: ok"},
		{name: "unknown flag", args: []string{"check", "--strict", "clean.book"}, code: 2, stderr: "unknown flag --strict", noStdout: true},
		{name: "usage follows an unknown flag", args: []string{"check", "--strict", "clean.book"}, code: 2, stderr: "chobo check <file.book>...", noStdout: true},
		{name: "flag=value says how to write it", args: []string{"check", "--format=json", "clean.book"}, code: 2, stderr: "--format=json is not accepted: a flag's value is the next word; write `--format json`", noStdout: true},
		{name: "lang=ja says so in japanese", args: []string{"check", "--lang=ja", "clean.book"}, code: 2, stderr: "--lang=ja は使えません。フラグの値は次の語に書きます。`--lang ja` と書いてください", noStdout: true},
		{name: "lang=ja before the command", args: []string{"--lang=ja", "check", "clean.book"}, code: 2, stderr: "chobo: --lang=ja は使えません", noStdout: true},
		{name: "a switch takes no value", args: []string{"explain", "--all=yes"}, code: 2, stderr: "--all=yes is not accepted: --all takes no value; write `--all`"},
		{name: "an unknown flag with a value", args: []string{"check", "--strict=yes", "clean.book"}, code: 2, stderr: "unknown flag --strict=yes"},
		{name: "bad choice", args: []string{"check", "--format", "yaml", "clean.book"}, code: 2, stderr: "--format takes one of text, json"},
		{name: "missing value", args: []string{"check", "clean.book", "--format"}, code: 2, stderr: "--format needs a value"},
		{name: "value may not be a flag", args: []string{"check", "--format", "--lang", "clean.book"}, code: 2, stderr: "--format needs a value"},
		{name: "flag twice", args: []string{"check", "--format", "json", "--format", "text", "clean.book"}, code: 2, stderr: "given twice"},
		{name: "no file", args: []string{"check"}, code: 2, stderr: "wrong number of arguments"},
		{name: "unreadable file", args: []string{"check", "missing.book"}, code: 2, stderr: "cannot read missing.book", noStdout: true},
		{name: "unreadable file stops before any report", args: []string{"check", "clean.book", "missing.book"}, code: 2, noStdout: true},
		{name: "single dash is an argument", args: []string{"check", "-x"}, code: 2, stderr: "cannot read -x"},
		{name: "version", args: []string{"--version"}, code: 0, stdout: "chobo " + Version},
		{name: "help", args: []string{"--help"}, code: 0, stdout: "commands:"},
		{name: "help as a command", args: []string{"help"}, code: 0, stdout: "commands:"},
		{name: "-h", args: []string{"-h"}, code: 0, stdout: "commands:"},
		{name: "help of a command", args: []string{"help", "check"}, code: 0, stdout: "--format text|json"},
		{name: "help of a command in japanese", args: []string{"help", "run", "--lang", "ja"}, code: 0, stdout: "シナリオのファイル"},
		{name: "-h after a command", args: []string{"check", "-h"}, code: 0, stdout: "--format text|json"},
		{name: "-h before a command", args: []string{"-h", "run"}, code: 0, stdout: "--scenario <file.json>"},
		{name: "help of an unknown command", args: []string{"help", "frobnicate"}, code: 2, stderr: `chobo help: unknown command "frobnicate"`, noStdout: true},
		{name: "help of two commands", args: []string{"help", "check", "run"}, code: 2, stderr: "give one command, not 2", noStdout: true},
		{name: "no arguments", args: nil, code: 2, stderr: "usage:"},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderr: "unknown command"},
		{name: "unknown top flag", args: []string{"--verbose"}, code: 2, stderr: "unknown flag --verbose"},
		{name: "command help", args: []string{"check", "--help"}, code: 0, stdout: "--format text|json"},
		{name: "japanese by flag", args: []string{"check", "--lang", "ja", "broken.book"}, code: 1, stdout: "エラー[E002]"},
		{name: "japanese by environment", args: []string{"check", "broken.book"}, env: map[string]string{"CHOBO_LANG": "ja"}, code: 1, stdout: "エラー[E002]"},
		{name: "japanese by locale name", args: []string{"check", "broken.book"}, env: map[string]string{"CHOBO_LANG": "ja_JP.UTF-8"}, code: 1, stdout: "エラー[E002]"},
		{name: "japanese by language tag", args: []string{"check", "broken.book"}, env: map[string]string{"CHOBO_LANG": "ja-JP"}, code: 1, stdout: "エラー[E002]"},
		{name: "english by locale name", args: []string{"check", "broken.book"}, env: map[string]string{"CHOBO_LANG": "en_US.UTF-8"}, code: 1, stdout: "error[E002]"},
		{name: "flag beats environment", args: []string{"check", "--lang", "en", "broken.book"}, env: map[string]string{"CHOBO_LANG": "ja"}, code: 1, stdout: "error[E002]"},
		{name: "japanese usage error", args: []string{"check", "--lang", "ja", "--nope", "clean.book"}, code: 2, stderr: "--nope というフラグはありません"},
		{name: "json", args: []string{"check", "--format", "json", "broken.book"}, code: 1, stdout: `"code": "E002"`},
		{name: "explain", args: []string{"explain", "E001"}, code: 0, stdout: "E001"},
		{name: "explain lower case", args: []string{"explain", "e001"}, code: 0, stdout: "E001"},
		{name: "explain unknown", args: []string{"explain", "E999"}, code: 2, stderr: "no code E999"},
		{name: "explain needs one", args: []string{"explain"}, code: 2, stderr: "one code or --all"},
		{name: "explain not both", args: []string{"explain", "E001", "--all"}, code: 2, stderr: "one code or --all"},
		{name: "run", args: []string{"run", "clean.book", "--scenario", "race.json"}, code: 0, stdout: "2 possible outcomes"},
		{name: "run json", args: []string{"run", "clean.book", "--scenario", "race.json", "--format", "json"}, code: 0, stdout: `"reason": "out_of_stock"`},
		{name: "run japanese", args: []string{"run", "--lang", "ja", "clean.book", "--scenario", "race.json"}, code: 0, stdout: "とりうる結果は 2 通り"},
		{name: "run needs a scenario", args: []string{"run", "clean.book"}, code: 2, stderr: "--scenario is required"},
		{name: "run broken book", args: []string{"run", "broken.book", "--scenario", "race.json"}, code: 1, stderr: "error[E002]", noStdout: true},
		{name: "run bad scenario", args: []string{"run", "clean.book", "--scenario", "bad.json"}, code: 1, stderr: "no transfer", noStdout: true},
		{name: "run missing scenario", args: []string{"run", "clean.book", "--scenario", "none.json"}, code: 2, stderr: "cannot read none.json"},
		{name: "run one book only", args: []string{"run", "clean.book", "clean.book", "--scenario", "race.json"}, code: 2, stderr: "wrong number of arguments"},
		{name: "scenarios", args: []string{"scenarios", "clean.book"}, code: 0, stdout: `"name": "sell.do twice with the same key and content: done_before"`},
		{name: "scenarios broken book", args: []string{"scenarios", "broken.book"}, code: 1, stderr: "error[E002]", noStdout: true},
		{name: "scenarios needs a book", args: []string{"scenarios"}, code: 2, stderr: "wrong number of arguments"},
		{name: "global lang before the command", args: []string{"--lang", "ja", "check", "broken.book"}, code: 1, stdout: "エラー[E002]"},
		{name: "global lang before run", args: []string{"--lang", "ja", "run", "clean.book", "--scenario", "race.json"}, code: 0, stdout: "とりうる結果は 2 通り"},
		{name: "lang after the command wins", args: []string{"--lang", "ja", "check", "--lang", "en", "broken.book"}, code: 1, stdout: "error[E002]"},
		{name: "global help before the command", args: []string{"--help", "check"}, code: 0, stdout: "--format text|json"},
		{name: "global help in japanese", args: []string{"--lang", "ja", "--help"}, code: 0, stdout: "コマンド:"},
		{name: "global version before the command", args: []string{"--version", "check"}, code: 0, stdout: "chobo " + Version},
		{name: "global lang needs a known value", args: []string{"--lang", "fr", "check", "clean.book"}, code: 2, stderr: `--lang takes one of en, ja, not "fr"`, noStdout: true},
		{name: "global lang needs a value", args: []string{"--lang"}, code: 2, stderr: "--lang needs a value"},
		{name: "only global flags", args: []string{"--lang", "ja"}, code: 2, stderr: "使い方:", noStdout: true},
		{name: "unknown global flag in japanese", args: []string{"--nope", "--lang", "ja", "check"}, code: 2, stderr: "--nope というフラグはありません"},
		{name: "unknown global flag is escaped", args: []string{"--\x1b[2J"}, code: 2, stderr: `unknown flag --\x1b[2J`},
		{name: "trailing text", args: []string{"run", "clean.book", "--scenario", "trailing.json"}, code: 1, stderr: "chobo run: trailing.json: line 1, column 28: more text after the end", noStdout: true},
		{name: "trailing text in japanese", args: []string{"run", "--lang", "ja", "clean.book", "--scenario", "trailing.json"}, code: 1, stderr: "chobo run: trailing.json: 1 行 28 列: JSON の値が終わった後に"},
		{name: "duplicate key", args: []string{"run", "clean.book", "--scenario", "twice.json"}, code: 1, stderr: `line 1, column 15: the key "name" appears twice`},
		{name: "duplicate key in japanese", args: []string{"run", "--lang", "ja", "clean.book", "--scenario", "twice.json"}, code: 1, stderr: `キー "name" が一つのオブジェクトに二度あります`},
		{name: "byte order mark", args: []string{"run", "clean.book", "--scenario", "bom.json"}, code: 1, stderr: "bom.json: the file starts with a byte order mark (U+FEFF)"},
		{name: "byte order mark in japanese", args: []string{"run", "--lang", "ja", "clean.book", "--scenario", "bom.json"}, code: 1, stderr: "バイト順マーク(U+FEFF)があります"},
		{name: "empty scenario file", args: []string{"run", "clean.book", "--scenario", "empty.json"}, code: 1, stderr: "empty.json: the file is empty"},
		{name: "empty scenario file in japanese", args: []string{"run", "--lang", "ja", "clean.book", "--scenario", "empty.json"}, code: 1, stderr: "ファイルが空です"},
		{name: "a number as the file", args: []string{"run", "clean.book", "--scenario", "number.json"}, code: 1, stderr: "number.json: the file holds a number; write one scenario object"},
		{name: "a number as the file in japanese", args: []string{"run", "--lang", "ja", "clean.book", "--scenario", "number.json"}, code: 1, stderr: "ファイルの中身が数です"},
		{name: "not utf-8", args: []string{"run", "clean.book", "--scenario", "latin1.json"}, code: 1, stderr: "latin1.json: line 1, column 14: byte 0xe9 is not UTF-8"},
		{name: "not utf-8 in japanese", args: []string{"run", "--lang", "ja", "clean.book", "--scenario", "latin1.json"}, code: 1, stderr: "バイト 0xe9 は UTF-8 ではありません"},
		{name: "missing parameter", args: []string{"run", "clean.book", "--scenario", "missing.json"}, code: 1, stderr: `step 1: op "sell.do": sku is missing from "args"`, noStdout: true},
		{name: "missing parameter in japanese", args: []string{"run", "--lang", "ja", "clean.book", "--scenario", "missing.json"}, code: 1, stderr: `ステップ 1: op "sell.do": "args" に sku がありません`},
		{name: "run output is escaped", args: []string{"run", "clean.book", "--scenario", "escape.json"}, code: 0, stdout: `stock(s\u202e1)  posted 1`},
		{name: "run output escapes a call", args: []string{"run", "clean.book", "--scenario", "escape.json"}, code: 0, stdout: `receive.do(delivery: \x1b[31mred, sku: s\u202e1, qty: 1)`},
		{name: "run json keeps json escapes", args: []string{"run", "clean.book", "--scenario", "escape.json", "--format", "json"}, code: 0, stdout: "\"account\": \"stock(s\u202e1)\""},
		{name: "explain escapes the code", args: []string{"explain", "\x1b[31m"}, code: 2, stderr: `no code \x1b[31m`},
		{name: "against", args: []string{"check", "clean.book", "--against", "older.book"}, code: 1, stdout: "error[E050]: clean.book:4:3: the account kind `stock` changed its lower bound across 0, `at least -1` → `at least 0`"},
		{name: "against in japanese", args: []string{"check", "--lang", "ja", "clean.book", "--against", "older.book"}, code: 1, stdout: "エラー[E050]: clean.book:4:3: 勘定の種類 `stock` の下限が 0 をまたいで変わりました"},
		{name: "against as json", args: []string{"check", "--format", "json", "clean.book", "--against", "older.book"}, code: 1, stdout: `"code": "E050"`},
		{name: "against itself", args: []string{"check", "clean.book", "--against", "clean.book"}, code: 0, stdout: "clean.book: ok"},
		{name: "against takes one book", args: []string{"check", "clean.book", "older.book", "--against", "older.book"}, code: 2, stderr: "--against compares one book with one previous version; 2 books are given", noStdout: true},
		{name: "against needs a value", args: []string{"check", "clean.book", "--against"}, code: 2, stderr: "--against needs a value"},
		{name: "against an unreadable file", args: []string{"check", "clean.book", "--against", "none.book"}, code: 2, stderr: "chobo check: cannot read none.book", noStdout: true},
		{name: "against a book with errors", args: []string{"check", "clean.book", "--against", "broken.book"}, code: 2, stderr: "chobo check: the previous version broken.book has 1 error, so it cannot be what is deployed and there is nothing to compare with; the first: broken.book:3:17: E002", noStdout: true},
		{name: "a book with errors is not compared", args: []string{"check", "broken.book", "--against", "clean.book"}, code: 1, stdout: "error[E002]"},
		{name: "against and diff-base", args: []string{"check", "clean.book", "--against", "older.book", "--diff-base", "HEAD"}, code: 2, stderr: "give --against or --diff-base, not both", noStdout: true},
		{name: "run deploys", args: []string{"run", "clean.book", "--scenario", "scen/deploy.json"}, code: 0, stdout: "  2  deploy v2.book (shop v2)"},
		{name: "run deploys in japanese", args: []string{"run", "clean.book", "--scenario", "scen/deploy.json", "--lang", "ja"}, code: 0, stdout: "  2  デプロイ v2.book(shop v2)"},
		{name: "run deploys as json", args: []string{"run", "clean.book", "--scenario", "scen/deploy.json", "--format", "json"}, code: 0, stdout: `"deploys": [
        {
          "step": 2,
          "file": "v2.book",
          "book": "shop",
          "version": 2
        }`},
		{name: "run derived deploys", args: []string{"run", "clean.book", "--scenario", "derived.json"}, code: 0, stdout: "  2  deploy shop v2: stock at most 3 refused as stock_full\n"},
		{name: "run derived deploys from the version before", args: []string{"run", "clean.book", "--scenario", "derived.json"}, code: 0, stdout: "  4  deploy shop v3: stock no upper bound\n"},
		{name: "run derived deploys in japanese", args: []string{"run", "clean.book", "--scenario", "derived.json", "--lang", "ja"}, code: 0, stdout: "  4  デプロイ shop v3: stock 上限なし\n"},
		{name: "run derived deploys as json", args: []string{"run", "clean.book", "--scenario", "derived.json", "--format", "json"}, code: 0, stdout: `"deploys": [
        {
          "step": 2,
          "bounds": {
            "stock": {
              "at_most": "3 refused as stock_full"
            }
          },
          "book": "shop",
          "version": 2
        },`},
		{name: "derived deploy across 0", args: []string{"run", "clean.book", "--scenario", "derived-cross.json"}, code: 1, noStdout: true,
			stderr: "error[E050]: clean.book v2 (derived):4:3: the account kind `stock` changed its lower bound across 0"},
		{name: "derived deploy across 0 says why it stops", args: []string{"run", "clean.book", "--scenario", "derived-cross.json"}, code: 1, noStdout: true,
			stderr: `chobo run: derived-cross.json: scenario 1: "cross": step 1: deploy v2: clean.book v2 (derived) cannot follow shop v1: 1 error above`},
		{name: "derived deploy of an unknown kind", args: []string{"run", "clean.book", "--scenario", "derived-unknown.json"}, code: 1, noStdout: true,
			stderr: `step 1: deploy: bounds: shop v1 has no account kind "stok"; its kinds are stock, world`},
		{name: "a derived deploy after a derived deploy", args: []string{"run", "clean.book", "--scenario", "derived-twice.json"}, code: 1, noStdout: true,
			stderr: "error[E050]: clean.book v3 (derived):4:3: the account kind `stock` changed its lower bound across 0"},
		{name: "show refuses a derived deploy", args: []string{"run", "clean.book", "--scenario", "derived.json", "--show", "tigerbeetle"}, code: 1, noStdout: true,
			stderr: "step 2: deploy v2: this command runs no deploy steps; `chobo run` does, without --show"},
		{name: "deploy across 0", args: []string{"run", "clean.book", "--scenario", "scen/cross.json"}, code: 1, noStdout: true,
			stderr: "error[E050]: scen/cross.book:4:3: the account kind `stock` changed its lower bound across 0"},
		{name: "deploy across 0 says why it stops", args: []string{"run", "clean.book", "--scenario", "scen/cross.json"}, code: 1, noStdout: true,
			stderr: `chobo run: scen/cross.json: scenario 1: "cross": step 1: deploy "cross.book": scen/cross.book cannot follow shop v1: 1 error above`},
		{name: "deploy of another book", args: []string{"run", "clean.book", "--scenario", "scen/other.json"}, code: 1, noStdout: true,
			stderr: "scen/other.book holds the book store, not shop: a deploy step puts a new version of the same book in place"},
		{name: "deploy of a file not there", args: []string{"run", "clean.book", "--scenario", "scen/missing.json"}, code: 1, noStdout: true,
			stderr: "cannot read scen/v9.book"},
		{name: "show refuses a deploy", args: []string{"run", "clean.book", "--scenario", "scen/deploy.json", "--show", "postgres"}, code: 1, noStdout: true,
			stderr: "deploy \"v2.book\": this command runs no deploy steps; `chobo run` does, without --show"},
		{name: "doc refuses a deploy", args: []string{"doc", "clean.book", "--scenario", "scen/deploy.json"}, code: 1, noStdout: true,
			stderr: "deploy \"v2.book\": this command runs no deploy steps"},
		{name: "explain all markdown", args: []string{"explain", "--all", "--format", "markdown"}, code: 0, stdout: "| code | severity | what |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, out, errb := testEnv(tt.env)
			code := Main(tt.args, env)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errb)
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, out)
			}
			if !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errb)
			}
			if tt.noStdout && out.Len() > 0 {
				t.Errorf("stdout should be empty:\n%s", out)
			}
		})
	}
}

// A scenario's tenant is what --show sends the calls for: the first
// argument of every function, and a part of every TigerBeetle id.
func TestShowUsesTheTenant(t *testing.T) {
	show := func(file, backend string) string {
		env, out, errb := testEnv(nil)
		if code := Main([]string{"run", "clean.book", "--scenario", file, "--show", backend}, env); code != ExitOK {
			t.Fatalf("--show %s with %s: exit %d\n%s", backend, file, code, errb)
		}
		return out.String()
	}
	if got := show("tenant.json", "postgres"); !strings.Contains(got, `["shop-1","d-1","s-1",1,"(call id)"]`) {
		t.Errorf("--show postgres does not send the scenario's tenant:\n%s", got)
	}
	if got := show("no_tenant.json", "postgres"); !strings.Contains(got, `["","d-1","s-1",1,"(call id)"]`) {
		t.Errorf("--show postgres without a tenant does not send the empty one:\n%s", got)
	}
	if show("tenant.json", "tigerbeetle") == show("no_tenant.json", "tigerbeetle") {
		t.Error("--show tigerbeetle gives the same ids for two tenants")
	}
}

// TestHelpListsEveryFlag guards the promise that parsing and --help read
// the same table: every flag a command accepts appears in its help.
func TestHelpListsEveryFlag(t *testing.T) {
	for _, c := range Commands {
		env, out, _ := testEnv(nil)
		if code := Main([]string{c.Name, "--help"}, env); code != 0 {
			t.Fatalf("%s --help: exit %d", c.Name, code)
		}
		for _, f := range append(append([]Flag{}, c.Flags...), commonFlags...) {
			if !strings.Contains(out.String(), "--"+f.Name) {
				t.Errorf("%s --help does not list --%s", c.Name, f.Name)
			}
		}
	}
}

// TestRunBudget lowers the budget so that a small race goes past it: the
// run stops with exit 1, prints no outcome, and says why in each language.
func TestRunBudget(t *testing.T) {
	defer func(b int) { runBudget = b }(runBudget)
	runBudget = 30 // the first step takes 21: one ledger and one path
	for _, v := range []struct{ lang, want string }{
		{"en", `chobo run: races.json: scenario 1: "races": step 2: the scenario has too many ways to run`},
		{"ja", `chobo run: races.json: シナリオ 1: "races": ステップ 2: このシナリオの進み方が多すぎます`},
	} {
		env, out, errb := testEnv(nil)
		if code := Main([]string{"run", "--lang", v.lang, "clean.book", "--scenario", "races.json"}, env); code != ExitError {
			t.Errorf("%s: exit %d, want %d", v.lang, code, ExitError)
		}
		if out.Len() > 0 || !strings.Contains(errb.String(), v.want) {
			t.Errorf("%s: stdout %q, stderr %q; want %q", v.lang, out, errb, v.want)
		}
	}
}

// TestRunRefusesWhatConformanceCannotTime: a scenario whose passes no
// test copy can time is refused by `chobo run` and `chobo doc
// --scenario` at once, with exit 1, nothing on standard output, and the
// conformance test's own words; the same holds kept apart run.
func TestRunRefusesWhatConformanceCannotTime(t *testing.T) {
	for _, cmd := range [][]string{{"run", "lifetimes.book", "--scenario"}, {"doc", "lifetimes.book", "--scenario"}} {
		for _, v := range []struct{ lang, want string }{
			{"en", `: together_held.json: scenario 1: "held at once": the conformance test cannot run this scenario: it runs every scenario on a test copy of the book where every hold lasts 3 seconds`},
			{"ja", `: together_held.json: シナリオ 1: "held at once": このシナリオは突き合わせのテストで流せません。`},
		} {
			env, out, errb := testEnv(nil)
			args := append(append([]string{}, cmd...), "together_held.json", "--lang", v.lang)
			if code := Main(args, env); code != ExitError {
				t.Errorf("%s %s: exit %d, want %d", cmd[0], v.lang, code, ExitError)
			}
			if out.Len() > 0 || !strings.Contains(errb.String(), "chobo "+cmd[0]+v.want) {
				t.Errorf("%s %s: stdout %q, stderr %q; want %q", cmd[0], v.lang, out, errb, v.want)
			}
			for _, fact := range []string{"cart(o-1, s-1)", "layaway(o-2, s-1)"} {
				if !strings.Contains(errb.String(), fact) {
					t.Errorf("%s %s: the refusal does not name %s: %s", cmd[0], v.lang, fact, errb)
				}
			}
		}
		env, _, errb := testEnv(nil)
		if code := Main(append(append([]string{}, cmd...), "apart.json"), env); code != ExitOK {
			t.Errorf("%s apart.json: exit %d: %s", cmd[0], code, errb)
		}
	}
}

// Under `bazel run`, chobo runs in its runfiles tree; relative names are
// the user's, from the directory Bazel names in BUILD_WORKING_DIRECTORY.
func TestBuildWorkingDirectory(t *testing.T) {
	wd := t.TempDir()
	if err := os.WriteFile(filepath.Join(wd, "clean.book"), []byte(cleanBook), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "older.book"), []byte(strings.Replace(cleanBook, "at least 0", "at least 1", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The process's working directory holds no book: only wd does.
	t.Chdir(t.TempDir())
	run := func(bwd string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		env := Env{Stdout: &out, Stderr: &errb, ReadFile: os.ReadFile,
			Getenv: func(k string) string {
				if k == "BUILD_WORKING_DIRECTORY" {
					return bwd
				}
				return ""
			}}
		return Main(args, env), out.String(), errb.String()
	}

	code, out, errs := run(wd, "check", "clean.book")
	if code != ExitOK || !strings.Contains(out, "clean.book: ") {
		t.Fatalf("check under BUILD_WORKING_DIRECTORY: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	// The name is printed as the user gave it, not as resolved.
	if strings.Contains(out, wd) {
		t.Errorf("check printed the resolved path:\n%s", out)
	}
	if code, out, errs := run(wd, "check", "clean.book", "--against", "older.book"); code == ExitUsage {
		t.Fatalf("--against under BUILD_WORKING_DIRECTORY: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if code, _, errs := run(wd, "build", "clean.book", "--target", "postgres", "--out", "gen"); code != ExitOK {
		t.Fatalf("build under BUILD_WORKING_DIRECTORY: exit %d\n%s", code, errs)
	}
	if m, _ := filepath.Glob(filepath.Join(wd, "gen", "*.sql")); len(m) != 1 {
		t.Errorf("build --out gen wrote %v in %s, want one .sql file", m, filepath.Join(wd, "gen"))
	}
	if code, _, errs := run(wd, "scenarios", "clean.book", "--out", "gen"); code != ExitOK {
		t.Fatalf("scenarios under BUILD_WORKING_DIRECTORY: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(wd, "gen", "shop.scenarios.json")); err != nil {
		t.Errorf("scenarios --out gen: %v", err)
	}
	// An absolute name stays as it is.
	if code, _, errs := run(t.TempDir(), "check", filepath.Join(wd, "clean.book")); code != ExitOK {
		t.Fatalf("absolute name under BUILD_WORKING_DIRECTORY: exit %d\n%s", code, errs)
	}
	// Without the variable, names are the process's own: here, none exists.
	if code, _, errs := run("", "check", "clean.book"); code != ExitUsage || !strings.Contains(errs, "cannot read clean.book") {
		t.Fatalf("check without BUILD_WORKING_DIRECTORY: exit %d, want %d and a read error\n%s", code, ExitUsage, errs)
	}
}

// TestBuildSortsItsDiagnostics: a target reports in the order it walks
// the book; build prints by place, as check does.
func TestBuildSortsItsDiagnostics(t *testing.T) {
	long := strings.Repeat("a", 70)
	book := "book shop v1\nunit pcs\naccount stock_" + long + " : pcs\n  at least 0 refused as out\naccount world : pcs outside\n" +
		"transfer receive(delivery: string, sku_" + long + ": string, qty: pcs)\n  key delivery, sku_" + long + "\n  move qty from world to stock_" + long + "\n"
	var out, errb bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" },
		ReadFile: func(string) ([]byte, error) { return []byte(book), nil }}
	if code := Main([]string{"build", "long.book", "--target", "postgres", "--out", t.TempDir()}, env); code != ExitError {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	first, second := strings.Index(errb.String(), "long.book:3:"), strings.Index(errb.String(), "long.book:6:")
	if first < 0 || second < 0 || first > second {
		t.Errorf("want line 3 before line 6:\n%s", errb.String())
	}
}

// TestBuildPackage: --package is checked by the rules of the target's
// language, in the language of the messages, and a language whose
// clients have no package name leaves it unread.
func TestBuildPackage(t *testing.T) {
	type buildCase struct {
		target, pkg string
		lang        string
		code        int
		stderr      string
	}
	cases := []buildCase{
		{"postgres-go", "stock", "en", ExitOK, ""},
		{"postgres-go", "stock-2", "en", ExitUsage, `--package "stock-2" is not a Go identifier`},
		{"tigerbeetle-go", "stock-2", "ja", ExitUsage, `--package "stock-2" は Go の識別子ではありません`},
		{"postgres", "stock-2", "en", ExitOK, ""},
	}
	// Every client target whose files are not named by a package.
	for _, tg := range target.All {
		if tg.Client() != nil && !slices.ContainsFunc(tg.Files, func(f string) bool { return strings.Contains(f, "<package>") }) {
			cases = append(cases, buildCase{tg.Name, "stock-2", "en", ExitOK, ""})
		}
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		env := Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" },
			ReadFile: func(string) ([]byte, error) { return []byte(cleanBook), nil }}
		dir := t.TempDir()
		code := Main([]string{"build", "clean.book", "--target", tc.target, "--package", tc.pkg, "--lang", tc.lang, "--out", dir}, env)
		if code != tc.code || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("%s --package %s: exit %d, want %d and %q\n%s", tc.target, tc.pkg, code, tc.code, tc.stderr, errb.String())
		}
		if tc.code == ExitOK && tc.target == "postgres-go" {
			if _, err := os.Stat(filepath.Join(dir, tc.pkg, "book.go")); err != nil {
				t.Errorf("%s --package %s: %v", tc.target, tc.pkg, err)
			}
		}
	}
}

// A scenario with a deploy step, however it was read, shows nothing of
// what a client sends: the clients are built from one version.
func TestShowRefusesADeployStep(t *testing.T) {
	res := check.Check("clean.book", []byte(cleanBook))
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	same := func(cur *book.Book, _ *scenario.Deploy) (*book.Book, error) { return cur, nil }
	scs, err := scenario.ReadWith(res.Book, []byte(`{"name": "x", "steps": [{"deploy": "again.book"}]}`), same)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(res.Book, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	const want = "step 1: a deploy step puts another version of the book in place"
	if _, err := show.Steps(m, scs[0]); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("postgres: %v", err)
	}
	if _, err := show.TigerBeetleSteps(res.Book, tigerbeetle.Def(res.Book), scs[0], ""); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("tigerbeetle: %v", err)
	}
}
