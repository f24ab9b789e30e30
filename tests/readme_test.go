package tests

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/driverkits"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
	"github.com/chobo-lang/chobo/runtime/go/chobotb/tbgo"
)

// The walk of a README ("From a book to a call") is held by following it:
// its files are written from the named blocks, every line of its `sh`
// blocks is run by bash, and every command of a `text` block that starts
// with "$ " is run and what it prints compared with the block. Only the
// steps a test cannot take as a user would are stood in for, each named in
// walkStandIn; every other line runs as the README writes it.

// walkSection is the fenced blocks of the section of a Markdown file that
// starts with heading, up to the next heading of the same level, after
// the files the text above it names (the walk starts with "save the book
// above").
func walkSection(t *testing.T, file, heading string) []fence {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", file))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("%s has no section %q", file, heading)
	}
	before, err := parseFences(text[:i+1])
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var fences []fence
	for _, f := range before {
		if namedFile(f.info) != "" {
			fences = append(fences, f)
		}
	}
	rest := text[i+1+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j+1]
	}
	section, err := parseFences(rest)
	if err != nil {
		t.Fatalf("%s, %s: %v", file, heading, err)
	}
	offset := strings.Count(text[:i+1+len(heading)], "\n")
	for k := range section {
		section[k].line += offset
	}
	return append(fences, section...)
}

// walker follows a README's walk in dir with env.
type walker struct {
	t    *testing.T
	file string
	repo string
	dir  string
	env  []string
	pg   *pgtest.Server
	// shells are the client languages' tools, which stand in for what
	// the docs install and check the programs they show.
	shells []driverkit.Shell
}

// setenv sets one variable of the environment the walk's commands get.
func (w *walker) setenv(key, value string) {
	for i, kv := range w.env {
		if strings.HasPrefix(kv, key+"=") {
			w.env[i] = key + "=" + value
			return
		}
	}
	w.env = append(w.env, key+"="+value)
}

// walkStandIn takes the steps of the walk that a test cannot take as
// written: it says whether it took line, so that it is not run as well.
func (w *walker) walkStandIn(line string) bool {
	switch {
	case strings.HasPrefix(line, "docker run "):
		// A server of the test's own, and its address in DATABASE_URL,
		// in place of the container and the export after it.
		w.pg = pgtest.Start(w.t)
		w.setenv("DATABASE_URL", fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable",
			pgtest.User, pgtest.DefaultDB, url.QueryEscape(w.pg.SocketDir), w.pg.Port))
		if psql := w.pg.Psql(); psql != "" {
			w.setenv("PATH", filepath.Dir(psql)+string(os.PathListSeparator)+w.getenv("PATH"))
		}
		return true
	case strings.HasPrefix(line, "export DATABASE_URL="):
		if w.pg == nil {
			w.t.Fatalf("%s: DATABASE_URL is set before any server is started", w.file)
		}
		return true
	case strings.HasPrefix(line, "export "):
		// Each line runs in a shell of its own, so what a line exports
		// is carried to the next by the walk.
		name, _, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !ok || strings.ContainsAny(name, " \t\"'$") {
			w.t.Fatalf("%s: %q: the walk takes one variable an export line", w.file, line)
		}
		out, errOut, err := w.sh(line + ` && printf %s "$` + name + `"`)
		if err != nil {
			w.t.Fatalf("%s: `%s`: %v\n%s", w.file, line, err, errOut)
		}
		w.setenv(name, out)
		return true
	}
	for _, sh := range w.shells {
		took, err := sh.StandIn(line, w.dir)
		if err != nil {
			w.t.Fatalf("%s: %q: %v", w.file, line, err)
		}
		if took {
			return true
		}
	}
	return false
}

// checkProgram has the language of a program the walk wrote check it, as
// strictly as the clients are, where running it does not.
func (w *walker) checkProgram(program string) {
	w.t.Helper()
	for _, sh := range w.shells {
		if _, err := sh.CheckProgram(w.dir, program); err != nil {
			w.t.Errorf("%s: %v", w.file, err)
		}
	}
}

