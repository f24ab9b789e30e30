package pgdeploy

import "strings"

// Statements cuts a SQL file into the statements psql would send one at a
// time: each ends at a semicolon outside a string, a quoted identifier, a
// comment or a dollar-quoted body. Comments and blank lines between
// statements go with the statement after them; what follows the last
// semicolon, if anything but space and comments, is a statement too.
func Statements(sql string) []string {
	var out []string
	start := 0
	for i := 0; i < len(sql); {
		switch c := sql[i]; {
		case c == '\'' || c == '"':
			i = skipQuoted(sql, i, c)
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(sql)
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			if j := strings.Index(sql[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(sql)
			}
		case c == '$':
			i = skipDollar(sql, i)
		case c == ';':
			out = append(out, sql[start:i+1])
			i++
			start = i
		default:
			i++
		}
	}
	if rest := sql[start:]; !blank(rest) {
		out = append(out, rest)
	}
	return out
}

// skipQuoted returns the index just past the string or quoted identifier
// that opens at i; a doubled quote stays inside it.
func skipQuoted(sql string, i int, q byte) int {
	for j := i + 1; j < len(sql); j++ {
		if sql[j] == q {
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

// skipDollar returns the index just past the dollar-quoted body that opens
// at i ($$ or $tag$), or i+1 when the $ opens none (a parameter, $1).
func skipDollar(sql string, i int) int {
	j := i + 1
	for j < len(sql) && (sql[j] == '_' || sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' || j > i+1 && sql[j] >= '0' && sql[j] <= '9') {
		j++
	}
	if j >= len(sql) || sql[j] != '$' {
		return i + 1
	}
	tag := sql[i : j+1]
	if end := strings.Index(sql[j+1:], tag); end >= 0 {
		return j + 1 + end + len(tag)
	}
	return len(sql)
}

// blank reports whether s holds only space and comments.
func blank(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "--") {
			return false
		}
	}
	return true
}
