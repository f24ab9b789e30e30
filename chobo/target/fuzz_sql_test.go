package target

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// sqlStatements are the first words of the statements chobo writes at
// the top level of a file, between its begin and its commit.
var sqlStatements = map[string]bool{"do": true, "create": true, "revoke": true}

// validSQL reads the SQL as PostgreSQL's lexer does, as far as chobo's
// SQL needs: it must be UTF-8 without NUL; every string, quoted
// identifier, comment and dollar-quoted body must close; and every
// statement at the top level must start with a word chobo writes there,
// so that no text of the book can have ended a literal or a body early
// and started a statement of its own. Function bodies are read the same
// way, as PL/pgSQL and SQL functions are.
func validSQL(data []byte) error {
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return fmt.Errorf("not UTF-8 text without NUL")
	}
	stmts, err := splitSQL(string(data))
	if err != nil {
		return err
	}
	// The file is one transaction: it opens it and sets its path first,
	// and commits last; nothing else may begin, set or commit.
	frame := []string{"begin", "set local search_path = pg_catalog, pg_temp"}
	if len(stmts) < len(frame)+1 || strings.TrimSpace(stmts[len(stmts)-1].text) != "commit" {
		return fmt.Errorf("the SQL does not end with its commit")
	}
	for i, want := range frame {
		if got := strings.TrimSpace(stmts[i].text); got != want {
			return fmt.Errorf("statement %d is %.80q, want %q", i+1, got, want)
		}
	}
	for _, st := range stmts[len(frame) : len(stmts)-1] {
		word := strings.ToLower(firstWord(st.text))
		if !sqlStatements[word] {
			return fmt.Errorf("a statement at the top level starts with %q: %.80q", word, st.text)
		}
		for _, body := range st.bodies {
			if _, err := splitSQL(body); err != nil {
				return fmt.Errorf("in a body: %v", err)
			}
		}
	}
	return nil
}

type sqlStatement struct {
	text   string   // without comments
	bodies []string // the dollar-quoted strings in it
}

// splitSQL splits SQL text into statements at the semicolons outside
// literals, identifiers, comments and dollar quotes.
func splitSQL(s string) ([]sqlStatement, error) {
	var out []sqlStatement
	var cur sqlStatement
	var text strings.Builder
	flush := func() {
		cur.text = strings.TrimSpace(text.String())
		if cur.text != "" {
			out = append(out, cur)
		}
		cur, text = sqlStatement{}, strings.Builder{}
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case strings.HasPrefix(s[i:], "--"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s) - i
			}
			i += end
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("a comment is not closed")
			}
			i += 2 + end + 2
		case c == '\'' || c == '"':
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], c)
				if k < 0 {
					return nil, fmt.Errorf("%c opened at byte %d is not closed", c, i)
				}
				j += k + 1
				if j < len(s) && s[j] == c {
					j++ // doubled: part of the text
					continue
				}
				break
			}
			text.WriteString(s[i:j])
			i = j
		case c == '$':
			tag := dollarTag(s[i:])
			if tag == "" {
				text.WriteByte(c)
				i++
				continue
			}
			end := strings.Index(s[i+len(tag):], tag)
			if end < 0 {
				return nil, fmt.Errorf("the body opened by %s is not closed", tag)
			}
			cur.bodies = append(cur.bodies, s[i+len(tag):i+len(tag)+end])
			text.WriteString(" $body$ ")
			i += len(tag) + end + len(tag)
		case c == ';':
			flush()
			i++
		default:
			text.WriteByte(c)
			i++
		}
	}
	flush()
	return out, nil
}

// dollarTag returns the dollar-quote tag at the start of s ($$, $fn$),
// or "" when s does not start with one ($1 is a parameter).
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1]
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 1 && c >= '0' && c <= '9':
		default:
			return ""
		}
	}
	return ""
}

func firstWord(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " \n\t("); i >= 0 {
		return s[:i]
	}
	return s
}

func TestValidSQL(t *testing.T) {
	for _, c := range []struct {
		sql string
		ok  bool
	}{
		{"create table x (a text); do $$ begin perform 1; end $$;", true},
		{"create function f() returns text as $fn$ select 'a;b'; $fn$;", true},
		{"-- a comment; drop table x\ncreate table x (a text);", true},
		{"create table x (a text default 'it''s');", true},
		{"create table x (a text default 'open);", false},
		{"create function f() returns text as $fn$ select 1;", false},
		{"create table x (a text default 'x'); drop table x;", false},
		{"create function f() returns text as $fn$ select 'x$fn$; drop table y; --'; $fn$;", false},
		{"create function f() returns text as $fn$ select 'x; $fn$;", false},
		{"create table \"a\"\"b\" (c text);", true},
		{"create table x (a text);\x00", false},
		// the frame of one transaction, and nothing else begins or commits
		{"begin; create table x (a text); commit;", false},
		{"begin; set local search_path = public; create table x (a text); commit;", false},
		{"begin; set local search_path = pg_catalog, pg_temp; create table x (a text);", false},
		{"begin; set local search_path = pg_catalog, pg_temp; create table x (a text); commit; create table y (a text); commit;", false},
	} {
		sql := c.sql
		if !strings.HasPrefix(sql, "begin") {
			sql = "begin; set local search_path = pg_catalog, pg_temp;\n" + sql + "\ncommit;\n"
		}
		if err := validSQL([]byte(sql)); (err == nil) != c.ok {
			t.Errorf("validSQL(%q) = %v, want ok %v", c.sql, err, c.ok)
		}
	}
}
