// Package cli is chobo's command line: one table of commands and flags
// that both reads the arguments and writes --help, so the two cannot
// disagree.
package cli

import (
	"fmt"
	"github.com/chobo-lang/chobo/chobo/version"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// Version is chobo's version, printed by --version.
const Version = version.Version

// Exit codes.
const (
	ExitOK    = 0 // clean, or warnings only
	ExitError = 1 // the input has errors
	ExitUsage = 2 // wrong use of the command, a file that cannot be read, or an internal failure
)

// Env is what a command may touch of the world. Tests give their own.
type Env struct {
	Stdout   io.Writer
	Stderr   io.Writer
	Getenv   func(string) string
	ReadFile func(string) ([]byte, error)
	// Dir is the directory relative file names are read from, for what
	// goes past ReadFile: `check --diff-base` runs git in the directory
	// of each book. Empty is the process's working directory.
	Dir string
}

// atBuildWorkingDirectory is env for a chobo started by `bazel run`: Bazel
// runs the program in its runfiles tree and names the directory the user
// typed the command in by BUILD_WORKING_DIRECTORY, so relative file names
// (books, --against, --out) are taken from there, as they would be by a
// chobo run directly. Outside `bazel run`, or when the caller chose Dir,
// env is returned as it is.
func (env Env) atBuildWorkingDirectory() Env {
	if env.Dir != "" || env.Getenv == nil {
		return env
	}
	wd := env.Getenv("BUILD_WORKING_DIRECTORY")
	if wd == "" {
		return env
	}
	env.Dir = wd
	if read := env.ReadFile; read != nil {
		env.ReadFile = func(name string) ([]byte, error) { return read(resolve(wd, name)) }
	}
	return env
}

// path is the file name name refers to: relative names are taken from
// Dir when it is set.
func (env Env) path(name string) string { return resolve(env.Dir, name) }

func resolve(dir, name string) string {
	if dir == "" || name == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

// OSEnv is the environment of the running process.
func OSEnv() Env {
	return Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, ReadFile: os.ReadFile}
}

// Flag is one flag of a command. Only words that start with "--" are
// flags, and -h; a flag's value is the next word, so "--format=json" is
// refused with a message that says to write "--format json".
type Flag struct {
	Name    string   // without the dashes
	Short   string   // a one-letter spelling such as "-h", or empty
	Value   string   // placeholder of the value; empty for a switch
	Choices []string // allowed values, when the set is closed; listed unless Value is set
	Help    diag.Text
	// Repeat lets the flag be given more than once; Invocation.Lists
	// keeps every value in order.
	Repeat bool
}

func (f Flag) usage() string {
	s := "--" + f.Name
	if f.Short != "" {
		s += ", " + f.Short
	}
	switch {
	case f.Value != "":
		s += " " + f.Value
	case len(f.Choices) > 0:
		s += " " + strings.Join(f.Choices, "|")
	}
	return s
}

// Command is one subcommand.
type Command struct {
	Name    string
	Args    string // the positional part of the usage line
	Summary diag.Text
	Flags   []Flag
	// MinArgs and MaxArgs bound the positional arguments; MaxArgs < 0
	// means any number.
	MinArgs, MaxArgs int
	Run              func(inv *Invocation) int
	// Choices, when set, lists the values of a flag after the flags, one
	// per line with what each means, under the heading it returns.
	Choices func() (diag.Text, []Choice)
}

// Choice is one value a flag takes, as a command's help lists it.
type Choice struct {
	Name string
	Help diag.Text
}

// Invocation is one parsed call of a command.
type Invocation struct {
	Env   Env
	Cmd   *Command
	Args  []string
	Flags map[string]string // switches map to "true"; a repeated flag to its last value
	// Lists holds every value of a flag that may be repeated, in order.
	Lists map[string][]string
	Lang  diag.Lang
}

// Has reports whether the flag was given.
func (inv *Invocation) Has(name string) bool { _, ok := inv.Flags[name]; return ok }

var langFlag = Flag{Name: "lang", Choices: []string{"en", "ja"},
	Help: diag.T("the language of the text (default: $CHOBO_LANG, then en); JSON keys stay English",
		"出力の言語(無ければ $CHOBO_LANG、次に en)。JSON のキーは英語のまま")}

var helpFlag = Flag{Name: "help", Short: "-h", Help: diag.T("show this help", "このヘルプを表示する")}

var versionFlag = Flag{Name: "version", Help: diag.T("print the version", "バージョンを表示する")}

// topFlags are the flags that may come before the command.
var topFlags = []Flag{versionFlag, helpFlag, langFlag}

// commonFlags every command accepts.
var commonFlags = []Flag{langFlag, helpFlag}

// Main runs chobo with args (without the program name) and returns the
// exit code.
func Main(args []string, env Env) int {
	env = env.atBuildWorkingDirectory()
	lang := envLang(env)
	g, rest, ok := globalFlags(args, env, lang)
	if !ok {
		return ExitUsage
	}
	lang = g.lang
	if g.version {
		fmt.Fprintf(env.Stdout, "chobo %s\n", Version)
		return ExitOK
	}
	if len(rest) == 0 {
		if g.help {
			writeTopHelp(env.Stdout, lang)
			return ExitOK
		}
		writeTopHelp(env.Stderr, lang)
		return ExitUsage
	}
	first := rest[0]
	if first == "help" {
		return runHelp(env, lang, rest[1:])
	}
	cmd := find(first)
	if cmd == nil {
		fmt.Fprintf(env.Stderr, "%s\n\n", diag.T(
			fmt.Sprintf("chobo: unknown command %q", first),
			fmt.Sprintf("chobo: %q というコマンドはありません", first)).In(lang))
		writeTopHelp(env.Stderr, lang)
		return ExitUsage
	}
	inv, ok := parse(cmd, rest[1:], env, lang)
	if !ok {
		return ExitUsage
	}
	if g.help || inv.Has("help") {
		writeCommandHelp(env.Stdout, cmd, inv.Lang)
		return ExitOK
	}
	if len(inv.Args) < cmd.MinArgs || (cmd.MaxArgs >= 0 && len(inv.Args) > cmd.MaxArgs) {
		usageError(env, cmd, inv.Lang, argCountError(cmd, len(inv.Args)))
		return ExitUsage
	}
	return cmd.Run(inv)
}

// global is what the flags before the command ask for.
type global struct {
	lang          diag.Lang
	help, version bool
}

// globalFlags reads the flags that may come before the command, as the
// top help lists them: `chobo --lang ja check x.book` is `chobo check
// --lang ja x.book`. It returns the arguments from the command on, and
// false after printing why when a flag there is wrong.
func globalFlags(args []string, env Env, lang diag.Lang) (global, []string, bool) {
	g := global{lang: flagLang(leadingFlags(args), lang)}
	i := 0
	for ; i < len(args) && isFlag(args[i]); i++ {
		switch args[i] {
		case "--version":
			g.version = true
			continue
		case "--help", "-h":
			g.help = true
			continue
		case "--lang":
			if i+1 < len(args) {
				if l, ok := diag.ParseLang(args[i+1]); ok {
					g.lang = l
					i++
					continue
				}
				fmt.Fprintf(env.Stderr, "%s\n\n", diag.T(
					fmt.Sprintf("chobo: --lang takes one of en, ja, not %q", args[i+1]),
					"chobo: "+choiceJa("--lang", []string{"en", "ja"}, args[i+1])).In(g.lang))
			} else {
				fmt.Fprintf(env.Stderr, "%s\n\n", diag.T("chobo: --lang needs a value", "chobo: --lang には値が要ります").In(g.lang))
			}
		default:
			msg, ok := withEquals(args[i], findFlag(topFlags, args[i]))
			if !ok {
				msg = unknownFlag(args[i])
			}
			fmt.Fprintf(env.Stderr, "chobo: %s\n\n", diag.Printable(msg.In(g.lang)))
		}
		writeTopHelp(env.Stderr, g.lang)
		return g, nil, false
	}
	return g, args[i:], true
}

// leadingFlags is the part of args before the command.
func leadingFlags(args []string) []string {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--lang":
			i++
		case !isFlag(args[i]):
			return args[:i]
		}
	}
	return args
}

