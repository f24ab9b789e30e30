// Package driver serves the driver protocol (docs/formats.md, "Driver
// protocol") for a generated postgres-go client, so that the conformance
// runner drives the Go client the way it drives a client in any other
// language: as a process, through its stdin and stdout.
//
// The client is compiled in: a driver is a small main package that
// imports it and hands its constructor to Main (MainSource writes that
// package). The client's methods and fields are found by reflection,
// under the names the open request carries (the target's entry of `chobo
// api`), so one driver serves every book and reads none.
package driver

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/format"
	"io"
	"math/big"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/conformance/tbwire"
	"github.com/chobo-lang/chobo/chobo/ids"
	golang "github.com/chobo-lang/chobo/lang/go"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// PostgresTarget is the target whose clients Main drives: an open
// request must name it, and the answer does.
const PostgresTarget = "postgres-go"

// TigerBeetleTarget is the target whose clients MainTigerBeetle drives.
const TigerBeetleTarget = "tigerbeetle-go"

// Dial connects a tigerbeetle-go driver to TigerBeetle at the address the
// open request gives. The driver's main package provides it, so that this
// package needs neither cgo nor the official client.
type Dial func(address string) (chobotb.Client, func(), error)

// MaxConns bounds the driver's connections. A runner keeps several
// scenarios in flight, some with concurrent calls; more calls than this
// wait their turn for a connection, which costs time, not correctness.
const MaxConns = 8

// Main serves the protocol on stdin and stdout with the client whose
// constructor is given (a generated package's Postgres function), and
// exits: 0 at the end of stdin, 2 when the protocol was broken.
func Main(constructor any) {
	exit(Serve(os.Stdin, os.Stdout, constructor))
}

// MainTigerBeetle is Main for a generated tigerbeetle-go client: its
// TigerBeetleWith function, which takes any chobotb.Client (the driver
// reaches the model of TigerBeetle as well as a replica), with dial to
// reach TigerBeetle.
func MainTigerBeetle(constructor any, dial Dial) {
	exit(ServeTigerBeetle(os.Stdin, os.Stdout, constructor, dial))
}

func exit(err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "chobo driver: %v\n", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// Serve answers requests read from r on w until r ends. Each request is
// handled on a goroutine of its own and answered as soon as it is done,
// so answers may come in any order. It returns an error, after the
// requests in flight are answered, when a line is not a request or an
// answer could not be written.
func Serve(r io.Reader, w io.Writer, constructor any) error {
	if err := checkConstructor(constructor, reflect.TypeOf((*pgxpool.Pool)(nil)), golang.PostgresConstructor); err != nil {
		return err
	}
	return serveWith(r, w, &server{constructor: reflect.ValueOf(constructor), target: PostgresTarget})
}

// ServeTigerBeetle is Serve for a generated tigerbeetle-go client.
func ServeTigerBeetle(r io.Reader, w io.Writer, constructor any, dial Dial) error {
	if err := checkConstructor(constructor, reflect.TypeOf((*chobotb.Client)(nil)).Elem(), golang.TigerBeetleWithConstructor); err != nil {
		return err
	}
	return serveWith(r, w, &server{constructor: reflect.ValueOf(constructor), target: TigerBeetleTarget, dial: dial})
}

func serveWith(r io.Reader, w io.Writer, s *server) error {
	s.out = bufio.NewWriter(w)
	defer s.close()
	in := bufio.NewReader(r)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			req, perr := parse(line)
			if perr != nil {
				return perr
			}
			switch {
			case req.Op == protocol.Open:
				// Handled before the next line is read: every other
				// request needs what it opens.
				s.answer(s.open(req))
			case s.names == nil:
				s.answer(protocol.Response{ID: req.ID, Error: `not open: the first request must be "open"`})
			default:
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.answer(s.handle(req))
				}()
			}
		}
		if err == io.EOF {
			wg.Wait()
			return s.writeErr()
		}
		if err != nil {
			return err
		}
		if err := s.writeErr(); err != nil {
			return err
		}
	}
}

