// Package godriver serves the driver protocol (docs/formats.md, "Driver
// protocol") for a generated postgres-go client, so that the conformance
// runner drives the Go client the way it drives a client in any other
// language: as a process, through its stdin and stdout.
//
// The client is compiled in: a driver is a small main package that
// imports it and hands its constructor to Main (MainSource writes that
// package). The client's methods and fields are found by reflection,
// under the names the generator gave them (golang.Naming), so one driver
// serves every book.
package godriver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"go/format"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/golang"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/conformance/tbwire"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Client is what this driver answers to open: the target whose code it
// drives (TigerBeetleClient for a driver made by MainTigerBeetle).
const Client = "postgres-go"

// TigerBeetleClient is what a driver of a tigerbeetle-go client answers.
const TigerBeetleClient = "tigerbeetle-go"

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
// TigerBeetle function, with dial to reach TigerBeetle.
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
	return serveWith(r, w, &server{constructor: reflect.ValueOf(constructor), backend: model.Postgres})
}

// ServeTigerBeetle is Serve for a generated tigerbeetle-go client.
func ServeTigerBeetle(r io.Reader, w io.Writer, constructor any, dial Dial) error {
	if err := checkConstructor(constructor, reflect.TypeOf((*chobotb.Client)(nil)).Elem(), "TigerBeetle"); err != nil {
		return err
	}
	return serveWith(r, w, &server{constructor: reflect.ValueOf(constructor), backend: model.TigerBeetle, dial: dial})
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
			case s.model == nil:
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

// checkConstructor fails early, with the reason, for anything but a
// func(Querier, string) *Book.
// checkConstructor makes sure c is a generated constructor whose first
// argument takes what the driver will pass (first).
func checkConstructor(c any, first reflect.Type, name string) error {
	t := reflect.TypeOf(c)
	if t == nil || t.Kind() != reflect.Func || t.NumIn() != 2 || t.NumOut() != 1 ||
		t.In(0).Kind() != reflect.Interface || t.In(1).Kind() != reflect.String ||
		t.Out(0).Kind() != reflect.Pointer || t.Out(0).Elem().Kind() != reflect.Struct {
		return fmt.Errorf("the constructor must be a generated client's %s function, func(client, string) *Book; got %v", name, t)
	}
	if !first.Implements(t.In(0)) && first != t.In(0) {
		return fmt.Errorf("the constructor takes %v, which a %v is not", t.In(0), first)
	}
	return nil
}

type server struct {
	constructor reflect.Value
	backend     string // model.Postgres or model.TigerBeetle
	dial        Dial

	outMu       sync.Mutex
	out         *bufio.Writer
	failedWrite error

	// Set by open, before any other request is read.
	model *model.Model
	names golang.Names
	first reflect.Value // the constructor's first argument: the pool or the TigerBeetle client
	done  func()

	// books holds one client per tenant, made on first use and kept: a
	// TigerBeetle book remembers the accounts it has made, as a program
	// that keeps its book value would.
	booksMu sync.Mutex
	books   map[string]reflect.Value
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

// open reads and checks the book, works out the client's names, and
// connects.
func (s *server) open(req protocol.Request) protocol.Response {
	fail := func(format string, args ...any) protocol.Response {
		return protocol.Response{ID: req.ID, Error: fmt.Sprintf(format, args...)}
	}
	if s.model != nil {
		return fail("open: already open")
	}
	src, err := os.ReadFile(req.Book)
	if err != nil {
		return fail("open: %v", err)
	}
	res := check.Check(filepath.Base(req.Book), src)
	if res.Book == nil {
		return fail("open: %s does not check", req.Book)
	}
	m, err := model.New(res.Book, s.backend)
	if err != nil {
		return fail("open: %v", err)
	}
	if s.backend == model.TigerBeetle {
		c, done, err := s.dial(req.TigerBeetle)
		if err != nil {
			return fail("open: connecting to TigerBeetle at %q: %v", req.TigerBeetle, err)
		}
		names := golang.Naming(m)
		first := reflect.ValueOf(&c).Elem()
		if err := fits(s.constructor.Call([]reflect.Value{first, reflect.ValueOf("")})[0], m, names, false); err != nil {
			done()
			return fail("open: the client compiled into this driver was not generated from %s: %v", req.Book, err)
		}
		s.model, s.names, s.first, s.done = m, names, first, done
		return protocol.Response{ID: req.ID, OK: true, Client: TigerBeetleClient}
	}
	cfg, err := pgxpool.ParseConfig(req.DSN)
	if err != nil {
		return fail("open: the dsn: %v", err)
	}
	cfg.MaxConns = MaxConns
	// Idle connections go soon: a runner may start a driver per book on
	// one server, and their pools together must stay under its limit.
	cfg.MaxConnIdleTime = time.Second
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
		return fail("open: connecting: %v", err)
	}
	names := golang.Naming(m)
	if err := fits(s.constructor.Call([]reflect.Value{reflect.ValueOf(pool), reflect.ValueOf("")})[0], m, names, true); err != nil {
		pool.Close()
		return fail("open: the client compiled into this driver was not generated from %s: %v", req.Book, err)
	}
	s.model, s.names, s.first, s.done = m, names, reflect.ValueOf(pool), pool.Close
	return protocol.Response{ID: req.ID, OK: true, Client: Client}
}

// fits checks that a client has every member the model's names call for,
// so that a driver built with another book's client stops at open
// instead of at its first call.
func fits(client reflect.Value, m *model.Model, names golang.Names, expire bool) error {
	b := client.Elem()
	for _, t := range m.Transfers {
		f := b.FieldByName(names.Transfers[t.Name].Field)
		if !f.IsValid() {
			return fmt.Errorf("no field %s for the transfer %s", names.Transfers[t.Name].Field, t.Name)
		}
		for _, op := range t.Operations {
			if !f.MethodByName(golang.Method(op.Name)).IsValid() {
				return fmt.Errorf("no method %s.%s", names.Transfers[t.Name].Field, golang.Method(op.Name))
			}
		}
	}
	bal := b.FieldByName("Balance")
	if !bal.IsValid() {
		return fmt.Errorf("no field Balance")
	}
	for _, a := range m.Accounts {
		if !bal.MethodByName(names.Accounts[a.Name].Method).IsValid() {
			return fmt.Errorf("no method Balance.%s for the account %s", names.Accounts[a.Name].Method, a.Name)
		}
	}
	if expire && !client.MethodByName("Expire").IsValid() {
		return fmt.Errorf("no method Expire")
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
	switch req.Op {
	case protocol.Call:
		return s.call(ctx, req)
	case protocol.Expire:
		if s.backend == model.TigerBeetle {
			// TigerBeetle gives expired holds back itself.
			n := 0
			return protocol.Response{Expired: &n}, nil
		}
		out := s.client("").MethodByName("Expire").Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(req.Max)})
		if err := asError(out[1]); err != nil {
			return protocol.Response{}, err
		}
		n := int(out[0].Int())
		return protocol.Response{Expired: &n}, nil
	case protocol.Balance:
		return s.balance(ctx, req)
	}
	return protocol.Response{}, fmt.Errorf("no op %q (open, call, expire, balance)", req.Op)
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
	b := s.constructor.Call([]reflect.Value{s.first, reflect.ValueOf(tenant)})[0]
	s.books[tenant] = b
	return b
}