// isFlag reports whether word is read as a flag: "--" and a name, or -h.
// Any other word starting with one dash is an argument, a file name.
func isFlag(word string) bool { return strings.HasPrefix(word, "--") || word == "-h" }

// envLang reads CHOBO_LANG. A locale name counts by its language, as a
// desktop sets it: ja_JP.UTF-8 or ja-JP is ja.
func envLang(env Env) diag.Lang {
	v := strings.ToLower(env.Getenv("CHOBO_LANG"))
	if i := strings.IndexAny(v, "_-.@"); i >= 0 {
		v = v[:i]
	}
	if l, ok := diag.ParseLang(v); ok {
		return l
	}
	return diag.English
}

// findFlag is the flag of flags that word names, "--name" or
// "--name=value", or nil.
func findFlag(flags []Flag, word string) *Flag {
	name, _, _ := strings.Cut(strings.TrimPrefix(word, "--"), "=")
	for i := range flags {
		if flags[i].Name == name {
			return &flags[i]
		}
	}
	return nil
}

// withEquals says how to write word, a known flag f given as
// --name=value: the value is the next word, and a switch takes none. It
// returns false when word has no "=" or f is nil.
func withEquals(word string, f *Flag) (diag.Text, bool) {
	name, value, ok := strings.Cut(strings.TrimPrefix(word, "--"), "=")
	if !ok || f == nil || !strings.HasPrefix(word, "--") {
		return diag.Text{}, false
	}
	if f.Value == "" && len(f.Choices) == 0 {
		return diag.T(fmt.Sprintf("%s is not accepted: --%s takes no value; write `--%s`", word, name, name),
			fmt.Sprintf("%s は使えません。--%s は値を取りません。`--%s` と書いてください", word, name, name)), true
	}
	return diag.T(fmt.Sprintf("%s is not accepted: a flag's value is the next word; write `--%s %s`", word, name, value),
		fmt.Sprintf("%s は使えません。フラグの値は次の語に書きます。`--%s %s` と書いてください", word, name, value)), true
}