// parse reads one request; a line without an id cannot be answered, so
// it ends the driver.
func parse(line []byte) (protocol.Request, error) {
	var id struct {
		ID *int64 `json:"id"`
	}
	var req protocol.Request
	if err := json.Unmarshal(line, &id); err != nil {
		return req, fmt.Errorf("a line that is not a JSON object (%v): %q", err, strings.TrimSpace(string(line)))
	}
	if id.ID == nil {
		return req, fmt.Errorf(`a request without an "id": %q`, strings.TrimSpace(string(line)))
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return req, fmt.Errorf("a request of the wrong shape (%v): %q", err, strings.TrimSpace(string(line)))
	}
	return req, nil
}

// checkConstructor makes sure c is a generated constructor whose first
// argument takes what the driver will pass (first).
func checkConstructor(c any, first reflect.Type, name string) error {
	t := reflect.TypeOf(c)
	// A PostgreSQL constructor also takes options, which the driver
	// leaves at their defaults.
	variadic := t != nil && t.Kind() == reflect.Func && t.IsVariadic() && t.NumIn() == 3
	if t == nil || t.Kind() != reflect.Func || (t.NumIn() != 2 && !variadic) || t.NumOut() != 1 ||
		t.In(0).Kind() != reflect.Interface || t.In(1).Kind() != reflect.String ||
		t.Out(0).Kind() != reflect.Pointer || t.Out(0).Elem().Kind() != reflect.Struct {
		return fmt.Errorf("the constructor must be a generated client's %s function, func(client, string[, ...option]) *Book; got %v", name, t)
	}
	if !first.Implements(t.In(0)) && first != t.In(0) {
		return fmt.Errorf("the constructor takes %v, which a %v is not: hand over the generated client's %s function", t.In(0), first, name)
	}
	return nil
}

type server struct {
	constructor reflect.Value
	target      string // PostgresTarget or TigerBeetleTarget
	dial        Dial

	outMu       sync.Mutex
	out         *bufio.Writer
	failedWrite error

	// Set by open, before any other request is read.
	names *names
	first reflect.Value // the constructor's first argument: the pool or the TigerBeetle client
	done  func()

	// books holds one client per tenant, made on first use and kept: a
	// TigerBeetle book remembers the accounts it has made, as a program
	// that keeps its book value would.
	booksMu sync.Mutex
	books   map[string]reflect.Value

	// timeout, set by open from timeout_ms, bounds each call and bulk;
	// events, from request_events, is what each book is told a request
	// carries (0: its default).
	timeout time.Duration
	events  int
}

// names is what the driver reads of its target's entry in `chobo api`'s
// targets, which the open request carries (docs/formats.md).
type names struct {
	Balance string `json:"balance"`
	// Statement, BalanceAt and OpenHolds read an account's history, each
	// with the method Balance has for its kind; "" for a client without
	// the history reads.
	Statement string `json:"statement"`
	BalanceAt string `json:"balance_at"`
	OpenHolds string `json:"open_holds"`
	// Expire and ExpireUpTo: "" on TigerBeetle, which expires holds
	// itself. The driver calls ExpireUpTo, with the request's max.
	Expire     string `json:"expire"`
	ExpireUpTo string `json:"expire_up_to"`
	// Bulk sends many calls, each made by a transfer's method named op's
	// method and CallSuffix.
	Bulk       string     `json:"bulk"`
	CallSuffix string     `json:"call_suffix"`
	Transfers  []transfer `json:"transfers"`
	Accounts   []account  `json:"accounts"`
}

type transfer struct {
	Transfer string `json:"transfer"`
	Field    string `json:"field"`
	Methods  []struct {
		Op     string `json:"op"`
		Method string `json:"method"`
	} `json:"methods"`
	Args    structType  `json:"args"`
	Key     *structType `json:"key"`
	Amounts *structType `json:"amounts"`
	// Entries and OpenHolds are the transfer's history reads: the entries
	// of a key, and the holds still held ("" for one that posts at once).
	Entries   string `json:"entries"`
	OpenHolds string `json:"open_holds"`
}

type structType struct {
	Fields []field `json:"fields"`
}

// field is the struct field of one book parameter; Type is "int64" for
// an amount, "string" otherwise.
type field struct {
	Param string `json:"param"`
	Name  string `json:"name"`
	Type  string `json:"type"`
}

type account struct {
	Account string  `json:"account"`
	Method  string  `json:"method"`
	Fields  []field `json:"fields"`
}

// method is the Go method of op on t, or "".
func (t *transfer) method(op string) string {
	for _, m := range t.Methods {
		if m.Op == op {
			return m.Method
		}
	}
	return ""
}

