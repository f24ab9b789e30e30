package golang

import "testing"

func TestValid(t *testing.T) {
	good := []string{
		"package ledger\n\nimport \"context\"\n\n// 引当 holds.\nfunc 引当(ctx context.Context, q int64) (string, error) {\n\treturn \"a \\\"b\\\"\", nil\n}\n",
		"package ledger\n\nvar x = `raw\nlines`\n",
	}
	for _, s := range good {
		if err := Valid([]byte(s)); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	bad := map[string]string{
		"no package clause":   "func f() {}\n",
		"an unclosed string":  "package p\n\nvar x = \"ab\n",
		"an unclosed brace":   "package p\n\nfunc f() {\n",
		"an unclosed comment": "package p\n\n/* c\n",
		"a keyword as a name": "package p\n\nvar func = 1\n",
	}
	for what, s := range bad {
		if err := Valid([]byte(s)); err == nil {
			t.Errorf("%s: %q passed", what, s)
		}
	}
}
