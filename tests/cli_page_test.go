package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/tests/golden"
)

// The CLI reference, docs/cli.md and docs/cli.ja.md, is written from the
// help chobo prints: the overview names the commands, and each command's
// own help is the section about it. Only the words around the help texts
// and the table of environment variables are written here, so a flag
// added to a command reaches the page by CHOBO_BLESS=1 and a page left
// behind fails TestCLIPage.

// cliPageText is the text of the page that is not chobo's help, per
// language.
var cliPageText = map[string]struct {
	title, twin, intro, commands, exit, exitBody, env, envBody string
}{
	"en": {
		title: "# Command-line reference",
		twin:  "[日本語](cli.ja.md)",
		intro: "Every command of `chobo`, with the help it prints for `--help`. This page is written from\n" +
			"those help texts (`CHOBO_BLESS=1 go test ./tests/ -run TestCLIPage` rewrites it, and the\n" +
			"test fails when it is behind). Flags take their value as the next word (`--format json`;\n" +
			"`--format=json` is refused), and may stand before or after the command: `chobo --lang ja\n" +
			"check x.book`. `chobo help <command>` prints the same help as `chobo <command> --help`.",
		commands: "## Commands",
		exit:     "## Exit status",
		exitBody: "The same for every command, as the overview says. In more words: 0 when the books are clean or\n" +
			"have warnings only; 1 when a book or a scenario file has errors, when `check --against` or\n" +
			"`--diff-base` finds a change the database cannot follow (E050, E051), or when a run does not give\n" +
			"what its `expect` says; 2 for a wrong use of the command, a file that cannot be read, a previous\n" +
			"version that cannot be used, or an internal failure, with nothing on standard output. A scenario\n" +
			"the conformance test cannot run is a scenario with errors, exit 1: on the test's copy of the book\n" +
			"every hold lasts 3 seconds, and each pass must get a length there, in whole seconds, that expires\n" +
			"exactly the holds it expires on the book ([formats.md](formats.md#what-a-scenario-may-hold)).\n" +
			"`chobo migrate` exits 0 when every account of the book keeps the book's bounds (it names those that\n" +
			"stand outside a narrowed bound, which it moves all the same: they answer as any account outside its\n" +
			"bound), 1 when some have holds open from before their kind had the bound (it names them, keeps their\n" +
			"old bound and moves every other account), and\n" +
			"2 when it cannot reach the cluster, is stopped, or TigerBeetle answers what it does not expect; a\n" +
			"second run goes on from where the first stopped ([targets.md](targets.md#changing-a-bound)).",
		env: "## Environment variables",
		envBody: "| variable | read by | what it does |\n|---|---|---|\n" +
			"| `CHOBO_LANG` | every command | the language of the text when `--lang` is not given: `ja`, or a locale name such as `ja_JP.UTF-8` or `ja-JP`, gives Japanese; any other value, or none, English |\n" +
			"| `BUILD_WORKING_DIRECTORY` | every command, under `bazel run` | set by Bazel: file names on the command line are taken from that directory, where the command was typed |\n" +
			"| `TB_ADDRESS` | `chobo migrate` | the replicas of the cluster when `--addresses` is not given, as `--addresses` takes them |\n" +
			"| `CHOBO_TIGERBEETLE` | the tests and the conformance runner | the `tigerbeetle` server binary to run real replicas with; without it the tests that need one print a `SKIP:` line |\n" +
			"| `CHOBO_PG_BIN` | the tests and the conformance runner | a directory holding `initdb`, `pg_ctl` and `postgres`; else the newest `/usr/lib/postgresql/*/bin`, else `initdb` on `PATH` |\n" +
			"| `CHOBO_PG_VERSION` | the tests | `15` or `18`: run on the pinned build of that version that `tests/setup.sh` fetched |\n" +
			"| `CHOBO_BLESS` | the tests | `1` rewrites the golden files and the outputs shown in the docs with what chobo prints now |",
	},
	"ja": {
		title: "# コマンドのリファレンス",
		twin:  "[English](cli.md)",
		intro: "`chobo` のすべてのコマンドと、`--help` で出るヘルプです。このページはそのヘルプから書いています\n" +
			"(`CHOBO_BLESS=1 go test ./tests/ -run TestCLIPage` で書き直し、遅れているとテストが落ちます)。\n" +
			"フラグの値は次の語に書きます(`--format json`。`--format=json` は受け付けません)。フラグはコマンドの\n" +
			"前にも後ろにも書けます: `chobo --lang ja check x.book`。`chobo help <command>` は\n" +
			"`chobo <command> --help` と同じヘルプを出します。",
		commands: "## コマンド",
		exit:     "## 終了コード",
		exitBody: "どのコマンドでも同じで、一覧のヘルプのとおりです。もう少し詳しく言うと、0 は帳簿に問題がないか警告だけ。\n" +
			"1 は帳簿やシナリオのファイルにエラーがある、`check --against` や `--diff-base` がデータベースのついて\n" +
			"いけない変更(E050、E051)を見つけた、実行が `expect` のとおりにならなかった。2 はコマンドの使い方の\n" +
			"誤り、読めないファイル、使えない前のバージョン、内部の異常で、このときは標準出力に何も出しません。\n" +
			"突き合わせのテストで流せないシナリオも、エラーのあるシナリオとして 1 になります。テストが使う帳簿の写しでは\n" +
			"仮押さえがどれも 3 秒で期限切れになり、経過のそれぞれに、帳簿でその経過が期限切れにする仮押さえを\n" +
			"ちょうど期限切れにする長さを、秒単位で与えられなければなりません([formats.md](formats.md#what-a-scenario-may-hold))。\n" +
			"`chobo migrate` は、帳簿のどの勘定も帳簿の境界に揃えば 0(狭めた境界の外にある勘定は挙げますが、\n" +
			"そのまま動かします。境界の外にあるほかの勘定と同じように答えます)、種類に境界がなかったころの\n" +
			"仮押さえが残っている勘定があれば 1(その勘定を挙げ、元の境界のまま残し、ほかの勘定は動かします)、\n" +
			"クラスターにつなげない、止められた、\n" +
			"TigerBeetle が思わぬ答えを返したときは 2 です。もう一度実行すれば止まったところから続けます\n" +
			"([targets.ja.md](targets.ja.md#境界を変えるとき))。",
		env: "## 環境変数",
		envBody: "| 変数 | 読むもの | はたらき |\n|---|---|---|\n" +
			"| `CHOBO_LANG` | どのコマンドも | `--lang` がないときの出力の言語。`ja`、または `ja_JP.UTF-8` や `ja-JP` のようなロケール名なら日本語、ほかの値や空なら英語 |\n" +
			"| `BUILD_WORKING_DIRECTORY` | `bazel run` で動かしたどのコマンドも | Bazel が入れる変数。コマンドラインのファイル名を、コマンドを打ったこのフォルダーから読みます |\n" +
			"| `TB_ADDRESS` | `chobo migrate` | `--addresses` がないときのクラスターのレプリカ。書き方は `--addresses` と同じ |\n" +
			"| `CHOBO_TIGERBEETLE` | テストと突き合わせのランナー | 本物のレプリカを動かす `tigerbeetle` のサーバーのバイナリ。なければ、それが要るテストは `SKIP:` の行を出します |\n" +
			"| `CHOBO_PG_BIN` | テストと突き合わせのランナー | `initdb`、`pg_ctl`、`postgres` のあるフォルダー。なければいちばん新しい `/usr/lib/postgresql/*/bin`、その次に `PATH` の `initdb` |\n" +
			"| `CHOBO_PG_VERSION` | テスト | `15` か `18`。`tests/setup.sh` が取ってきたそのバージョンの固定のビルドで動かします |\n" +
			"| `CHOBO_BLESS` | テスト | `1` にすると、ゴールデンファイルとドキュメントに載せた出力を、いまの chobo の出力で書き直します |",
	},
}