func (w *walker) getenv(key string) string {
	for _, kv := range w.env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// sh runs one command line through bash in the walk's folder.
func (w *walker) sh(line string) (stdout, stderr string, err error) {
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = w.dir, w.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// step runs one line of an `sh` block.
func (w *walker) step(at int, line string) {
	if w.walkStandIn(line) {
		return
	}
	if out, errOut, err := w.sh(line); err != nil {
		w.t.Fatalf("%s:%d: `%s`: %v\n%s%s", w.file, at, line, err, out, errOut)
	}
}

// transcript runs the commands of a `text` block and holds what they
// print to it.
func (w *walker) transcript(f fence) {
	var got strings.Builder
	for i, l := range f.body {
		cmd, ok := strings.CutPrefix(l, "$ ")
		if !ok {
			continue
		}
		out, errOut, err := w.sh(cmd)
		if err != nil {
			w.t.Fatalf("%s:%d: `%s`: %v\n%s%s", w.file, f.line+1+i, cmd, err, out, errOut)
		}
		got.WriteString(l + "\n" + out)
	}
	want := strings.Join(f.body, "\n") + "\n"
	if got.String() != want {
		w.t.Errorf("%s:%d: the commands printed\n%s\nbut the block shows\n%s", w.file, f.line, got.String(), want)
	}
}

// follow takes every step of a walk in order.
func (w *walker) follow(fences []fence) (commands, transcripts int) {
	for _, f := range fences {
		if name := namedFile(f.info); name != "" {
			if err := os.WriteFile(filepath.Join(w.dir, name), []byte(strings.Join(f.body, "\n")+"\n"), 0o644); err != nil {
				w.t.Fatal(err)
			}
			continue
		}
		switch {
		case f.info == "sh":
			for i, l := range f.body {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
					w.step(f.line+1+i, l)
					commands++
				}
			}
		case f.info == "text" && len(f.body) > 0 && strings.HasPrefix(f.body[0], "$ "):
			w.transcript(f)
			transcripts++
		}
	}
	return commands, transcripts
}

// newWalker prepares an empty folder and the environment of a walk: the
// README's "Install" followed in a copy of this checkout (chobo built
// there and put first on PATH, CHOBO_SRC naming the copy), each client
// language's tools as its driver kit's shell readies them (driverkit.Shell:
// its packages already installed, its package manager offline), Go's
// modules from the local module cache only.
func newWalker(t *testing.T, file string) *walker {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel the go command, the module cache and the language runtimes are not at hand")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go command to follow the README with")
		}
		t.Skip("SKIP: no go command")
	}
	// The pages show a client of every language at work.
	var shells []driverkit.Shell
	for _, kit := range driverkits.All {
		if sh, ok := useLanguage(t, kit).(driverkit.Shell); ok {
			shells = append(shells, sh)
		}
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cache, err := exec.Command(goBin, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	checkout := copyCheckout(t, repo)
	w := &walker{t: t, file: file, repo: checkout, dir: checkout, env: os.Environ(), shells: shells}
	path := []string{filepath.Dir(goBin), w.getenv("PATH")}
	for _, sh := range shells {
		dirs, env := sh.ShellEnv()
		path = append(dirs, path...)
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			w.setenv(k, v)
		}
	}
	w.setenv("PATH", strings.Join(path, string(os.PathListSeparator)))
	w.setenv("GOPROXY", "file://"+filepath.Join(strings.TrimSpace(string(cache)), "cache", "download"))
	w.setenv("GOSUMDB", "off")
	w.setenv("GOFLAGS", "-mod=mod")
	w.setenv("GOWORK", "off")
	w.setenv("CHOBO_LANG", "")
	w.setenv("CHOBO_SRC", "")
	install := installCommands(t, file)
	for i, l := range install.lines {
		w.step(install.line+i, l)
	}
	if got := w.getenv("CHOBO_SRC"); got != checkout {
		t.Fatalf("%s: after \"Install\", CHOBO_SRC is %q, not the checkout %s", file, got, checkout)
	}
	if out, errOut, err := w.sh("command -v chobo && chobo --version"); err != nil || !strings.HasPrefix(out, filepath.Join(checkout, "bin", "chobo")+"\n") {
		t.Fatalf("%s: after \"Install\", chobo on PATH is not the one built in the checkout's bin: %v\n%s%s", file, err, out, errOut)
	}
	w.dir = t.TempDir()
	return w
}

