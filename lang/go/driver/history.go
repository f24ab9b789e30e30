package driver

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/runtime/go/chobo"
)

// The history reads, served as balance is: the methods found by the
// names of the open request, their answers written as the protocol
// carries them. A generated client answers with the runtime's types (its
// Entry, Statement and OpenHold are aliases of package chobo's), so the
// answers are read as those.

// fitsHistory checks that a client has the history reads the names call
// for; names without them (a client from before them) call for none.
func fitsHistory(b reflect.Value, n *names) error {
	for _, f := range []string{n.Statement, n.BalanceAt, n.OpenHolds} {
		if f == "" {
			continue
		}
		readers := b.FieldByName(f)
		if !readers.IsValid() {
			return fmt.Errorf("no field %s", f)
		}
		for _, a := range n.Accounts {
			if !readers.MethodByName(a.Method).IsValid() {
				return fmt.Errorf("no method %s.%s for the account %s", f, a.Method, a.Account)
			}
		}
	}
	for _, t := range n.Transfers {
		for _, m := range []string{t.Entries, t.OpenHolds} {
			if m != "" && !b.FieldByName(t.Field).MethodByName(m).IsValid() {
				return fmt.Errorf("no method %s.%s", t.Field, m)
			}
		}
	}
	return nil
}

// reader is the method of the field readers (the names' Balance,
// Statement, …) that reads the account kind name, and the account.
func (s *server) reader(book reflect.Value, readers, name string) (reflect.Value, *account, error) {
	if readers == "" {
		return reflect.Value{}, nil, fmt.Errorf("the client has no history reads")
	}
	var a *account
	for i := range s.names.Accounts {
		if s.names.Accounts[i].Account == name {
			a = &s.names.Accounts[i]
		}
	}
	if a == nil {
		return reflect.Value{}, nil, fmt.Errorf("the book has no account %q", name)
	}
	m := book.Elem().FieldByName(readers).MethodByName(a.Method)
	if !m.IsValid() {
		return reflect.Value{}, nil, fmt.Errorf("the client has no method %s.%s", readers, a.Method)
	}
	return m, a, nil
}

// accountIn is the context and, for a kind with parameters, the account
// as method takes them; then takes more arguments after them.
func accountIn(ctx context.Context, method reflect.Value, a *account, args map[string]string, more int) ([]reflect.Value, error) {
	in := []reflect.Value{reflect.ValueOf(ctx)}
	if method.Type().NumIn() == more+2 {
		v, err := fill(method.Type().In(1), a.Fields, args, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a.Account, err)
		}
		return append(in, v), nil
	}
	if err := onlyKnown(args, nil, nil); err != nil {
		return nil, fmt.Errorf("%s: %v", a.Account, err)
	}
	return in, nil
}

// parseTime reads a time of a request: RFC 3339, "" for none.
func parseTime(what, text string) (time.Time, error) {
	if text == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(protocol.TimeFormat, text)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time", what, text)
	}
	return t, nil
}

func (s *server) statement(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	method, a, err := s.reader(s.client(req.Tenant), s.names.Statement, req.Account)
	if err != nil {
		return protocol.Response{}, err
	}
	in, err := accountIn(ctx, method, a, req.Args, 1)
	if err != nil {
		return protocol.Response{}, fmt.Errorf("statement %v", err)
	}
	q := chobo.StatementQuery{Newest: req.Newest, Transfers: req.Transfers, Limit: req.Limit, After: req.After}
	if q.From, err = parseTime("from", req.From); err != nil {
		return protocol.Response{}, err
	}
	if q.To, err = parseTime("to", req.To); err != nil {
		return protocol.Response{}, err
	}
	out := method.Call(append(in, reflect.ValueOf(q)))
	if err := asError(out[1]); err != nil {
		return protocol.Response{}, err
	}
	st := out[0].Interface().(chobo.Statement)
	entries := protoEntries(st.Entries)
	return protocol.Response{Entries: &entries, Next: st.Next, More: st.More}, nil
}

func (s *server) entries(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	book := s.client(req.Tenant)
	t, err := s.transfer(req.Transfer)
	if err != nil {
		return protocol.Response{}, err
	}
	if t.Entries == "" || t.Key == nil {
		return protocol.Response{}, fmt.Errorf("the client reads no entries of %s", t.Transfer)
	}
	method := book.Elem().FieldByName(t.Field).MethodByName(t.Entries)
	if !method.IsValid() {
		return protocol.Response{}, fmt.Errorf("the client has no method %s.%s", t.Field, t.Entries)
	}
	key, err := fill(method.Type().In(1), t.Key.Fields, req.Args, nil)
	if err != nil {
		return protocol.Response{}, fmt.Errorf("entries of %s: %v", t.Transfer, err)
	}
	out := method.Call([]reflect.Value{reflect.ValueOf(ctx), key})
	if err := asError(out[1]); err != nil {
		return protocol.Response{}, err
	}
	entries := protoEntries(out[0].Interface().([]chobo.Entry))
	return protocol.Response{Entries: &entries}, nil
}