func (s *server) answer(res protocol.Response) {
	b, err := json.Marshal(res)
	if err != nil {
		b, _ = json.Marshal(protocol.Response{ID: res.ID, Error: err.Error()})
	}
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if s.failedWrite != nil {
		return
	}
	// One flush per answer: the runner waits for it.
	if _, err := s.out.Write(append(b, '\n')); err != nil {
		s.failedWrite = err
	} else if err := s.out.Flush(); err != nil {
		s.failedWrite = err
	}
}

func (s *server) writeErr() error {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if s.failedWrite != nil {
		return fmt.Errorf("writing an answer: %v", s.failedWrite)
	}
	return nil
}

func (s *server) close() {
	if s.done != nil {
		s.done()
	}
}

// open reads the client's names from the request, connects, and checks
// that the client compiled in has every member the names call for.
func (s *server) open(req protocol.Request) protocol.Response {
	fail := func(format string, args ...any) protocol.Response {
		return protocol.Response{ID: req.ID, Error: fmt.Sprintf(format, args...)}
	}
	if s.names != nil {
		return fail("open: already open")
	}
	if req.Target != s.target {
		return fail("open: this driver drives a %s client, not %q", s.target, req.Target)
	}
	if len(req.Names) == 0 {
		return fail(`open: no "names"`)
	}
	var n names
	if err := json.Unmarshal(req.Names, &n); err != nil {
		return fail("open: the names: %v", err)
	}
	first, done, err := s.connect(req)
	if err != nil {
		return fail("open: %v", err)
	}
	if err := fits(s.constructor.Call([]reflect.Value{first, reflect.ValueOf("")})[0], &n); err != nil {
		done()
		return fail("open: the client compiled into this driver is not the one the names describe (%s): %v", req.Book, err)
	}
	s.names, s.first, s.done = &n, first, done
	return protocol.Response{ID: req.ID, OK: true, Client: s.target}
}

