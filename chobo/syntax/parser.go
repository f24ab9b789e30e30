package syntax

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// Parse reads a book. Every line that cannot be read gives an E001 and is
// skipped, so that one run reports all of them; when the list holds an
// error the file must not be resolved.
func Parse(name string, src []byte) (*File, diag.List) {
	p := &parser{file: &File{Name: name}}
	// A file in another encoding would fail on every line that is not
	// ASCII, and then lack its `book` line: one error says it all. It
	// quotes no line, since none of them reads.
	if enc := guessEncoding(src); enc != "" {
		p.diags.Add(diag.Diagnostic{
			Code: "E001", Severity: diag.Error, File: name, Line: 1, Col: 1, NoExcerpt: true,
			Message: diag.T(fmt.Sprintf("the file is not UTF-8 (it looks like %s)", enc),
				fmt.Sprintf("ファイルが UTF-8 ではありません(%s のようです)", enc)),
			Hint: diag.T("save it as UTF-8 without a byte order mark", "UTF-8(BOM なし)で保存し直してください"),
		})
		return p.file, p.diags
	}
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		p.errorf(Pos{1, 1},
			diag.T("the file starts with a byte order mark (U+FEFF)", "ファイルの先頭にバイト順マーク(U+FEFF)があります"),
			diag.T("save the file as UTF-8 without a byte order mark", "バイト順マークの無い UTF-8 で保存してください"))
		src = src[3:]
	}
	text := string(src)
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	p.file.Lines = lines
	for i, l := range lines {
		p.line(i+1, l)
	}
	if p.file.Book == nil && !p.triedBook {
		p.errorf(Pos{1, 1},
			diag.T("the book has no `book` line", "帳簿に `book` の行がありません"),
			diag.T("start the file with `book NAME v1`", "ファイルを `book <名前> v1` の行で始めてください"))
	}
	return p.file, p.diags
}

type parser struct {
	file  *File
	diags diag.List

	// The block that indented lines belong to.
	account     *AccountDecl
	transfer    *TransferDecl
	blockIndent int  // indentation of the block's lines, 0 until the first one
	skipBlock   bool // the header failed to parse: its lines are skipped quietly

	sawDecl bool // a declaration other than `book` has been read
	sawBook bool
	// triedBook is set by any line starting with `book`, read or not, so
	// that a broken book line is not also reported as a missing one.
	triedBook bool

	toks []token
	at   int
}

// lineErr is a reason to drop the current line.
type lineErr struct {
	pos  Pos
	msg  diag.Text
	hint diag.Text
}

func (p *parser) errorf(pos Pos, msg, hint diag.Text) {
	p.diags.Add(diag.Diagnostic{
		Code:     "E001",
		Severity: diag.Error,
		File:     p.file.Name,
		Line:     pos.Line,
		Col:      pos.Col,
		Message:  msg,
		Hint:     hint,
	})
}

func (p *parser) line(n int, text string) {
	if !utf8.ValidString(text) {
		p.errorf(Pos{n, 1},
			diag.T("the line is not valid UTF-8", "この行は UTF-8 として読めません"),
			diag.T("save the file as UTF-8", "ファイルを UTF-8 で保存してください"))
		return
	}
	indent := 0
	for indent < len(text) && text[indent] == ' ' {
		indent++
	}
	toks, lerr := lexLine(n, text[indent:], indent+1)
	if lerr != nil {
		p.errorf(lerr.pos, lerr.msg, lerr.hint)
		// A line indented with full-width spaces was meant to be inside
		// the block, which goes on; any other line at the left margin may
		// have opened a block, whose indented lines cannot be read
		// against the block before it.
		if indent == 0 && !strings.HasPrefix(text, "\u3000") {
			p.account, p.transfer, p.blockIndent, p.skipBlock = nil, nil, 0, true
		}
		return
	}
	if toks[0].kind == tEOL {
		return // blank or comment only
	}
	p.toks, p.at = toks, 0
	var err *lineErr
	if indent == 0 {
		p.account, p.transfer, p.blockIndent, p.skipBlock = nil, nil, 0, false
		err = p.topLine()
		// Whatever the line was meant to open, the lines indented under
		// it are its own: reported as orphans they would only repeat the
		// one mistake.
		if err != nil {
			p.skipBlock = true
		}
	} else {
		err = p.blockLine(indent)
	}
	if err != nil {
		p.errorf(err.pos, err.msg, err.hint)
	}
}

