package chobopg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// The shared connection vectors (runtime/testdata/connection_vectors.json)
// replayed against pgx talking to a scripted server in this process: it
// speaks PostgreSQL's protocol on a loopback socket, answers the book's
// statements (an operation, a status, expire, a balance, a call's entries)
// from a model of a book's functions (a key written once,
// with the call id of the call that wrote it), and fails each sending as
// the vector says. pgx, its pool and its pipelines are the real ones.

type connVectors struct {
	Constants struct {
		MaxAttempts int     `json:"max_attempts"`
		BackoffMs   []int64 `json:"backoff_ms"`
		ResendForMs int64   `json:"resend_for_ms"`
	} `json:"constants"`
	Tenant string       `json:"tenant"`
	Cases  []connVector `json:"cases"`
}

type connVector struct {
	Name            string     `json:"name"`
	Over            string     `json:"over"`
	ResendForMs     *int64     `json:"resend_for_ms"`
	Before          []string   `json:"before"`
	BeforeRefused   []string   `json:"before_refused"`
	Closed          bool       `json:"closed"`
	CancelledBefore bool       `json:"cancelled_before"`
	NotLent         int        `json:"not_lent"`
	Bulk            bool       `json:"bulk"`
	Due             int        `json:"due"`
	Calls           []connCall `json:"calls"`
}

type connCall struct {
	Op          string      `json:"op"`
	Key         string      `json:"key"`
	Max         int         `json:"max"`
	Applies     string      `json:"applies"`
	Faults      []connFault `json:"faults"`
	ClientError bool        `json:"client_error"`
	Want        connWant    `json:"want"`
	Sent        *int        `json:"sent"`
	Attempts    *int        `json:"attempts"`
}

type connFault struct {
	Fault string `json:"fault"`
	Ms    int64  `json:"ms"`
}

func (f *connFault) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &f.Fault)
	}
	type plain connFault
	return json.Unmarshal(b, (*plain)(f))
}

// connWant is a call's answer: a result (resent checked only when given),
// expire's count, a balance, how many entries a read of a call's entries
// answered, an error of a kind (with its SQLSTATE when given), a status's
// state (null for none), or one of several.
type connWant struct {
	Result   string     `json:"result"`
	Reason   string     `json:"reason"`
	Resent   *bool      `json:"resent"`
	Count    *int       `json:"count"`
	Balance  []int64    `json:"balance"`
	Entries  *int       `json:"entries"`
	Error    string     `json:"error"`
	SQLState string     `json:"sqlstate"`
	OneOf    []connWant `json:"one_of"`
	State    *string
	IsState  bool
}

func (w *connWant) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*w = connWant{IsState: true}
		return nil
	}
	if b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		*w = connWant{IsState: true, State: &s}
		return err
	}
	type plain connWant
	return json.Unmarshal(b, (*plain)(w))
}

