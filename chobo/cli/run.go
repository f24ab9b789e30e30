package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/evolve"
	"github.com/chobo-lang/chobo/chobo/scenario"
	"github.com/chobo-lang/chobo/chobo/show"
)

// loadBook reads and checks a book. When it has errors (or cannot be
// read) it prints why to stderr and returns the exit code to stop with.
func loadBook(inv *Invocation, name string) (*book.Book, int) {
	b, _, code := loadBookSource(inv, name)
	return b, code
}

// loadBookSource is loadBook that also returns the text the book was
// read from.
func loadBookSource(inv *Invocation, name string) (*book.Book, []byte, int) {
	src, err := inv.Env.ReadFile(name)
	if err != nil {
		fmt.Fprintf(inv.Env.Stderr, "%s\n", diag.Printable(cannotRead(inv.Cmd.Name, name, err).In(inv.Lang)))
		return nil, nil, ExitUsage
	}
	res := check.Errors(name, src)
	if res.Book == nil {
		for _, d := range res.Diags {
			diag.WriteText(inv.Env.Stderr, d, inv.Lang)
		}
		fmt.Fprintln(inv.Env.Stderr, diag.Summary(name, res.Diags, inv.Lang))
		return nil, nil, ExitError
	}
	return res.Book, src, ExitOK
}

// runBudget bounds the work of each scenario; tests lower it.
var runBudget = scenario.Budget

func runRun(inv *Invocation) int {
	env := inv.Env
	b, src, code := loadBookSource(inv, inv.Args[0])
	if b == nil {
		return code
	}
	path, ok := inv.Flags["scenario"]
	if !ok {
		usageError(env, inv.Cmd, inv.Lang, diag.T("--scenario is required", "--scenario が要ります"))
		return ExitUsage
	}
	data, err := env.ReadFile(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s\n", diag.Printable(cannotRead("run", path, err).In(inv.Lang)))
		return ExitUsage
	}
	// What a client sends is shown for one version of the book: with
	// --show, a deploy step is refused as it is read.
	var deploy scenario.Deployer
	if _, ok := inv.Flags["show"]; !ok {
		deploy = deployer(inv, path, b, src, env.Stderr)
	}
	scs, err := scenario.ReadWith(b, data, deploy)
	if err != nil {
		scenarioError(inv, path, textOf(err))
		return ExitError
	}
	if show, ok := inv.Flags["show"]; ok {
		return runShow(inv, b, scs, show)
	}
	runs := make([][]scenario.Outcome, len(scs))
	failed := false
	for i, sc := range scs {
		// Outcomes come only once every scenario has run: a run that
		// would go on for too long prints nothing but why.
		runs[i], _, err = scenario.Explore(b, sc, runBudget)
		if err == nil {
			// What the conformance test cannot run is refused here too,
			// in the same words, rather than minutes into a test.
			_, err = scenario.Timing(sc, runs[i])
		}
		if err != nil {
			t := textOf(err)
			scenarioError(inv, path, diag.T(fmt.Sprintf("scenario %d: %q: %s", i+1, sc.Name, t.En),
				fmt.Sprintf("シナリオ %d: %q: %s", i+1, sc.Name, t.Ja)))
			return ExitError
		}
		failed = failed || len(scenario.Failures(sc, runs[i])) > 0
	}
	code = ExitOK
	if failed {
		// An expectation written in the scenario was not met.
		code = ExitError
	}
	if inv.Flags["format"] == "json" {
		if err := api.Write(env.Stdout, api.RunOf(inv.Args[0], scs, runs)); err != nil {
			fmt.Fprintf(env.Stderr, "chobo run: %v\n", err)
			return ExitUsage
		}
		return code
	}
	for i, sc := range scs {
		scenario.WriteText(env.Stdout, inv.Args[0], sc, runs[i], inv.Lang)
	}
	return code
}

// deployer makes the version of the book a deploy step of the scenario
// file at path gives: the file it names, from that file's folder, or the
// version in place with bounds changed, written as text (scenario.Derive)
// from the text of that version; first is the book the scenarios start
// from and src its text. Either is let follow the version in place only
// as a deployment could: the same book, without errors of its own, and
// with nothing the comparison with the version before it finds an error
// (E050, E051, E052). Those diagnostics go to say as `chobo check`
// writes them.
func deployer(inv *Invocation, path string, first *book.Book, src []byte, say io.Writer) scenario.Deployer {
	dir := filepath.Dir(path)
	texts := map[*book.Book][]byte{first: src}
	return func(cur *book.Book, step *scenario.Deploy) (*book.Book, error) {
		var name string
		var src []byte
		if step.File != "" {
			name = filepath.Join(dir, filepath.FromSlash(step.File))
			var err error
			if src, err = inv.Env.ReadFile(name); err != nil {
				return nil, errorText(cannotRead("", name, err))
			}
		} else {
			var err error
			name = scenario.DerivedName(cur)
			if src, err = scenario.Derive(cur, texts[cur], step.Bounds); err != nil {
				return nil, err
			}
		}
		nb, err := follow(inv, cur, name, src, say)
		if nb != nil {
			texts[nb] = src
		}
		return nb, err
	}
}