func (p *parser) peek() token { return p.toks[p.at] }

// peekAhead returns the token k places after the next one, or the end of
// the line when there are fewer.
func (p *parser) peekAhead(k int) token { return p.toks[min(p.at+k, len(p.toks)-1)] }

func (p *parser) next() token {
	t := p.toks[p.at]
	if t.kind != tEOL {
		p.at++
	}
	return t
}

func (p *parser) isWord(word string) bool {
	t := p.peek()
	return t.kind == tIdent && t.text == word
}

func expected(what diag.Text, found token) *lineErr {
	f := found.describe()
	ja := fmt.Sprintf("ここには%sが必要ですが、%sがあります", jaWord(what.Ja), strings.TrimLeft(jaWord(f.Ja), " "))
	if found.kind == tEOL {
		ja = fmt.Sprintf("ここには%sが必要ですが、行がここで終わっています", jaWord(what.Ja))
	}
	return &lineErr{pos: found.pos,
		msg: diag.T(fmt.Sprintf("expected %s, found %s", what.En, f.En), ja)}
}

// jaWord sets a word off for a Japanese sentence: a space on each side
// that touches code or a Latin word (`docked` に), none beside kana or kanji.
func jaWord(s string) string {
	if s == "" {
		return s
	}
	r, _ := utf8.DecodeRuneInString(s)
	if r < utf8.RuneSelf {
		s = " " + s
	}
	r, _ = utf8.DecodeLastRuneInString(s)
	if r < utf8.RuneSelf {
		s += " "
	}
	return s
}

func (p *parser) expectWord(word string) *lineErr {
	if p.isWord(word) {
		p.next()
		return nil
	}
	q := "`" + word + "`"
	err := expected(diag.T(q, q), p.peek())
	err.hint, _ = keywordHint(p.peek(), word)
	return err
}

func (p *parser) expectKind(k tokenKind, what diag.Text) (token, *lineErr) {
	t := p.peek()
	if t.kind != k {
		return t, expected(what, t)
	}
	return p.next(), nil
}

// expectEOL ends the line; cands are the words that could still have
// stood here, which a word left over may be a typo of.
func (p *parser) expectEOL(cands ...string) *lineErr {
	t := p.peek()
	if t.kind == tEOL {
		return nil
	}
	f := t.describe()
	hint, ok := suggest(t, cands)
	if !ok {
		hint = diag.T("remove the rest of the line, or start a comment with `#`",
			"行の残りを消すか、`#` でコメントにしてください")
	}
	return &lineErr{pos: t.pos,
		msg: diag.T(fmt.Sprintf("unexpected %s; the line is complete before it", f.En),
			fmt.Sprintf("%sは余分です。行はその前で終わります", strings.TrimLeft(jaWord(f.Ja), " "))),
		hint: hint}
}

// name reads a name; what says what it names ("a unit", "単位").
func (p *parser) name(what diag.Text) (Ident, *lineErr) {
	t := p.peek()
	if t.kind != tIdent {
		err := expected(diag.T(what.En+" name", what.Ja+"の名前"), t)
		if t.kind == tNumber {
			err.hint = diag.T("a name cannot start with a digit: put a letter or `_` first",
				"名前は数字で始められません。先頭に文字か `_` を置いてください")
		}
		return Ident{}, err
	}
	if Reserved(t.text) {
		return Ident{}, &lineErr{pos: t.pos,
			msg: diag.T(fmt.Sprintf("`%s` is a keyword and cannot be %s name", t.text, what.En),
				fmt.Sprintf("`%s` はキーワードなので、%sの名前には使えません", t.text, what.Ja)),
			hint: diag.T("choose another name (for example add a word to it)",
				"別の名前にしてください(語を足すなど)")}
	}
	p.next()
	return Ident{Pos: t.pos, Name: t.text}, nil
}