// helpCommands are the commands the overview help lists, in its order.
func helpCommands(t *testing.T, overview string) []string {
	t.Helper()
	var names []string
	in := false
	for _, l := range strings.Split(overview, "\n") {
		switch {
		case l == "commands:" || l == "コマンド:":
			in = true
		case in && strings.HasPrefix(l, "  "):
			names = append(names, strings.Fields(l)[0])
		case in:
			in = false
		}
	}
	if len(names) == 0 {
		t.Fatalf("the overview help lists no command:\n%s", overview)
	}
	return names
}

// cliPage writes the reference in lang.
func cliPage(t *testing.T, lang string) string {
	t.Helper()
	text := cliPageText[lang]
	help := func(args ...string) string {
		out, errOut, code := run(".", nil, append(args, "--lang", lang)...)
		if code != 0 {
			t.Fatalf("chobo %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		return out
	}
	overview := help("--help")
	// As a console block of the docs the command must print what follows
	// it, and the doc test runs it without CHOBO_LANG.
	suffix := ""
	if lang != "en" {
		suffix = " --lang " + lang
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n\n<!-- Written by TestCLIPage from chobo's help; edit the help or tests/cli_page_test.go, not this file. -->\n\n%s\n\n", text.title, text.twin, text.intro)
	fmt.Fprintf(&b, "```console\n$ chobo --help%s\n%s```\n\n%s\n\n", suffix, overview, text.commands)
	for _, name := range helpCommands(t, overview) {
		fmt.Fprintf(&b, "### `chobo %s`\n\n```console\n$ chobo %s --help%s\n%s```\n\n", name, name, suffix, help(name, "--help"))
	}
	var exit string
	for _, l := range strings.Split(overview, "\n") {
		if strings.HasPrefix(l, "Exit status:") || strings.HasPrefix(l, "終了コード:") {
			exit = l
		}
	}
	if exit == "" {
		t.Fatalf("the overview help says nothing of the exit status:\n%s", overview)
	}
	fmt.Fprintf(&b, "%s\n\n%s\n\n> %s\n\n%s\n\n%s\n", text.exit, text.exitBody, exit, text.env, text.envBody)
	return b.String()
}

// TestCLIPage keeps docs/cli.md and docs/cli.ja.md equal to what chobo's
// help says.
func TestCLIPage(t *testing.T) {
	for _, v := range []struct{ lang, file string }{{"en", "cli.md"}, {"ja", "cli.ja.md"}} {
		page := cliPage(t, v.lang)
		if n := strings.Count(page, "### `chobo "); n < 7 {
			t.Fatalf("the %s page has %d commands", v.lang, n)
		}
		golden.Check(t, filepath.Join("..", "docs", v.file), []byte(page))
	}
}
