package python

import (
	"slices"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/chobo/client/model"
)

func TestName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"sku", "sku"},
		{"from", "from_"}, // a keyword
		{"None", "None_"},
		{"async", "async_"},
		{"match", "match"}, // soft keywords are names
		{"case", "case"},
		{"type", "type"},
		{"_", "_"},
		{"引当", "引当"}, // Japanese kept
		{"注文", "注文"},
		{"ｑｔｙ", "qty"}, // full-width letters, as Python reads them
		{"ｆｒｏｍ", "from_"},
		{"ｶｰﾄﾞ", "カード"}, // half-width kana, with the voicing mark joined
		{"ﬁle", "file"}, // a ligature
		{"sk\u0e31u", "sk\u0e31u"},
	} {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestUnreadable(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // a part of the reason; "" for a name Python reads as written
	}{
		{"qty", ""},
		{"from", ""}, // written from_, not refused
		{"match", ""},
		{"ｑｔｙ", ""}, // written qty
		{"_x", ""},
		{"x__", ""},
		{"ｉｆ", "the keyword `if`"},
		{"Ｎｏｎｅ", "the keyword `None`"},
		{"__x", "two underscores"},
		{"__init__", "two underscores"},
		{"＿＿x", "two underscores"},
		{"\ufdfa", "which is not an identifier"}, // a ligature of words with spaces
		{"a-b", "not a Python identifier"},
	} {
		why, ja := unreadable(c.in)
		if c.want == "" && why != "" || !strings.Contains(why, c.want) {
			t.Errorf("unreadable(%q) = %q, want %q", c.in, why, c.want)
		}
		if (why == "") != (ja == "") {
			t.Errorf("unreadable(%q): %q in English, %q in Japanese", c.in, why, ja)
		}
	}
}

func TestUnimportable(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // a part of the reason; "" for a module name an import finds
	}{
		{"stock", ""},
		{"倉庫", ""},
		{"_x", ""},
		{"__x", ""}, // private in a class, not at an import
		{"json", ""},
		{"class", "is a keyword"},
		{"match", ""}, // a soft keyword: import match works
		{"ｓｔｏｃｋ", "looks for stock.py"},
		{"ｉｆ", "the keyword `if`"},
		{"__main__", "two underscores"},
		{"asyncio", "imports the module `asyncio`"},
		{"tigerbeetle", "imports the module `tigerbeetle`"},
		{"typing", "imports the module `typing`"},
		{"__future__", "two underscores"},
		{"a-b", "not a Python identifier"},
	} {
		why, ja := unimportable(c.in)
		if c.want == "" && why != "" || !strings.Contains(why, c.want) {
			t.Errorf("unimportable(%q) = %q, want %q", c.in, why, c.want)
		}
		if (why == "") != (ja == "") {
			t.Errorf("unimportable(%q): %q in English, %q in Japanese", c.in, why, ja)
		}
	}
}

