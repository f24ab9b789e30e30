package evolve

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/chobo-lang/chobo/chobo/api"
	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/resolve"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// Previous is the version of a book that is deployed: its model, and the
// definition hash of each transfer kind as that version recorded it.
type Previous struct {
	Book *book.Book
	// Definitions maps a transfer kind to its definition hash. For a book
	// read from source it is what book.Transfer.Definition computes; for
	// `chobo api` JSON it is the hash the JSON carries, which is what the
	// deployed backends hold with their keys, even if the chobo that wrote
	// it hashed differently.
	Definitions map[string]string
	// Targets are the names that version's clients gave its transfers and
	// accounts: worked out again for a book read from source, as printed
	// for `chobo api` JSON, which is what the deployed clients were built
	// with.
	Targets api.Targets
}

// FromBook takes a resolved book as the previous version.
func FromBook(b *book.Book) *Previous {
	p := &Previous{Book: b, Definitions: map[string]string{}, Targets: api.TargetsOf(b)}
	for _, t := range b.Transfers {
		p.Definitions[t.Name] = t.Definition()
	}
	return p
}

// Error is why a previous version cannot be read, in both languages.
type Error struct{ Text diag.Text }

func (e *Error) Error() string { return e.Text.En }

func fail(en, ja string) error { return &Error{diag.T(en, ja)} }

// IsAPI reports whether data is a `chobo api` document rather than a book:
// a JSON object with the key "v". A book never starts with `{`, so the
// two cannot be mistaken for each other.
func IsAPI(data []byte) bool {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\uFEFF")))
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, ok := top["v"]
	return ok
}

// Load reads the previous version from data, a book or the `chobo api`
// JSON of one, told apart by IsAPI; name is the file it came from, for
// messages. A book must resolve without errors: comparing against a
// version that could not have been deployed would only guess.
func Load(name string, data []byte) (*Previous, error) {
	if IsAPI(data) {
		var doc api.Book
		if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\uFEFF")), &doc); err != nil {
			return nil, fail(fmt.Sprintf("the previous version %s is JSON but not the output of `chobo api`: %v", name, err),
				fmt.Sprintf("前のバージョン %s は JSON ですが、`chobo api` の出力ではありません: %v", name, err))
		}
		return FromAPI(name, doc)
	}
	f, ds := syntax.Parse(name, data)
	if ds.Errors() == 0 {
		var b *book.Book
		b, ds = resolve.Resolve(f)
		if b != nil && ds.Errors() == 0 {
			return FromBook(b), nil
		}
	}
	for _, d := range ds {
		if d.Severity == diag.Error {
			errs := "1 error"
			if n := ds.Errors(); n > 1 {
				errs = fmt.Sprintf("%d errors", n)
			}
			at := fmt.Sprintf("%s:%d:%d: %s", d.File, d.Line, d.Col, d.Code)
			return nil, &Error{diag.T(
				fmt.Sprintf("the previous version %s has %s, so it cannot be what is deployed and there is nothing to compare with; the first: %s: %s", name, errs, at, d.Message.En),
				fmt.Sprintf("前のバージョン %s にはエラーが %d 件あり、デプロイしてあるものではありえないので、比べられません。最初のもの: %s: %s", name, ds.Errors(), at, d.Message.Ja))}
		}
	}
	return nil, fail("the previous version "+name+" cannot be read", "前のバージョン "+name+" を読めません")
}

// oldestAPI is the oldest output of `chobo api` a deployed version is
// read from. Version 2 moved the TigerBeetle chains from the Go target to
// a backend entry of their own; the comparison reads neither, so a
// version saved before then still compares.
const oldestAPI = 1

