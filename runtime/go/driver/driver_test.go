package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"go/format"
	"go/parser"
	"go/token"
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
	if want := []string{path, "github.com/chobo-lang/chobo/runtime/go/driver"}; strings.Join(imports, " ") != strings.Join(want, " ") {
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
	if err := checkConstructor(fakeTigerBeetle, tbType, "TigerBeetle"); err != nil {
		t.Errorf("a TigerBeetle constructor of the generated shape: %v", err)
	}
	if err := checkConstructor(fakePostgres, tbType, "TigerBeetle"); err == nil {
		t.Errorf("a PostgreSQL constructor accepted for a TigerBeetle client")
	}
}

var (
	poolType = reflect.TypeOf((*pgxpool.Pool)(nil))
	tbType   = reflect.TypeOf((*chobotb.Client)(nil)).Elem()
)

func fakeTigerBeetle(c chobotb.Client, tenant string) *fakeBook { return &fakeBook{} }

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
