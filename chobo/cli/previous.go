package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/evolve"
)

// previousVersions reads the deployed version of each book that `check`
// compares with: the one file of --against, or each book's text at the
// git revision of --diff-base (nil for a book the revision lacks: it is
// new, and there is nothing to compare). It prints why and returns false
// when one cannot be read.
func previousVersions(inv *Invocation) ([]*evolve.Previous, bool) {
	env := inv.Env
	prevs := make([]*evolve.Previous, len(inv.Args))
	against, rev := inv.Has("against"), inv.Has("diff-base")
	say := func(t diag.Text) { fmt.Fprintf(env.Stderr, "chobo check: %s\n", diag.Printable(t.In(inv.Lang))) }
	switch {
	case against && rev:
		usageError(env, inv.Cmd, inv.Lang, diag.T("give --against or --diff-base, not both", "--against と --diff-base は、どちらか一つにしてください"))
		return nil, false
	case against:
		if len(inv.Args) != 1 {
			usageError(env, inv.Cmd, inv.Lang, diag.T(
				fmt.Sprintf("--against compares one book with one previous version; %d books are given", len(inv.Args)),
				fmt.Sprintf("--against は一つの帳簿を一つの前のバージョンと比べます。帳簿が %d 個あります", len(inv.Args))))
			return nil, false
		}
		file := inv.Flags["against"]
		data, err := env.ReadFile(file)
		if err != nil {
			say(cannotRead("", file, err))
			return nil, false
		}
		p, err := evolve.Load(file, data)
		if err != nil {
			say(loadError(err))
			return nil, false
		}
		prevs[0] = p
	case rev:
		for i, name := range inv.Args {
			data, label, found, problem := gitPrevious(env, name, inv.Flags["diff-base"])
			if !problem.IsZero() {
				say(problem)
				return nil, false
			}
			if !found {
				continue
			}
			p, err := evolve.Load(label, data)
			if err != nil {
				say(loadError(err))
				return nil, false
			}
			prevs[i] = p
		}
	}
	return prevs, true
}

func loadError(err error) diag.Text {
	var e *evolve.Error
	if errors.As(err, &e) {
		return e.Text
	}
	return diag.T(err.Error(), err.Error())
}

// gitPrevious reads the book name at the git revision rev with `git
// show`, run in the book's directory so that the repository is the one
// holding the book. found is false when the revision has no such file.
// label names the text in messages: `HEAD~1:books/shop.book`.
func gitPrevious(env Env, name, rev string) (data []byte, label string, found bool, problem diag.Text) {
	path := env.path(name)
	dir, base := filepath.Dir(path), filepath.Base(path)
	git := func(args ...string) ([]byte, string, error) {
		var out, errb bytes.Buffer
		// Pathspecs are literal: a book named `*.book` is that file.
		cmd := exec.Command("git", append([]string{"--literal-pathspecs"}, args...)...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.Bytes(), strings.TrimSpace(errb.String()), err
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, "", false, diag.T(fmt.Sprintf("--diff-base reads the previous version with git, which is not installed: %v", err),
			fmt.Sprintf("--diff-base は前のバージョンを git で読みますが、git が入っていません: %v", err))
	}
	inside, _, err := git("rev-parse", "--is-inside-work-tree")
	if err != nil || strings.TrimSpace(string(inside)) != "true" {
		return nil, "", false, diag.T(fmt.Sprintf("--diff-base compares with git, but %s is not inside a git work tree", name),
			fmt.Sprintf("--diff-base は git と比べますが、%s は git の作業ツリーの中にありません", name))
	}
	unknown := diag.T(fmt.Sprintf("--diff-base %s: no such revision in the git repository of %s", rev, name),
		fmt.Sprintf("--diff-base %s: %s の git リポジトリに、そのリビジョンはありません", rev, name))
	// A revision that starts with a dash would be read as an option.
	if rev == "" || strings.HasPrefix(rev, "-") {
		return nil, "", false, unknown
	}
	commit, _, err := git("rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return nil, "", false, unknown
	}
	c := strings.TrimSpace(string(commit))
	prefix, stderr, err := git("rev-parse", "--show-prefix")
	if err != nil {
		return nil, "", false, gitFailed(name, rev, stderr)
	}
	rel := strings.TrimSpace(string(prefix)) + base
	label = rev + ":" + rel
	entry, stderr, err := git("ls-tree", "-z", "--full-tree", c, "--", rel)
	if err != nil {
		return nil, "", false, gitFailed(name, rev, stderr)
	}
	if len(entry) == 0 {
		return nil, label, false, diag.Text{} // new at this revision
	}
	if f := strings.Fields(string(entry)); len(f) < 2 || f[1] != "blob" {
		return nil, "", false, diag.T(fmt.Sprintf("--diff-base %s: %s is not a file at that revision", rev, rel),
			fmt.Sprintf("--diff-base %s: そのリビジョンでは %s はファイルではありません", rev, rel))
	}
	data, stderr, err = git("show", c+":"+rel)
	if err != nil {
		return nil, "", false, gitFailed(name, rev, stderr)
	}
	return data, label, true, diag.Text{}
}

func gitFailed(name, rev, stderr string) diag.Text {
	return diag.T(fmt.Sprintf("git could not read %s at %s: %s", name, rev, stderr),
		fmt.Sprintf("git が %s の %s の時点の中身を読めませんでした: %s", name, rev, stderr))
}