// connect reaches the backend the request names and returns what the
// constructor takes first, and what closes it.
func (s *server) connect(req protocol.Request) (reflect.Value, func(), error) {
	if s.target == TigerBeetleTarget {
		c, done, err := s.dial(req.TigerBeetle)
		if err != nil {
			return reflect.Value{}, nil, fmt.Errorf("connecting to TigerBeetle at %q: %v", req.TigerBeetle, err)
		}
		if req.HoldSeconds > 0 {
			c = shortened{c, uint32(req.HoldSeconds)}
		}
		if req.TimeoutMS < 0 {
			done()
			return reflect.Value{}, nil, fmt.Errorf("timeout_ms %d is not a number of milliseconds", req.TimeoutMS)
		}
		s.timeout = time.Duration(req.TimeoutMS) * time.Millisecond
		if req.RequestEvents < 0 || req.RequestEvents > chobotb.MaxRequestEvents {
			done()
			return reflect.Value{}, nil, fmt.Errorf("request_events %d: a request carries from 1 to %d events", req.RequestEvents, chobotb.MaxRequestEvents)
		}
		s.events = req.RequestEvents
		return reflect.ValueOf(&c).Elem(), done, nil
	}
	cfg, err := pgxpool.ParseConfig(req.DSN)
	if err != nil {
		return reflect.Value{}, nil, fmt.Errorf("the dsn: %v", err)
	}
	cfg.MaxConns = MaxConns
	// Idle connections go soon: a runner may start a driver per book on
	// one server, and their pools together must stay under its limit.
	cfg.MaxConnIdleTime = time.Second
	if path := os.Getenv(RecordEnv); path != "" {
		cfg.ConnConfig.Tracer = &recorder{file: recordLogAt(path)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = pool.Ping(ctx)
		if err != nil {
			pool.Close()
		}
	}
	if err != nil {
		return reflect.Value{}, nil, fmt.Errorf("connecting: %v", err)
	}
	return reflect.ValueOf(pool), pool.Close, nil
}

// shortened sends every hold that expires with the open request's
// hold_seconds as its timeout.
type shortened struct {
	chobotb.Client
	secs uint32
}

func (s shortened) CreateTransfers(ctx context.Context, ts []chobotb.Transfer) ([]chobotb.Status, error) {
	out := make([]chobotb.Transfer, len(ts))
	for i, t := range ts {
		if t.Flags&chobotb.TransferPending != 0 && t.Timeout > 0 {
			t.Timeout = s.secs
		}
		out[i] = t
	}
	return s.Client.CreateTransfers(ctx, out)
}

// fits checks that a client has every member the names call for, so
// that a driver built with another book's client stops at open instead
// of at its first call.
func fits(client reflect.Value, n *names) error {
	b := client.Elem()
	for _, t := range n.Transfers {
		f := b.FieldByName(t.Field)
		if !f.IsValid() {
			return fmt.Errorf("no field %s for the transfer %s", t.Field, t.Transfer)
		}
		for _, m := range t.Methods {
			if !f.MethodByName(m.Method).IsValid() {
				return fmt.Errorf("no method %s.%s", t.Field, m.Method)
			}
		}
	}
	bal := b.FieldByName(n.Balance)
	if !bal.IsValid() {
		return fmt.Errorf("no field %s", n.Balance)
	}
	for _, a := range n.Accounts {
		if !bal.MethodByName(a.Method).IsValid() {
			return fmt.Errorf("no method %s.%s for the account %s", n.Balance, a.Method, a.Account)
		}
	}
	if err := fitsHistory(b, n); err != nil {
		return err
	}
	for _, m := range []string{n.Expire, n.ExpireUpTo} {
		if m != "" && !client.MethodByName(m).IsValid() {
			return fmt.Errorf("no method %s", m)
		}
	}
	if (n.Expire == "") != (n.ExpireUpTo == "") {
		return fmt.Errorf("expire %q and expire_up_to %q: both or neither", n.Expire, n.ExpireUpTo)
	}
	return nil
}

// handle answers every request but open.
func (s *server) handle(req protocol.Request) protocol.Response {
	res, err := s.do(req)
	res.ID = req.ID
	if err != nil {
		return protocol.Response{ID: req.ID, Error: err.Error()}
	}
	return res
}

func (s *server) do(req protocol.Request) (protocol.Response, error) {
	ctx := context.Background()
	if s.timeout > 0 && (req.Op == protocol.Call || req.Op == protocol.Bulk) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	switch req.Op {
	case protocol.Call:
		return s.call(ctx, req)
	case protocol.Expire:
		if s.names.Expire == "" {
			// TigerBeetle gives expired holds back itself.
			n := 0
			return protocol.Response{Expired: &n}, nil
		}
		out := s.client("").MethodByName(s.names.ExpireUpTo).Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(req.Max)})
		if err := asError(out[1]); err != nil {
			return protocol.Response{}, err
		}
		n := int(out[0].Int())
		return protocol.Response{Expired: &n}, nil
	case protocol.Balance:
		return s.balance(ctx, req)
	case protocol.Bulk:
		return s.bulk(ctx, req)
	case protocol.Statement:
		return s.statement(ctx, req)
	case protocol.Entries:
		return s.entries(ctx, req)
	case protocol.Holds:
		return s.holds(ctx, req)
	case protocol.BalanceAt:
		return s.balanceAt(ctx, req)
	case protocol.Bench:
		return s.bench(ctx, req)
	}
	return protocol.Response{}, fmt.Errorf("no op %q (open, call, expire, balance, bulk, statement, entries, holds, balance_at, bench)", req.Op)
}

// client is the generated Book for a tenant, over the driver's pool.
func (s *server) client(tenant string) reflect.Value {
	s.booksMu.Lock()
	defer s.booksMu.Unlock()
	if b, ok := s.books[tenant]; ok {
		return b
	}
	if s.books == nil {
		s.books = map[string]reflect.Value{}
	}
	first := s.first
	if path := os.Getenv(RecordEnv); path != "" && s.target == TigerBeetleTarget {
		// Outside the shortened client, so that what is written down is
		// what the generated client handed over.
		var c chobotb.Client = &tbRecorder{Client: s.first.Interface().(chobotb.Client), tenant: tenant, file: recordLogAt(path)}
		first = reflect.ValueOf(&c).Elem()
	}
	b := s.constructor.Call([]reflect.Value{first, reflect.ValueOf(tenant)})[0]
	if s.events > 0 {
		// The generated book's RequestEvents, which refuses only what open
		// has refused already (a number out of range).
		b.MethodByName("RequestEvents").Call([]reflect.Value{reflect.ValueOf(s.events)})
	}
	s.books[tenant] = b
	return b
}

