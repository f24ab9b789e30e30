// Package tbwire carries the requests of chobotb.HistoryClient (the four
// of chobotb.Client, and the two the history reads make), and the query of
// accounts a migration makes, between two processes, over net/rpc on the
// loopback. The conformance runner keeps the model of TigerBeetle (a test
// double) in its own process, where it reads and records it, and serves it
// to the driver of a generated tigerbeetle-go client, which reaches it
// through Dial as it would reach a replica.
package tbwire

import (
	"context"
	"errors"
	"net"
	"net/rpc"

	"github.com/chobo-lang/chobo/chobo/ids"
	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// Service answers the requests with the client it was given.
type Service struct{ c chobotb.Client }

// The messages. net/rpc takes one argument and one reply per method.
type (
	Accounts  struct{ Accounts []chobotb.Account }
	Transfers struct{ Transfers []chobotb.Transfer }
	IDs       struct{ IDs []ids.ID }
	Statuses  struct{ Statuses []chobotb.Status }
)

func (s *Service) CreateAccounts(in Accounts, out *Statuses) (err error) {
	out.Statuses, err = s.c.CreateAccounts(context.Background(), in.Accounts)
	return err
}

func (s *Service) CreateTransfers(in Transfers, out *Statuses) (err error) {
	out.Statuses, err = s.c.CreateTransfers(context.Background(), in.Transfers)
	return err
}

func (s *Service) LookupAccounts(in IDs, out *Accounts) (err error) {
	out.Accounts, err = s.c.LookupAccounts(context.Background(), in.IDs)
	return err
}

func (s *Service) LookupTransfers(in IDs, out *Transfers) (err error) {
	out.Transfers, err = s.c.LookupTransfers(context.Background(), in.IDs)
	return err
}

// GetAccountTransfers answers with c's, when c reads history.
func (s *Service) GetAccountTransfers(in chobotb.AccountFilter, out *Transfers) (err error) {
	out.Transfers, err = chobotb.ReadsOf(s.c).GetAccountTransfers(context.Background(), in)
	return err
}

// QueryTransfers answers with c's, when c reads history.
func (s *Service) QueryTransfers(in chobotb.QueryFilter, out *Transfers) (err error) {
	out.Transfers, err = chobotb.ReadsOf(s.c).QueryTransfers(context.Background(), in)
	return err
}

// QueryAccounts answers with c's, when c can query accounts (the
// migration of bounds does; calls do not).
func (s *Service) QueryAccounts(in chobotb.AccountQuery, out *Accounts) (err error) {
	q, ok := s.c.(chobotb.AccountQuerier)
	if !ok {
		return errors.New("tbwire: the client served cannot query accounts")
	}
	out.Accounts, err = q.QueryAccounts(context.Background(), in)
	return err
}

// Listen serves c on a free port of 127.0.0.1 until stop is called.
func Listen(c chobotb.Client) (addr string, stop func(), err error) {
	srv := rpc.NewServer()
	if err := srv.RegisterName("TB", &Service{c}); err != nil {
		return "", nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	go func() {
		// rpc.Server.Accept logs when the listener closes; stop quietly.
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go srv.ServeConn(conn)
		}
	}()
	return l.Addr().String(), func() { l.Close() }, nil
}

// Client is the far end of Listen.
type Client struct{ c *rpc.Client }

// Dial connects to a Service at addr.
func Dial(addr string) (*Client, error) {
	c, err := rpc.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &Client{c}, nil
}

// Close ends the connection.
func (c *Client) Close() error { return c.c.Close() }

func (c *Client) call(ctx context.Context, method string, in, out any) error {
	call := c.c.Go("TB."+method, in, out, make(chan *rpc.Call, 1))
	select {
	case <-ctx.Done():
		return ctx.Err()
	case done := <-call.Done:
		var se rpc.ServerError
		if errors.As(done.Error, &se) {
			return errors.New(string(se))
		}
		return done.Error
	}
}

func (c *Client) CreateAccounts(ctx context.Context, a []chobotb.Account) ([]chobotb.Status, error) {
	var out Statuses
	err := c.call(ctx, "CreateAccounts", Accounts{a}, &out)
	return out.Statuses, err
}

func (c *Client) CreateTransfers(ctx context.Context, t []chobotb.Transfer) ([]chobotb.Status, error) {
	var out Statuses
	err := c.call(ctx, "CreateTransfers", Transfers{t}, &out)
	return out.Statuses, err
}

func (c *Client) LookupAccounts(ctx context.Context, id []ids.ID) ([]chobotb.Account, error) {
	var out Accounts
	err := c.call(ctx, "LookupAccounts", IDs{id}, &out)
	return out.Accounts, err
}

func (c *Client) LookupTransfers(ctx context.Context, id []ids.ID) ([]chobotb.Transfer, error) {
	var out Transfers
	err := c.call(ctx, "LookupTransfers", IDs{id}, &out)
	return out.Transfers, err
}

// GetAccountTransfers implements chobotb.HistoryClient; the far end
// answers chobotb.ErrNoHistory's words when its client reads no history.
func (c *Client) GetAccountTransfers(ctx context.Context, f chobotb.AccountFilter) ([]chobotb.Transfer, error) {
	var out Transfers
	err := c.call(ctx, "GetAccountTransfers", f, &out)
	return out.Transfers, err
}

// QueryTransfers implements chobotb.HistoryClient.
func (c *Client) QueryTransfers(ctx context.Context, f chobotb.QueryFilter) ([]chobotb.Transfer, error) {
	var out Transfers
	err := c.call(ctx, "QueryTransfers", f, &out)
	return out.Transfers, err
}

// QueryAccounts implements chobotb.AccountQuerier, so that a migration
// reaches the far end's TigerBeetle through a Client.
func (c *Client) QueryAccounts(ctx context.Context, f chobotb.AccountQuery) ([]chobotb.Account, error) {
	var out Accounts
	err := c.call(ctx, "QueryAccounts", f, &out)
	return out.Accounts, err
}
