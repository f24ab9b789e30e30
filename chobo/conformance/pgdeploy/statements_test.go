package pgdeploy

import (
	"slices"
	"strings"
	"testing"
)

func TestStatements(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want []string
	}{
		{"two", "select 1;\nselect 2;\n", []string{"select 1;", "\nselect 2;"}},
		{"a semicolon in a string", "select 'a;b', 'it''s;';", []string{"select 'a;b', 'it''s;';"}},
		{"in a quoted name", `select 1 as "x;y";`, []string{`select 1 as "x;y";`}},
		{"in comments", "-- a; b\nselect 1 /* c; d */;", []string{"-- a; b\nselect 1 /* c; d */;"}},
		{"in a body", "do $$ begin perform 1; end $$;\ncreate function f() returns int language sql as $fn$ select 1; $fn$;",
			[]string{"do $$ begin perform 1; end $$;", "\ncreate function f() returns int language sql as $fn$ select 1; $fn$;"}},
		{"a body holding another tag", "do $a$ begin execute $b$ select 1; $b$; end $a$;", []string{"do $a$ begin execute $b$ select 1; $b$; end $a$;"}},
		{"parameters are not tags", "select $1; select $2;", []string{"select $1;", " select $2;"}},
		{"no last semicolon", "select 1;\nselect 2", []string{"select 1;", "\nselect 2"}},
		{"comments after the last", "select 1;\n-- the end\n\n", []string{"select 1;"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Statements(tt.sql); !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
			if got := strings.Join(Statements(tt.sql), ""); !strings.HasPrefix(tt.sql, got) {
				t.Errorf("the statements are not the file: %q", got)
			}
		})
	}
}