var (
	wBook      = diag.T("a book", "帳簿")
	wUnit      = diag.T("a unit", "単位")
	wAccount   = diag.T("an account", "勘定")
	wTransfer  = diag.T("a transfer", "振替")
	wParam     = diag.T("a parameter", "引数")
	wType      = diag.T("a type", "型")
	wReason    = diag.T("a refusal reason", "拒否の理由")
	wAmount    = diag.T("an amount (a parameter name or a number)", "額(引数の名前か数)")
	wNumber    = diag.T("a number", "数")
	wString    = diag.T("a string in double quotes", "二重引用符で囲んだ文字列")
	wVersion   = diag.T("a version such as `v1`", "`v1` のようなバージョン")
	wTimeWord  = TimeWordChoice()
	wPendEnd   = diag.T("`expires after` or `never expires`", "`expires after` か `never expires`")
	wBoundWord = diag.T("`least` or `most`", "`least` か `most`")
)

func (p *parser) topLine() *lineErr {
	t := p.peek()
	if t.kind != tIdent {
		return p.unknownStart(t, nil)
	}
	if t.text != "book" {
		if t.text == "description" || t.text == "unit" || t.text == "account" || t.text == "transfer" {
			p.sawDecl = true
		}
	}
	switch t.text {
	case "book":
		p.triedBook = true
		return p.bookLine()
	case "description":
		d, err := p.descriptionLine()
		if err == nil {
			p.file.Descriptions = append(p.file.Descriptions, d)
		}
		return err
	case "unit":
		return p.unitLine()
	case "account":
		return p.accountLine()
	case "transfer":
		return p.transferLine()
	case "key", "pending", "move":
		return &lineErr{pos: t.pos,
			msg: diag.T(fmt.Sprintf("`%s` belongs inside a transfer, indented under it", t.text),
				fmt.Sprintf("`%s` は振替の下に、字下げして書きます", t.text)),
			hint: diag.T("indent the line under the transfer it belongs to",
				"属する振替の下に字下げしてください")}
	case "at":
		return &lineErr{pos: t.pos,
			msg: diag.T("a bound belongs inside an account, indented under it",
				"境界は勘定の下に、字下げして書きます"),
			hint: diag.T("indent the line under the account it belongs to",
				"属する勘定の下に字下げしてください")}
	}
	return p.unknownStart(t, topStarts)
}

// unknownStart reports a line that starts with no keyword; cands are the
// keywords that may open a line there, which a mistyped one is told.
func (p *parser) unknownStart(t token, cands []string) *lineErr {
	f := t.describe()
	hint, ok := suggest(t, cands)
	if !ok {
		hint = diag.T("a line starts with book, description, unit, account or transfer; inside a block with description, at least, at most, key, pending or move",
			"行は book、description、unit、account、transfer のどれかで始めます。ブロックの中では description、at least、at most、key、pending、move です")
	}
	return &lineErr{pos: t.pos,
		msg: diag.T(fmt.Sprintf("a line cannot start with %s", f.En),
			fmt.Sprintf("%sで始まる行は書けません", strings.TrimLeft(jaWord(f.Ja), " "))),
		hint: hint}
}