// TestInstallFromCheckoutWithGoInstall runs the other way "Install"
// gives to build chobo in a checkout, `go install ./chobo/cmd/chobo`,
// and finds chobo where the README says it lands.
func TestInstallFromCheckoutWithGoInstall(t *testing.T) {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("SKIP: under Bazel the go command is not at hand")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIP: no go command")
	}
	const line = "go install ./chobo/cmd/chobo"
	for _, file := range []string{"README.md", "README.ja.md"} {
		if text, _ := installSection(t, file); !strings.Contains(text, "`"+line+"`") || !strings.Contains(text, "`$(go env GOPATH)/bin`") {
			t.Fatalf("%s: Install no longer gives `%s` and where it puts chobo", file, line)
		}
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checkout, gopath := copyCheckout(t, repo), t.TempDir()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = checkout
	cmd.Env = append(os.Environ(), "GOPATH="+gopath, "GOBIN=", "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off",
		"GOMODCACHE="+strings.TrimSpace(mustOutput(t, goBin, "env", "GOMODCACHE")))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("`%s` in a checkout: %v\n%s", line, err, out)
	}
	if got := mustOutput(t, filepath.Join(gopath, "bin", "chobo"), "--version"); got != "chobo 0.1.0\n" {
		t.Errorf("the chobo in $(go env GOPATH)/bin says %q", got)
	}
}

// mustOutput is what a command prints on its standard output.
func mustOutput(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

// indented is one indented code block of a Markdown file: the commands
// the READMEs give to copy.
type indented struct {
	line  int // 1-based line of its first line
	lines []string
}

// indentedBlocks is every indented code block of a Markdown text outside
// fenced blocks: lines indented by four spaces after a blank line.
func indentedBlocks(src string) []indented {
	prose, _ := markdownText(src)
	var out []indented
	for i := 0; i < len(prose); i++ {
		if !strings.HasPrefix(prose[i], "    ") || strings.TrimSpace(prose[i]) == "" || (i > 0 && strings.TrimSpace(prose[i-1]) != "") {
			continue
		}
		b := indented{line: i + 1}
		for ; i < len(prose) && strings.HasPrefix(prose[i], "    "); i++ {
			b.lines = append(b.lines, strings.TrimPrefix(prose[i], "    "))
		}
		out = append(out, b)
	}
	return out
}

// installSection is the text of a README's section on installing chobo.
func installSection(t *testing.T, file string) (text string, firstLine int) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", file))
	if err != nil {
		t.Fatal(err)
	}
	heading := map[string]string{"README.md": "## Install", "README.ja.md": "## インストール"}[file]
	src := string(doc)
	i := strings.Index(src, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("%s has no section %q", file, heading)
	}
	rest := src[i+1:]
	if j := strings.Index(rest[len(heading):], "\n## "); j >= 0 {
		rest = rest[:len(heading)+j+1]
	}
	return rest, strings.Count(src[:i+1], "\n")
}

// installCommands is the first block of a README's "Install": the
// commands that build chobo in a checkout.
func installCommands(t *testing.T, file string) indented {
	t.Helper()
	text, offset := installSection(t, file)
	blocks := indentedBlocks(text)
	if len(blocks) == 0 || !strings.HasPrefix(blocks[0].lines[0], "go build ") {
		t.Fatalf("%s: the first block of its Install section should build chobo, not %v", file, blocks)
	}
	blocks[0].line += offset
	return blocks[0]
}

