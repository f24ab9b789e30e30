package target

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// TestCollisionsAreRefused: two things of a book that a target would
// give one name are E062 for that target, and only for it.
func TestCollisionsAreRefused(t *testing.T) {
	const head = "book b v1\nunit pts\naccount wallet(member: string) : pts\n  at least 0 refused as short\naccount bank : pts outside\n"
	for _, c := range []struct {
		name, src string
		// E062 by target, as the names it gives: "" for none.
		want map[string]string
	}{
		{"snake and camel case", head + "transfer pay_out(r: string, member: string, n: pts)\n  key r\n  move n from wallet(member) to bank\ntransfer payOut(r: string, member: string, n: pts)\n  key r\n  move n from bank to wallet(member)\n",
			map[string]string{"postgres": "", "postgres-go": "PayOut", "tigerbeetle-go": "PayOut", "postgres-typescript": "PayOutArgs", "tigerbeetle-typescript": "PayOutArgs", "postgres-python": "PayOut", "tigerbeetle-python": "PayOut"}},
		{"a transfer's type and an account's", head + "transfer wallet_account(r: string, member: string)\n  key r\n  move 1 from bank to wallet(member)\n",
			map[string]string{"postgres": "", "postgres-go": "WalletAccount", "postgres-typescript": ""}},
		{"two parameters of one transfer", head + "transfer give(r: string, a_b: string, aB: string)\n  key r, aB\n  move 1 from bank to wallet(a_b)\n",
			map[string]string{"postgres": "", "postgres-go": "AB", "postgres-typescript": "", "postgres-python": ""}},
		// Python reads names in NFKC: ｑｔｙ is qty, and ｉｆ the keyword
		// if; a name with two underscores in front is a class's private.
		{"names Python reads as others", head + "transfer give(r: string, ｑｔｙ: pts, qty: pts)\n  key r\n  move qty from bank to wallet(r)\n  move ｑｔｙ from bank to wallet(r)\ntransfer ｉｆ(r: string, __n: pts)\n  key r\n  move __n from bank to wallet(r)\n",
			map[string]string{"postgres": "", "postgres-go": "", "postgres-typescript": "", "postgres-python": "ｉｆ __n qty", "tigerbeetle-python": "ｉｆ __n qty"}},
		// The client is <book>.py, imported by the book's name.
		{"a book named as a module the client imports", strings.Replace(head, "book b", "book asyncio", 1) + "transfer give(r: string, n: pts)\n  key r\n  move n from bank to wallet(r)\n",
			map[string]string{"postgres": "", "postgres-go": "", "postgres-typescript": "", "postgres-python": "asyncio", "tigerbeetle-python": "asyncio"}},
		{"a transfer and a balance in SQL", "book b v1\nunit pts\naccount do : pts\n  at least 0 refused as short\naccount bank : pts outside\ntransfer balance(r: string, n: pts)\n  key r\n  move n from bank to do\ntransfer take(r: string, n: pts)\n  key r\n  move n from do to bank\n",
			map[string]string{"postgres": "balance_do", "postgres-go": "balance_do", "postgres-typescript": "balance_do", "tigerbeetle-go": "", "tigerbeetle-typescript": ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := check.Check("b.book", []byte(c.src))
			if res.Book == nil {
				t.Fatalf("%v", res.Diags)
			}
			for name, want := range c.want {
				tg, _ := Lookup(name)
				var got []string
				for _, d := range tg.Check(res.Book) {
					if d.Code == "E062" {
						got = append(got, strings.Split(d.Message.En, "`")[1])
					}
				}
				if strings.Join(got, " ") != want {
					t.Errorf("%s: E062 for %q, want %q", name, got, want)
				}
				if _, ds, err := tg.Build(res.Book, gen.NewSource("b.book", []byte(c.src)), gen.Options{}); want != "" && (err != nil || len(ds) == 0) {
					t.Errorf("%s: built, %v", name, err)
				}
			}
		})
	}
}

// TestNamesStayPut: the names a client gives never depend on the order
// of the declarations, so adding one never moves another's name. Every
// seed book without a collision is named in its order and in the
// reverse order, and every transfer and account gets the same names.
func TestNamesStayPut(t *testing.T) {
	named := 0
	for _, src := range seedBooks(t) {
		res := check.Check("seed.book", src)
		if res.Book == nil {
			continue
		}
		for _, be := range backends {
			m, err := model.New(res.Book, be.name)
			if err != nil || slices.ContainsFunc(languages, func(l *client.Language) bool { return len(l.Collisions(m)) > 0 }) {
				continue
			}
			r := *m
			r.Transfers, r.Accounts = slices.Clone(m.Transfers), slices.Clone(m.Accounts)
			slices.Reverse(r.Transfers)
			slices.Reverse(r.Accounts)
			for _, l := range languages {
				if a, b := namesOf(l, m), namesOf(l, &r); !reflect.DeepEqual(a, b) {
					t.Errorf("%s: the %s client's names depend on the order:\n%v\n%v", res.Book.Name, l.Name, a, b)
				}
			}
			named++
		}
	}
	if named < 50 {
		t.Errorf("only %d books named", named)
	}
}

// namesOf is every name l's client of m gives, by what it names.
func namesOf(l *client.Language, m *model.Model) map[client.Name]string {
	out := map[client.Name]string{}
	for _, n := range l.Describe(m).Names() {
		out[client.Name{Kind: n.Kind, Owner: n.Owner, What: n.What}] = n.Name
	}
	return out
}
