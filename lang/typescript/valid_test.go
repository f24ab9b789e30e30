package typescript

import "testing"

func TestValid(t *testing.T) {
	good := []string{
		"export interface 引当Args {\n  注文: string;\n  \"a b\": bigint;\n}\n",
		"const x = [1n, \"a\\\"b\", 'c'];\n/** doc */\n// line\n",
	}
	for _, s := range good {
		if err := Valid([]byte(s)); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	bad := map[string]string{
		"a string over a line":  "const x = \"a\nb\";\n",
		"an unclosed string":    "const x = \"ab;\n",
		"an unclosed comment":   "/* doc\n",
		"an unclosed brace":     "function f() {\n",
		"a stray closer":        "f());\n",
		"crossed brackets":      "f([)];\n",
		"a template literal":    "const x = `a${b}`;\n",
		"a character no token":  "const x = #a;\n",
		"a separator in a line": "// a\u2028b\n",
	}
	for what, s := range bad {
		if err := Valid([]byte(s)); err == nil {
			t.Errorf("%s: %q passed", what, s)
		}
	}
}