func readConnVectors(t *testing.T) connVectors {
	t.Helper()
	data, err := os.ReadFile("../../testdata/connection_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v connVectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// The figures every runtime shares are this runtime's.
func TestConnectionVectorConstants(t *testing.T) {
	c := readConnVectors(t).Constants
	if c.MaxAttempts != MaxAttempts {
		t.Errorf("the vectors have %d attempts, the runtime %d", c.MaxAttempts, MaxAttempts)
	}
	if time.Duration(c.ResendForMs)*time.Millisecond != DefaultResendFor {
		t.Errorf("the vectors resend for %d ms, the runtime for %v", c.ResendForMs, DefaultResendFor)
	}
	if len(c.BackoffMs) < 8 {
		t.Fatalf("the vectors have %d waits", len(c.BackoffMs))
	}
	for n, ms := range c.BackoffMs {
		if Backoff(n) != time.Duration(ms)*time.Millisecond {
			t.Errorf("Backoff(%d) = %v, the vectors say %d ms", n, Backoff(n), ms)
		}
	}
}

const (
	vectorOp      = `select result, reason from op($1, $2, $3::uuid)`
	vectorStatus  = `select st($1, $2)`
	vectorExpire  = `select expire($1, $2::uuid)`
	vectorBalance = `select posted, held_in, held_out from bal($1, $2)`
	vectorEntries = `select * from hist($1, $2, $3)`
)

// vectorHistory reads a call's entries with vectorEntries; its one
// transfer kind names nothing but its key.
var vectorHistory = &History{Call: vectorEntries, Kinds: map[string]Kind{"pay": {Args: []string{"k"}, Key: []string{"k"}}}}

// record is what the model keeps of a key: the call that wrote it and
// what that call was answered; of an expire (its key "expire:" and its
// call id), how many holds it gave back in all.
type record struct {
	id, outcome, reason string
	n                   int
}

// expireKey is where the model keeps what the expire of call id gave
// back; an expire without an id is a new call at every sending.
func (m *bookModel) expireKey(id string) string {
	if id == "" {
		m.anonymous++
		return fmt.Sprintf("expire:#%d", m.anonymous)
	}
	return "expire:" + id
}

// dueLeft is how many holds are past their deadline and not given back.
func (m *bookModel) dueLeft(pending map[string]record) int {
	n := m.due
	for k, r := range m.state {
		if _, ok := pending[k]; !ok && strings.HasPrefix(k, "expire:") {
			n -= r.n
		}
	}
	for k, r := range pending {
		if strings.HasPrefix(k, "expire:") {
			n -= r.n
		}
	}
	return n
}

// expire is the book's expire function run for one sending: it gives
// back up to most holds for the call, its earlier sendings' included, and
// answers how many the call gave back in all.
func (m *bookModel) expire(id string, most int, pending map[string]record) (int, string, record) {
	k := m.expireKey(id)
	r, ok := pending[k]
	if !ok {
		r = m.state[k]
	}
	r.n += min(max(most-r.n, 0), m.dueLeft(pending))
	return r.n, k, r
}

// balanceOf answers the balance statement: posted counts the keys done,
// held out the holds not given back.
func (m *bookModel) balanceOf(pending map[string]record) [3]int {
	posted := 0
	for k, r := range m.state {
		if _, ok := pending[k]; !ok && r.outcome == "done" {
			posted++
		}
	}
	for _, r := range pending {
		if r.outcome == "done" {
			posted++
		}
	}
	return [3]int{posted, 0, m.dueLeft(pending)}
}

// bookModel is the server's side: the book's state, the faults still due
// for each key, and what each key's sendings carried.
type bookModel struct {
	mu        sync.Mutex
	state     map[string]record
	applies   map[string]string
	faults    map[string][]connFault
	sent      map[string]int
	ids       map[string][]string
	clock     time.Time
	current   string // the key of the single call under way
	due       int    // holds past their deadline when the case starts
	anonymous int    // expires sent without a call id
	notLent   int    // how many more times the pool lends no connection
	trigger   func(fault string)
}

// headFault is key's next fault, "" for none.
func (m *bookModel) headFault(key string) string {
	if f := m.faults[key]; len(f) > 0 {
		return f[0].Fault
	}
	return ""
}

func (m *bookModel) popFault(key string) string {
	f := m.faults[key]
	if len(f) == 0 {
		return ""
	}
	m.faults[key] = f[1:]
	m.clock = m.clock.Add(time.Duration(f[0].Ms) * time.Millisecond)
	return f[0].Fault
}

// apply is the book's function run for one call: its answer, or the
// SQLSTATE it fails with, and the write it makes (none when nil).
func (m *bookModel) apply(key, id string, pending map[string]record) (outcome, reason, code string, write *record) {
	applies := m.applies[key]
	if c, ok := strings.CutPrefix(applies, "error:"); ok {
		return "", "", c, nil
	}
	r, ok := pending[key]
	if !ok {
		r, ok = m.state[key]
	}
	if ok {
		if r.id == id {
			return r.outcome, r.reason, "", nil
		}
		if r.outcome == "refused" {
			return "refused", "already_refused", "", nil
		}
		return "done_before", "", "", nil
	}
	w := record{id: id, outcome: "done"}
	if reason, ok := strings.CutPrefix(applies, "refused:"); ok {
		w = record{id: id, outcome: "refused", reason: reason}
	}
	return w.outcome, w.reason, "", &w
}

func (m *bookModel) statusOf(key string, pending map[string]record) []byte {
	r, ok := pending[key]
	if !ok {
		r, ok = m.state[key]
	}
	if ok && r.outcome == "done" {
		return []byte("posted")
	}
	return nil
}

// serve answers one connection until it is closed.
func (m *bookModel) serve(conn net.Conn) {
	defer conn.Close()
	be := pgproto3.NewBackend(conn, conn)
	msg, err := be.ReceiveStartupMessage()
	if err != nil {
		return
	}
	if _, ok := msg.(*pgproto3.StartupMessage); !ok {
		return // a cancel request, or TLS asked for: nothing to answer
	}
	be.Send(&pgproto3.AuthenticationOk{})
	be.Send(&pgproto3.ParameterStatus{Name: "server_version", Value: "15.0"})
	be.Send(&pgproto3.ParameterStatus{Name: "standard_conforming_strings", Value: "on"})
	be.Send(&pgproto3.ParameterStatus{Name: "client_encoding", Value: "UTF8"})
	be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 1}})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if be.Flush() != nil {
		return
	}
	var (
		explicit, failed, skipping bool
		pending                    = map[string]record{}
		sql                        string
		params                     [][]byte
	)
	commit := func() {
		for k, r := range pending {
			m.state[k] = r
		}
		pending = map[string]record{}
	}
	txStatus := func() byte {
		switch {
		case explicit && failed:
			return 'E'
		case explicit:
			return 'T'
		}
		return 'I'
	}
	fail := func(code string) {
		be.Send(&pgproto3.ErrorResponse{Severity: "ERROR", Code: code, Message: "scripted " + code})
		pending = map[string]record{}
		failed, skipping = true, true
	}
	for {
		msg, err := be.Receive()
		if err != nil {
			return
		}
		m.mu.Lock()
		switch q := msg.(type) {
		case *pgproto3.Query:
			switch strings.ToLower(strings.TrimSpace(q.String)) {
			case "begin":
				explicit, failed = true, false
				be.Send(&pgproto3.CommandComplete{CommandTag: []byte("BEGIN")})
			case "rollback":
				explicit, failed = false, false
				pending = map[string]record{}
				be.Send(&pgproto3.CommandComplete{CommandTag: []byte("ROLLBACK")})
			default:
				be.Send(&pgproto3.EmptyQueryResponse{})
			}
			be.Send(&pgproto3.ReadyForQuery{TxStatus: txStatus()})
		case *pgproto3.Parse:
			if !skipping {
				sql = q.Query
				be.Send(&pgproto3.ParseComplete{})
			}
		case *pgproto3.Bind:
			if !skipping {
				params = q.Parameters
				be.Send(&pgproto3.BindComplete{})
			}
		case *pgproto3.Describe:
			if !skipping {
				text := func(name string) pgproto3.FieldDescription {
					return pgproto3.FieldDescription{Name: []byte(name), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1}
				}
				typed := func(name string, oid uint32) pgproto3.FieldDescription {
					f := text(name)
					f.DataTypeOID = oid
					return f
				}
				switch sql {
				case vectorStatus:
					be.Send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{text("st")}})
				case vectorExpire:
					be.Send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{typed("expire", 23)}})
				case vectorBalance:
					be.Send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{typed("posted", 20), typed("held_in", 20), typed("held_out", 20)}})
				case vectorEntries:
					be.Send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{
						typed("cursor", 20), text("kind"), text("op"), typed("key", 1009), typed("args", 1009), typed("move", 23),
						typed("out", 16), text("account"), typed("account_args", 1009), typed("posted", 20), typed("held_in", 20),
						typed("held_out", 20), typed("after_posted", 20), typed("after_held_in", 20), typed("after_held_out", 20),
						typed("at", 1184)}})
				default:
					be.Send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{text("result"), text("reason")}})
				}
			}
		case *pgproto3.Execute:
			if skipping {
				break
			}
			// Every statement's key is its second value; expire's is
			// "expire" (its second value is its call id), and a read of a
			// call's entries has the key as an array of one.
			key, id := string(params[1]), ""
			switch sql {
			case vectorOp:
				id = string(params[2])
			case vectorExpire:
				key, id = "expire", string(params[1])
			case vectorEntries:
				key = strings.Trim(string(params[2]), "{}")
			}
			m.sent[key]++
			if failed {
				fail(InFailedTransaction)
				break
			}
			if sql == vectorOp || sql == vectorExpire {
				m.ids[key] = append(m.ids[key], id)
			}
			// answer is what the statement answers when nothing fails:
			// its rows, or the SQLSTATE it fails with.
			answer := func() (rows [][][]byte, code string) {
				switch sql {
				case vectorStatus:
					return [][][]byte{{m.statusOf(key, pending)}}, ""
				case vectorExpire:
					maxN, _ := strconv.Atoi(string(params[0]))
					n, k, w := m.expire(id, maxN, pending)
					pending[k] = w
					return [][][]byte{{[]byte(strconv.Itoa(n))}}, ""
				case vectorBalance:
					b := m.balanceOf(pending)
					return [][][]byte{{[]byte(strconv.Itoa(b[0])), []byte(strconv.Itoa(b[1])), []byte(strconv.Itoa(b[2]))}}, ""
				case vectorEntries:
					if m.statusOf(key, pending) == nil {
						return nil, ""
					}
					for i, acc := range []string{"from", "to"} {
						rows = append(rows, [][]byte{[]byte(strconv.Itoa(i + 1)), []byte("pay"), []byte("do"), []byte("{" + key + "}"),
							[]byte("{" + key + "}"), []byte("1"), []byte(map[bool]string{true: "t", false: "f"}[i == 0]), []byte(acc),
							[]byte("{}"), []byte("1"), []byte("0"), []byte("0"), nil, nil, nil, []byte("2026-01-01 00:00:00+00")})
					}
					return rows, ""
				}
				outcome, reason, code, w := m.apply(key, id, pending)
				if code != "" {
					return nil, code
				}
				if w != nil {
					pending[key] = *w
				}
				var r []byte
				if reason != "" {
					r = []byte(reason)
				}
				return [][][]byte{{[]byte(outcome), r}}, ""
			}
			switch fault := m.popFault(key); fault {
			case "serialization_failure":
				fail(SerializationFailure)
			case "deadlock_detected":
				fail(DeadlockDetected)
			case "lost_before_commit":
				m.mu.Unlock()
				return
			case "lost_while_reading":
				// The first row of the answer goes out, then the
				// connection breaks: the rows read so far are not the
				// answer.
				if rows, _ := answer(); len(rows) > 0 {
					be.Send(&pgproto3.DataRow{Values: rows[0]})
					be.Flush()
				}
				m.mu.Unlock()
				return
			case "lost_after_commit", "shutdown_after_commit":
				answer()
				if !explicit {
					commit()
				}
				if fault == "shutdown_after_commit" {
					be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"})
					be.Flush()
				}
				m.mu.Unlock()
				return
			case "cancelled", "timeout":
				// The caller gives up while the call is out; pgx then
				// closes the connection, which ends this loop.
				trigger := m.trigger
				m.mu.Unlock()
				trigger(fault)
				continue
			case "":
				rows, code := answer()
				if code != "" {
					fail(code)
					break
				}
				for _, r := range rows {
					be.Send(&pgproto3.DataRow{Values: r})
				}
				be.Send(&pgproto3.CommandComplete{CommandTag: []byte(fmt.Sprintf("SELECT %d", len(rows)))})
			default:
				panic("a fault the scripted server cannot make while a call is out: " + fault)
			}
		case *pgproto3.Sync:
			if !explicit {
				if !failed {
					commit()
				}
				failed = false
			}
			skipping = false
			be.Send(&pgproto3.ReadyForQuery{TxStatus: txStatus()})
		case *pgproto3.Terminate:
			m.mu.Unlock()
			return
		}
		err = be.Flush()
		m.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// scriptedCtx is a context the scripted server ends while a call is out,