func unknownFlag(word string) diag.Text {
	return diag.T(fmt.Sprintf("unknown flag %s", word), fmt.Sprintf("%s というフラグはありません", word))
}

// runHelp is `chobo help` and `chobo help <command>`: the same as
// `chobo --help` and `chobo <command> --help`, as other tools take it.
func runHelp(env Env, lang diag.Lang, args []string) int {
	lang = flagLang(args, lang)
	var names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--help" || a == "-h":
		case a == "--lang" && i+1 < len(args):
			if _, ok := diag.ParseLang(args[i+1]); !ok {
				fmt.Fprintf(env.Stderr, "chobo help: %s\n", diag.Printable(diag.T(
					fmt.Sprintf("--lang takes one of en, ja, not %q", args[i+1]),
					choiceJa("--lang", []string{"en", "ja"}, args[i+1])).In(lang)))
				return ExitUsage
			}
			i++
		case isFlag(a):
			msg, ok := withEquals(a, findFlag(topFlags, a))
			if !ok {
				msg = unknownFlag(a)
			}
			fmt.Fprintf(env.Stderr, "chobo help: %s\n", diag.Printable(msg.In(lang)))
			return ExitUsage
		default:
			names = append(names, a)
		}
	}
	switch len(names) {
	case 0:
		writeTopHelp(env.Stdout, lang)
		return ExitOK
	case 1:
		if cmd := find(names[0]); cmd != nil {
			writeCommandHelp(env.Stdout, cmd, lang)
			return ExitOK
		}
		fmt.Fprintf(env.Stderr, "%s\n\n", diag.Printable(diag.T(
			fmt.Sprintf("chobo help: unknown command %q", names[0]),
			fmt.Sprintf("chobo help: %q というコマンドはありません", names[0])).In(lang)))
	default:
		fmt.Fprintf(env.Stderr, "%s\n\n", diag.T(
			fmt.Sprintf("chobo help: give one command, not %d", len(names)),
			fmt.Sprintf("chobo help: コマンドは一つだけ指定してください(%d 個あります)", len(names))).In(lang))
	}
	writeTopHelp(env.Stderr, lang)
	return ExitUsage
}

// flagLang returns the language --lang asks for, or lang when it is
// absent; it is read before anything else so that every message, errors
// included, comes in that language.
//
// "--lang=ja" is refused, but the message that says so comes in Japanese:
// the one reading it asked for that.
func flagLang(args []string, lang diag.Lang) diag.Lang {
	for i, a := range args {
		v, ok := "", false
		if a == "--lang" && i+1 < len(args) {
			v, ok = args[i+1], true
		} else {
			v, ok = strings.CutPrefix(a, "--lang=")
		}
		if !ok {
			continue
		}
		if l, known := diag.ParseLang(v); known {
			lang = l
		}
	}
	return lang
}

