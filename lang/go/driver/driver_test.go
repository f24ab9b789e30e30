package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chobo-lang/chobo/runtime/go/chobotb"

	"github.com/jackc/pgx/v5"

	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
	"github.com/chobo-lang/chobo/chobo/target"
)

func TestMainSource(t *testing.T) {
	const path = "example.com/warehouse/ledger/stock"
	src := MainSource(path)
	if !bytes.Equal(src, MainSource(path)) {
		t.Error("two calls wrote different bytes")
	}
	if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
		t.Errorf("not gofmt'ed (%v):\n%s", err, src)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name.Name != "main" {
		t.Errorf("package %s, want main", f.Name.Name)
	}
	var imports []string
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		imports = append(imports, p)
	}
	if want := []string{path, "github.com/chobo-lang/chobo/lang/go/driver"}; strings.Join(imports, " ") != strings.Join(want, " ") {
		t.Errorf("imports %v, want %v", imports, want)
	}
	if !bytes.Contains(src, []byte("driver.Main(client.Postgres)")) {
		t.Errorf("does not hand the constructor to Main:\n%s", src)
	}
}

func TestTargetsAreGoTargets(t *testing.T) {
	for _, c := range []struct{ name, backend string }{{PostgresTarget, "postgres"}, {TigerBeetleTarget, "tigerbeetle"}} {
		tg, ok := target.Lookup(c.name)
		if !ok || tg.Language != "go" || tg.Backend != c.backend {
			t.Errorf("%s is not a Go target of chobo build on %s", c.name, c.backend)
		}
	}
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

type fakeBook struct{}

func fakePostgres(q querier, tenant string) *fakeBook { return &fakeBook{} }

func TestConstructorIsChecked(t *testing.T) {
	for _, c := range []any{nil, 42, func() {}, func(q querier) *fakeBook { return nil }, func(s string, t string) *fakeBook { return nil }} {
		if err := checkConstructor(c, poolType, "Postgres"); err == nil {
			t.Errorf("%T accepted as a constructor", c)
		}
	}
	if err := checkConstructor(fakePostgres, poolType, "Postgres"); err != nil {
		t.Errorf("a constructor of the generated shape: %v", err)
	}
	if err := checkConstructor(fakeTigerBeetle, tbType, "TigerBeetleWith"); err != nil {
		t.Errorf("a TigerBeetleWith constructor of the generated shape: %v", err)
	}
	if err := checkConstructor(fakePostgres, tbType, "TigerBeetleWith"); err == nil {
		t.Errorf("a PostgreSQL constructor accepted for a TigerBeetle client")
	}
	// The generated TigerBeetle takes the official client, which the
	// driver's chobotb.Client is not: handing it over is a mistake the
	// driver names instead of failing at the first call.
	err := ServeTigerBeetle(strings.NewReader(""), io.Discard, fakeOfficialTigerBeetle, nil)
	if err == nil || !strings.Contains(err.Error(), "TigerBeetleWith") {
		t.Errorf("a constructor over the official client: %v", err)
	}
}

var (
	poolType = reflect.TypeOf((*pgxpool.Pool)(nil))
	tbType   = reflect.TypeOf((*chobotb.Client)(nil)).Elem()
)

func fakeTigerBeetle(c chobotb.Client, tenant string) *fakeBook { return &fakeBook{} }

// official stands for tigerbeetle_go.Client, a method of which chobotb.Client
// does not have.
type official interface{ Nop() error }

func fakeOfficialTigerBeetle(c official, tenant string) *fakeBook { return &fakeBook{} }

// serve runs Serve on the given lines and returns its answers by id.
func serve(t *testing.T, lines ...string) (map[int64]protocol.Response, error) {
	t.Helper()
	var out bytes.Buffer
	err := Serve(strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, fakePostgres)
	answers := map[int64]protocol.Response{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l == "" {
			continue
		}
		var r protocol.Response
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("an answer that is not JSON: %q", l)
		}
		answers[r.ID] = r
	}
	return answers, err
}

func TestServeAnswersErrorsByID(t *testing.T) {
	answers, err := serve(t,
		`{"id":7,"op":"call","transfer":"reserve","operation":"hold"}`,
		`{"id":0,"op":"open","target":"tigerbeetle-go","names":{},"dsn":""}`,
		`{"id":1,"op":"open","target":"postgres-go","dsn":""}`,
		`{"id":2,"op":"open","target":"postgres-go","names":[1],"dsn":""}`,
		`{"id":3,"op":"open","target":"postgres-go","names":{},"dsn":"port=none"}`,
	)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int64]string{7: "not open", 0: "not \"tigerbeetle-go\"", 1: `no "names"`, 2: "the names", 3: "the dsn"} {
		if !strings.Contains(answers[id].Error, want) {
			t.Errorf("answer %d: %+v, want an error with %q", id, answers[id], want)
		}
	}
}

func TestServeStopsAtALineWithoutID(t *testing.T) {
	for _, line := range []string{`not json`, `{"op":"expire","max":1}`, `{"id":"one","op":"expire"}`} {
		if _, err := serve(t, line); err == nil {
			t.Errorf("%s: Serve went on", line)
		}
	}
}

type (
	fakeArgs struct {
		Order, SKU string
		Qty        int64
	}
	fakeKey     struct{ Order, SKU string }
	fakeAmounts struct{ Qty int64 }
)

// callArgs reads what an operation takes from the names alone: every
// parameter for a hold, the key for the others, and a post's amounts
// only when they are given.
func TestCallArgs(t *testing.T) {
	var tr transfer
	names := `{"transfer":"reserve","field":"Reserve",
	 "args":{"fields":[{"param":"order","name":"Order","type":"string"},{"param":"sku","name":"SKU","type":"string"},{"param":"qty","name":"Qty","type":"int64"}]},
	 "key":{"fields":[{"param":"order","name":"Order","type":"string"},{"param":"sku","name":"SKU","type":"string"}]},
	 "amounts":{"fields":[{"param":"qty","name":"Qty","type":"int64"}]}}`
	if err := json.Unmarshal([]byte(names), &tr); err != nil {
		t.Fatal(err)
	}
	hold := reflect.TypeOf(func(context.Context, fakeArgs) {})
	post := reflect.TypeOf(func(context.Context, fakeKey, *fakeAmounts) {})
	void := reflect.TypeOf(func(context.Context, fakeKey) {})
	key := map[string]string{"order": "o-1", "sku": "A-1"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for a, b := range key {
			m[a] = b
		}
		return m
	}
	for _, c := range []struct {
		op   string
		mt   reflect.Type
		args map[string]string
		want string // the arguments, %+v, or the error
	}{
		{"hold", hold, with("qty", "3"), "[{Order:o-1 SKU:A-1 Qty:3}]"},
		{"hold", hold, key, "the value of qty is missing"},
		{"hold", hold, with("qty", "3.5"), `qty: "3.5" is not an amount`},
		{"post", post, key, "[{Order:o-1 SKU:A-1} <nil>]"},
		{"post", post, with("qty", "2"), "[{Order:o-1 SKU:A-1} &{Qty:2}]"},
		{"void", void, with("qty", "2"), "qty is not one of its parameters"},
		{"status", void, key, "[{Order:o-1 SKU:A-1}]"},
	} {
		vs, err := callArgs(c.mt, 1, &tr, c.op, c.args)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			var parts []string
			for _, v := range vs {
				parts = append(parts, fmt.Sprintf("%+v", v.Interface()))
			}
			got = "[" + strings.Join(parts, " ") + "]"
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s %v: got %s, want %s", c.op, c.args, got, c.want)
		}
	}
}