// cancelled or past its deadline as the vector says.
type scriptedCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
	err  error
}

func newScriptedCtx() *scriptedCtx {
	return &scriptedCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *scriptedCtx) Done() <-chan struct{} { return c.done }

func (c *scriptedCtx) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

func (c *scriptedCtx) end(err error) {
	c.once.Do(func() { c.err = err; close(c.done) })
}

// read is the answer of expire or of a read: how many holds expire gave
// back, a balance, or how many entries a read of a call's answered.
type read struct {
	count, entries *int
	balance        *chobo.Balance
}

// checkAnswer says how a (and r, for expire and the reads) differs from
// what w wants, or nil.
func checkAnswer(w connWant, a Answer, r read) error {
	if len(w.OneOf) > 0 {
		var errs []error
		for _, o := range w.OneOf {
			err := checkAnswer(o, a, r)
			if err == nil {
				return nil
			}
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}
	if w.IsState {
		want := ""
		if w.State != nil {
			want = *w.State
		}
		if a.Err != nil || string(a.State) != want {
			return fmt.Errorf("state %q (%v), want %q", a.State, a.Err, want)
		}
		return nil
	}
	if w.Error != "" {
		var kind string
		switch err := a.Err; {
		case err == nil:
			return fmt.Errorf("answered %+v, want the error %s", a.Result, w.Error)
		case errors.Is(err, ErrOutcomeUnknown):
			kind = "outcome_unknown"
		case errors.Is(err, ErrNotSent):
			kind = "not_sent"
		case errors.Is(err, ErrBadCall):
			kind = "bad_call"
		case errors.Is(err, ErrBoundsChanged):
			kind = "bounds_changed"
		case errors.Is(err, errClient):
			kind = "client"
		case SQLState(err) != "":
			kind = "server"
		default:
			kind = "other"
		}
		if kind != w.Error || w.SQLState != "" && SQLState(a.Err) != w.SQLState {
			return fmt.Errorf("error %s (%v, SQLSTATE %q), want %s %s", kind, a.Err, SQLState(a.Err), w.Error, w.SQLState)
		}
		return nil
	}
	if a.Err != nil {
		return fmt.Errorf("error %v, want %+v", a.Err, w)
	}
	switch {
	case w.Count != nil:
		if r.count == nil || *r.count != *w.Count {
			return fmt.Errorf("expire answered %v, want %d", r.count, *w.Count)
		}
		return nil
	case w.Entries != nil:
		if r.entries == nil || *r.entries != *w.Entries {
			return fmt.Errorf("%v entries, want %d", r.entries, *w.Entries)
		}
		return nil
	case w.Balance != nil:
		if r.balance == nil || len(w.Balance) != 3 || *r.balance != (chobo.Balance{Posted: w.Balance[0], HeldIn: w.Balance[1], HeldOut: w.Balance[2]}) {
			return fmt.Errorf("balance %+v, want %v", r.balance, w.Balance)
		}
		return nil
	}
	res := a.Result
	if string(res.Outcome) != w.Result || res.Reason != w.Reason || w.Resent != nil && res.Resent != *w.Resent {
		return fmt.Errorf("answered %+v, want %s %q resent %v", res, w.Result, w.Reason, w.Resent)
	}
	return nil
}

var errClient = errors.New("refused by the client")

// notLent is the error of a pool that lent no connection: nothing was
// sent, which pgconn.SafeToRetry says, as it does of a connection that
// could not be used.
type notLent struct{}

func (notLent) Error() string     { return "scripted: the pool lent no connection" }
func (notLent) SafeToRetry() bool { return true }

func TestConnectionVectors(t *testing.T) {
	v := readConnVectors(t)
	// The scripted clock: a sending moves it on by the time its fault
	// says, a wait between sendings by the longest it may be drawn,
	// which is checked against the backoff table.
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			replayConnVector(t, v, c, start)
		})
	}
}

