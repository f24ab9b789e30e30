package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/backend/tigerbeetle"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/target"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Reader reads what a backend holds without going through the client
// under test, so that a client cannot vouch for its own writes.
type Reader interface {
	// Ledger reads the accounts and holds of a tenant, written as
	// Observed writes them.
	Ledger(ctx context.Context, tenant string) (accounts, holds []string, err error)
	// HeldPastDeadline says whether holds of tenant past their deadline
	// are still held.
	HeldPastDeadline(ctx context.Context, tenant string) (bool, error)
}

// PostgresReader reads a book's tables over a pool.
type PostgresReader struct {
	Pool *pgxpool.Pool
	Book *book.Book
}

// Ledger implements Reader.
func (r PostgresReader) Ledger(ctx context.Context, tenant string) ([]string, []string, error) {
	return PostgresLedger(ctx, r.Pool, r.Book, tenant)
}

// HeldPastDeadline implements Reader.
func (r PostgresReader) HeldPastDeadline(ctx context.Context, tenant string) (bool, error) {
	return HeldPastDeadline(ctx, r.Pool, r.Book, tenant)
}

// DriverError is a driver that broke the protocol or stopped: the
// backend itself is gone, not one call. Run stops a scenario at it
// rather than count the call as failed, and once a driver is broken every
// request answers with the same *DriverError.
type DriverError struct {
	Msg    string
	Stderr string // the end of what the driver wrote to stderr
}

func (e *DriverError) Error() string {
	if strings.TrimSpace(e.Stderr) == "" {
		return "driver: " + e.Msg + " (it wrote nothing to stderr)"
	}
	return "driver: " + e.Msg + "\n--- the end of its stderr ---\n" + strings.TrimRight(e.Stderr, "\n")
}

// Process is a Backend reached through a driver program that speaks the
// driver protocol (docs/formats.md) on its stdin and stdout. Requests go
// out as soon as they are made, each with an id of its own, and answers
// are matched by id, so the calls of a `together` are in flight at once.
type Process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	read   Reader
	stderr *tail
	client string

	writeMu sync.Mutex // one line at a time on stdin

	mu      sync.Mutex
	bulks   BulkCount
	nextID  int64
	pending map[int64]chan protocol.Response
	broken  *DriverError  // set once, when the driver broke
	done    chan struct{} // closed when the driver's stdout is read to the end and it was waited for
	exitErr error         // of cmd.Wait
	closing bool
}

// openTimeout bounds the handshake: a driver that does not answer open
// by then is not going to.
const openTimeout = 60 * time.Second

// StartProcess starts cmd as a driver and opens the book at bookPath
// through it, on the database at dsn (a libpq connection string). The
// book is the one whose SQL is loaded there (the test copy). Balances and
// holds are read through r. StartProcess sets cmd's Stdin, Stdout and
// Stderr; the caller sets the rest (Path, Args, Env, Dir).
func StartProcess(cmd *exec.Cmd, bookPath, dsn string, r Reader) (*Process, error) {
	return StartProcessWith(cmd, protocol.Request{Op: protocol.Open, Book: bookPath, DSN: dsn}, r)
}

// Open is the open request of a driver of b's client of the target
// name: the target, and its names as `chobo api` gives them under "targets". The
// caller adds the book's path and where the backend is (DSN, or
// TigerBeetle, HoldSeconds, TimeoutMS and RequestEvents). It fails for a target the book cannot
// go to.
func Open(b *book.Book, name string) (protocol.Request, error) {
	if tg, ok := target.Lookup(name); !ok || tg.Client() == nil {
		return protocol.Request{}, fmt.Errorf("%q is not a client target of chobo build", name)
	}
	described := api.TargetsOf(b).Client(name)
	if described == nil {
		return protocol.Request{}, fmt.Errorf("%s: the book cannot go to that target (chobo build says why)", name)
	}
	names, err := json.Marshal(described)
	if err != nil {
		return protocol.Request{}, err
	}
	return protocol.Request{Op: protocol.Open, Target: name, Names: names}, nil
}