func (s *server) call(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	t := s.model.Transfer(req.Transfer)
	if t == nil {
		return protocol.Response{}, fmt.Errorf("the book has no transfer %q", req.Transfer)
	}
	op := t.Operation(req.Operation)
	if op == nil {
		return protocol.Response{}, fmt.Errorf("%s has no operation %q", t.Name, req.Operation)
	}
	names := s.names.Transfers[t.Name]
	method := s.client(req.Tenant).Elem().FieldByName(names.Field).MethodByName(golang.Method(op.Name))
	if !method.IsValid() {
		return protocol.Response{}, fmt.Errorf("the client has no method %s.%s", names.Field, golang.Method(op.Name))
	}
	mt := method.Type()
	args := []reflect.Value{reflect.ValueOf(ctx)}
	switch op.Takes {
	case model.TakesArgs:
		v, err := fill(mt.In(1), t.Args, names.ArgFields, req.Args, nil)
		if err != nil {
			return protocol.Response{}, fmt.Errorf("%s.%s: %v", t.Name, op.Name, err)
		}
		args = append(args, v)
	case model.TakesKey:
		v, err := fill(mt.In(1), t.Key, names.KeyFields, req.Args, nil)
		if err != nil {
			return protocol.Response{}, fmt.Errorf("%s.%s: %v", t.Name, op.Name, err)
		}
		args = append(args, v)
	case model.TakesKeyAndAmounts:
		key, err := fill(mt.In(1), t.Key, names.KeyFields, req.Args, t.Amounts)
		if err != nil {
			return protocol.Response{}, fmt.Errorf("%s.%s: %v", t.Name, op.Name, err)
		}
		args = append(args, key)
		if mt.NumIn() == 3 {
			amounts, err := postAmounts(mt.In(2), t, names, req.Args)
			if err != nil {
				return protocol.Response{}, fmt.Errorf("%s.%s: %v", t.Name, op.Name, err)
			}
			args = append(args, amounts)
		}
	default:
		return protocol.Response{}, fmt.Errorf("%s.%s takes %q, which this driver does not know", t.Name, op.Name, op.Takes)
	}
	out := method.Call(args)
	if err := asError(out[1]); err != nil {
		return protocol.Response{}, err
	}
	if op.Answers == model.AnswersState {
		state := out[0].String()
		return protocol.Response{State: &state}, nil
	}
	return protocol.Response{
		Outcome: out[0].FieldByName("Outcome").String(),
		Reason:  out[0].FieldByName("Reason").String(),
	}, nil
}

