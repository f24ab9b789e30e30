package target

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/backend/postgres"
	"github.com/chobo-lang/chobo/chobo/check"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/gen"
)

// TestFuzzSeedsLoadIntoPostgres is the half of FuzzBuild and
// FuzzBuildText that needs a server: the SQL of every seed that checks
// clean (every test case and example book, the text seeds, and every
// input kept under testdata/fuzz) is loaded into a real PostgreSQL
// server, one book after another, each schema dropped after its load. A
// text that ended a literal or a body early would fail there.
func TestFuzzSeedsLoadIntoPostgres(t *testing.T) {
	books := seedBooks(t)
	for _, s := range textSeeds {
		for _, name := range seedNames {
			books = append(books, textBook(s, name))
		}
	}
	for _, target := range []string{"FuzzBuild", "FuzzBuildText"} {
		paths, _ := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
		for _, p := range paths {
			args, err := readCorpusFile(p)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			switch {
			case target == "FuzzBuild" && len(args) == 1:
				books = append(books, []byte(args[0]))
			case target == "FuzzBuildText" && len(args) == 2:
				books = append(books, textBook(args[0], args[1]))
			default:
				t.Fatalf("%s: %d values, not what %s takes", p, len(args), target)
			}
		}
	}

	pg, _ := Lookup("postgres")
	srv := pgtest.Start(t)
	conn := srv.Connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	loaded := 0
	for i, src := range books {
		res := check.Check("seed.book", src)
		if res.Book == nil {
			continue
		}
		files, ds, err := pg.Build(res.Book, gen.NewSource("seed.book", src), gen.Options{})
		if err != nil || len(ds) > 0 {
			continue // FuzzBuild holds these to their diagnostics
		}
		if _, err := conn.Exec(ctx, string(files[0].Data)); err != nil {
			t.Errorf("seed %d (book %s): loading its SQL: %v", i, res.Book.Name, err)
			continue
		}
		if _, err := conn.Exec(ctx, fmt.Sprintf(`drop schema %s cascade`, postgres.Ident(res.Book.Name))); err != nil {
			t.Fatal(err)
		}
		loaded++
	}
	if loaded < 40 {
		t.Errorf("only %d of %d seeds built SQL to load", loaded, len(books))
	}
	t.Logf("the SQL of %d seeds loaded into PostgreSQL", loaded)
}

// readCorpusFile reads a file of Go's fuzzing corpus: a first line "go
// test fuzz v1", then one value per line, here []byte("…") or
// string("…").
func readCorpusFile(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	if !sc.Scan() || sc.Text() != "go test fuzz v1" {
		return nil, fmt.Errorf("not a corpus file")
	}
	var out []string
	for sc.Scan() {
		line := sc.Text()
		var lit string
		switch {
		case strings.HasPrefix(line, "[]byte(") && strings.HasSuffix(line, ")"):
			lit = line[len("[]byte(") : len(line)-1]
		case strings.HasPrefix(line, "string(") && strings.HasSuffix(line, ")"):
			lit = line[len("string(") : len(line)-1]
		default:
			return nil, fmt.Errorf("a value of another type: %.40q", line)
		}
		v, err := strconv.Unquote(lit)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, sc.Err()
}