// StartDriver starts cmd as the driver of b's client of the target name,
// opened on the book file at bookPath with what at says of where the
// backend is (DSN, or TigerBeetle, HoldSeconds, TimeoutMS and RequestEvents), reading the backend
// through r.
func StartDriver(cmd *exec.Cmd, b *book.Book, name, bookPath string, at protocol.Request, r Reader) (*Process, error) {
	open, err := Open(b, name)
	if err != nil {
		return nil, err
	}
	open.Book, open.DSN, open.TigerBeetle, open.HoldSeconds, open.TimeoutMS, open.RequestEvents = bookPath, at.DSN, at.TigerBeetle, at.HoldSeconds, at.TimeoutMS, at.RequestEvents
	return StartProcessWith(cmd, open, r)
}

// StartProcessWith is StartProcess with the open request given whole, as
// Open begins it: a driver that cannot read a book learns its client's
// names there, and a driver of a TigerBeetle client is told where
// TigerBeetle is instead of a DSN.
func StartProcessWith(cmd *exec.Cmd, open protocol.Request, r Reader) (*Process, error) {
	p := &Process{
		cmd: cmd, read: r, stderr: &tail{max: 8 << 10},
		pending: map[int64]chan protocol.Response{}, done: make(chan struct{}),
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = p.stderr
	// A driver's own children may keep stderr open after it exits.
	cmd.WaitDelay = 5 * time.Second
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the driver %s: %v", cmd.Path, err)
	}
	go p.readAnswers(stdout)

	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	open.Op = protocol.Open
	res, err := p.ask(ctx, open)
	switch {
	case ctx.Err() != nil:
		err = p.fail(fmt.Sprintf("did not answer open within %v", openTimeout))
	case err != nil:
	case res.Error != "":
		err = p.fail(fmt.Sprintf("answered open with an error: %s", res.Error))
	case !res.OK:
		err = p.fail(fmt.Sprintf(`the answer to open has neither "ok": true nor "error": %s`, p.show(res)))
	case res.Client == "":
		err = p.fail(`the answer to open names no "client"`)
	}
	if err != nil {
		p.kill()
		<-p.done
		return nil, err
	}
	p.client = res.Client
	return p, nil
}

// Client is the name the driver gave in its answer to open, such as
// postgres-go.
func (p *Process) Client() string { return p.client }

// Call implements Backend, for the operations that answer a result (all
// but status, which has Status).
func (p *Process) Call(ctx context.Context, c interp.Call, tenant string) (interp.Result, error) {
	req := callRequest(c, tenant)
	res, err := p.ask(ctx, req)
	if err != nil {
		return interp.Result{}, err
	}
	if res.Error != "" {
		return interp.Result{}, errors.New(res.Error)
	}
	o, ok := interp.ParseOutcome(res.Outcome)
	r := interp.Result{Outcome: o, Reason: res.Reason}
	switch {
	case !ok:
		return r, p.fail(fmt.Sprintf(`the answer to a call has no "outcome" of done, done_before or refused, nor an "error": %s`, p.show(res)))
	case o == interp.Refused && r.Reason == "":
		return r, p.fail(fmt.Sprintf("a refusal without a reason: %s", p.show(res)))
	}
	return r, nil
}

// BulkCount counts the bulk calls that carried more than one call, and
// the calls they carried.
type BulkCount struct{ Bulks, Calls int }

// Bulks says how many bulk calls of more than one call went through the
// driver, and how many calls they carried.
func (p *Process) Bulks() BulkCount {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bulks
}