func replayConnVector(t *testing.T, v connVectors, c connVector, start time.Time) {
	m := &bookModel{
		state: map[string]record{}, applies: map[string]string{}, faults: map[string][]connFault{},
		sent: map[string]int{}, ids: map[string][]string{}, clock: start,
	}
	for _, k := range c.Before {
		m.state[k] = record{id: "00000000-0000-4000-8000-000000000000", outcome: "done"}
	}
	for _, k := range c.BeforeRefused {
		m.state[k] = record{id: "00000000-0000-4000-8000-000000000000", outcome: "refused", reason: "too_much"}
	}
	m.due = c.Due
	for _, call := range c.Calls {
		if call.Op == "call" && !call.ClientError {
			m.applies[call.Key] = call.Applies
		}
		if !call.ClientError {
			m.faults[call.Key] = append(m.faults[call.Key], call.Faults...)
		}
	}
	ctx := newScriptedCtx()
	m.trigger = func(fault string) {
		if fault == "timeout" {
			ctx.end(context.DeadlineExceeded)
		} else {
			ctx.end(context.Canceled)
		}
	}
	if c.CancelledBefore {
		ctx.end(context.Canceled)
	}

	var waits []time.Duration
	defer func(n func() time.Time, p func(context.Context, time.Duration) bool) { now, pause = n, p }(now, pause)
	now = func() time.Time { m.mu.Lock(); defer m.mu.Unlock(); return m.clock }
	pause = func(ctx context.Context, upTo time.Duration) bool {
		m.mu.Lock()
		m.clock = m.clock.Add(upTo)
		m.mu.Unlock()
		waits = append(waits, upTo)
		return ctx.Err() == nil
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go m.serve(conn)
		}
	}()
	connString := fmt.Sprintf("host=127.0.0.1 port=%d user=u database=d sslmode=disable", ln.Addr().(*net.TCPAddr).Port)
	m.notLent = c.NotLent
	bg := context.Background()
	var q Querier
	switch c.Over {
	case "pool", "pool_of_one":
		cfg, err := pgxpool.ParseConfig(connString)
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxConns = 2
		if c.Over == "pool_of_one" {
			cfg.MaxConns = 1
		}
		// No connection is lent while the case's not_lent lasts, or while
		// the single call under way has a not_connected fault due: the
		// pool lets the one it found go and fails the acquiring, once an
		// acquiring. (A dial refused instead would be pgx's own error,
		// but the pool may dial more than once an acquiring.)
		cfg.PrepareConn = func(context.Context, *pgx.Conn) (bool, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			switch {
			case m.notLent > 0:
				m.notLent--
			case m.headFault(m.current) == "not_connected":
				m.popFault(m.current)
			default:
				return true, nil
			}
			return false, notLent{}
		}
		pool, err := pgxpool.NewWithConfig(bg, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		q = pool
	case "conn", "tx":
		cfg, err := pgx.ParseConfig(connString)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := pgx.ConnectConfig(bg, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(bg)
		q = conn
		if c.Over == "tx" {
			tx, err := conn.Begin(bg)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(bg)
			q = tx
		}
		if c.Closed {
			conn.Close(bg)
		}
	default:
		t.Fatalf("over %q", c.Over)
	}
	if c.ResendForMs != nil {
		q = With(q, Resend(time.Duration(*c.ResendForMs)*time.Millisecond))
	}

	op := func(call connCall) Op {
		if call.ClientError {
			return Op{Err: errClient}
		}
		if call.Op == "status" {
			return Op{SQL: vectorStatus, Args: []any{v.Tenant, call.Key}, Status: true}
		}
		return Op{SQL: vectorOp, Args: []any{v.Tenant, call.Key}}
	}
	if c.Bulk {
		ops := make([]Op, len(c.Calls))
		for i, call := range c.Calls {
			ops[i] = op(call)
		}
		got := Bulk(ctx, q, ops)
		for i, call := range c.Calls {
			if err := checkAnswer(call.Want, got[i], read{}); err != nil {
				t.Errorf("call %d (%s): %v", i, call.Key, err)
			}
		}
		// Every sending of a call carried the id it had in the bulk.
		for k, ids := range m.ids {
			for _, id := range ids {
				if !isCallID(id) || id != ids[0] {
					t.Errorf("%s was sent with the ids %v", k, ids)
					break
				}
			}
		}
	} else {
		for i, call := range c.Calls {
			m.mu.Lock()
			m.current = call.Key
			sentBefore, idsBefore, waitsBefore := m.sent[call.Key], len(m.ids[call.Key]), len(waits)
			m.mu.Unlock()
			o := op(call)
			var (
				a Answer
				r read
			)
			switch call.Op {
			case "status":
				a.State, a.Err = Status(ctx, q, o.SQL, o.Args...)
			case "expire":
				var n int
				n, a.Err = Expire(ctx, q, vectorExpire, call.Max)
				r.count = &n
			case "balance":
				var b chobo.Balance
				b, a.Err = ReadBalance(ctx, q, vectorBalance, v.Tenant, call.Key)
				r.balance = &b
			case "entries":
				var es []chobo.Entry
				es, a.Err = ReadCallEntries(ctx, q, vectorHistory, v.Tenant, "pay", []string{call.Key})
				for _, e := range es {
					if e.Transfer != "pay" || len(e.Key) != 1 || e.Key[0] != call.Key || e.Args["k"] != call.Key {
						t.Errorf("call %d (%s): an entry %+v", i, call.Key, e)
					}
				}
				n := len(es)
				r.entries = &n
			default:
				a.Result, a.Err = Call(ctx, q, o.SQL, o.Args...)
			}
			if err := checkAnswer(call.Want, a, r); err != nil {
				t.Errorf("call %d (%s): %v", i, call.Key, err)
			}
			m.mu.Lock()
			sent, ids := m.sent[call.Key]-sentBefore, m.ids[call.Key][idsBefore:]
			m.mu.Unlock()
			if call.Sent != nil && sent != *call.Sent {
				t.Errorf("call %d (%s) reached the server %d times, want %d", i, call.Key, sent, *call.Sent)
			}
			// Every try after the first waits first.
			if w := len(waits) - waitsBefore; call.Attempts != nil && w != max(*call.Attempts-1, 0) {
				t.Errorf("call %d (%s) was tried %d times, want %d", i, call.Key, w+1, *call.Attempts)
			}
			for _, id := range ids {
				if !isCallID(id) || id != ids[0] {
					t.Errorf("call %d (%s) was sent with the ids %v", i, call.Key, ids)
					break
				}
			}
			if idsBefore > 0 && len(ids) > 0 && ids[0] == m.ids[call.Key][0] {
				t.Errorf("call %d (%s) was sent with the id of an earlier call", i, call.Key)
			}
		}
	}
	for k, f := range m.faults {
		if len(f) > 0 {
			t.Errorf("%s: faults never met: %v", k, f)
		}
	}
	// A wait before a sending again is drawn up to the backoff table's
	// figure for the sending it precedes.
	for _, w := range waits {
		ok := false
		for _, ms := range v.Constants.BackoffMs {
			ok = ok || w == time.Duration(ms)*time.Millisecond
		}
		if !ok {
			t.Errorf("a wait of up to %v, which the backoff table does not have", w)
		}
	}
}
