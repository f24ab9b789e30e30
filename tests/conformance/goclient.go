package conformance

import (
	"context"
	"fmt"
	"reflect"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/target/pggo"
)

// GoClient drives a generated postgres-go package. The package is
// compiled into the test; Postgres is its constructor, and the methods
// are found by the names the generator gave them (pggo.Naming).
type GoClient struct {
	Book     *book.Book
	Postgres any // the package's func(Querier, string) *Book
	Pool     *pgxpool.Pool
}

func (g GoClient) client(tenant string) reflect.Value {
	return reflect.ValueOf(g.Postgres).Call([]reflect.Value{reflect.ValueOf(g.Pool), reflect.ValueOf(tenant)})[0]
}

// fill sets the fields of a new struct of type ty from a call's values.
func fill(ty reflect.Type, params []*book.Param, fields []string, c interp.Call) reflect.Value {
	v := reflect.New(ty).Elem()
	for i, p := range params {
		f := v.FieldByName(fields[i])
		if p.IsAmount() {
			f.SetInt(c.Amounts[p.Name])
		} else {
			f.SetString(c.Strings[p.Name])
		}
	}
	return v
}

// Call implements Backend.
func (g GoClient) Call(ctx context.Context, c interp.Call, tenant string) (interp.Result, error) {
	// The call may come from the book the copy was made from: look its
	// transfer up by name.
	names := pggo.Naming(g.Book).Transfers[g.Book.Transfer(c.Transfer.Name)]
	tv := g.client(tenant).Elem().FieldByName(names.Field)
	var method reflect.Value
	var args []reflect.Value
	t := c.Transfer
	switch c.Op {
	case book.Do, book.Hold:
		method = tv.MethodByName(map[book.Op]string{book.Do: "Do", book.Hold: "Hold"}[c.Op])
		args = []reflect.Value{fill(method.Type().In(1), t.Params, names.ArgFields, c)}
	case book.Post:
		method = tv.MethodByName("Post")
		args = []reflect.Value{fill(method.Type().In(1), t.Key, names.KeyFields, c)}
		if method.Type().NumIn() == 3 {
			ptr := method.Type().In(2)
			if c.Amounts == nil {
				args = append(args, reflect.Zero(ptr))
			} else {
				var amounts []*book.Param
				for _, p := range t.Params {
					if _, ok := c.Amounts[p.Name]; ok {
						amounts = append(amounts, p)
					}
				}
				v := fill(ptr.Elem(), amounts, names.AmountFields, c)
				p := reflect.New(ptr.Elem())
				p.Elem().Set(v)
				args = append(args, p)
			}
		}
	case book.Void:
		method = tv.MethodByName("Void")
		args = []reflect.Value{fill(method.Type().In(1), t.Key, names.KeyFields, c)}
	default:
		return interp.Result{}, fmt.Errorf("no operation %q", c.Op)
	}
	out := method.Call(append([]reflect.Value{reflect.ValueOf(ctx)}, args...))
	if err, _ := out[1].Interface().(error); err != nil {
		return interp.Result{}, err
	}
	r := interp.Result{Reason: out[0].FieldByName("Reason").String()}
	switch out[0].FieldByName("Outcome").String() {
	case "done":
		r.Outcome = interp.Done
	case "done_before":
		r.Outcome = interp.DoneBefore
	case "refused":
		r.Outcome = interp.Refused
	default:
		return r, fmt.Errorf("unknown outcome %v", out[0])
	}
	return r, nil
}

// Expire implements Backend through the client's Expire.
func (g GoClient) Expire(ctx context.Context, tenant string) (bool, error) {
	out := g.client(tenant).MethodByName("Expire").Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(1000)})
	if err, _ := out[1].Interface().(error); err != nil {
		return false, err
	}
	return HeldPastDeadline(ctx, g.Pool, g.Book, tenant)
}

// Ledger implements Backend.
func (g GoClient) Ledger(ctx context.Context, tenant string) ([]string, []string, error) {
	return PostgresLedger(ctx, g.Pool, g.Book, tenant)
}