// CallBulk implements BulkCaller: the calls go in one bulk request, which
// the driver sends through its client's bulk call.
func (p *Process) CallBulk(ctx context.Context, calls []interp.Call, tenant string) ([]interp.Result, []error, error) {
	req := protocol.Request{Op: protocol.Bulk, Tenant: tenant}
	for _, c := range calls {
		one := callRequest(c, tenant)
		req.Calls = append(req.Calls, protocol.BulkCall{Transfer: one.Transfer, Operation: one.Operation, Args: one.Args})
	}
	if len(calls) > 1 {
		p.mu.Lock()
		p.bulks.Bulks++
		p.bulks.Calls += len(calls)
		p.mu.Unlock()
	}
	res, err := p.ask(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	if res.Error != "" {
		// The whole bulk failed: every call with it.
		errs := make([]error, len(calls))
		for i := range errs {
			errs[i] = errors.New(res.Error)
		}
		return make([]interp.Result, len(calls)), errs, nil
	}
	if len(res.Answers) != len(calls) {
		return nil, nil, p.fail(fmt.Sprintf("%d answers to a bulk of %d calls: %s", len(res.Answers), len(calls), p.show(res)))
	}
	out := make([]interp.Result, len(calls))
	errs := make([]error, len(calls))
	for i, a := range res.Answers {
		if a.Error != "" {
			errs[i] = errors.New(a.Error)
			continue
		}
		o, ok := interp.ParseOutcome(a.Outcome)
		out[i] = interp.Result{Outcome: o, Reason: a.Reason}
		switch {
		case !ok:
			return nil, nil, p.fail(fmt.Sprintf(`answer %d of a bulk has no "outcome" of done, done_before or refused, nor an "error": %s`, i, p.show(res)))
		case o == interp.Refused && a.Reason == "":
			return nil, nil, p.fail(fmt.Sprintf("answer %d of a bulk is a refusal without a reason: %s", i, p.show(res)))
		}
	}
	return out, errs, nil
}

// Status asks where the hold named by a call's key stands: held, posted,
// voided, expired, or "" when there is none.
func (p *Process) Status(ctx context.Context, c interp.Call, tenant string) (string, error) {
	req := callRequest(c, tenant)
	req.Operation = "status"
	res, err := p.ask(ctx, req)
	if err != nil {
		return "", err
	}
	if res.Error != "" {
		return "", errors.New(res.Error)
	}
	if res.State == nil {
		return "", p.fail(fmt.Sprintf(`the answer to status has no "state": %s`, p.show(res)))
	}
	return *res.State, nil
}

// Balance reads an account of a tenant through the client: the account's
// kind and its parameters by name.
func (p *Process) Balance(ctx context.Context, tenant, account string, args map[string]string) (interp.Balance, error) {
	res, err := p.ask(ctx, protocol.Request{Op: protocol.Balance, Tenant: tenant, Account: account, Args: args})
	if err != nil {
		return interp.Balance{}, err
	}
	if res.Error != "" {
		return interp.Balance{}, errors.New(res.Error)
	}
	var b interp.Balance
	for _, f := range []struct {
		name string
		text string
		to   *int64
	}{{"posted", res.Posted, &b.Posted}, {"held_in", res.HeldIn, &b.HeldIn}, {"held_out", res.HeldOut, &b.HeldOut}} {
		v, err := protocol.ParseAmount(f.text)
		if err != nil {
			return b, p.fail(fmt.Sprintf("the answer to balance: %s: %v", f.name, err))
		}
		*f.to = v
	}
	return b, nil
}

// expireMax is how many holds one expire gives back at most; Run asks
// again while some remain.
const expireMax = 1000

// Expire implements Backend: the client's expire, then a look at the
// tables through the Reader.
func (p *Process) Expire(ctx context.Context, tenant string) (bool, error) {
	res, err := p.ask(ctx, protocol.Request{Op: protocol.Expire, Max: expireMax})
	if err != nil {
		return false, err
	}
	if res.Error != "" {
		return false, fmt.Errorf("expire: %s", res.Error)
	}
	if res.Expired == nil {
		return false, p.fail(fmt.Sprintf(`the answer to expire has no "expired": %s`, p.show(res)))
	}
	return p.read.HeldPastDeadline(ctx, tenant)
}

// Ledger implements Backend through the Reader.
func (p *Process) Ledger(ctx context.Context, tenant string) ([]string, []string, error) {
	return p.read.Ledger(ctx, tenant)
}

// Close ends the driver: its stdin is closed, which tells it to exit, and
// after a while it is killed. It reports a driver that broke or did not
// exit with status 0.
func (p *Process) Close() error {
	p.mu.Lock()
	p.closing = true
	broken := p.broken
	p.mu.Unlock()
	p.writeMu.Lock()
	p.stdin.Close()
	p.writeMu.Unlock()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.kill()
		return &DriverError{Msg: "did not exit within 10 seconds of the end of its stdin; killed", Stderr: p.stderr.String()}
	}
	if broken != nil {
		return broken
	}
	if p.exitErr != nil {
		return &DriverError{Msg: fmt.Sprintf("exited with %v at the end of its stdin", p.exitErr), Stderr: p.stderr.String()}
	}
	return nil
}