// postAmounts is the amounts argument of a post: nil (post the whole
// hold) when args give none of the amounts, else every one of them.
func postAmounts(ptr reflect.Type, t *model.Transfer, names golang.TransferNames, args map[string]string) (reflect.Value, error) {
	var given []string
	for _, p := range t.Amounts {
		if _, ok := args[p.Name]; ok {
			given = append(given, p.Name)
		}
	}
	if len(given) == 0 {
		return reflect.Zero(ptr), nil
	}
	only := map[string]string{}
	for _, p := range t.Amounts {
		v, ok := args[p.Name]
		if !ok {
			return reflect.Value{}, fmt.Errorf("give every amount (%s) or none", paramNames(t.Amounts))
		}
		only[p.Name] = v
	}
	v, err := fill(ptr.Elem(), t.Amounts, names.AmountFields, only, nil)
	if err != nil {
		return reflect.Value{}, err
	}
	p := reflect.New(ptr.Elem())
	p.Elem().Set(v)
	return p, nil
}

func (s *server) balance(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	acc := s.model.Account(req.Account)
	if acc == nil {
		return protocol.Response{}, fmt.Errorf("the book has no account %q", req.Account)
	}
	names := s.names.Accounts[acc.Name]
	method := s.client(req.Tenant).Elem().FieldByName("Balance").MethodByName(names.Method)
	if !method.IsValid() {
		return protocol.Response{}, fmt.Errorf("the client has no method Balance.%s", names.Method)
	}
	args := []reflect.Value{reflect.ValueOf(ctx)}
	if method.Type().NumIn() == 2 {
		v, err := fill(method.Type().In(1), acc.Params, names.Fields, req.Args, nil)
		if err != nil {
			return protocol.Response{}, fmt.Errorf("balance %s: %v", acc.Name, err)
		}
		args = append(args, v)
	} else if err := onlyKnown(req.Args, nil, nil); err != nil {
		return protocol.Response{}, fmt.Errorf("balance %s: %v", acc.Name, err)
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
func fill(ty reflect.Type, params []model.Param, fields []string, args map[string]string, also []model.Param) (reflect.Value, error) {
	v := reflect.New(ty).Elem()
	for i, p := range params {
		text, ok := args[p.Name]
		if !ok {
			return v, fmt.Errorf("the value of %s is missing", p.Name)
		}
		f := v.FieldByName(fields[i])
		if !f.IsValid() {
			return v, fmt.Errorf("the client's %v has no field %s", ty, fields[i])
		}
		if p.Amount {
			n, err := protocol.ParseAmount(text)
			if err != nil {
				return v, fmt.Errorf("%s: %v", p.Name, err)
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
func onlyKnown(args map[string]string, params, also []model.Param) error {
	for name := range args {
		known := false
		for _, p := range append(append([]model.Param(nil), params...), also...) {
			known = known || p.Name == name
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

func paramNames(ps []model.Param) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
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
// TigerBeetle constructor handed to MainTigerBeetle, over DialWire.
func MainSourceTigerBeetle(importpath string) []byte {
	return mainSource(importpath, "tigerbeetle-go client", "godriver.MainTigerBeetle(client.TigerBeetle, godriver.DialWire)")
}

// MainSource is a whole driver program for the client at importpath: a
// main package that hands the client's constructor to Main. The bytes
// depend on importpath only, so a build that writes them is reproducible.
func MainSource(importpath string) []byte {
	return mainSource(importpath, "client", "godriver.Main(client."+golang.PostgresConstructor+")")
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

	"github.com/chobo-lang/chobo/chobo/conformance/godriver"
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
