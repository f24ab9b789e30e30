package python

import (
	"fmt"
	"strings"
)

// Placeholders rewrites a statement of the client model, which numbers
// its parameters as PostgreSQL does ($1, $2 …), for the DB-API drivers
// (psycopg 3, psycopg2), which take %s in their place, one per value in
// order, and read any other % as the start of a placeholder. Each $n
// outside a quoted identifier and a string literal becomes %s, and every
// % is doubled, inside quotes too, since the drivers do not read SQL's
// quoting. The numbers must run 1, 2, 3 … in the order they are written:
// %s cannot name a value out of order, so anything else is an error.
func Placeholders(stmt string) (string, error) {
	var b strings.Builder
	next := 1
	for i := 0; i < len(stmt); {
		c := stmt[i]
		switch {
		case c == '%':
			b.WriteString("%%")
			i++
		case c == '"' || c == '\'':
			// A quoted identifier or a literal ends at the quote that is
			// not doubled; inside, only % needs anything.
			j := i + 1
			for {
				if j >= len(stmt) {
					return "", fmt.Errorf("a quote that does not end in %q", stmt)
				}
				if stmt[j] == c {
					if j+1 < len(stmt) && stmt[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			b.WriteString(strings.ReplaceAll(stmt[i:j+1], "%", "%%"))
			i = j + 1
		case c == '$' && i+1 < len(stmt) && stmt[i+1] >= '0' && stmt[i+1] <= '9':
			j := i + 1
			n := 0
			for j < len(stmt) && stmt[j] >= '0' && stmt[j] <= '9' {
				n = n*10 + int(stmt[j]-'0')
				if n > 1<<16 {
					return "", fmt.Errorf("a placeholder past $%d in %q", 1<<16, stmt)
				}
				j++
			}
			if n != next {
				return "", fmt.Errorf("$%d where $%d comes next in %q", n, next, stmt)
			}
			next++
			b.WriteString("%s")
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}