// callRequest writes a call as the protocol sends it.
func callRequest(c interp.Call, tenant string) protocol.Request {
	args := map[string]string{}
	for k, v := range c.Strings {
		args[k] = v
	}
	for k, v := range c.Amounts {
		args[k] = protocol.FormatAmount(v)
	}
	return protocol.Request{Op: protocol.Call, Tenant: tenant, Transfer: c.Transfer.Name, Operation: string(c.Op), Args: args}
}

// Bench sends a bench request (protocol.Bench; the runner fills in its
// op) and answers the time its calls took.
func (p *Process) Bench(ctx context.Context, req protocol.Request) (time.Duration, error) {
	req.Op = protocol.Bench
	res, err := p.ask(ctx, req)
	if err != nil {
		return 0, err
	}
	if res.Error != "" {
		return 0, fmt.Errorf("%s", res.Error)
	}
	if res.Nanos <= 0 {
		return 0, fmt.Errorf("the driver timed %d calls in %d ns", req.Times, res.Nanos)
	}
	return time.Duration(res.Nanos), nil
}

// ask sends a request and waits for its answer. The error is a
// *DriverError when the driver broke, or ctx's.
func (p *Process) ask(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	ch := make(chan protocol.Response, 1)
	p.mu.Lock()
	if p.broken != nil {
		p.mu.Unlock()
		return protocol.Response{}, p.broken
	}
	req.ID = p.nextID
	p.nextID++
	p.pending[req.ID] = ch
	p.mu.Unlock()

	line, err := json.Marshal(req)
	if err != nil {
		return protocol.Response{}, err
	}
	p.writeMu.Lock()
	_, err = p.stdin.Write(append(line, '\n'))
	p.writeMu.Unlock()
	if err != nil {
		// Its stdin is closed: the driver is gone or going. What it
		// printed on the way out says more than the write error.
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
		}
		return protocol.Response{}, p.fail(fmt.Sprintf("writing request %d: %v", req.ID, err))
	}
	select {
	case res, ok := <-ch:
		if !ok {
			return protocol.Response{}, p.brokenErr()
		}
		return res, nil
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.pending, req.ID)
		p.mu.Unlock()
		return protocol.Response{}, ctx.Err()
	}
}

// readAnswers hands every line of the driver's stdout to the request
// with its id, until the driver's stdout ends; then it waits for the
// driver to exit.
func (p *Process) readAnswers(stdout io.Reader) {
	r := bufio.NewReader(stdout)
	var wrong string
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if wrong = p.deliver(line); wrong != "" {
				// A driver that writes garbage cannot be trusted with
				// the requests still in flight.
				p.kill()
				break
			}
		}
		if err != nil {
			break
		}
	}
	// Whatever is left unread must not keep the driver blocked on a full
	// pipe while Wait waits for it.
	go io.Copy(io.Discard, r)
	// Wait also collects the rest of stderr, so the error below carries it.
	err := p.cmd.Wait()
	p.mu.Lock()
	p.exitErr = err
	closing := p.closing
	p.mu.Unlock()
	switch {
	case wrong != "":
		p.fail(wrong)
	case !closing:
		msg := "exited"
		if err != nil {
			msg = fmt.Sprintf("exited (%v)", err)
		}
		p.fail(msg + " before it was told to (stdin still open)")
	}
	close(p.done)
}

