package python

import "testing"

func TestValid(t *testing.T) {
	good := []string{
		"# c\nfrom __future__ import annotations\n\n\nclass 引当:\n    \"\"\"doc \\\"q\\\" \\\\ \\u2028\n    more\"\"\"\n\n    def hold(self, *, 注文: str, qty: int | None = None) -> Result:\n        return self._b.call(\n            'a \"b\" %s',\n            [\n                check_text(\"x\", \"y\", 注文),\n            ],\n        )\n",
		"x = f\"{where}: {', '.join(a)}\"\n@cache\ndef f() -> D:\n    return D(a=(1,), b=None)\n",
	}
	for _, s := range good {
		if err := Valid([]byte(s)); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	bad := map[string]string{
		"a string over a line":     "x = \"a\nb\"\n",
		"an unclosed string":       "x = \"ab\n",
		"an unclosed docstring":    "\"\"\"doc\n",
		"an unknown escape":        "x = \"a\\qb\"\n",
		"a short hex escape":       "x = \"\\x4\"\n",
		"an unclosed bracket":      "f(\n",
		"a stray closer":           "f())\n",
		"crossed brackets":         "f([)]\n",
		"an indent without colon":  "x = 1\n    y = 2\n",
		"a block not indented":     "def f():\nreturn 1\n",
		"a dedent to nowhere":      "def f():\n    if x:\n        y\n  z\n",
		"a tab":                    "def f():\n\treturn 1\n",
		"a carriage return":        "x = 1\r\n",
		"a semicolon":              "x = 1; y = 2\n",
		"a line joined":            "x = f(1, \\\n2)\n",
		"a character no token":     "x = $a\n",
		"a name not in NFKC":       "ｑｔｙ = 1\n",
		"a file ending in a colon": "def f():\n",
	}
	for what, s := range bad {
		if err := Valid([]byte(s)); err == nil {
			t.Errorf("%s: %q passed", what, s)
		}
	}
}
