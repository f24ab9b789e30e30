package api

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/report"
	"github.com/chobo-lang/chobo/chobo/target"
	golang "github.com/chobo-lang/chobo/lang/go"
)

// shop has a money unit marked as tax-included and one without a mark,
// a literal move, a hold that expires and one that never does.
const shop = `book shop v2
unit USD scale 2 incl_tax
unit pcs
account stock(sku: string) : pcs
  at least 0 refused as out_of_stock
  at most 50 refused as shelf_full
account wallet(member: string) : USD
  at least -10.00 refused as no_funds
account world : pcs outside
account bank : USD outside
transfer receive(delivery: string, sku: string, qty: pcs)
  key delivery
  move qty from world to stock(sku)
transfer top_up(receipt: string, member: string, amount: USD)
  key receipt
  move amount from bank to wallet(member)
transfer reserve(order: string, sku: string, member: string, qty: pcs)
  key order
  pending expires after 30 minutes
  move qty from stock(sku) to world
  move 12.50 from wallet(member) to bank
transfer set_aside(ticket: string, sku: string, qty: pcs)
  key ticket
  pending never expires
  move qty from stock(sku) to world
`

func load(t *testing.T, src string) *book.Book {
	t.Helper()
	res := check.Check("shop.book", []byte(src))
	if res.Book == nil {
		var b strings.Builder
		for _, d := range res.Diags {
			diag.WriteText(&b, d, diag.English)
		}
		t.Fatalf("the test book does not check:\n%s", b.String())
	}
	return res.Book
}

func describe(t *testing.T, src string, lang diag.Lang) Book {
	t.Helper()
	b := load(t, src)
	return Describe(b, nil, report.Build(b), lang)
}