// holds reads the holds of an account through its reader, of a transfer
// kind through the kind's method, of both through the account's reader
// kept to the kind, and of neither through the method of every kind that
// holds, put in the order they were made.
func (s *server) holds(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	book := s.client(req.Tenant)
	var t *transfer
	if req.Transfer != "" {
		var err error
		if t, err = s.transfer(req.Transfer); err != nil {
			return protocol.Response{}, err
		}
	}
	var list []chobo.OpenHold
	switch {
	case req.Account != "":
		method, a, err := s.reader(book, s.names.OpenHolds, req.Account)
		if err != nil {
			return protocol.Response{}, err
		}
		in, err := accountIn(ctx, method, a, req.Args, 0)
		if err != nil {
			return protocol.Response{}, fmt.Errorf("holds of %v", err)
		}
		out := method.Call(in)
		if err := asError(out[1]); err != nil {
			return protocol.Response{}, err
		}
		for _, h := range out[0].Interface().([]chobo.OpenHold) {
			if t == nil || h.Transfer == t.Transfer {
				list = append(list, h)
			}
		}
	default:
		if len(req.Args) > 0 {
			return protocol.Response{}, fmt.Errorf("holds: args without an account")
		}
		kinds := s.names.Transfers
		if t != nil {
			kinds = []transfer{*t}
		}
		for _, k := range kinds {
			if k.OpenHolds == "" {
				continue // a transfer that posts at once holds nothing
			}
			out := book.Elem().FieldByName(k.Field).MethodByName(k.OpenHolds).Call([]reflect.Value{reflect.ValueOf(ctx)})
			if err := asError(out[1]); err != nil {
				return protocol.Response{}, err
			}
			list = append(list, out[0].Interface().([]chobo.OpenHold)...)
		}
		slices.SortStableFunc(list, func(a, b chobo.OpenHold) int { return a.Created.Compare(b.Created) })
	}
	holds := []protocol.Hold{}
	for _, h := range list {
		holds = append(holds, protoHold(h))
	}
	return protocol.Response{Holds: &holds}, nil
}

func (s *server) balanceAt(ctx context.Context, req protocol.Request) (protocol.Response, error) {
	method, a, err := s.reader(s.client(req.Tenant), s.names.BalanceAt, req.Account)
	if err != nil {
		return protocol.Response{}, err
	}
	in, err := accountIn(ctx, method, a, req.Args, 1)
	if err != nil {
		return protocol.Response{}, fmt.Errorf("balance_at %v", err)
	}
	at, err := parseTime("at", req.At)
	if err != nil {
		return protocol.Response{}, err
	}
	if at.IsZero() {
		return protocol.Response{}, fmt.Errorf(`balance_at: no "at"`)
	}
	out := method.Call(append(in, reflect.ValueOf(at)))
	if err := asError(out[1]); err != nil {
		return protocol.Response{}, err
	}
	b := out[0].Interface().(chobo.Balance)
	return protocol.Response{Posted: protocol.FormatAmount(b.Posted), HeldIn: protocol.FormatAmount(b.HeldIn),
		HeldOut: protocol.FormatAmount(b.HeldOut)}, nil
}

// transfer is the names of the transfer kind name.
func (s *server) transfer(name string) (*transfer, error) {
	for i := range s.names.Transfers {
		if s.names.Transfers[i].Transfer == name {
			return &s.names.Transfers[i], nil
		}
	}
	return nil, fmt.Errorf("the book has no transfer %q", name)
}

func protoTime(t time.Time) string { return t.UTC().Format(protocol.TimeFormat) }

func protoEntries(es []chobo.Entry) []protocol.Entry {
	out := []protocol.Entry{}
	for _, e := range es {
		pe := protocol.Entry{Transfer: e.Transfer, Op: e.Op, Key: e.Key, Args: e.Args, ID: e.ID, Move: e.Move,
			Out: e.Out, Account: e.Account, AccountArgs: e.AccountArgs, Posted: protocol.FormatAmount(e.Posted),
			HeldIn: protocol.FormatAmount(e.HeldIn), HeldOut: protocol.FormatAmount(e.HeldOut),
			At: protoTime(e.At), Cursor: e.Cursor}
		if e.After != nil {
			pe.After = &protocol.Amounts{Posted: protocol.FormatAmount(e.After.Posted),
				HeldIn: protocol.FormatAmount(e.After.HeldIn), HeldOut: protocol.FormatAmount(e.After.HeldOut)}
		}
		out = append(out, pe)
	}
	return out
}

func protoHold(h chobo.OpenHold) protocol.Hold {
	ph := protocol.Hold{Transfer: h.Transfer, Key: h.Key, ID: h.ID, Moves: []protocol.HoldMove{}, Created: protoTime(h.Created)}
	if !h.Deadline.IsZero() {
		ph.Deadline = protoTime(h.Deadline)
	}
	for _, m := range h.Moves {
		ph.Moves = append(ph.Moves, protocol.HoldMove{Move: m.Move, From: m.From, FromArgs: m.FromArgs,
			To: m.To, ToArgs: m.ToArgs, Amount: protocol.FormatAmount(m.Amount)})
	}
	return ph
}