func (p *parser) bookLine() *lineErr {
	start := p.next().pos
	name, err := p.name(wBook)
	if err != nil {
		return err
	}
	vt, err := p.expectKind(tIdent, wVersion)
	if err != nil {
		if vt.kind == tNumber {
			err.hint = diag.T(fmt.Sprintf("write a `v` before the number: `v%s`", vt.text),
				fmt.Sprintf("数の前に `v` を付けてください: `v%s`", vt.text))
		}
		return err
	}
	v, ok := parseVersion(vt.text)
	if !ok {
		if _, ok := parseVersion(strings.ToLower(FoldWidth(vt.text))); ok {
			err := expected(wVersion, vt)
			err.hint = diag.T(fmt.Sprintf("write the version in half-width lowercase letters and digits: `%s`", strings.ToLower(FoldWidth(vt.text))),
				fmt.Sprintf("バージョンは半角の小文字と数字で書きます: `%s`", strings.ToLower(FoldWidth(vt.text))))
			return err
		}
		if strings.TrimLeft(vt.text, "v0") == "" && strings.HasPrefix(vt.text, "v") && len(vt.text) > 1 {
			return &lineErr{pos: vt.pos,
				msg: diag.T(fmt.Sprintf("expected a version such as `v1`, found `%s`: versions start at v1", vt.text),
					fmt.Sprintf("バージョンは v1 から始まります(`%s` は使えません)", vt.text)),
				hint: diag.T("write `v1` for the first version", "最初のバージョンは `v1` と書いてください")}
		}
		return expected(wVersion, vt)
	}
	if err := p.expectEOL(); err != nil {
		return err
	}
	if p.sawBook {
		p.file.ExtraBooks = append(p.file.ExtraBooks, &BookDecl{Pos: start, Name: name, Version: v})
		return nil
	}
	p.sawBook = true
	if p.sawDecl {
		return &lineErr{pos: start,
			msg:  diag.T("the `book` line must come before every declaration", "`book` の行は、どの宣言よりも前に書きます"),
			hint: diag.T("move this line to the top of the file", "この行をファイルの先頭に移してください")}
	}
	p.file.Book = &BookDecl{Pos: start, Name: name, Version: v}
	return nil
}

func parseVersion(s string) (int, bool) {
	if len(s) < 2 || s[0] != 'v' {
		return 0, false
	}
	for _, c := range s[1:] {
		if !isDigit(c) {
			return 0, false
		}
	}
	v, err := strconv.Atoi(s[1:])
	if err != nil || v < 1 {
		return 0, false
	}
	return v, true
}

func (p *parser) descriptionLine() (*Description, *lineErr) {
	start := p.next().pos
	s, err := p.expectKind(tString, wString)
	if err != nil {
		return nil, err
	}
	if err := p.expectEOL(); err != nil {
		return nil, err
	}
	return &Description{Pos: start, Text: s.text}, nil
}

func (p *parser) unitLine() *lineErr {
	start := p.next().pos
	name, err := p.name(wUnit)
	if err != nil {
		return err
	}
	u := &UnitDecl{Pos: start, Name: name}
	if p.isWord("scale") {
		p.next()
		n, err := p.expectKind(tNumber, wNumber)
		if err != nil {
			return err
		}
		u.Scale = &Number{Pos: n.pos, Text: n.text}
	}
	if p.isWord("incl_tax") || p.isWord("excl_tax") {
		t := p.next()
		u.TaxPos = t.pos
		u.Tax = InclTax
		if t.text == "excl_tax" {
			u.Tax = ExclTax
		}
	}
	if err := p.expectEOL("scale", "incl_tax", "excl_tax"); err != nil {
		return err
	}
	p.file.Units = append(p.file.Units, u)
	return nil
}

func (p *parser) params() ([]Param, *lineErr) {
	if p.peek().kind != tLParen {
		return nil, nil
	}
	p.next()
	var ps []Param
	if p.peek().kind == tRParen {
		p.next()
		return ps, nil
	}
	for {
		n, err := p.name(wParam)
		if err != nil {
			return nil, err
		}
		if _, err := p.expectKind(tColon, diag.T("`:` and a type", "`:` と型")); err != nil {
			return nil, err
		}
		var ty Ident
		if p.isWord("string") {
			t := p.next()
			ty = Ident{Pos: t.pos, Name: t.text}
		} else if ty, err = p.name(wType); err != nil {
			return nil, err
		}
		ps = append(ps, Param{Name: n, Type: ty})
		t := p.next()
		switch t.kind {
		case tComma:
			continue
		case tRParen:
			return ps, nil
		}
		return nil, expected(diag.T("`,` or `)`", "`,` か `)`"), t)
	}
}

