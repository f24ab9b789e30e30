package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// Error is a scenario file that cannot be read, or a scenario that cannot
// be run, said in both languages.
type Error struct{ Msg diag.Text }

func (e *Error) Error() string { return e.Msg.En }

// Text is the message in both languages.
func (e *Error) Text() diag.Text { return e.Msg }

// fail builds an Error; en and ja take the same arguments (use %[n]v when
// the Japanese order differs).
// An argument that is a diag.Text goes in, in each message, in its
// language.
func fail(en, ja string, args ...any) *Error {
	in := func(lang diag.Lang) []any {
		out := make([]any, len(args))
		for i, a := range args {
			if t, ok := a.(diag.Text); ok {
				a = t.In(lang)
			}
			out[i] = a
		}
		return out
	}
	return &Error{diag.T(fmt.Sprintf(en, in(diag.English)...), fmt.Sprintf(ja, in(diag.Japanese)...))}
}

// within says where in the file err happened: "step 3: …".
func within(en, ja string, err *Error) *Error {
	return &Error{diag.T(en+": "+err.Msg.En, ja+": "+err.Msg.Ja)}
}

// value is one JSON value as the file writes it, keeping what
// encoding/json forgets: the order of an object's keys, and where each
// value starts, for messages.
type value struct {
	kind  kind
	at    int // byte offset of the value's first character
	str   string
	num   string // a number's text, as written
	keys  []string
	elems []*value // an object's values (in key order) or an array's elements
}

type kind int

const (
	jsonNull kind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonObject
	jsonArray
)

// what names a kind of value in both languages, for messages that say
// what was found instead.
func (k kind) what() diag.Text {
	switch k {
	case jsonBool:
		return diag.T("true or false", "真偽値")
	case jsonNumber:
		return diag.T("a number", "数")
	case jsonString:
		return diag.T("a string", "文字列")
	case jsonObject:
		return diag.T("an object", "オブジェクト")
	case jsonArray:
		return diag.T("an array", "配列")
	}
	return diag.T("null", "null")
}

// field returns the value of key in an object, or nil.
func (v *value) field(key string) *value {
	for i, k := range v.keys {
		if k == key {
			return v.elems[i]
		}
	}
	return nil
}

// parseJSON reads exactly one JSON value from data, strictly: the text
// must be UTF-8 without a byte order mark, no object may repeat a key,
// and nothing but white space may follow the value. encoding/json alone
// would replace bad bytes, keep the last of two equal keys and, through
// a Decoder, leave trailing text unread.
func parseJSON(data []byte) (*value, *Error) {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, fail("the file starts with a byte order mark (U+FEFF); save it as UTF-8 without a byte order mark",
			"ファイルの先頭にバイト順マーク(U+FEFF)があります。バイト順マークの無い UTF-8 で保存してください")
	}
	if i := invalidUTF8(data); i >= 0 {
		line, col := position(data, i)
		return nil, fail("line %d, column %d: byte 0x%02x is not UTF-8; a scenario file is UTF-8 text",
			"%d 行 %d 列: バイト 0x%02x は UTF-8 ではありません。シナリオのファイルは UTF-8 のテキストです", line, col, data[i])
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fail("the file is empty; write one scenario object, or an array of them",
			"ファイルが空です。シナリオのオブジェクト一つか、その配列を書いてください")
	}
	p := &parser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	at := p.next()
	if _, err := p.dec.Token(); err != io.EOF {
		line, col := position(data, at)
		return nil, fail("line %d, column %d: more text after the end of the JSON value; a file holds one value",
			"%d 行 %d 列: JSON の値が終わった後にまだ文字があります。ファイルには値を一つだけ書きます", line, col)
	}
	return v, nil
}

type parser struct {
	data []byte
	dec  *json.Decoder
}

// next is the offset of the next token: past the white space, commas
// and colons the decoder skips on its own.
func (p *parser) next() int {
	i := int(p.dec.InputOffset())
	for i < len(p.data) {
		switch p.data[i] {
		case ' ', '\t', '\r', '\n', ',', ':':
			i++
			continue
		}
		break
	}
	return i
}

func (p *parser) token() (json.Token, int, *Error) {
	at := p.next()
	t, err := p.dec.Token()
	if err != nil {
		return nil, at, p.syntax(err, at)
	}
	return t, at, nil
}

// syntax turns a decoder's error into a message with a line and column:
// those of the token it could not read (the offset of a SyntaxError
// from a Decoder counts from where that token's scan began, not from
// the start of the file).
func (p *parser) syntax(err error, at int) *Error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || at >= len(p.data) {
		return fail("the file ends inside a JSON value: a bracket, brace or string is not closed",
			"JSON の値の途中でファイルが終わっています。括弧か引用符が閉じていません")
	}
	line, col := position(p.data, at)
	r, _ := utf8.DecodeRune(p.data[at:])
	if looksLikeBook(p.data) {
		// The most likely slip: the book's file given where the
		// scenario's belongs, which deserves more than a column.
		return fail("line %d, column %d: the file is not valid JSON here (%s); it looks like a book: --scenario takes a JSON scenario file",
			"%d 行 %d 列: ここが JSON として読めません(%s)。帳簿のファイルのようです。--scenario には JSON のシナリオのファイルを渡します", line, col, diag.Printable(string(r)))
	}
	return fail("line %d, column %d: the file is not valid JSON here (%s)",
		"%d 行 %d 列: ここが JSON として読めません(%s)", line, col, diag.Printable(string(r)))
}

// looksLikeBook says whether data reads as a book: its first line that is
// neither blank nor a comment is a `book` line.
func looksLikeBook(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		return bytes.HasPrefix(line, []byte("book "))
	}
	return false
}

func (p *parser) value() (*value, *Error) {
	t, at, err := p.token()
	if err != nil {
		return nil, err
	}
	v := &value{at: at}
	switch t := t.(type) {
	case nil:
		v.kind = jsonNull
	case bool:
		v.kind, v.str = jsonBool, strconv.FormatBool(t)
	case json.Number:
		v.kind, v.num = jsonNumber, t.String()
	case string:
		v.kind, v.str = jsonString, t
	case json.Delim:
		if t == '[' {
			v.kind = jsonArray
			for p.dec.More() {
				e, err := p.value()
				if err != nil {
					return nil, err
				}
				v.elems = append(v.elems, e)
			}
		} else {
			v.kind = jsonObject
			seen := map[string]bool{}
			for p.dec.More() {
				kt, kat, err := p.token()
				if err != nil {
					return nil, err
				}
				key := kt.(string) // the decoder allows nothing else here
				if seen[key] {
					line, col := position(p.data, kat)
					return nil, fail("line %d, column %d: the key %q appears twice in one object",
						"%d 行 %d 列: キー %q が一つのオブジェクトに二度あります", line, col, key)
				}
				seen[key] = true
				e, err := p.value()
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, key)
				v.elems = append(v.elems, e)
			}
		}
		if _, _, err := p.token(); err != nil { // the closing bracket
			return nil, err
		}
	}
	return v, nil
}

// invalidUTF8 returns the offset of the first byte that is not UTF-8, or -1.
func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// position turns a byte offset into a 1-based line and a column counted
// in characters, as the diagnostics of a book count them.
func position(data []byte, at int) (line, col int) {
	at = min(at, len(data))
	line = 1 + bytes.Count(data[:at], []byte("\n"))
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	return line, 1 + utf8.RuneCount(data[start:at])
}