// deliver reads one answer and hands it over; it returns what is wrong
// with it, or "".
func (p *Process) deliver(line []byte) string {
	var id struct {
		ID *int64 `json:"id"`
	}
	var res protocol.Response
	if err := json.Unmarshal(line, &id); err != nil {
		return fmt.Sprintf("wrote a line that is not a JSON object (%v): %q", err, clip(line))
	}
	if id.ID == nil {
		return fmt.Sprintf(`wrote an answer without an "id": %q`, clip(line))
	}
	if err := json.Unmarshal(line, &res); err != nil {
		return fmt.Sprintf("wrote an answer of the wrong shape (%v): %q", err, clip(line))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ch, ok := p.pending[res.ID]
	if !ok {
		if res.ID >= 0 && res.ID < p.nextID {
			return "" // a request that was given up on (its context ended)
		}
		return fmt.Sprintf("answered the id %d, which was never asked: %q", res.ID, clip(line))
	}
	delete(p.pending, res.ID)
	ch <- res
	return ""
}

// fail marks the driver broken (the first reason wins) and wakes every
// request still waiting; it returns the error they all get.
func (p *Process) fail(msg string) *DriverError {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken == nil {
		p.broken = &DriverError{Msg: msg, Stderr: p.stderr.String()}
		for id, ch := range p.pending {
			close(ch)
			delete(p.pending, id)
		}
	}
	return p.broken
}

func (p *Process) brokenErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken == nil {
		return nil
	}
	return p.broken
}

func (p *Process) kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
}

func (p *Process) show(res protocol.Response) string {
	b, _ := json.Marshal(res)
	return string(b)
}

func clip(b []byte) string {
	s := strings.TrimRight(string(b), "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// tail keeps the last max bytes written to it: the end of a driver's
// stderr, where the reason it stopped usually is.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// DeployRefusal says why a client driven as a process does not run a
// scenario that deploys versions: the process is built from one version
// of the book. Drivers runs a driver of each version instead.
func (p *Process) DeployRefusal(first *book.Book, versions []*book.Book) string {
	return "its client runs as a process built for one version of the book, and the pair was given no driver of the other versions"
}

// Drivers is a client driven as a process, one driver at a time, that
// deploys as an operator does: the new version is put in place on the
// backend (Put), the driver of the version before it is ended, and one of
// the new version's client, built beforehand, takes the calls after the
// deploy (Start). Calls are not in flight across a deploy: a run deploys
// between two steps.
type Drivers struct {
	// Put puts v in place on the backend before its driver takes the
	// calls: on PostgreSQL its SQL is loaded (SQL.Deploy), on TigerBeetle
	// the migration runs. nil: the driver is all there is to change.
	Put func(ctx context.Context, v *Version) error
	// Start starts the driver of v's client, opened on v's test copy.
	Start func(v *Version) (*Process, error)
	// Later are the other versions the scenarios deploy. When a run puts
	// the first version in place, before its first step, a driver of each
	// is started ahead, idle until its deploy: a driver takes a second or
	// more to start on a busy machine, and the holds made before a deploy
	// step, which takes no time in the scenario, last a few seconds
	// (Lifetime).
	Later []*Version

	first   *Version
	mu      sync.Mutex
	cur     *Process
	at      *Version              // the version cur drives
	ready   map[*Version]*Process // started ahead
	started []*Process            // every driver, for Bulks
}

// NewDrivers is Drivers whose driver of the first version, first, is p
// (first is nil for a book that deploys nothing).
func NewDrivers(p *Process, first *Version, start func(v *Version) (*Process, error), put func(ctx context.Context, v *Version) error) *Drivers {
	return &Drivers{Put: put, Start: start, first: first, cur: p, at: first, started: []*Process{p}}
}

// Current is the driver the calls go to.
func (d *Drivers) Current() *Process {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cur
}

// DeployRefusal implements Deployer.
func (d *Drivers) DeployRefusal(*book.Book, []*book.Book) string {
	if d.Start == nil {
		return "the pair was given no way to start the driver of another version"
	}
	return ""
}

// Deploy implements Deployer. The version in place is not put in place
// again: the scenarios that deploy begin by putting the first version
// back, which is in place already for the first of them. Putting the
// first version in place starts the drivers of Later ahead.
func (d *Drivers) Deploy(ctx context.Context, v *Version) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at != v {
		if d.Put != nil {
			if err := d.Put(ctx, v); err != nil {
				return err
			}
		}
		if err := d.cur.Close(); err != nil {
			return fmt.Errorf("ending the driver of the version before %s: %w", v.File, err)
		}
		p := d.ready[v]
		delete(d.ready, v)
		if p == nil {
			var err error
			if p, err = d.start(v); err != nil {
				return err
			}
		}
		d.cur, d.at = p, v
	}
	if v != d.first {
		return nil
	}
	for _, later := range d.Later {
		if d.ready[later] != nil || later == v {
			continue
		}
		p, err := d.start(later)
		if err != nil {
			return err
		}
		if d.ready == nil {
			d.ready = map[*Version]*Process{}
		}
		d.ready[later] = p
	}
	return nil
}

func (d *Drivers) start(v *Version) (*Process, error) {
	p, err := d.Start(v)
	if err != nil {
		return nil, fmt.Errorf("starting the driver of %s: %w", v.File, err)
	}
	d.started = append(d.started, p)
	return p, nil
}

// Close ends the driver in place and those started ahead.
func (d *Drivers) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := d.cur.Close()
	for v, p := range d.ready {
		if e := p.Close(); e != nil && err == nil {
			err = e
		}
		delete(d.ready, v)
	}
	return err
}