func (p *parser) accountLine() *lineErr {
	start := p.next().pos
	name, err := p.name(wAccount)
	if err != nil {
		return err
	}
	a := &AccountDecl{Pos: start, Name: name}
	if a.Params, err = p.params(); err != nil {
		return err
	}
	if _, err := p.expectKind(tColon, diag.T("`:` and the account's unit", "`:` と勘定の単位")); err != nil {
		return err
	}
	if a.Unit, err = p.name(wUnit); err != nil {
		return err
	}
	if p.isWord("outside") {
		a.Outside = true
		a.OutsidePos = p.next().pos
	}
	if err := p.expectEOL("outside"); err != nil {
		return err
	}
	p.file.Accounts = append(p.file.Accounts, a)
	p.account = a
	return nil
}

func (p *parser) transferLine() *lineErr {
	start := p.next().pos
	name, err := p.name(wTransfer)
	if err != nil {
		return err
	}
	t := &TransferDecl{Pos: start, Name: name}
	if t.Params, err = p.params(); err != nil {
		return err
	}
	if err := p.expectEOL(); err != nil {
		return err
	}
	p.file.Transfers = append(p.file.Transfers, t)
	p.transfer = t
	return nil
}

func (p *parser) blockLine(indent int) *lineErr {
	first := p.peek()
	if p.skipBlock {
		return nil
	}
	if p.account == nil && p.transfer == nil {
		return &lineErr{pos: first.pos,
			msg: diag.T("this line is indented, but no account or transfer comes before it",
				"この行は字下げされていますが、前に勘定も振替もありません"),
			hint: diag.T("remove the indentation, or move the line under an account or transfer",
				"字下げを外すか、勘定か振替の下に移してください")}
	}
	if p.blockIndent == 0 {
		p.blockIndent = indent
	} else if indent != p.blockIndent {
		return &lineErr{pos: first.pos,
			msg: diag.T(fmt.Sprintf("this line is indented by %d spaces, the lines before it in the block by %d", indent, p.blockIndent),
				fmt.Sprintf("この行の字下げは %d 文字で、同じブロックの前の行は %d 文字です", indent, p.blockIndent)),
			hint: diag.T("indent every line of a block by the same number of spaces",
				"ブロックの行はどれも同じ数の空白で字下げしてください")}
	}
	if first.kind != tIdent {
		return p.unknownStart(first, nil)
	}
	if p.account != nil {
		return p.accountBlockLine(first)
	}
	return p.transferBlockLine(first)
}

// misplaced reports the keyword phrase at t, which opens lines of another
// kind of block than owner.
func misplaced(t token, phrase string, owner diag.Text) *lineErr {
	return &lineErr{pos: t.pos,
		msg: diag.T(fmt.Sprintf("`%s` cannot stand under %s", phrase, owner.En),
			fmt.Sprintf("`%s` は%sの下には書けません", phrase, owner.Ja)),
		hint: diag.T("under an account: description, at least, at most; under a transfer: description, key, pending, move",
			"勘定の下には description、at least、at most、振替の下には description、key、pending、move を書きます")}
}

func (p *parser) accountBlockLine(first token) *lineErr {
	a := p.account
	switch first.text {
	case "description":
		d, err := p.descriptionLine()
		if err == nil {
			a.Descriptions = append(a.Descriptions, d)
		}
		return err
	case "at":
		b, err := p.boundLine(first)
		if err == nil {
			a.Bounds = append(a.Bounds, b)
		}
		return err
	case "key", "pending", "move":
		return misplaced(first, first.text, wAccount)
	}
	err := p.unknownStart(first, accountStarts)
	if h, ok := boundWordHint(first.text, p.peekAhead(1)); ok {
		err.hint = h
	}
	return err
}