// copyCheckout copies the files git knows of in repo (committed or not,
// as they are in the work tree) into a new folder, as a clone or the
// unpacked archive of a commit would have them.
func copyCheckout(t *testing.T, repo string) string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = repo
	list, err := cmd.Output()
	if err != nil {
		t.Skipf("SKIP: the checkout's files cannot be listed with git: %v", err)
	}
	dst := filepath.Join(t.TempDir(), "chobo")
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(repo, rel)
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in a commit
		} else if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if info.Mode()&os.ModeSymlink != 0 {
			link, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(link, to); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestReadmeWalk follows "From a book to a call" of README.md in an empty
// folder, to the program in each language, each run twice.
func TestReadmeWalk(t *testing.T) {
	w := newWalker(t, "README.md")
	commands, transcripts := w.follow(walkSection(t, "README.md", "## From a book to a call"))
	t.Logf("README.md: %d commands and %d transcripts followed", commands, transcripts)
	if transcripts < 3 || commands < 10 {
		t.Errorf("the walk ran %d commands and %d transcripts; it should reach the program in each language", commands, transcripts)
	}
}

// TestTigerBeetleReplicaInDocs formats and starts a replica with the two
// lines docs/targets.md (and, the same, docs/targets.ja.md) gives, the port changed to a free one, and makes a
// request of it through the official Go client.
func TestTigerBeetleReplicaInDocs(t *testing.T) {
	firstSh := func(file, heading string) []string {
		for _, f := range walkSection(t, filepath.Join("docs", file), heading) {
			if f.info == "sh" {
				return f.body
			}
		}
		return nil
	}
	lines := firstSh("targets.md", "## `tigerbeetle-go`")
	if ja := firstSh("targets.ja.md", "## TigerBeetle"); strings.Join(ja, "\n") != strings.Join(lines, "\n") {
		t.Errorf("docs/targets.ja.md starts a replica with\n%s\nand docs/targets.md with\n%s", strings.Join(ja, "\n"), strings.Join(lines, "\n"))
	}
	bin := realTigerBeetle(t)
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "tigerbeetle format ") || !strings.HasPrefix(lines[1], "tigerbeetle start ") {
		t.Fatalf("docs/targets.md, `tigerbeetle-go`: the first sh block should be the format and start lines, not %q", lines)
	}
	port := freePort(t)
	start := strings.Replace(lines[1], "--addresses=3000", fmt.Sprintf("--addresses=%d", port), 1)
	if start == lines[1] {
		t.Fatalf("the start line %q does not name --addresses=3000", lines[1])
	}
	dir, binDir := t.TempDir(), t.TempDir()
	if err := os.Symlink(bin, filepath.Join(binDir, "tigerbeetle")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	format := exec.Command("bash", "-c", lines[0])
	format.Dir, format.Env = dir, env
	if out, err := format.CombinedOutput(); err != nil {
		t.Fatalf("`%s`: %v\n%s", lines[0], err, out)
	}
	var log bytes.Buffer
	replica := exec.Command("bash", "-c", "exec "+start)
	replica.Dir, replica.Env, replica.Stdout, replica.Stderr = dir, env, &log, &log
	if err := replica.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = replica.Process.Kill()
		_ = replica.Wait()
	})
	// The official client would log every refused connection while the
	// replica opens its data file; wait for the port first.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica does not listen on %d after a minute:\n%s", port, log.String())
		}
	}
	conn, err := tbgo.Dial(chobotb.U128{}, fmt.Sprint(port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	found, err := conn.LookupAccounts(ctx, []ids.ID{{1}})
	if err != nil {
		t.Fatalf("a lookup on the replica the doc starts: %v\n%s", err, log.String())
	}
	if len(found) != 0 {
		t.Errorf("a fresh replica holds %d accounts", len(found))
	}
}

// freePort is a TCP port of the loopback nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestReadmeJaWalk follows 「帳簿から呼び出しまで」 of README.ja.md, the
// Japanese walk on a book written in Japanese, the same way.
func TestReadmeJaWalk(t *testing.T) {
	w := newWalker(t, "README.ja.md")
	commands, transcripts := w.follow(walkSection(t, "README.ja.md", "## 帳簿から呼び出しまで"))
	t.Logf("README.ja.md: %d commands and %d transcripts followed", commands, transcripts)
	if transcripts < 3 || commands < 10 {
		t.Errorf("the walk ran %d commands and %d transcripts; it should reach the program in each language", commands, transcripts)
	}
}

// TestReadmesGiveTheSameCommands holds the two READMEs to the same
// commands to copy, in the same order: a reader of either installs,
// sets up and tests the same way.
func TestReadmesGiveTheSameCommands(t *testing.T) {
	blocks := func(file string) []string {
		doc, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, b := range indentedBlocks(string(doc)) {
			out = append(out, strings.Join(b.lines, "\n"))
		}
		return out
	}
	en, ja := blocks("README.md"), blocks("README.ja.md")
	if strings.Join(en, "\n\n") != strings.Join(ja, "\n\n") {
		t.Errorf("README.md gives the commands\n%s\n\nand README.ja.md\n%s", strings.Join(en, "\n\n"), strings.Join(ja, "\n\n"))
	}
	for _, want := range []string{"go build -o bin/chobo ./chobo/cmd/chobo", "tests/setup.sh && cd examples/workspace && ", "tests/run.sh"} {
		if !strings.Contains(strings.Join(en, "\n"), want) {
			t.Errorf("the READMEs' commands have no %q", want)
		}
	}
	t.Logf("%d blocks of commands alike", len(en))
}