func TestIdentifier(t *testing.T) {
	for s, want := range map[string]bool{
		"sku": true, "引当": true, "_a": true, "a1": true, "1a": false, "": false, "$a": false,
		"a b": false, "a-b": false, "กั": true, "\u0e31a": false, "℘": true, "Ⅳ": true,
	} {
		if got := Identifier(s); got != want {
			t.Errorf("Identifier(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestPascal(t *testing.T) {
	for in, want := range map[string]string{
		"reserve_stock": "ReserveStock", "take_back": "TakeBack", "引当": "引当", "_x": "X", "a__b": "AB",
		"ｔａｋｅ_ｂａｃｋ": "TakeBack", "_1": "T1", "none": "None_", "true": "True_", "x2": "X2", "éclair": "éclair",
	} {
		if got := Pascal(in); got != want {
			t.Errorf("Pascal(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:              `"plain"`,
		`say "hi"`:           `'say "hi"'`,
		`it's "q"`:           `"it's \"q\""`,
		`it's`:               `"it's"`,
		`a\b`:                `"a\\b"`,
		"l\nf\r\t":           `"l\nf\r\t"`,
		"\u2028\x7f\x01":     `"\u2028\x7f\x01"`,
		"\u0085":             `"\u0085"`,
		"在庫":                 `"在庫"`,
		"\xff":               `"\ufffd"`,
		`"a"."b"(%s, %%s)`:   `'"a"."b"(%s, %%s)'`,
		`'''"""`:             `"'''\"\"\""`,
		`ends with \`:        `"ends with \\"`,
		`{x} %s ${x} {{.X}}`: `"{x} %s ${x} {{.X}}"`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestDoc: no description can end the docstring it is written into, or
// start an escape there, or break its line.
func TestDoc(t *testing.T) {
	for _, in := range []string{`"""`, `""""""`, `a"`, `\`, `\N{BULLET}`, `""" + __import__("os") + """`, "a\nb", "\u2029", `'''`} {
		got := `"""` + Doc(in) + `."""`
		body := got[3 : len(got)-3]
		if strings.Contains(body, `"""`) || strings.ContainsAny(body, "\n\r\u2028\u2029") {
			t.Errorf("Doc(%q) = %s", in, got)
		}
		// Every backslash starts an escape of its own: a quote, a
		// backslash, or a character given by number.
		for i := 0; i < len(body); i++ {
			if body[i] == '\\' {
				if i+1 >= len(body) || !strings.ContainsRune(`"\nrtxu`, rune(body[i+1])) {
					t.Errorf("Doc(%q) = %s: a backslash that escapes nothing it means to", in, got)
				}
				i++
			}
		}
	}
}

func TestPlaceholders(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{`select result, reason from "b"."t_do"($1, $2, $3)`, `select result, reason from "b"."t_do"(%s, %s, %s)`, ""},
		{`select "b".expire($1)`, `select "b".expire(%s)`, ""},
		{`select "b".expire($1::integer, $2::pg_catalog.uuid)`, `select "b".expire(%s::integer, %s::pg_catalog.uuid)`, ""},
		{`select "b$1"."f"($1)`, `select "b$1"."f"(%s)`, ""},                // inside a quoted identifier
		{`select 'a $1 ''b'' $2', $1`, `select 'a $1 ''b'' $2', %s`, ""},    // inside a literal, with doubled quotes
		{`select "a""$1"($1)`, `select "a""$1"(%s)`, ""},                    // a doubled quote in a name
		{`select 5 % 2, '%', "%"($1)`, `select 5 %% 2, '%%', "%%"(%s)`, ""}, // every % doubled
		{`select $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11`, `select %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s`, ""},
		{`select $$x$$`, `select $$x$$`, ""}, // not a placeholder
		{`select $`, `select $`, ""},
		{`select $2, $1`, "", "$2 where $1 comes next"},
		{`select $1, $1`, "", "$1 where $2 comes next"},
		{`select "a`, "", "a quote that does not end"},
		{`select 'a`, "", "a quote that does not end"},
		{`select $99999999999999999999`, "", "a placeholder past"},
	} {
		got, err := Placeholders(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Placeholders(%q): error %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("Placeholders(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// collisions are the E062 a model's names make, each as the name, its
// owners and whether it says why.
func collisionsOf(m *model.Model) []string {
	var out []string
	for _, c := range Collisions(m) {
		s := c.Name + ": " + c.First.Name
		if !c.Alone() {
			s += " & " + c.Second.Name
		}
		if c.Why != "" {
			s += " (why)"
		}
		out = append(out, s)
	}
	return out
}

func str(names ...string) []model.Param {
	var out []model.Param
	for _, n := range names {
		out = append(out, model.Param{Name: n})
	}
	return out
}

func TestCollisions(t *testing.T) {
	for _, c := range []struct {
		name      string
		transfers []*model.Transfer
		accounts  []*model.Account
		want      []string
	}{
		{"none", []*model.Transfer{{Name: "pay", Args: str("ref", "from")}}, []*model.Account{{Name: "wallet", Params: str("member")}}, nil},
		{"two parameters one after NFKC", []*model.Transfer{{Name: "pay", Args: str("ｑｔｙ", "qty")}}, nil, []string{"qty: ｑｔｙ & qty (why)"}},
		{"a parameter and a keyword's spelling", []*model.Transfer{{Name: "pay", Args: str("from", "from_")}}, nil, []string{"from_: from & from_ (why)"}},
		{"two transfers one after NFKC", []*model.Transfer{{Name: "pay", Args: str("r")}, {Name: "ｐａｙ", Args: str("r")}}, nil,
			[]string{"Pay: pay & ｐａｙ (why)", "AsyncPay: pay & ｐａｙ (why)", "pay: pay & ｐａｙ (why)"}},
		{"two accounts one after NFKC", nil, []*model.Account{{Name: "ｗａｌｌｅｔ"}, {Name: "wallet"}}, []string{"wallet: ｗａｌｌｅｔ & wallet (why)"}},
		{"two account parameters", nil, []*model.Account{{Name: "w", Params: str("ｍ", "m")}}, []string{"m: ｍ & m (why)"}},
		{"a name NFKC makes a keyword", []*model.Transfer{{Name: "ｉｆ", Args: str("r")}}, nil, []string{"if: ｉｆ (why)"}},
		{"a parameter NFKC makes a keyword", []*model.Transfer{{Name: "pay", Args: str("ｉｍｐｏｒｔ")}}, nil, []string{"import: ｉｍｐｏｒｔ (why)"}},
		{"two underscores", []*model.Transfer{{Name: "pay", Args: str("__r")}}, []*model.Account{{Name: "__w"}}, []string{"__r: __r (why)", "__w: __w (why)"}},
		{"snake and camel case", []*model.Transfer{{Name: "take_back", Args: str("r")}, {Name: "takeBack", Args: str("r")}}, nil, []string{"TakeBack: take_back & takeBack", "AsyncTakeBack: take_back & takeBack"}},
		{"a class and its asyncio one", []*model.Transfer{{Name: "pay", Args: str("r")}, {Name: "async_pay", Args: str("r")}}, nil, []string{"AsyncPay: pay & async_pay"}},
		{"a member pushed onto another's name", []*model.Transfer{{Name: "balance", Args: str("r")}, {Name: "balance_2", Args: str("r")}}, nil, []string{"balance_2: balance & balance_2"}},
		{"parameters of different transfers", []*model.Transfer{{Name: "a", Args: str("ｑ")}, {Name: "b", Args: str("q")}}, nil, nil},
	} {
		m := &model.Model{Transfers: c.transfers, Accounts: c.accounts}
		if got := collisionsOf(m); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestNamingAvoidsTheFilesOwnNames(t *testing.T) {
	m := &model.Model{
		Transfers: []*model.Transfer{
			{Name: "balance", Args: str("self", "check_text", "r", "_unknown", "check_keywords")},
			{Name: "expire", Pending: true, Args: str("from", "_post_amounts"), Key: str("from")},
			{Name: "_backend", Args: str("r")},
			{Name: "book", Args: str("r")},
			{Name: "tiger_beetle_book", Args: str("r")},
			{Name: "transfer", Args: str("ｑｔｙ")},
			{Name: "引当", Args: str("注文")},
			{Name: "exception", Args: str("r")},
		},
		Accounts: []*model.Account{{Name: "_tenant"}, {Name: "stock", Params: str("self", "sku")}},
	}
	n := ClientNames(m)
	for name, want := range map[string]TransferNames{
		"balance":           {Member: "balance_2", Class: "Balance_2", AsyncClass: "AsyncBalance_2", Keywords: map[string]string{"self": "self_2", "check_text": "check_text_2", "r": "r", "_unknown": "_unknown_2", "check_keywords": "check_keywords_2"}},
		"expire":            {Member: "expire_2", Class: "Expire", AsyncClass: "AsyncExpire", Keywords: map[string]string{"from": "from_", "_post_amounts": "_post_amounts_2"}},
		"_backend":          {Member: "_backend_2", Class: "Backend", AsyncClass: "AsyncBackend", Keywords: map[string]string{"r": "r"}},
		"book":              {Member: "book", Class: "Book_2", AsyncClass: "AsyncBook_2", Keywords: map[string]string{"r": "r"}},
		"tiger_beetle_book": {Member: "tiger_beetle_book", Class: "TigerBeetleBook_2", AsyncClass: "AsyncTigerBeetleBook_2", Keywords: map[string]string{"r": "r"}},
		"transfer":          {Member: "transfer", Class: "Transfer_2", AsyncClass: "AsyncTransfer_2", Keywords: map[string]string{"ｑｔｙ": "qty"}},
		"exception":         {Member: "exception", Class: "Exception_2", AsyncClass: "AsyncException_2", Keywords: map[string]string{"r": "r"}},
		"引当":                {Member: "引当", Class: "引当", AsyncClass: "Async引当", Keywords: map[string]string{"注文": "注文"}},
	} {
		got := n.Transfers[name]
		if got.Member != want.Member || got.Class != want.Class || got.AsyncClass != want.AsyncClass || !equalMaps(got.Keywords, want.Keywords) {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	if got := n.Accounts["_tenant"]; got.Member != "_tenant_2" {
		t.Errorf("_tenant: %+v", got)
	}
	if got := n.Accounts["stock"]; got.Member != "stock" || !equalMaps(got.Keywords, map[string]string{"self": "self_2", "sku": "sku"}) {
		t.Errorf("stock: %+v", got)
	}
	// None of these is an E062: each name moves the same way whatever
	// else the book declares.
	if c := Collisions(m); len(c) > 0 {
		t.Errorf("collisions: %+v", c)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestNamingAvoidsTheHistoryReadersNames holds the names of a book that
// would meet those of the history readers to moving aside: the book
// value's members, the readers' classes, the types their signatures name
// and the positional parameters their methods take.
func TestNamingAvoidsTheHistoryReadersNames(t *testing.T) {
	m := &model.Model{
		Transfers: []*model.Transfer{
			{Name: "statement", Args: str("_query", "_at", "_history")},
			{Name: "balance_at", Args: str("r")},
			{Name: "open_holds", Args: str("r")},
			{Name: "statements", Args: str("r")},
		},
		Accounts: []*model.Account{{Name: "datetime"}, {Name: "Statement"}, {Name: "StatementQuery"},
			{Name: "OpenHold"}, {Name: "list"}, {Name: "wallet", Params: str("limit", "at")}},
	}
	n := ClientNames(m)
	for name, want := range map[string]TransferNames{
		"statement":  {Member: "statement_2", Class: "Statement_2", AsyncClass: "AsyncStatement_2", Keywords: map[string]string{"_query": "_query_2", "_at": "_at_2", "_history": "_history_2"}},
		"balance_at": {Member: "balance_at_2", Class: "BalanceAt", AsyncClass: "AsyncBalanceAt", Keywords: map[string]string{"r": "r"}},
		"open_holds": {Member: "open_holds_2", Class: "OpenHolds_2", AsyncClass: "AsyncOpenHolds_2", Keywords: map[string]string{"r": "r"}},
		"statements": {Member: "statements", Class: "Statements_2", AsyncClass: "AsyncStatements_2", Keywords: map[string]string{"r": "r"}},
	} {
		got := n.Transfers[name]
		if got.Member != want.Member || got.Class != want.Class || got.AsyncClass != want.AsyncClass || !equalMaps(got.Keywords, want.Keywords) {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	for _, name := range []string{"datetime", "Statement", "StatementQuery", "OpenHold", "list"} {
		if got := n.Accounts[name]; got.Member != name+"_2" {
			t.Errorf("%s: %+v", name, got)
		}
	}
	// An account's parameters keep their names: the query and the time
	// go positionally.
	if got := n.Accounts["wallet"]; got.Member != "wallet" || !equalMaps(got.Keywords, map[string]string{"limit": "limit", "at": "at"}) {
		t.Errorf("wallet: %+v", got)
	}
	if c := Collisions(m); len(c) > 0 {
		t.Errorf("collisions: %+v", c)
	}
}