// FromAPI rebuilds the model of a book from what `chobo api` printed for
// it. Everything the comparison looks at is in that document: units with
// their scales, account kinds with parameters, unit, outside and bounds,
// transfer kinds with parameters, key, hold, moves and definition hash.
func FromAPI(name string, doc api.Book) (*Previous, error) {
	bad := func(en, ja string) error {
		return fail(fmt.Sprintf("the previous version %s is not a book that `chobo api` could have printed: %s", name, en),
			fmt.Sprintf("前のバージョン %s は、`chobo api` が出したはずの帳簿になっていません: %s", name, ja))
	}
	if doc.V < oldestAPI || doc.V > api.Version {
		return nil, fail(fmt.Sprintf("the previous version %s is `chobo api` output of version %d; this chobo reads versions %d to %d", name, doc.V, oldestAPI, api.Version),
			fmt.Sprintf("前のバージョン %s は `chobo api` のバージョン %d の出力です。この chobo が読めるのはバージョン %d から %d です", name, doc.V, oldestAPI, api.Version))
	}
	if doc.Book.Name == "" {
		return nil, bad("the book has no name", "帳簿に名前がありません")
	}
	b := &book.Book{File: doc.Book.File, Name: doc.Book.Name, Version: doc.Book.Version, Description: doc.Book.Description}
	units := map[string]*book.Unit{}
	for _, u := range doc.Units {
		if units[u.Name] != nil {
			return nil, bad(fmt.Sprintf("the unit %s is listed twice", u.Name), fmt.Sprintf("単位 %s が二度あります", u.Name))
		}
		unit := &book.Unit{Name: u.Name, Scale: u.Scale}
		switch u.Tax {
		case "incl_tax":
			unit.Tax = book.InclTax
		case "excl_tax":
			unit.Tax = book.ExclTax
		}
		units[u.Name] = unit
		b.Units = append(b.Units, unit)
	}
	accounts := map[string]*book.Account{}
	for _, a := range doc.Accounts {
		u := units[a.Unit]
		if u == nil || accounts[a.Name] != nil {
			return nil, bad(fmt.Sprintf("the account kind %s is listed twice or counts in a unit not listed", a.Name),
				fmt.Sprintf("勘定の種類 %s が二度あるか、一覧に無い単位で数えています", a.Name))
		}
		acc := &book.Account{Name: a.Name, Description: a.Description, Params: append([]string{}, a.Params...), Unit: u, Outside: a.Outside}
		if a.Lower != nil {
			acc.Lower = &book.Bound{Value: a.Lower.Value, Reason: a.Lower.Reason}
		}
		if a.Upper != nil {
			acc.Upper = &book.Bound{Value: a.Upper.Value, Reason: a.Upper.Reason}
		}
		accounts[a.Name] = acc
		b.Accounts = append(b.Accounts, acc)
	}
	p := &Previous{Book: b, Definitions: map[string]string{}, Targets: doc.Targets}
	for _, t := range doc.Transfers {
		if _, twice := p.Definitions[t.Name]; twice {
			return nil, bad(fmt.Sprintf("the transfer kind %s is listed twice", t.Name), fmt.Sprintf("振替の種類 %s が二度あります", t.Name))
		}
		tr, problem := transferFromAPI(t, units, accounts)
		if !problem.IsZero() {
			return nil, bad(problem.En, problem.Ja)
		}
		b.Transfers = append(b.Transfers, tr)
		p.Definitions[t.Name] = t.Definition
	}
	b.Index()
	return p, nil
}

func transferFromAPI(t api.Transfer, units map[string]*book.Unit, accounts map[string]*book.Account) (*book.Transfer, diag.Text) {
	where := func(en, ja string) diag.Text {
		return diag.T(fmt.Sprintf("the transfer kind %s %s", t.Name, en), fmt.Sprintf("振替の種類 %s の%s", t.Name, ja))
	}
	tr := &book.Transfer{Name: t.Name, Description: t.Description}
	for _, p := range t.Params {
		param := &book.Param{Name: p.Name, Index: len(tr.Params)}
		switch p.Type {
		case "string":
		case "amount":
			if param.Unit = units[p.Unit]; param.Unit == nil {
				return nil, where("has a parameter in a unit not listed: "+p.Name, "引数 "+p.Name+" の単位が一覧にありません")
			}
		default:
			return nil, where("has a parameter of an unknown type: "+p.Name, "引数 "+p.Name+" の型が分かりません")
		}
		tr.Params = append(tr.Params, param)
	}
	for _, k := range t.Key {
		p := tr.Param(k)
		if p == nil {
			return nil, where("has a key that is not a parameter: "+k, "キー "+k+" が引数にありません")
		}
		tr.Key = append(tr.Key, p)
	}
	if t.Pending.Holds {
		tr.Pending = &book.Pending{Expires: t.Pending.Expires, Seconds: t.Pending.Seconds}
	}
	side := func(r api.AccountRef) (book.AccountRef, bool) {
		ref := book.AccountRef{Account: accounts[r.Account]}
		for _, a := range r.Args {
			p := tr.Param(a)
			if p == nil {
				return ref, false
			}
			ref.Args = append(ref.Args, p)
		}
		return ref, ref.Account != nil && len(ref.Args) == len(ref.Account.Params)
	}
	for i, m := range t.Moves {
		mv := &book.Move{Index: i + 1, Amount: book.Amount{Literal: m.Amount.Literal}}
		if m.Amount.Param != "" {
			if mv.Amount.Param = tr.Param(m.Amount.Param); mv.Amount.Param == nil {
				return nil, where(fmt.Sprintf("moves an amount that is not a parameter in move %d", i+1), fmt.Sprintf("移動 %d の額が引数にありません", i+1))
			}
		}
		var okFrom, okTo bool
		mv.From, okFrom = side(m.From)
		mv.To, okTo = side(m.To)
		if !okFrom || !okTo {
			return nil, where(fmt.Sprintf("names an account that does not fit in move %d", i+1), fmt.Sprintf("移動 %d の勘定が一覧と合いません", i+1))
		}
		tr.Moves = append(tr.Moves, mv)
	}
	return tr, diag.Text{}
}