// Client is the name the driver in place gave.
func (d *Drivers) Client() string { return d.Current().Client() }

// Bulks adds up what every driver started said of its bulk calls.
func (d *Drivers) Bulks() BulkCount {
	d.mu.Lock()
	defer d.mu.Unlock()
	var c BulkCount
	for _, p := range d.started {
		b := p.Bulks()
		c.Bulks, c.Calls = c.Bulks+b.Bulks, c.Calls+b.Calls
	}
	return c
}

// Started counts the drivers that deploys started.
func (d *Drivers) Started() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.started) - 1
}

// Call implements Backend through the driver in place.
func (d *Drivers) Call(ctx context.Context, c interp.Call, tenant string) (interp.Result, error) {
	return d.Current().Call(ctx, c, tenant)
}

// CallBulk implements BulkCaller through the driver in place.
func (d *Drivers) CallBulk(ctx context.Context, calls []interp.Call, tenant string) ([]interp.Result, []error, error) {
	return d.Current().CallBulk(ctx, calls, tenant)
}

// Status is the driver in place's.
func (d *Drivers) Status(ctx context.Context, c interp.Call, tenant string) (string, error) {
	return d.Current().Status(ctx, c, tenant)
}

// Balance is the driver in place's.
func (d *Drivers) Balance(ctx context.Context, tenant, account string, args map[string]string) (interp.Balance, error) {
	return d.Current().Balance(ctx, tenant, account, args)
}

// Expire implements Backend through the driver in place.
func (d *Drivers) Expire(ctx context.Context, tenant string) (bool, error) {
	return d.Current().Expire(ctx, tenant)
}

// Ledger implements Backend through the driver in place's reader.
func (d *Drivers) Ledger(ctx context.Context, tenant string) ([]string, []string, error) {
	return d.Current().Ledger(ctx, tenant)
}

// ReadHistory implements HistoryReader through the driver in place.
func (d *Drivers) ReadHistory(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	return d.Current().ReadHistory(ctx, req)
}

// TigerBeetleDrivers is the TigerBeetle pair whose client runs as a
// process (Calls is Drivers), able to deploy: a deploy step runs the
// migration of the new version from this process against the same
// TigerBeetle, as an operator runs `chobo migrate`, then the driver of the
// new version's client takes the calls.
type TigerBeetleDrivers struct {
	*TigerBeetle
	drivers *Drivers

	mu     sync.Mutex
	tenant string // of the last call: the run in progress
}