// method finds the method of op (its name and suffix) on the transfer
// name in book, and says what the transfer is.
func (s *server) method(book reflect.Value, name, op, suffix string) (*transfer, reflect.Value, error) {
	var t *transfer
	for i := range s.names.Transfers {
		if s.names.Transfers[i].Transfer == name {
			t = &s.names.Transfers[i]
		}
	}
	if t == nil {
		return nil, reflect.Value{}, fmt.Errorf("the book has no transfer %q", name)
	}
	m := t.method(op)
	if m == "" {
		return nil, reflect.Value{}, fmt.Errorf("%s has no operation %q", t.Transfer, op)
	}
	method := book.Elem().FieldByName(t.Field).MethodByName(m + suffix)
	if !method.IsValid() {
		return nil, reflect.Value{}, fmt.Errorf("the client has no method %s.%s", t.Field, m+suffix)
	}
	return t, method, nil
}

// bulk makes a call value of every call of the request with the Call
// twins of the methods, and sends them all in one bulk call of the
// client. A call the driver cannot make (a transfer or parameter the
// book does not have) is answered with its error and left out.
func (s *server) bulk(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	if s.names.Bulk == "" || s.names.CallSuffix == "" {
		return protocol.Response{}, fmt.Errorf("the client has no bulk call")
	}
	book := s.client(req.Tenant)
	bulk := book.MethodByName(s.names.Bulk)
	if !bulk.IsValid() {
		return protocol.Response{}, fmt.Errorf("the client has no method %s", s.names.Bulk)
	}
	answers := make([]protocol.Answer, len(req.Calls))
	args := []reflect.Value{reflect.ValueOf(ctx)}
	var at []int
	for i, c := range req.Calls {
		t, method, err := s.method(book, c.Transfer, c.Operation, s.names.CallSuffix)
		var in []reflect.Value
		if err == nil {
			in, err = callArgs(method.Type(), 0, t, c.Operation, c.Args)
		}
		if err != nil {
			answers[i].Error = fmt.Sprintf("%s.%s: %v", c.Transfer, c.Operation, err)
			continue
		}
		args = append(args, method.Call(in)[0])
		at = append(at, i)
	}
	if len(at) > 0 {
		out := bulk.Call(args)
		if len(out) == 2 {
			if err := asError(out[1]); err != nil {
				return protocol.Response{}, err
			}
		}
		for n, i := range at {
			a := out[0].Index(n)
			if err := asError(a.FieldByName("Err")); err != nil {
				answers[i].Error = err.Error()
			} else if req.Calls[i].Operation == "status" {
				state := a.FieldByName("State").String()
				answers[i].State = &state
			} else {
				r := a.FieldByName("Result")
				answers[i].Outcome, answers[i].Reason = r.FieldByName("Outcome").String(), r.FieldByName("Reason").String()
			}
		}
	}
	return protocol.Response{Answers: answers}, nil
}

func (s *server) call(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	op := req.Operation
	t, method, err := s.method(s.client(req.Tenant), req.Transfer, op, "")
	if err != nil {
		return protocol.Response{}, err
	}
	args, err := callArgs(method.Type(), 1, t, op, req.Args)
	if err != nil {
		return protocol.Response{}, fmt.Errorf("%s.%s: %v", t.Transfer, op, err)
	}
	out := method.Call(append([]reflect.Value{reflect.ValueOf(ctx)}, args...))
	if err := asError(out[1]); err != nil {
		return protocol.Response{}, err
	}
	if op == "status" {
		state := out[0].String()
		return protocol.Response{State: &state}, nil
	}
	return protocol.Response{
		Outcome: out[0].FieldByName("Outcome").String(),
		Reason:  out[0].FieldByName("Reason").String(),
	}, nil
}