func TestWriteDoesNotEscapeHTML(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, map[string]string{"k": "<a & b>"}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"k\": \"<a & b>\"\n}\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestArgsKeepOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		args Args
		json string
	}{
		{"nil is null", nil, `null`},
		{"empty", Args{}, `{}`},
		{"parameter order, not sorted", Args{{Name: "sku", String: "s-1"}, {Name: "amount", Amount: 1250, IsAmount: true}}, `{"sku":"s-1","amount":1250}`},
		{"quotes and non-ASCII", Args{{Name: "注文", String: `a"b`}}, `{"注文":"a\"b"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.json {
				t.Errorf("marshal: got %s, want %s", got, tc.json)
			}
			var back Args
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(back, tc.args) && !(len(back) == 0 && len(tc.args) == 0 && (back == nil) == (tc.args == nil)) {
				t.Errorf("unmarshal: got %+v, want %+v", back, tc.args)
			}
		})
	}
}

func TestUnits(t *testing.T) {
	doc := describe(t, shop, diag.English)
	for _, tc := range []struct {
		unit  string
		scale int
		tax   string
	}{
		{"USD", 2, "incl_tax"},
		{"pcs", 0, ""},
	} {
		i := slices.IndexFunc(doc.Units, func(u Unit) bool { return u.Name == tc.unit })
		if i < 0 {
			t.Fatalf("no unit %s", tc.unit)
		}
		u := doc.Units[i]
		if u.Scale != tc.scale || u.Tax != tc.tax || u.Ledger == 0 {
			t.Errorf("%s: got %+v", tc.unit, u)
		}
	}
	js, _ := json.Marshal(doc.Units)
	if n := strings.Count(string(js), `"tax"`); n != 1 {
		t.Errorf("want the tax key on the one unit that has a tax word, got it %d times: %s", n, js)
	}
}

func TestTransfers(t *testing.T) {
	doc := describe(t, shop, diag.English)
	b := load(t, shop)
	for _, tc := range []struct {
		name    string
		pending Pending
		ops     []string
		amounts []string // the amount of each move: a parameter or a literal
	}{
		{"receive", Pending{}, []string{"do"}, []string{"qty"}},
		{"top_up", Pending{}, []string{"do"}, []string{"amount"}},
		{"reserve", Pending{Holds: true, Expires: true, Seconds: 1800}, []string{"hold", "post", "void"}, []string{"qty", "1250"}},
		{"set_aside", Pending{Holds: true}, []string{"hold", "post", "void"}, []string{"qty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := slices.IndexFunc(doc.Transfers, func(x Transfer) bool { return x.Name == tc.name })
			if i < 0 {
				t.Fatal("missing")
			}
			tr := doc.Transfers[i]
			if tr.Pending != tc.pending {
				t.Errorf("pending: got %+v, want %+v", tr.Pending, tc.pending)
			}
			var ops, amounts []string
			for _, o := range tr.Operations {
				ops = append(ops, o.Op)
			}
			for _, m := range tr.Moves {
				if m.Amount.Param != "" {
					amounts = append(amounts, m.Amount.Param)
				} else {
					amounts = append(amounts, strconv.FormatInt(m.Amount.Literal, 10))
				}
			}
			if !slices.Equal(ops, tc.ops) || !slices.Equal(amounts, tc.amounts) {
				t.Errorf("got ops %v and amounts %v, want %v and %v", ops, amounts, tc.ops, tc.amounts)
			}
			if want := b.Transfer(tc.name).Definition(); tr.Definition != want {
				t.Errorf("definition %s, want %s", tr.Definition, want)
			}
			if want := b.Transfer(tc.name).LegacyDefinition(); tr.LegacyDefinition != want {
				t.Errorf("legacy definition %s, want %s", tr.LegacyDefinition, want)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestRefusals checks how each reason of the report is described: which
// bound, or chobo's own, and whether the key stays taken.
func TestRefusals(t *testing.T) {
	doc := describe(t, shop, diag.English)
	type want struct {
		by, account, side string
		keyUsed           bool
	}
	for _, tc := range []struct {
		transfer, op, reason string
		want                 want
	}{
		{"receive", "do", "shelf_full", want{"bound", "stock", "upper", true}},
		{"receive", "do", "key_conflict", want{"chobo", "", "", false}},
		{"receive", "do", "already_refused", want{"chobo", "", "", true}},
		{"reserve", "hold", "out_of_stock", want{"bound", "stock", "lower", true}},
		{"reserve", "hold", "no_funds", want{"bound", "wallet", "lower", true}},
		{"reserve", "post", "expired", want{"chobo", "", "", false}},
		{"reserve", "void", "already_posted", want{"chobo", "", "", false}},
		{"set_aside", "post", "no_such_hold", want{"chobo", "", "", false}},
	} {
		t.Run(tc.transfer+"."+tc.op+"/"+tc.reason, func(t *testing.T) {
			rf, ok := findRefusal(doc, tc.transfer, tc.op, tc.reason)
			if !ok {
				t.Fatal("not in the report")
			}
			got := want{by: rf.By, keyUsed: rf.KeyUsed}
			if rf.Bound != nil {
				got.account, got.side = rf.Bound.Account, rf.Bound.Side
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if len(rf.Operations) == 0 {
				t.Fatal("no example")
			}
			last := rf.Operations[len(rf.Operations)-1]
			if last.Op != tc.transfer+"."+tc.op || last.Result != "refused" || last.Reason != tc.reason {
				t.Errorf("the example ends with %s answering %s %s", last.Op, last.Result, last.Reason)
			}
		})
	}
	// A hold that never expires is never refused as expired.
	if _, ok := findRefusal(doc, "set_aside", "post", "expired"); ok {
		t.Error("set_aside.post lists expired")
	}
}

func findRefusal(doc Book, transfer, op, reason string) (Refusal, bool) {
	for _, tr := range doc.Transfers {
		for _, o := range tr.Operations {
			for _, rf := range o.Refusals {
				if tr.Name == transfer && o.Op == op && rf.Reason == reason {
					return rf, true
				}
			}
		}
	}
	return Refusal{}, false
}

// TestExampleSteps checks that an example's steps carry the same call as
// data: a pass has no op, a post its key only.
func TestExampleSteps(t *testing.T) {
	doc := describe(t, shop, diag.English)
	rf, ok := findRefusal(doc, "reserve", "post", "expired")
	if !ok {
		t.Fatal("reserve.post is never refused as expired")
	}
	var sawPass, sawPost bool
	for _, st := range rf.Operations {
		switch {
		case st.Op == "":
			sawPass = true
			if st.Pass != "30 minutes" || st.Args != nil || st.Result != "" {
				t.Errorf("pass step: %+v", st)
			}
		case st.Op == "reserve.post":
			sawPost = true
			if len(st.Args) != 1 || st.Args[0].Name != "order" || st.Args[0].IsAmount {
				t.Errorf("a post names its hold by the key only: %+v", st.Args)
			}
		}
		if st.Op == "" && st.Call != "pass "+st.Pass || st.Op != "" && !strings.HasPrefix(st.Call, st.Op+"(") {
			t.Errorf("call %q does not match op %q, pass %q", st.Call, st.Op, st.Pass)
		}
	}
	if !sawPass || !sawPost {
		t.Errorf("want a pass and a post in %+v", rf.Operations)
	}
}

// TestHoldTableIsTheInterpreter plays every row of the hold table on the
// reference interpreter: a hold brought to the row's state, then the
// row's event, must answer and end as the row says.
func TestHoldTableIsTheInterpreter(t *testing.T) {
	b := load(t, shop)
	for _, name := range []string{"reserve", "set_aside"} {
		tr := b.Transfer(name)
		rows := HoldTable(tr.Pending.Expires)
		if want := map[bool]int{true: 12, false: 8}[tr.Pending.Expires]; len(rows) != want {
			t.Fatalf("%s: %d rows, want %d", name, len(rows), want)
		}
		for _, r := range rows {
			t.Run(name+"/"+r.State+"/"+r.Event, func(t *testing.T) {
				if r.State == interp.HoldExpired.String() && !tr.Pending.Expires {
					t.Skip("a hold that never expires cannot be brought to expired")
				}
				st := interp.New(b)
				apply := func(op book.Op) interp.Result {
					t.Helper()
					c := interp.Call{Transfer: tr, Op: op, Strings: map[string]string{"order": "o-1", "ticket": "o-1"}}
					if op == book.Hold {
						c.Strings["sku"], c.Strings["member"] = "s-1", "m-1"
						c.Amounts = map[string]int64{"qty": 1}
					}
					for k := range c.Strings {
						if tr.Param(k) == nil {
							delete(c.Strings, k)
						}
					}
					if op != book.Hold {
						for k := range c.Strings {
							if !slices.ContainsFunc(tr.Key, func(p *book.Param) bool { return p.Name == k }) {
								delete(c.Strings, k)
							}
						}
					}
					res, err := st.Apply(c)
					if err != nil {
						t.Fatal(err)
					}
					return res
				}
				// Fill the accounts the hold takes from, then hold.
				fill := interp.Call{Transfer: b.Transfer("receive"), Op: book.Do,
					Strings: map[string]string{"delivery": "d-1", "sku": "s-1"}, Amounts: map[string]int64{"qty": 10}}
				topUp := interp.Call{Transfer: b.Transfer("top_up"), Op: book.Do,
					Strings: map[string]string{"receipt": "r-1", "member": "m-1"}, Amounts: map[string]int64{"amount": 10000}}
				for _, c := range []interp.Call{fill, topUp} {
					if _, err := st.Apply(c); err != nil {
						t.Fatal(err)
					}
				}
				if res := apply(book.Hold); res.Outcome != interp.Done {
					t.Fatalf("hold: %+v", res)
				}
				switch r.State {
				case "posted":
					apply(book.Post)
				case "voided":
					apply(book.Void)
				case "expired":
					st.Pass(tr.Pending.Seconds)
				}
				var res interp.Result
				switch r.Event {
				case EventPost:
					res = apply(book.Post)
				case EventVoid:
					res = apply(book.Void)
				case EventExpire:
					st.Pass(tr.Pending.Seconds)
				}
				if refused := res.Outcome == interp.Refused; refused != r.Refused || res.Reason != r.Reason {
					t.Errorf("the interpreter answers %s %q; the table says refused=%v %q", res.Outcome, res.Reason, r.Refused, r.Reason)
				}
				if got := st.Holds()[0].State.String(); got != r.Next {
					t.Errorf("the hold ends %s; the table says %s", got, r.Next)
				}
			})
		}
	}
}

// TestMachines checks the keys of the hold machines, with and without
// expiry.
func TestMachines(t *testing.T) {
	doc := describe(t, shop, diag.English)
	if len(doc.Machines) != 2 {
		t.Fatalf("want one machine per pending transfer, got %d", len(doc.Machines))
	}
	for _, tc := range []struct {
		over     string
		events   []string
		external []string
		rows     int
	}{
		{"reserve", []string{"post", "void", "expire"}, []string{"expire"}, 12},
		{"set_aside", []string{"post", "void"}, []string{}, 8},
	} {
		t.Run(tc.over, func(t *testing.T) {
			i := slices.IndexFunc(doc.Machines, func(m Machine) bool { return m.Over == tc.over })
			if i < 0 {
				t.Fatal("missing")
			}
			m := doc.Machines[i]
			if !slices.Equal(m.Events, tc.events) || !slices.Equal(m.External, tc.external) {
				t.Errorf("events %v external %v", m.Events, m.External)
			}
			if !slices.Equal(m.States, []string{"held", "posted", "voided", "expired"}) || m.Initial != "held" ||
				!slices.Equal(m.Final, []string{"posted", "voided", "expired"}) {
				t.Errorf("states %v initial %s final %v", m.States, m.Initial, m.Final)
			}
			c := m.Certificate
			table := c.Tables[0]
			if len(table.Rows) != tc.rows || len(c.Machine.Rows) != tc.rows {
				t.Fatalf("%d table rows and %d machine rows, want %d", len(table.Rows), len(c.Machine.Rows), tc.rows)
			}
			for i, r := range table.Rows {
				if r.Row != i+1 || c.Machine.Rows[i].Row != i+1 {
					t.Errorf("row %d is numbered %d", i+1, r.Row)
				}
				if !slices.Contains(tc.events, r.Accepts.Event) {
					t.Errorf("row %d accepts the event %s", r.Row, r.Accepts.Event)
				}
				mr := c.Machine.Rows[i]
				if (mr.To != 0) == mr.Stay {
					t.Errorf("row %d: want exactly one of to and stay: %+v", r.Row, mr)
				}
				if mr.To != 0 && m.States[mr.To-1] != r.Produces.NextState {
					t.Errorf("row %d goes to %d, the table says %s", r.Row, mr.To, r.Produces.NextState)
				}
			}
			axes := []string{table.Axes[0].Name, table.Axes[1].Name}
			if !slices.Equal(axes, []string{"event", "state"}) || c.Machine.Initial != 1 || !slices.Equal(c.Machine.Finals, []int{2, 3, 4}) {
				t.Errorf("axes %v initial %d finals %v", axes, c.Machine.Initial, c.Machine.Finals)
			}
			if ev := c.Enums[1]; ev.Name != "event" || !slices.Equal(ev.Values, tc.events) {
				t.Errorf("event enum %+v", ev)
			}
		})
	}
}

// TestTargets checks the names of both targets against what their
// generators are known to write.
func TestTargets(t *testing.T) {
	doc := describe(t, shop, diag.English)
	pg := doc.Targets.Postgres
	g, _ := doc.Targets.Client("postgres-go").(*golang.API)
	if pg == nil || g == nil {
		t.Fatal("a book that fits PostgreSQL has both targets")
	}
	if pg.Schema != "shop" {
		t.Errorf("schema %s", pg.Schema)
	}
	var post *PostgresOperation
	var fns []string
	for i, o := range pg.Operations {
		fns = append(fns, o.Function)
		if o.Transfer == "reserve" && o.Op == "post" {
			post = &pg.Operations[i]
		}
	}
	want := []string{"receive_do", "top_up_do", "reserve_hold", "reserve_post", "reserve_void", "reserve_status",
		"set_aside_hold", "set_aside_post", "set_aside_void", "set_aside_status"}
	if !slices.Equal(fns, want) {
		t.Errorf("functions %v, want %v", fns, want)
	}
	var params []string
	for _, p := range post.Params {
		params = append(params, p.Name+"="+p.Default)
	}
	if want := []string{"p_tenant=", "p_order=", "p_qty=null", "p_call_id$=null"}; !slices.Equal(params, want) {
		t.Errorf("reserve_post takes %v, want %v", params, want)
	}
	for _, o := range pg.Operations {
		last := o.Params[len(o.Params)-1]
		if (last.Name == "p_call_id$") != (o.Op != "status") || last.Name == "p_call_id$" && (last.Type != "uuid" || last.Param != "") {
			t.Errorf("%s ends with %+v", o.Function, last)
		}
	}
	if pg.Balances[0].Function != "balance_stock" || pg.Expire.Function != "expire" || len(pg.Expire.Params) != 2 ||
		pg.Expire.Params[1] != (PostgresParam{Name: "p_call_id$", Type: "uuid", Default: "null"}) {
		t.Errorf("balances %+v expire %+v", pg.Balances[0], pg.Expire)
	}
	if g.Package != "shop" || g.Constructor != "Postgres" {
		t.Errorf("package %s constructor %s", g.Package, g.Constructor)
	}
	// Every transfer has a key, which its Entries takes; only one that
	// holds has OpenHolds.
	if tr := g.Transfers[0]; tr.Field != "Receive" || tr.Key == nil || tr.Key.Type != "ReceiveKey" || tr.Amounts != nil ||
		tr.Entries != "Entries" || tr.OpenHolds != "" {
		t.Errorf("receive: %+v", tr)
	}
	if tr := g.Transfers[2]; tr.Key == nil || tr.Key.Type != "ReserveKey" || tr.Amounts == nil || tr.Amounts.Fields[0].Name != "Qty" ||
		tr.OpenHolds != "OpenHolds" {
		t.Errorf("reserve: %+v", tr)
	}
	if g.Statement != "Statement" || g.BalanceAt != "BalanceAt" || g.OpenHolds != "OpenHolds" {
		t.Errorf("the history readers: %s %s %s", g.Statement, g.BalanceAt, g.OpenHolds)
	}

	// A name PostgreSQL would cut leaves both targets out.
	long := strings.Replace(shop, "book shop v2", "book "+strings.Repeat("x", 64)+" v1", 1)
	if doc := describe(t, long, diag.English); doc.Targets.Postgres != nil || doc.Targets.Client("postgres-go") != nil {
		t.Error("a book PostgreSQL cannot take still has targets")
	}
}

// TestLanguageChangesTextsOnly describes the book in both languages and
// checks that only the texts meant for people differ.
func TestLanguageChangesTextsOnly(t *testing.T) {
	en, ja := describe(t, shop, diag.English), describe(t, shop, diag.Japanese)
	blank := func(d *Book) {
		for i := range d.Transfers {
			tr := &d.Transfers[i]
			tr.KeyText = ""
			for j := range tr.Operations {
				for k := range tr.Operations[j].Refusals {
					for s := range tr.Operations[j].Refusals[k].Operations {
						tr.Operations[j].Refusals[k].Operations[s].Outcome = ""
					}
				}
			}
		}
	}
	if en.Transfers[0].KeyText == ja.Transfers[0].KeyText {
		t.Error("the key text is not translated")
	}
	blank(&en)
	blank(&ja)
	if a, b := mustJSON(t, en), mustJSON(t, ja); !bytes.Equal(a, b) {
		t.Error("the two languages differ beyond their texts")
	}
}

// TestTargetsOrderAndRoundTrip: the entries of targets are the backends,
// then every client target of the registry in its order, and reading the
// JSON back gives each client's names as its language wrote them. A
// backend the book cannot go to nulls its clients, and only them.
func TestTargetsOrderAndRoundTrip(t *testing.T) {
	long := strings.Replace(shop, "book shop v2", "book "+strings.Repeat("x", 64)+" v1", 1)
	for _, tc := range []struct {
		name, src string
		nullPG    bool
	}{{"both backends", shop, false}, {"no PostgreSQL", long, true}} {
		doc := describe(t, tc.src, diag.English)
		var buf bytes.Buffer
		if err := Write(&buf, doc.Targets); err != nil {
			t.Fatal(err)
		}
		// The keys and values in the order written, which a map would lose.
		dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k.(string), string(v))
		}
		want := []string{"postgres", "tigerbeetle"}
		for _, tg := range target.All {
			if tg.Client() != nil {
				want = append(want, tg.Name)
			}
		}
		var got []string
		for i := 0; i < len(keys); i += 2 {
			got = append(got, keys[i])
			tg, _ := target.Lookup(keys[i])
			if null := keys[i+1] == "null"; null != (tc.nullPG && tg.Backend == "postgres") {
				t.Errorf("%s: %s is null: %v", tc.name, keys[i], null)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: keys %v, want %v", tc.name, got, want)
		}
		var back Targets
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		if len(back.Clients) != len(doc.Targets.Clients) {
			t.Fatalf("%s: read %d clients back, wrote %d", tc.name, len(back.Clients), len(doc.Targets.Clients))
		}
		for i, c := range doc.Targets.Clients {
			b := back.Clients[i]
			if b.Target != c.Target || (b.Names == nil) != (c.Names == nil) {
				t.Errorf("%s: read %s back as %s (nil %v)", tc.name, c.Target, b.Target, b.Names == nil)
				continue
			}
			if c.Names != nil && !slices.Equal(b.Names.Names(), c.Names.Names()) {
				t.Errorf("%s: %s's names differ once read back", tc.name, c.Target)
			}
			if c.Names != nil && len(c.Names.Names()) == 0 {
				t.Errorf("%s: %s names nothing", tc.name, c.Target)
			}
		}
	}
}