// boundLine reads `at least|at most N [refused as REASON]`.
func (p *parser) boundLine(first token) (*Bound, *lineErr) {
	p.next()
	b := &Bound{Pos: first.pos}
	switch {
	case p.isWord("least"):
		b.Kind = AtLeast
	case p.isWord("most"):
		b.Kind = AtMost
	default:
		err := expected(wBoundWord, p.peek())
		if w := p.peek(); w.kind == tIdent {
			if side, ok := boundSideWords[strings.ToLower(FoldWidth(w.text))]; ok {
				value := "0"
				if n := p.peekAhead(1); n.kind == tNumber {
					value = n.text
				}
				err.hint = wordHere(side, boundShape("at "+side, value))
			} else if kw, ok := closest(w.text, []string{"least", "most"}); ok {
				err.hint = didYouMean(w.text, kw, "at "+kw)
			}
		}
		return nil, err
	}
	kind := "at " + p.next().text
	n, err := p.expectKind(tNumber, wNumber)
	if err != nil {
		// `at least: 0`: the number follows the words.
		if n.kind == tColon {
			if v := p.peekAhead(1); v.kind == tNumber {
				err.hint = diag.T(fmt.Sprintf("the number follows `%s` with nothing between: `%s`", kind, boundShape(kind, v.text).En),
					fmt.Sprintf("数は `%s` のすぐ後に書きます: `%s`", kind, boundShape(kind, v.text).Ja))
			}
		}
		return nil, err
	}
	b.Value = Number{Pos: n.pos, Text: n.text}
	if err := p.boundReason(b, kind); err != nil {
		return nil, err
	}
	return b, p.expectEOL()
}

// boundReason reads what may follow a bound's number: `refused as
// REASON`, or a near miss of it, which it names.
func (p *parser) boundReason(b *Bound, kind string) *lineErr {
	if p.isWord("refused") {
		p.next()
		if err := p.expectWord("as"); err != nil {
			// `refused out_of_stock`, `refused: out_of_stock`
			if r := reasonAfter(p.peek(), p.peekAhead(1)); r != "" {
				err.hint = wordHere("as", diag.T(kind+" "+b.Value.Text+" refused as "+r, kind+" "+b.Value.Text+" refused as "+r))
			}
			return err
		}
		if s := p.peek(); s.kind == tString {
			err := expected(wReason, s)
			en, ja := "out_of_stock", "在庫切れ"
			if n := strings.ReplaceAll(s.text, " ", "_"); isName(n) {
				en, ja = n, n
			}
			err.hint = diag.T(fmt.Sprintf("write the reason as a name, without quotes: `refused as %s`", en),
				fmt.Sprintf("理由は引用符で囲まずに、名前として書きます: `refused as %s`", ja))
			return err
		}
		r, err := p.name(wReason)
		if err != nil {
			return err
		}
		b.Reason = &r
	}
	if t := p.peek(); t.kind == tIdent && t.text != "refused" {
		if kw, ok := closest(t.text, []string{"refused"}); ok {
			err := p.expectEOL()
			err.hint = didYouMean(t.text, kw, kw+" as")
			return err
		}
		// `at least 0 as out_of_stock`, `at least 0 out_of_stock`
		r := t.text
		if t.text == "as" {
			r = reasonAfter(p.peekAhead(1), p.peekAhead(2))
		}
		if r != "" && isName(r) {
			err := p.expectEOL()
			shape := kind + " " + b.Value.Text + " refused as " + r
			err.hint = diag.T(fmt.Sprintf("the reason follows `refused as`: `%s`", shape),
				fmt.Sprintf("理由は `refused as` の後に書きます: `%s`", shape))
			return err
		}
	}
	return nil
}

func (p *parser) transferBlockLine(first token) *lineErr {
	t := p.transfer
	switch first.text {
	case "description":
		d, err := p.descriptionLine()
		if err == nil {
			t.Descriptions = append(t.Descriptions, d)
		}
		return err
	case "key":
		k, err := p.keyLine(first)
		if err == nil {
			t.Keys = append(t.Keys, k)
		}
		return err
	case "pending":
		d, err := p.pendingLine(first)
		if err == nil {
			t.Pendings = append(t.Pendings, d)
		}
		return err
	case "move":
		m, err := p.moveLine(first)
		if err == nil {
			t.Moves = append(t.Moves, m)
		}
		return err
	case "at":
		phrase := "at"
		if next := p.peekAhead(1); next.kind == tIdent && (next.text == "least" || next.text == "most") {
			phrase = "at " + next.text
		}
		return misplaced(first, phrase, wTransfer)
	}
	return p.unknownStart(first, transferStarts)
}