// callArgs are the arguments from the first-th on (after the context, or
// all of a Call twin's) of the method mt of op, as the protocol says what
// each operation takes: a do or hold every parameter, the others the
// hold's key, and a post the amounts too when args give them.
func callArgs(mt reflect.Type, first int, t *transfer, op string, args map[string]string) ([]reflect.Value, error) {
	if op == "do" || op == "hold" {
		v, err := fill(mt.In(first), t.Args.Fields, args, nil)
		return []reflect.Value{v}, err
	}
	if t.Key == nil {
		return nil, fmt.Errorf("%s names no hold", t.Transfer)
	}
	var amounts []field
	if op == "post" && t.Amounts != nil {
		amounts = t.Amounts.Fields
	}
	key, err := fill(mt.In(first), t.Key.Fields, args, amounts)
	if err != nil {
		return nil, err
	}
	out := []reflect.Value{key}
	if op == "post" && mt.NumIn() == first+2 {
		v, err := postAmounts(mt.In(first+1), amounts, args)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// postAmounts is the amounts argument of a post: nil (post the whole
// hold) when args give none of the amounts, else every one of them.
func postAmounts(ptr reflect.Type, amounts []field, args map[string]string) (reflect.Value, error) {
	var given []string
	for _, f := range amounts {
		if _, ok := args[f.Param]; ok {
			given = append(given, f.Param)
		}
	}
	if len(given) == 0 {
		return reflect.Zero(ptr), nil
	}
	only := map[string]string{}
	for _, f := range amounts {
		v, ok := args[f.Param]
		if !ok {
			return reflect.Value{}, fmt.Errorf("give every amount (%s) or none", paramNames(amounts))
		}
		only[f.Param] = v
	}
	v, err := fill(ptr.Elem(), amounts, only, nil)
	if err != nil {
		return reflect.Value{}, err
	}
	p := reflect.New(ptr.Elem())
	p.Elem().Set(v)
	return p, nil
}

func (s *server) balance(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	var a *account
	for i := range s.names.Accounts {
		if s.names.Accounts[i].Account == req.Account {
			a = &s.names.Accounts[i]
		}
	}
	if a == nil {
		return protocol.Response{}, fmt.Errorf("the book has no account %q", req.Account)
	}
	method := s.client(req.Tenant).Elem().FieldByName(s.names.Balance).MethodByName(a.Method)
	if !method.IsValid() {
		return protocol.Response{}, fmt.Errorf("the client has no method %s.%s", s.names.Balance, a.Method)
	}
	args := []reflect.Value{reflect.ValueOf(ctx)}
	if method.Type().NumIn() == 2 {
		v, err := fill(method.Type().In(1), a.Fields, req.Args, nil)
		if err != nil {
			return protocol.Response{}, fmt.Errorf("balance %s: %v", a.Account, err)
		}
		args = append(args, v)
	} else if err := onlyKnown(req.Args, nil, nil); err != nil {
		return protocol.Response{}, fmt.Errorf("balance %s: %v", a.Account, err)
	}
	out := method.Call(args)
	if err := asError(out[1]); err != nil {
		return protocol.Response{}, err
	}
	b := out[0]
	return protocol.Response{
		Posted:  protocol.FormatAmount(b.FieldByName("Posted").Int()),
		HeldIn:  protocol.FormatAmount(b.FieldByName("HeldIn").Int()),
		HeldOut: protocol.FormatAmount(b.FieldByName("HeldOut").Int()),
	}, nil
}

// fill makes a struct of type ty whose fields hold the values of params
// from args. Every param must be given; args may hold nothing else but
// the names in also (a post's amounts, beside its key).
func fill(ty reflect.Type, params []field, args map[string]string, also []field) (reflect.Value, error) {
	v := reflect.New(ty).Elem()
	for _, p := range params {
		text, ok := args[p.Param]
		if !ok {
			return v, fmt.Errorf("the value of %s is missing", p.Param)
		}
		f := v.FieldByName(p.Name)
		if !f.IsValid() {
			return v, fmt.Errorf("the client's %v has no field %s", ty, p.Name)
		}
		if p.Type == "int64" {
			n, err := protocol.ParseAmount(text)
			if err != nil {
				return v, fmt.Errorf("%s: %v", p.Param, err)
			}
			f.SetInt(n)
		} else {
			f.SetString(text)
		}
	}
	return v, onlyKnown(args, params, also)
}

// onlyKnown fails for a value of args that names no parameter of the
// operation: a misspelt name would otherwise be dropped in silence.
func onlyKnown(args map[string]string, params, also []field) error {
	for name := range args {
		known := false
		for _, p := range append(append([]field(nil), params...), also...) {
			known = known || p.Param == name
		}
		if !known {
			return fmt.Errorf("%s is not one of its parameters", name)
		}
	}
	return nil
}

func asError(v reflect.Value) error {
	err, _ := v.Interface().(error)
	return err
}

func paramNames(fs []field) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Param)
	}
	return strings.Join(out, ", ")
}

