package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/client/model"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/gen"
	golang "github.com/chobo-lang/chobo/lang/go"
	"github.com/chobo-lang/chobo/lang/go/driver"
	"github.com/chobo-lang/chobo/tests/clients/card"
)

// TestGoDriverHistoryOps serves the history ops through the Go driver
// with the history case's client compiled in, on a real server: the
// names of the open request are `chobo api`'s, and each answer is what
// the protocol says of the calls made before it.
func TestGoDriverHistoryOps(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(casesDir, "history", "card.book"))
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check("card.book", src)
	if res.Book == nil {
		t.Fatal(res.Diags)
	}
	files, ds := postgres.Build(res.Book, gen.NewSource("card.book", src), gen.Options{})
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	sql := string(files[0].Data)
	if !declares(sql, "history_statement", "account_args") || !declares(sql, "history_open_holds", "from_args") {
		t.Skip("SKIP: the book's history functions do not yet give the rows the Go client reads")
	}
	m, err := model.New(res.Book, model.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	names, err := json.Marshal(golang.Describe(m))
	if err != nil {
		t.Fatal(err)
	}
	srv := pgtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := srv.Pool(t, 1).Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
	before := time.Now().UTC()
	lines := []string{
		fmt.Sprintf(`{"id":0,"op":"open","target":"postgres-go","names":%s,"dsn":%q}`, names, srv.ConnString(pgtest.DefaultDB)),
		`{"id":1,"op":"bulk","tenant":"t","calls":[{"transfer":"top_up","operation":"do","args":{"top_up_id":"u-1","card":"c-1","amount":"5000"}},{"transfer":"payment","operation":"hold","args":{"payment_id":"p-1","card":"c-1","price":"1200","fee":"30"}},{"transfer":"payment","operation":"post","args":{"payment_id":"p-1","price":"1000","fee":"30"}},{"transfer":"payment","operation":"hold","args":{"payment_id":"p-2","card":"c-1","price":"500","fee":"10"}}]}`,
	}
	answers := serveLines(t, lines)
	if got := jsonText(answers[1].Answers); got != `[{"outcome":"done"},{"outcome":"done"},{"outcome":"done"},{"outcome":"done"}]` {
		t.Fatalf("the calls: %s", got)
	}
	after := time.Now().UTC()
	lines = append(lines[:1],
		`{"id":2,"op":"statement","tenant":"t","account":"wallet","args":{"card":"c-1"},"limit":4}`,
		`{"id":3,"op":"statement","tenant":"t","account":"wallet","args":{"card":"c-1"},"limit":4,"after":"4","newest":false}`,
		`{"id":4,"op":"statement","tenant":"t","account":"fees","transfers":["payment"],"newest":true}`,
		`{"id":5,"op":"entries","tenant":"t","transfer":"top_up","args":{"top_up_id":"u-1"}}`,
		`{"id":6,"op":"holds","tenant":"t","account":"wallet","args":{"card":"c-1"}}`,
		`{"id":7,"op":"holds","tenant":"t"}`,
		`{"id":8,"op":"holds","tenant":"t","transfer":"top_up"}`,
		fmt.Sprintf(`{"id":9,"op":"balance_at","tenant":"t","account":"wallet","args":{"card":"c-1"},"at":%q}`, after.Format(protocol.TimeFormat)),
		fmt.Sprintf(`{"id":10,"op":"balance_at","tenant":"t","account":"wallet","args":{"card":"c-1"},"at":%q}`, before.Add(-time.Second).Format(protocol.TimeFormat)),
		`{"id":11,"op":"statement","tenant":"t","account":"wallet","args":{"card":"c-1"},"after":"x"}`,
		`{"id":12,"op":"statement","tenant":"t","account":"wallet","args":{"card":"c-1"},"limit":1001}`,
	)
	answers = serveLines(t, lines)
	// Every time an answer gives is in UTC, between the calls' start and end.
	times := func(r protocol.Response) {
		t.Helper()
		var ts []string
		for _, e := range derefEntries(r.Entries) {
			ts = append(ts, e.At)
		}
		for _, h := range derefHolds(r.Holds) {
			ts = append(ts, h.Created)
		}
		for _, s := range ts {
			at, err := time.Parse(protocol.TimeFormat, s)
			if err != nil || !strings.HasSuffix(s, "Z") || at.Before(before.Add(-time.Second)) || at.After(after.Add(time.Second)) {
				t.Errorf("the time %q is not one of the calls' (%v)", s, err)
			}
		}
	}
	entry := func(e protocol.Entry) string {
		return fmt.Sprintf("%s %s.%s%v %s move %d out %v %s%v %s/%s/%s after %s", e.Cursor, e.Transfer, e.Op, e.Key, jsonText(e.Args),
			e.Move, e.Out, e.Account, e.AccountArgs, e.Posted, e.HeldIn, e.HeldOut, jsonText(e.After))
	}
	// A cursor means something to the ledger alone: where the test cannot
	// know one, it is shown as c, and Next must be the last entry's.
	statement := func(id int64) string {
		r := answers[id]
		if r.Error != "" {
			return "error: " + r.Error
		}
		times(r)
		var out []string
		es := derefEntries(r.Entries)
		for _, e := range es {
			if id == 4 {
				e.Cursor = "c"
			}
			out = append(out, entry(e))
		}
		next := r.Next
		if id == 4 && len(es) > 0 && next == es[len(es)-1].Cursor {
			next = "c"
		}
		return strings.Join(out, "\n") + fmt.Sprintf("\nnext %q more %v", next, r.More)
	}
	for id, want := range map[int64]string{
		2: `1 top_up.do[u-1] {"amount":"5000","card":"c-1","top_up_id":"u-1"} move 1 out false wallet[c-1] 5000/0/0 after {"posted":"5000","held_in":"0","held_out":"0"}
2 payment.hold[p-1] {"card":"c-1","fee":"30","payment_id":"p-1","price":"1200"} move 1 out true wallet[c-1] 0/0/1200 after {"posted":"5000","held_in":"0","held_out":"1200"}
3 payment.hold[p-1] {"card":"c-1","fee":"30","payment_id":"p-1","price":"1200"} move 2 out true wallet[c-1] 0/0/30 after {"posted":"5000","held_in":"0","held_out":"1230"}
4 payment.post[p-1] {"fee":"30","payment_id":"p-1","price":"1000"} move 1 out true wallet[c-1] -1000/0/-1200 after {"posted":"4000","held_in":"0","held_out":"30"}
next "4" more true`,
		3: `5 payment.post[p-1] {"fee":"30","payment_id":"p-1","price":"1000"} move 2 out true wallet[c-1] -30/0/-30 after {"posted":"3970","held_in":"0","held_out":"0"}
6 payment.hold[p-2] {"card":"c-1","fee":"10","payment_id":"p-2","price":"500"} move 1 out true wallet[c-1] 0/0/500 after {"posted":"3970","held_in":"0","held_out":"500"}
7 payment.hold[p-2] {"card":"c-1","fee":"10","payment_id":"p-2","price":"500"} move 2 out true wallet[c-1] 0/0/10 after {"posted":"3970","held_in":"0","held_out":"510"}
next "7" more false`,
		4: `c payment.hold[p-2] {"card":"c-1","fee":"10","payment_id":"p-2","price":"500"} move 2 out false fees[] 0/10/0 after null
c payment.post[p-1] {"fee":"30","payment_id":"p-1","price":"1000"} move 2 out false fees[] 30/-30/0 after null
c payment.hold[p-1] {"card":"c-1","fee":"30","payment_id":"p-1","price":"1200"} move 2 out false fees[] 0/30/0 after null
next "c" more false`,
		11: `error: chobo: "x" is not a cursor a statement of this ledger gave; nothing was sent`,
		12: `error: chobo: a statement's limit is 1001; it is from 1 to 1000, or 0 for 100`,
	} {
		if got := statement(id); got != want {
			t.Errorf("answer %d:\n%s\nwant\n%s", id, got, want)
		}
	}
	times(answers[5])
	var es []string
	for _, e := range derefEntries(answers[5].Entries) {
		es = append(es, entry(e))
	}
	if got, want := strings.Join(es, "\n"), `1 top_up.do[u-1] {"amount":"5000","card":"c-1","top_up_id":"u-1"} move 1 out true bank[] -5000/0/0 after null
1 top_up.do[u-1] {"amount":"5000","card":"c-1","top_up_id":"u-1"} move 1 out false wallet[c-1] 5000/0/0 after {"posted":"5000","held_in":"0","held_out":"0"}`; got != want {
		t.Errorf("entries:\n%s\nwant\n%s", got, want)
	}
	hold := `[{"transfer":"payment","key":["p-2"],"moves":[{"move":1,"from":"wallet","from_args":["c-1"],"to":"merchants","to_args":[],"amount":"500"},{"move":2,"from":"wallet","from_args":["c-1"],"to":"fees","to_args":[],"amount":"10"}],"created":"T","deadline":"T+30m"}]`
	for id, want := range map[int64]string{6: hold, 7: hold, 8: `[]`} {
		r := answers[id]
		times(r)
		hs := derefHolds(r.Holds)
		for i := range hs {
			created, _ := time.Parse(protocol.TimeFormat, hs[i].Created)
			if deadline, err := time.Parse(protocol.TimeFormat, hs[i].Deadline); err == nil && deadline.Sub(created) == 30*time.Minute {
				hs[i].Deadline = "T+30m"
			}
			hs[i].Created = "T"
		}
		if got := jsonText(hs); r.Error != "" || got != want {
			t.Errorf("holds %d: %s %s\nwant %s", id, r.Error, got, want)
		}
	}
	for id, want := range map[int64]string{9: "3970/0/510", 10: "0/0/0"} {
		r := answers[id]
		if got := r.Posted + "/" + r.HeldIn + "/" + r.HeldOut; r.Error != "" || got != want {
			t.Errorf("balance_at %d: %s %s, want %s", id, r.Error, got, want)
		}
	}
}

