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
	ExitUsage = 2 // wrong use of the command, or an internal failure
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
// flags; "--format=json" is one unknown word, not a flag with a value.
type Flag struct {
	Name    string   // without the dashes
	Value   string   // placeholder of the value; empty for a switch
	Choices []string // allowed values, when the set is closed; listed unless Value is set
	Help    diag.Text
}

func (f Flag) usage() string {
	s := "--" + f.Name
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
	Flags map[string]string // switches map to "true"
	Lang  diag.Lang
}

// Has reports whether the flag was given.
func (inv *Invocation) Has(name string) bool { _, ok := inv.Flags[name]; return ok }

var langFlag = Flag{Name: "lang", Choices: []string{"en", "ja"},
	Help: diag.T("the language of the text (default: $CHOBO_LANG, then en); JSON keys stay English",
		"出力の言語(無ければ $CHOBO_LANG、次に en)。JSON のキーは英語のまま")}

var helpFlag = Flag{Name: "help", Help: diag.T("show this help", "このヘルプを表示する")}

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
	for ; i < len(args) && strings.HasPrefix(args[i], "--"); i++ {
		switch args[i] {
		case "--version":
			g.version = true
			continue
		case "--help":
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
			fmt.Fprintf(env.Stderr, "%s\n\n", diag.T(
				fmt.Sprintf("chobo: unknown flag %s", diag.Printable(args[i])),
				fmt.Sprintf("chobo: %s というフラグはありません", diag.Printable(args[i]))).In(g.lang))
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
		case !strings.HasPrefix(args[i], "--"):
			return args[:i]
		}
	}
	return args
}

func envLang(env Env) diag.Lang {
	if l, ok := diag.ParseLang(env.Getenv("CHOBO_LANG")); ok {
		return l
	}
	return diag.English
}

// flagLang returns the language --lang asks for, or lang when it is
// absent; it is read before anything else so that every message, errors
// included, comes in that language.
func flagLang(args []string, lang diag.Lang) diag.Lang {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--lang" {
			if l, ok := diag.ParseLang(args[i+1]); ok {
				lang = l
			}
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
	inv := &Invocation{Env: env, Cmd: cmd, Flags: map[string]string{}, Lang: flagLang(args, lang)}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") {
			inv.Args = append(inv.Args, a)
			continue
		}
		f := cmd.flag(strings.TrimPrefix(a, "--"))
		if f == nil {
			usageError(env, cmd, inv.Lang, diag.T(
				fmt.Sprintf("unknown flag %s", a), fmt.Sprintf("%s というフラグはありません", a)))
			return nil, false
		}
		if _, dup := inv.Flags[f.Name]; dup {
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