// NewTigerBeetleDrivers makes t's calls go through d, and has d migrate
// TigerBeetle before it starts a driver of another version.
func NewTigerBeetleDrivers(t *TigerBeetle, d *Drivers) *TigerBeetleDrivers {
	tb := &TigerBeetleDrivers{TigerBeetle: t, drivers: d}
	t.Calls = d
	d.Put = tb.migrate
	return tb
}

// Call implements Backend, noting the run's tenant.
func (t *TigerBeetleDrivers) Call(ctx context.Context, c interp.Call, tenant string) (interp.Result, error) {
	t.noteTenant(tenant)
	return t.TigerBeetle.Call(ctx, c, tenant)
}

// CallBulk implements BulkCaller, noting the run's tenant.
func (t *TigerBeetleDrivers) CallBulk(ctx context.Context, calls []interp.Call, tenant string) ([]interp.Result, []error, error) {
	t.noteTenant(tenant)
	return t.TigerBeetle.CallBulk(ctx, calls, tenant)
}

func (t *TigerBeetleDrivers) noteTenant(tenant string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tenant = tenant
}

// DeployRefusal implements Deployer: what the chains of the versions do
// not allow, as TigerBeetle.DeployRefusal says it of a client in this
// process, which takes another version's chains between two calls as a
// new driver does; and a TigerBeetle this process cannot migrate.
func (t *TigerBeetleDrivers) DeployRefusal(first *book.Book, versions []*book.Book) string {
	var why []string
	if _, ok := t.Raw.(chobotb.MigrateClient); !ok {
		why = append(why, "this process reaches TigerBeetle through a client that cannot query accounts, which the migration needs")
	}
	if w := t.drivers.DeployRefusal(first, versions); w != "" {
		why = append(why, w)
	}
	inProcess := &TigerBeetle{Calls: &Runtime{}, Raw: t.Raw, Book: t.TigerBeetle.Book, Replica: t.Replica, Pulse: t.Pulse}
	if w := inProcess.DeployRefusal(first, versions); w != "" {
		why = append(why, w)
	}
	return strings.Join(why, "; and ")
}

// Deploy implements Deployer.
func (t *TigerBeetleDrivers) Deploy(ctx context.Context, v *Version) error {
	return t.drivers.Deploy(ctx, v)
}

// migrate moves the floors and rooms of the run's tenant onto v's
// bounds, and reads TigerBeetle by v's definition from then on. Each run
// is a ledger of its own, under a tenant of its own: the tenants of the
// runs before it have ended, and are not moved back and forth. Putting
// the first version back, at the start of a run, moves nothing: the
// run's tenant has no account yet. An account of the run that the
// migration leaves on the bound it had (chobotb.ErrLeft) would answer by
// that bound, where the interpreter answers by v's: the deploy is not
// run.
func (t *TigerBeetleDrivers) migrate(ctx context.Context, v *Version) error {
	t.init()
	def := tigerbeetle.Def(v.Copy)
	t.mu.Lock()
	tenant := t.tenant
	if v == t.drivers.first {
		tenant, t.tenant = "", ""
	}
	t.mu.Unlock()
	if tenant != "" {
		c, ok := t.Raw.(chobotb.MigrateClient)
		if !ok {
			return fmt.Errorf("this process reaches TigerBeetle through a client that cannot query accounts, which the migration needs")
		}
		r, err := chobotb.Migrate(ctx, c, def, chobotb.MigrateOptions{Version: v.Copy.Version, Tenants: []string{tenant}})
		if errors.Is(err, chobotb.ErrLeft) {
			return leftOnOldBound(v, r.Left)
		}
		if err != nil {
			return fmt.Errorf("migrating to %s: %w", v.File, err)
		}
	}
	t.TigerBeetle.mu.Lock()
	t.TigerBeetle.Book, t.TigerBeetle.def = v.Copy, def
	t.TigerBeetle.mu.Unlock()
	return nil
}
