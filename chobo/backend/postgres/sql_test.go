package postgres

import (
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/gen"
)

const holdBook = `book shop v1
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
account shelf(sku: string) : pcs
  at most 10 refused as shelf_full
account customers : pcs outside
transfer reserve(order: string, sku: string, qty: pcs)
  key order
  pending expires after 30 minutes
  move qty from stock(sku) to customers
transfer restock(note: string, sku: string, qty: pcs)
  key note
  move qty from customers to shelf(sku)
`

func build(t *testing.T, src string) string {
	t.Helper()
	res := check.Check("shop.book", []byte(src))
	if res.Book == nil {
		t.Fatalf("%v", res.Diags)
	}
	files, ds := Build(res.Book, gen.NewSource("shop.book", []byte(src)), gen.Options{})
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	return string(files[0].Data)
}

// funcText returns the text of one generated function.
func funcText(t *testing.T, sql, name string) string {
	t.Helper()
	i := strings.Index(sql, `create or replace function "shop"."`+name+`"(`)
	if i < 0 {
		t.Fatalf("no function %s", name)
	}
	j := strings.Index(sql[i:], "\n$fn$;")
	return sql[i : i+j]
}

// TestFunctionsDeclareOnlyWhatTheyUse pins what plpgsql_check asked for:
// no variable is declared that the function never reads.
func TestFunctionsDeclareOnlyWhatTheyUse(t *testing.T) {
	sql := build(t, holdBook)
	for _, c := range []struct {
		fn     string
		has    []string
		hasNot []string
	}{
		{"restock_do", []string{"v_outside boolean", "> 10 then"}, []string{"v_now"}},
		{"reserve_hold", []string{"v_now timestamptz", "interval '1800 seconds'", "< 0 then"}, nil},
		{"reserve_post", []string{"v_amounts bigint[]", "v_now"}, []string{"v_outside"}},
		{"reserve_void", []string{"v_now"}, []string{"v_amounts", "v_outside"}},
	} {
		f := funcText(t, sql, c.fn)
		for _, s := range c.has {
			if !strings.Contains(f, s) {
				t.Errorf("%s lacks %q", c.fn, s)
			}
		}
		for _, s := range c.hasNot {
			if strings.Contains(f, s) {
				t.Errorf("%s has %q", c.fn, s)
			}
		}
	}
	if strings.Contains(sql, "{{") || strings.Contains(sql, "<no value>") {
		t.Error("a template marker reached the SQL")
	}
}

func TestReasonLit(t *testing.T) {
	if got, err := reasonLit("over_hold"); err != nil || got != "'over_hold'" {
		t.Errorf("reasonLit(over_hold) = %q, %v", got, err)
	}
	if _, err := reasonLit("out_of_stock"); err == nil {
		t.Error("a bound's reason passed as chobo's own")
	}
}

// TestUnboundedAccountsAreNotLocked: a call locks the rows of its
// accounts with a bound only; the outside account goes through its
// shards, and a bound's refusal after a move on it checks it first.
func TestUnboundedAccountsAreNotLocked(t *testing.T) {
	sql := build(t, holdBook)
	for _, fn := range []string{"reserve_hold", "restock_do", "reserve_post", "reserve_void"} {
		f := funcText(t, sql, fn)
		if !strings.Contains(f, `"shop".chobo_unbounded(p_tenant, v_fids, v_fd, true)`) {
			t.Errorf("%s does not change customers through its shards", fn)
		}
	}
	if f := funcText(t, sql, "reserve_hold"); !strings.Contains(f, "id = any(array[v_account_1])") || strings.Contains(f, "v_fd, false") {
		t.Errorf("reserve_hold locks more than stock, or checks customers before any move on it:\n%s", f)
	}
	if f := funcText(t, sql, "restock_do"); !strings.Contains(f, "id = any(array[v_account_2])") {
		t.Errorf("restock_do locks more than the shelf:\n%s", f)
	}
}

// TestEveryFunctionHasAFixedPath: every function runs with the catalog
// alone on its path; those a caller calls run as the schema's owner, the
// three helpers as their caller. The file is one transaction, sets the
// path for that transaction alone, and gives PUBLIC nothing before it
// commits; Functions names every function it writes.
func TestEveryFunctionHasAFixedPath(t *testing.T) {
	sql := build(t, holdBook)
	helpers := map[string]bool{`"shop".chobo_id`: true, `"shop".chobo_unbounded`: true, `"shop".chobo_record`: true}
	n := 0
	for _, part := range strings.Split(sql, "create or replace function ")[1:] {
		name := part[:strings.Index(part, "(")]
		head := part[:strings.Index(part, " as $fn$")]
		n++
		if !strings.HasSuffix(head, "set search_path = pg_catalog, pg_temp") {
			t.Errorf("%s has no fixed path:\n%s", name, head)
		}
		if definer := strings.Contains(head, "security definer"); definer == helpers[name] {
			t.Errorf("%s: security definer is %v:\n%s", name, definer, head)
		}
	}
	// chobo_id, chobo_unbounded, chobo_record, the four reads of the
	// history, reserve's hold, post, void and status, restock's do, three
	// balances, expire.
	if n != 16 {
		t.Errorf("%d functions, want 16", n)
	}
	for _, want := range []string{
		"\nbegin;\n",
		"\nset local search_path = pg_catalog, pg_temp;\n",
		`revoke all on all tables in schema "shop" from public;`,
		`revoke all on all functions in schema "shop" from public;`,
	} {
		if !strings.Contains(sql, want) {
			t.Errorf("the SQL lacks %q", want)
		}
	}
	if !strings.HasSuffix(sql, "\ncommit;\n") {
		t.Error("the SQL does not end with its commit")
	}
	begin, path, first := strings.Index(sql, "\nbegin;\n"), strings.Index(sql, "set local search_path"), strings.Index(sql, "create schema")
	if begin > path || path > first {
		t.Error("the transaction or the path starts after the first statement that makes something")
	}
	if got := len(Functions(check.Check("shop.book", []byte(holdBook)).Book)); got != n {
		t.Errorf("Functions lists %d functions, the SQL writes %d", got, n)
	}
}