// DialWire reaches TigerBeetle, or the model of it, through the process
// that serves it over tbwire at address: the conformance runner, which
// keeps the model in its own process and stands between a driver and a
// real replica.
func DialWire(address string) (chobotb.Client, func(), error) {
	c, err := tbwire.Dial(address)
	if err != nil {
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}

// MainSourceTigerBeetle is MainSource for a tigerbeetle-go client: its
// TigerBeetleWith constructor, which takes any chobotb.Client, handed to
// MainTigerBeetle over DialWire.
func MainSourceTigerBeetle(importpath string) []byte {
	return mainSource(importpath, "tigerbeetle-go client", "driver.MainTigerBeetle(client."+golang.TigerBeetleWithConstructor+", driver.DialWire)")
}

// MainSource is a whole driver program for the client at importpath: a
// main package that hands the client's constructor to Main. The bytes
// depend on importpath only, so a build that writes them is reproducible.
func MainSource(importpath string) []byte {
	return mainSource(importpath, "client", "driver.Main(client."+golang.PostgresConstructor+")")
}

// mainSource writes the driver program that runs call with the client at
// importpath imported as client.
func mainSource(importpath, what, call string) []byte {
	src := fmt.Sprintf(`// Code generated by chobo. DO NOT EDIT.

// The driver of a chobo %s: it serves the driver protocol on stdin
// and stdout for the conformance runner.
package main

import (
	client %q

	"github.com/chobo-lang/chobo/lang/go/driver"
)

func main() {
	%s
}
`, what, importpath, call)
	out, err := format.Source([]byte(src))
	if err != nil {
		// Only an import path that is not a Go string could do this, and
		// %q makes every string one.
		panic(err)
	}
	return out
}

// RecordEnv names the file into which a driver writes down every
// request its client hands over, one JSON line each, before it goes, as
// the other languages' drivers write them, so that a test can hold what
// the client sends to what `chobo run --show` prints. On PostgreSQL a
// line is a statement pgx sends, {"tenant", "sql", "args"} with amounts
// as {"amount": "N"}; on TigerBeetle a request to the client,
// {"tenant", "op", "accounts" | "transfers" | "ids"} with ids in 32 hex
// digits and 64- and 128-bit numbers as decimal strings.
const RecordEnv = "CHOBO_DRIVER_RECORD"

// recordLog is the file a driver writes down what its client sends in;
// one per path in a process, so that lines of concurrent calls never
// interleave.
type recordLog struct {
	mu   sync.Mutex
	path string
}

var recordFiles sync.Map // path → *recordLog

func recordLogAt(path string) *recordLog {
	f, _ := recordFiles.LoadOrStore(path, &recordLog{path: path})
	return f.(*recordLog)
}

// write appends one line. A line that cannot be written is left out:
// the test that reads the file then finds a request missing.
func (r *recordLog) write(line any) {
	data, err := json.Marshal(line)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(r.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.Write(append(data, '\n'))
	f.Close()
}

// recorder is a pgx tracer: it sees each statement as pgx is about to
// send it, with its arguments, so what it writes is what went to the
// server rather than what the client meant to send.
type recorder struct {
	file *recordLog
}

func (r *recorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, q pgx.TraceQueryStartData) context.Context {
	if q.SQL == ";" || strings.HasPrefix(q.SQL, "-- ping") {
		return ctx // pgxpool's ping, not the client's
	}
	line := struct {
		Tenant string `json:"tenant"`
		SQL    string `json:"sql"`
		Args   []any  `json:"args"`
	}{SQL: q.SQL, Args: []any{}}
	// pgx sees how to send the statement among the arguments, before
	// them (chobopg sends every one unnamed): not a value that goes.
	args := q.Args
	for len(args) > 0 {
		switch args[0].(type) {
		case pgx.QueryExecMode, pgx.QueryResultFormats, pgx.QueryResultFormatsByOID:
			args = args[1:]
			continue
		}
		break
	}
	for i, a := range args {
		switch v := a.(type) {
		case int64:
			a = map[string]string{"amount": strconv.FormatInt(v, 10)}
		case *int64:
			if v != nil {
				a = map[string]string{"amount": strconv.FormatInt(*v, 10)}
			}
		case string:
			if i == 0 {
				line.Tenant = v // every statement but the expire's starts with the tenant
			}
		}
		line.Args = append(line.Args, a)
	}
	r.file.write(line)
	return ctx
}

func (r *recorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// tbRecorder writes down each request a tenant's client hands to
// TigerBeetle's, then hands it on.
type tbRecorder struct {
	chobotb.Client
	tenant string
	file   *recordLog
}

type tbLine struct {
	Tenant    string           `json:"tenant"`
	Op        string           `json:"op"`
	Accounts  []map[string]any `json:"accounts,omitempty"`
	Transfers []map[string]any `json:"transfers,omitempty"`
	IDs       []string         `json:"ids,omitempty"`
}

func hexID(id ids.ID) string { return hex.EncodeToString(id[:]) }

// dec is a 128-bit number in decimal.
func dec(u chobotb.U128) string {
	v := new(big.Int).SetUint64(u.Hi)
	return v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(u.Lo)).String()
}

func (r *tbRecorder) CreateAccounts(ctx context.Context, as []chobotb.Account) ([]chobotb.Status, error) {
	line := tbLine{Tenant: r.tenant, Op: "create_accounts", Accounts: []map[string]any{}}
	for _, a := range as {
		line.Accounts = append(line.Accounts, map[string]any{
			"id": hexID(a.ID), "user_data_128": hexID(a.UserData128), "ledger": a.Ledger, "code": a.Code, "flags": a.Flags,
			"debits_pending": dec(a.DebitsPending), "debits_posted": dec(a.DebitsPosted),
			"credits_pending": dec(a.CreditsPending), "credits_posted": dec(a.CreditsPosted),
			"timestamp": strconv.FormatUint(a.Timestamp, 10),
		})
	}
	r.file.write(line)
	return r.Client.CreateAccounts(ctx, as)
}

func (r *tbRecorder) CreateTransfers(ctx context.Context, ts []chobotb.Transfer) ([]chobotb.Status, error) {
	line := tbLine{Tenant: r.tenant, Op: "create_transfers", Transfers: []map[string]any{}}
	for _, t := range ts {
		line.Transfers = append(line.Transfers, map[string]any{
			"id": hexID(t.ID), "debit_account_id": hexID(t.DebitAccountID), "credit_account_id": hexID(t.CreditAccountID),
			"amount": dec(t.Amount), "pending_id": hexID(t.PendingID), "user_data_128": hexID(t.UserData128),
			"user_data_64": strconv.FormatUint(t.UserData64, 10), "timeout": t.Timeout, "ledger": t.Ledger,
			"code": t.Code, "flags": t.Flags, "timestamp": strconv.FormatUint(t.Timestamp, 10),
		})
	}
	r.file.write(line)
	return r.Client.CreateTransfers(ctx, ts)
}

func (r *tbRecorder) LookupAccounts(ctx context.Context, of []ids.ID) ([]chobotb.Account, error) {
	r.lookup("lookup_accounts", of)
	return r.Client.LookupAccounts(ctx, of)
}

func (r *tbRecorder) LookupTransfers(ctx context.Context, of []ids.ID) ([]chobotb.Transfer, error) {
	r.lookup("lookup_transfers", of)
	return r.Client.LookupTransfers(ctx, of)
}

func (r *tbRecorder) lookup(op string, of []ids.ID) {
	line := tbLine{Tenant: r.tenant, Op: op, IDs: []string{}}
	for _, id := range of {
		line.IDs = append(line.IDs, hexID(id))
	}
	r.file.write(line)
}

// The wrappers above pass the history reads on: a client that reads
// history keeps reading it when a driver shortens its holds or records
// its requests.

func (s shortened) GetAccountTransfers(ctx context.Context, f chobotb.AccountFilter) ([]chobotb.Transfer, error) {
	return chobotb.ReadsOf(s.Client).GetAccountTransfers(ctx, f)
}

func (s shortened) QueryTransfers(ctx context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	return chobotb.ReadsOf(s.Client).QueryTransfers(ctx, f)
}

func (r *tbRecorder) GetAccountTransfers(ctx context.Context, f chobotb.AccountFilter) ([]chobotb.Transfer, error) {
	return chobotb.ReadsOf(r.Client).GetAccountTransfers(ctx, f)
}

func (r *tbRecorder) QueryTransfers(ctx context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	return chobotb.ReadsOf(r.Client).QueryTransfers(ctx, f)
}

var (
	_ chobotb.HistoryClient = shortened{}
	_ chobotb.HistoryClient = (*tbRecorder)(nil)
)
