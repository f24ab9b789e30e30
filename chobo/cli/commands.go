package cli

import (
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/target"
)

// Commands is the table of subcommands, in the order --help lists them.
var Commands []Command

// Each command is written by a function of its own, in the order --help
// lists them.
func init() {
	Commands = []Command{
		checkCommand(),
		runCommand(),
		scenariosCommand(),
		buildCommand(),
		migrateCommand(),
		apiCommand(),
		docCommand(),
		explainCommand(),
	}
}

func checkCommand() Command {
	return Command{
		Name: "check", Args: "<file.book>...",
		Summary: diag.T("check books and report what could go wrong", "帳簿を検査し、起こりうる問題を報告する"),
		Flags: []Flag{
			{Name: "format", Choices: []string{"text", "json"},
				Help: diag.T("text for people (default) or json for tools", "人向けの text(既定)か、ツール向けの json")},
			{Name: "against", Value: "<file>",
				Help: diag.T("also compare the one book with its deployed version: a .book file, or the JSON `chobo api` printed for it (E050, E051, W107, W110)",
					"一つの帳簿を、デプロイしてあるバージョン(.book のファイルか、それを `chobo api` が出した JSON)とも比べる(E050、E051、W107、W110)")},
			{Name: "diff-base", Value: "<revision>",
				Help: diag.T("also compare each book with its text at that git revision; a book the revision does not have is new",
					"それぞれの帳簿を、git のそのリビジョンの中身とも比べる。そのリビジョンに無い帳簿は新しいものとする")},
			{Name: "target", Value: "<target>", Choices: target.Names(),
				Help: diag.T("also report what that build target (one of chobo build's) cannot take of each book (E060 for TigerBeetle, E061 for PostgreSQL)",
					"それぞれの帳簿について、そのビルドのターゲット(chobo build のもの)が受け取れないものも報告する(TigerBeetle は E060、PostgreSQL は E061)")},
		},
		MinArgs: 1, MaxArgs: -1, Run: runCheck,
	}
}

func runCommand() Command {
	return Command{
		Name: "run", Args: "<file.book> --scenario <file.json>",
		Summary: diag.T("run scenarios on the reference interpreter", "シナリオを参照インタプリタで実行する"),
		Flags: []Flag{
			{Name: "scenario", Value: "<file.json>", Help: diag.T("the scenario file: one scenario or an array of them, each one the conformance test can time (docs/formats.md)",
				"シナリオのファイル(シナリオ一つか、その配列)。どれも突き合わせのテストが時間を割り振れるもの(docs/formats.md)")},
			{Name: "show", Choices: []string{"postgres", "tigerbeetle"}, Help: diag.T("instead of the answers, print what a client sends to that backend", "結果の代わりに、クライアントがそのバックエンドへ送るものを表示する")},
			{Name: "format", Choices: []string{"text", "json"},
				Help: diag.T("text for people (default) or json for tools", "人向けの text(既定)か、ツール向けの json")},
		},
		MinArgs: 1, MaxArgs: 1, Run: runRun,
	}
}

func scenariosCommand() Command {
	return Command{
		Name: "scenarios", Args: "<file.book>",
		Summary: diag.T("write the scenarios that exercise a book, as JSON", "帳簿を確かめるシナリオを JSON で出力する"),
		Flags: []Flag{{Name: "out", Value: "<dir>",
			Help: diag.T("write <dir>/<book>.scenarios.json instead of printing", "標準出力ではなく <dir>/<帳簿>.scenarios.json に書き込む")}},
		MinArgs: 1, MaxArgs: 1, Run: runScenarios,
	}
}

func buildCommand() Command {
	return Command{
		Name: "build", Args: "<file.book> --target <target>",
		Summary: diag.T("write the book for a database or a client library", "帳簿をデータベースやクライアントのライブラリへ書き出す"),
		Flags: []Flag{
			{Name: "target", Value: "<target>", Choices: targetNames(), Help: diag.T("what to write: one of the targets below", "書き出すもの(下のターゲットのどれか)")},
			{Name: "out", Value: "<dir>", Help: diag.T("the directory to write into (default: the current one)", "書き込むディレクトリ(既定はカレントディレクトリ)")},
			{Name: "package", Value: "<name>", Help: diag.T("the package name of a Go client (default: the book's name when it is plain ASCII, else book)", "Go のクライアントのパッケージ名(既定は、帳簿の名前が ASCII ならその名前、それ以外は book)")},
		},
		MinArgs: 1, MaxArgs: 1, Run: runBuild, Choices: targetChoices,
	}
}

func apiCommand() Command {
	return Command{
		Name: "api", Args: "<file.book>",
		Summary: diag.T("describe how to call a book, as JSON for tools", "帳簿の呼び方を、ツール向けの JSON で出力する"),
		MinArgs: 1, MaxArgs: 1, Run: runAPI,
	}
}

func docCommand() Command {
	return Command{
		Name: "doc", Args: "<file.book>",
		Summary: diag.T("write a page on a book for the people who run the ledger",
			"台帳を運用する人向けに、帳簿を説明するページを書く"),
		Flags: []Flag{
			{Name: "format", Choices: []string{"markdown", "html"},
				Help: diag.T("markdown with Mermaid diagrams (default), or html: one page that loads nothing from elsewhere",
					"Mermaid の図を入れた markdown(既定)か、html(外から何も読み込まない一つのページ)")},
			{Name: "out", Value: "<dir>",
				Help: diag.T("write <dir>/<file name>.md or .html instead of printing", "標準出力ではなく <dir>/<ファイル名>.md か .html に書き込む")},
			{Name: "scenario", Value: "<file.json>", Repeat: true,
				Help: diag.T("a scenario file of your own (as chobo run reads it), shown before the generated scenarios; may be given more than once",
					"自分で書いたシナリオのファイル(chobo run が読むもの)。生成したシナリオより前に載せる。何度でも指定できる")},
		},
		MinArgs: 1, MaxArgs: 1, Run: runDoc,
	}
}

func explainCommand() Command {
	return Command{
		Name: "explain", Args: "<code> | --all",
		Summary: diag.T("say when a diagnostic code fires and how to fix it", "診断のコードがいつ出るか、どう直すかを説明する"),
		Flags: []Flag{
			{Name: "all", Help: diag.T("explain every code", "全部のコードを説明する")},
			{Name: "format", Choices: []string{"text", "markdown"},
				Help: diag.T("text (default) or markdown", "text(既定)か markdown")},
		},
		MinArgs: 0, MaxArgs: 1, Run: runExplain,
	}
}