// follow checks the text src of a version named name, and that it may
// follow cur, as deployer says.
func follow(inv *Invocation, cur *book.Book, name string, src []byte, say io.Writer) (*book.Book, error) {
	res := check.Errors(name, src)
	if res.Book != nil {
		if res.Book.Name != cur.Name {
			return nil, errorText(diag.T(
				fmt.Sprintf("%s holds the book %s, not %s: a deploy step puts a new version of the same book in place", name, res.Book.Name, cur.Name),
				fmt.Sprintf("%s は帳簿 %s で、%s ではありません。deploy のステップで置けるのは、同じ帳簿の新しいバージョンです", name, res.Book.Name, cur.Name)))
		}
		res.Extend(src, evolve.Compare(evolve.FromBook(cur), res.Book))
	}
	if res.Book != nil {
		return res.Book, nil
	}
	var bad diag.List
	for _, d := range res.Diags {
		if d.Severity == diag.Error {
			bad = append(bad, d)
			diag.WriteText(say, d, inv.Lang)
		}
	}
	errs := "1 error"
	if len(bad) > 1 {
		errs = fmt.Sprintf("%d errors", len(bad))
	}
	return nil, errorText(diag.T(
		fmt.Sprintf("%s cannot follow %s v%d: %s above, from `chobo check` of it and its comparison with the version before", name, cur.Name, cur.Version, errs),
		fmt.Sprintf("%s は %s v%d の次に置けません。エラーは上の %d 件で、その帳簿の `chobo check` と、前のバージョンとの比較によるものです", name, cur.Name, cur.Version, len(bad))))
}

// textError is an error that says itself in both languages.
type textError struct{ t diag.Text }

func (e *textError) Error() string   { return e.t.En }
func (e *textError) Text() diag.Text { return e.t }

func errorText(t diag.Text) error { return &textError{t} }

// scenarioError says why a scenario file cannot be read or run.
func scenarioError(inv *Invocation, path string, msg diag.Text) {
	fmt.Fprintf(inv.Env.Stderr, "chobo run: %s: %s\n", diag.Printable(path), diag.Printable(msg.In(inv.Lang)))
}

// textOf is an error's message in both languages, when it has them.
func textOf(err error) diag.Text {
	var t interface{ Text() diag.Text }
	if errors.As(err, &t) {
		return t.Text()
	}
	return diag.T(err.Error(), err.Error())
}

// runShow prints, instead of the answers, what a client sends.
func runShow(inv *Invocation, b *book.Book, scs []scenario.Scenario, backend string) int {
	switch backend {
	case "postgres":
	case "tigerbeetle":
		return runShowTB(inv, b, scs)
	default:
		usageError(inv.Env, inv.Cmd, inv.Lang, diag.T("--show takes postgres or tigerbeetle", "--show には postgres か tigerbeetle を渡してください"))
		return ExitUsage
	}
	if ds := postgres.Check(b); len(ds) > 0 {
		for _, d := range ds {
			diag.WriteText(inv.Env.Stderr, d, inv.Lang)
		}
		return ExitError
	}
	m, err := model.New(b, backend)
	if err != nil {
		fmt.Fprintf(inv.Env.Stderr, "chobo run: %v\n", err)
		return ExitError
	}
	steps := make([][]show.Step, len(scs))
	for i, sc := range scs {
		if steps[i], err = show.Steps(m, sc); err != nil {
			fmt.Fprintf(inv.Env.Stderr, "chobo run: %s: %s\n", diag.Printable(sc.Name), diag.Printable(err.Error()))
			return ExitError
		}
	}
	if inv.Flags["format"] == "json" {
		var names []string
		for _, sc := range scs {
			names = append(names, sc.Name)
		}
		if err := api.Write(inv.Env.Stdout, api.ShowOf(inv.Args[0], backend, names, steps)); err != nil {
			return ExitUsage
		}
		return ExitOK
	}
	for i, sc := range scs {
		show.WriteText(inv.Env.Stdout, inv.Args[0], sc, steps[i], inv.Lang)
	}
	return ExitOK
}

// runShowTB prints what a client sends to TigerBeetle.
func runShowTB(inv *Invocation, b *book.Book, scs []scenario.Scenario) int {
	if ds := tigerbeetle.Check(b); len(ds) > 0 {
		for _, d := range ds {
			diag.WriteText(inv.Env.Stderr, d, inv.Lang)
		}
		return ExitError
	}
	steps := make([][]show.TBStep, len(scs))
	d := tigerbeetle.Def(b)
	for i, sc := range scs {
		var err error
		if steps[i], err = show.TigerBeetleSteps(b, d, sc, sc.Tenant); err != nil {
			fmt.Fprintf(inv.Env.Stderr, "chobo run: %s: %s\n", diag.Printable(sc.Name), diag.Printable(err.Error()))
			return ExitError
		}
	}
	if inv.Flags["format"] == "json" {
		var names []string
		for _, sc := range scs {
			names = append(names, sc.Name)
		}
		if err := api.Write(inv.Env.Stdout, api.ShowTBOf(inv.Args[0], "tigerbeetle", names, steps)); err != nil {
			return ExitUsage
		}
		return ExitOK
	}
	for i, sc := range scs {
		show.WriteTigerBeetle(inv.Env.Stdout, inv.Args[0], sc, steps[i], inv.Lang)
	}
	return ExitOK
}