func find(name string) *Command {
	for i := range Commands {
		if Commands[i].Name == name {
			return &Commands[i]
		}
	}
	return nil
}

func (c *Command) flag(name string) *Flag {
	for i := range c.Flags {
		if c.Flags[i].Name == name {
			return &c.Flags[i]
		}
	}
	for i := range commonFlags {
		if commonFlags[i].Name == name {
			return &commonFlags[i]
		}
	}
	return nil
}

// parse reads the arguments of cmd. On a usage error it prints the
// message and the command's usage, and returns false.
func parse(cmd *Command, args []string, env Env, lang diag.Lang) (*Invocation, bool) {
	inv := &Invocation{Env: env, Cmd: cmd, Flags: map[string]string{}, Lists: map[string][]string{}, Lang: flagLang(args, lang)}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" {
			a = "--help"
		}
		if !isFlag(a) {
			inv.Args = append(inv.Args, a)
			continue
		}
		if msg, ok := withEquals(a, cmd.flag(strings.SplitN(strings.TrimPrefix(a, "--"), "=", 2)[0])); ok {
			usageError(env, cmd, inv.Lang, msg)
			return nil, false
		}
		f := cmd.flag(strings.TrimPrefix(a, "--"))
		if f == nil {
			usageError(env, cmd, inv.Lang, unknownFlag(a))
			return nil, false
		}
		if _, dup := inv.Flags[f.Name]; dup && !f.Repeat {
			usageError(env, cmd, inv.Lang, diag.T(
				fmt.Sprintf("%s is given twice", a), fmt.Sprintf("%s が二度あります", a)))
			return nil, false
		}
		if f.Value == "" && len(f.Choices) == 0 {
			inv.Flags[f.Name] = "true"
			continue
		}
		if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
			usageError(env, cmd, inv.Lang, diag.T(
				fmt.Sprintf("%s needs a value", a), fmt.Sprintf("%s には値が要ります", a)))
			return nil, false
		}
		i++
		v := args[i]
		if len(f.Choices) > 0 && !contains(f.Choices, v) {
			usageError(env, cmd, inv.Lang, diag.T(
				fmt.Sprintf("%s takes one of %s, not %q", a, strings.Join(f.Choices, ", "), v),
				choiceJa(a, f.Choices, v)))
			return nil, false
		}
		inv.Flags[f.Name] = v
		if f.Repeat {
			inv.Lists[f.Name] = append(inv.Lists[f.Name], v)
		}
	}
	return inv, true
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func usageError(env Env, cmd *Command, lang diag.Lang, msg diag.Text) {
	fmt.Fprintf(env.Stderr, "chobo %s: %s\n\n", cmd.Name, diag.Printable(msg.In(lang)))
	writeCommandHelp(env.Stderr, cmd, lang)
}

// choiceJa says in Japanese which values a flag takes and that v is not
// one of them.
func choiceJa(flag string, choices []string, v string) string {
	switch len(choices) {
	case 1:
		return fmt.Sprintf("%s に指定できるのは %s だけです(%q は使えません)", flag, choices[0], v)
	case 2:
		return fmt.Sprintf("%s には %s か %s を指定してください(%q は使えません)", flag, choices[0], choices[1], v)
	}
	return fmt.Sprintf("%s には %s のいずれかを指定してください(%q は使えません)", flag, strings.Join(choices, "、"), v)
}

// argCountError says what a command takes when it was given n arguments
// it cannot take.
func argCountError(cmd *Command, n int) diag.Text {
	what := diag.T("one book file", "帳簿のファイルを一つ")
	switch {
	case cmd.Name == "explain":
		what = diag.T("one code, or --all", "コードを一つ(または --all)")
	case cmd.MaxArgs < 0:
		what = diag.T("one or more book files", "帳簿のファイルを一つ以上")
	}
	if n < cmd.MinArgs {
		return diag.T(fmt.Sprintf("wrong number of arguments (%d): give %s", n, what.En),
			fmt.Sprintf("%s指定してください", what.Ja))
	}
	return diag.T(fmt.Sprintf("wrong number of arguments (%d): give %s", n, what.En),
		fmt.Sprintf("%s指定してください(%d 個あります)", what.Ja, n))
}
