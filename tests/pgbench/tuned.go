package main

import (
	"context"
	_ "embed"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/chobo-lang/chobo/chobo/client/model"
)

// tunedSQL is the hand-written system, tuned.sql; see its head.
//
//go:embed tuned.sql
var tunedSQL string

// idDecl is a declaration of an account id in a generated function, with
// the comment that names it.
var idDecl = regexp.MustCompile(`(?m)^  -- "bench"\.chobo_id\(.*\), written out\n  v_account_\d+ uuid := .*;\n`)

// tunedFunctions is tuned.sql with the account ids of the book's pay_do
// and redeem_do declared as these declare them; the experiments of
// -after-file may use the same marks.
func tunedFunctions(bookSQL string) (*strings.Replacer, error) {
	decls := func(fn string) (string, error) {
		start := strings.Index(bookSQL, `create or replace function "bench".`+fn+`(`)
		if start < 0 {
			return "", fmt.Errorf("the book's SQL has no function %s", fn)
		}
		body := bookSQL[start:]
		body = body[:strings.Index(body, "\nbegin\n")+1]
		found := idDecl.FindAllString(body, -1)
		if len(found) != 2 {
			return "", fmt.Errorf("%s declares %d account ids, the hand-written functions expect 2", fn, len(found))
		}
		return strings.TrimSuffix(strings.Join(found, ""), "\n"), nil
	}
	pay, err := decls(`"pay_do"`)
	if err != nil {
		return nil, err
	}
	redeem, err := decls(`"redeem_do"`)
	if err != nil {
		return nil, err
	}
	return strings.NewReplacer("{{.Pay}}", pay, "{{.Redeem}}", redeem), nil
}

// tunedCall is the statement of a hand-written function, its parameters
// those of chobo's statement for the same operation.
func tunedCall(fn string, params int) string {
	var ps []string
	for i := 1; i <= params; i++ {
		ps = append(ps, fmt.Sprintf("$%d", i))
	}
	return fmt.Sprintf(`select result, reason from "bench".%s(%s, $%d::pg_catalog.uuid)`, fn, strings.Join(ps, ", "), params+1)
}

// verify sends the same calls, in the same order, to chobo's functions
// under one tenant and to the hand-written ones under another: calls that
// go through, keys sent again with the same values and with others, the
// same call sent again with its call id, amounts past the bound, a move
// from an account to itself, accounts never seen before. Every answer
// and, at the end, every balance and entry must be the same on both
// sides; else the hand-written functions do not keep chobo's promises,
// and their speed means nothing.
func verify(ctx context.Context, c *pgx.Conn, m *model.Model, calls int) error {
	const chobo, tuned = "verify-chobo", "verify-tuned"
	grant := m.Transfer("grant").Operation("do").Statement
	pay := m.Transfer("pay").Operation("do").Statement
	redeem := m.Transfer("redeem").Operation("do").Statement
	tunedPay := tunedCall("tuned_pay", 5)
	tunedRedeem := tunedCall("tuned_redeem", 4)
	rng := rand.New(rand.NewPCG(7, 50))
	wallets := []string{"w0", "w1", "w2", "w3", "w4"}
	type sent struct {
		redeem bool
		key    string
		args   []any // after the key
		callID any
	}
	var history []sent
	both := func(i int, s sent, onChobo, onTuned string) error {
		var answers [2]string
		for j, side := range []struct{ tenant, sql string }{{chobo, onChobo}, {tuned, onTuned}} {
			args := append([]any{side.tenant, s.key}, s.args...)
			var result string
			var reason *string
			if err := c.QueryRow(ctx, side.sql, append(args, s.callID)...).Scan(&result, &reason); err != nil {
				return fmt.Errorf("verifying, call %d on %s: %v", i, side.tenant, err)
			}
			answers[j] = result
			if reason != nil {
				answers[j] += " " + *reason
			}
		}
		if answers[0] != answers[1] {
			return fmt.Errorf("verifying, call %d (%+v): chobo answered %q, the hand-written function %q", i, s, answers[0], answers[1])
		}
		return nil
	}
	for _, w := range wallets {
		s := sent{key: "g-" + w, args: []any{w, int64(500)}}
		if err := both(-1, s, grant, grant); err != nil {
			return err
		}
	}
	for i := 0; i < calls; i++ {
		var s sent
		switch r := rng.IntN(100); {
		case r < 15 && len(history) > 0:
			// a key sent before: the same call, or other values
			s = history[rng.IntN(len(history))]
			if rng.IntN(2) == 0 {
				s.args = slices.Clone(s.args)
				s.args[len(s.args)-1] = int64(rng.IntN(120))
			}
			if rng.IntN(2) == 0 {
				s.callID = nil
			}
		default:
			s.key = fmt.Sprintf("k%d", i)
			s.redeem = rng.IntN(4) == 0
			pick := func() string {
				if rng.IntN(40) == 0 {
					return fmt.Sprintf("new%d", i) // an account with no row yet
				}
				return wallets[rng.IntN(len(wallets))]
			}
			amount := int64(rng.IntN(120))
			if s.redeem {
				s.args = []any{pick(), amount}
			} else {
				s.args = []any{pick(), pick(), amount}
			}
			if rng.IntN(3) == 0 {
				s.callID = fmt.Sprintf("00000000-0000-0000-0000-%012d", i)
			}
			history = append(history, s)
		}
		onChobo, onTuned := pay, tunedPay
		if s.redeem {
			onChobo, onTuned = redeem, tunedRedeem
		}
		if err := both(i, s, onChobo, onTuned); err != nil {
			return err
		}
	}
	// what each side wrote, named by values rather than by ids (which
	// the tenant is part of): the accounts (an outside one's shards
	// summed), the entries in each account's order, the keys
	read := func(tenant string) (string, error) {
		var b strings.Builder
		for _, q := range []string{
			`select a.kind, a.args::text, a.posted + coalesce((select sum(s.posted) from "bench".account_shards s
       where s.tenant = a.tenant and s.id = a.id), 0)::bigint, a.held_in, a.held_out, a.entry_seq
  from "bench".accounts a where a.tenant = $1 order by a.kind, a.args`,
			`select a.kind, a.args::text, e.kind, e.op, e.key::text, e.n, e.posted, e.after_posted
  from "bench".account_entries e join "bench".accounts a on a.tenant = e.tenant and a.id = e.account
 where e.tenant = $1 order by a.kind, a.args, e.seq`,
			`select kind, op, key::text, result, reason from "bench".keys where tenant = $1 order by kind, op, key`,
		} {
			rows, err := c.Query(ctx, q, tenant)
			if err != nil {
				return "", err
			}
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					rows.Close()
					return "", err
				}
				fmt.Fprintln(&b, vals...)
			}
			if err := rows.Err(); err != nil {
				return "", err
			}
		}
		return b.String(), nil
	}
	a, err := read(chobo)
	if err != nil {
		return err
	}
	b, err := read(tuned)
	if err != nil {
		return err
	}
	if a != b {
		return fmt.Errorf("verifying: after %d calls the rows chobo wrote differ from those the hand-written functions wrote:\n%s\n---\n%s", calls, a, b)
	}
	fmt.Printf("pgbench: the hand-written functions answered %d calls as chobo's did, and wrote the same rows\n", calls)
	return nil
}