// keyLine reads `key a, b`.
func (p *parser) keyLine(first token) (*KeyDecl, *lineErr) {
	p.next()
	k := &KeyDecl{Pos: first.pos}
	for {
		n, err := p.name(wParam)
		if err != nil {
			return nil, err
		}
		k.Names = append(k.Names, n)
		if p.peek().kind != tComma {
			break
		}
		p.next()
	}
	return k, p.expectEOL()
}

// pendingLine reads `pending`, `pending never expires` or `pending
// expires after N WORD`. A bare `pending` is read here and refused by
// resolution, which can then say what is missing.
func (p *parser) pendingLine(first token) (*PendingDecl, *lineErr) {
	p.next()
	d := &PendingDecl{Pos: first.pos}
	switch {
	case p.isWord("never"):
		p.next()
		if err := p.expectWord("expires"); err != nil {
			return nil, err
		}
		d.Ends, d.Never = true, true
	case p.isWord("expires"):
		p.next()
		if err := p.expectWord("after"); err != nil {
			// `expires in 1 day`: the hint shows the line's own lifetime.
			if n, w := p.peekAhead(1), p.peekAhead(2); p.peek().kind == tIdent && n.kind == tNumber && w.kind == tIdent {
				if _, ok := insteadOfWord(p.peek().text, "after"); ok {
					shape := "pending expires after " + n.text + " " + w.text
					err.hint = wordHere("after", diag.T(shape, shape))
				}
			}
			return nil, err
		}
		n, err := p.expectKind(tNumber, wNumber)
		if err != nil {
			return nil, err
		}
		w := p.peek()
		if _, ok := TimeUnitSeconds(w.text); w.kind != tIdent || !ok {
			err := expected(wTimeWord, w)
			err.hint, _ = timeWordHint(n.text, w)
			return nil, err
		}
		p.next()
		d.Ends = true
		d.Amount = Number{Pos: n.pos, Text: n.text}
		d.TimeWord = Ident{Pos: w.pos, Name: w.text}
	case p.peek().kind != tEOL:
		err := expected(wPendEnd, p.peek())
		if w := p.peek(); w.kind == tIdent {
			if kw, ok := closest(w.text, []string{"expires", "never"}); ok {
				err.hint = didYouMean(w.text, kw, map[string]string{"expires": "expires after", "never": "never expires"}[kw])
			}
		}
		return nil, err
	}
	return d, p.expectEOL()
}

// moveLine reads `move AMOUNT from ACCOUNT to ACCOUNT`.
func (p *parser) moveLine(first token) (*Move, *lineErr) {
	p.next()
	m := &Move{Pos: first.pos}
	if n := p.peek(); n.kind == tNumber {
		p.next()
		m.Amount.Literal = &Number{Pos: n.pos, Text: n.text}
	} else if n.kind == tIdent && !Reserved(n.text) {
		id, _ := p.name(wParam)
		m.Amount.Name = &id
	} else {
		return nil, expected(wAmount, n)
	}
	var err *lineErr
	if err = p.expectWord("from"); err != nil {
		return nil, err
	}
	if m.From, err = p.accountRef(); err != nil {
		return nil, err
	}
	if err = p.expectWord("to"); err != nil {
		return nil, err
	}
	if m.To, err = p.accountRef(); err != nil {
		return nil, err
	}
	return m, p.expectEOL()
}

func (p *parser) accountRef() (AccountRef, *lineErr) {
	n, err := p.name(wAccount)
	if err != nil {
		return AccountRef{}, err
	}
	r := AccountRef{Name: n}
	if p.peek().kind != tLParen {
		return r, nil
	}
	p.next()
	if p.peek().kind == tRParen {
		p.next()
		return r, nil
	}
	for {
		a, err := p.name(wParam)
		if err != nil {
			return AccountRef{}, err
		}
		r.Args = append(r.Args, a)
		t := p.next()
		switch t.kind {
		case tComma:
			continue
		case tRParen:
			return r, nil
		}
		return AccountRef{}, expected(diag.T("`,` or `)`", "`,` か `)`"), t)
	}
}