// serveLines hands lines to the driver with the case's client compiled
// in, and returns its answers by id.
func serveLines(t *testing.T, lines []string) map[int64]protocol.Response {
	t.Helper()
	var out bytes.Buffer
	if err := driver.Serve(strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, card.Postgres); err != nil {
		t.Fatal(err)
	}
	answers := map[int64]protocol.Response{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r protocol.Response
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("an answer that is not JSON: %q", l)
		}
		answers[r.ID] = r
	}
	if answers[0].Error != "" {
		t.Fatalf("open: %s", answers[0].Error)
	}
	return answers
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func derefEntries(p *[]protocol.Entry) []protocol.Entry {
	if p == nil {
		return nil
	}
	return *p
}

func derefHolds(p *[]protocol.Hold) []protocol.Hold {
	if p == nil {
		return nil
	}
	return *p
}

// The requests and answers docs/formats.md shows under "Driver protocol"
// are the protocol's: each line decodes into a Request (a line with an
// "op") or a Response, with no field the protocol lacks. A line that
// leaves part out ("…") is not JSON, and is passed over.
func TestDriverProtocolExamplesDecode(t *testing.T) {
	lines := 0
	for _, f := range walkSection(t, "docs/formats.md", "## Driver protocol") {
		if f.info != "json" {
			continue
		}
		for i, l := range f.body {
			if strings.Contains(l, "…") || strings.TrimSpace(l) == "" {
				continue
			}
			var probe map[string]any
			if err := json.Unmarshal([]byte(l), &probe); err != nil {
				t.Errorf("docs/formats.md:%d: not JSON: %v", f.line+1+i, err)
				continue
			}
			dec := json.NewDecoder(strings.NewReader(l))
			dec.DisallowUnknownFields()
			var err error
			if _, ok := probe["op"]; ok {
				err = dec.Decode(&protocol.Request{})
			} else {
				err = dec.Decode(&protocol.Response{})
			}
			if err != nil {
				t.Errorf("docs/formats.md:%d: %v", f.line+1+i, err)
			}
			lines++
		}
	}
	if lines < 8 {
		t.Errorf("%d lines decoded; the section shows more", lines)
	}
}
