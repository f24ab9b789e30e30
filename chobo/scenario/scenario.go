// Package scenario reads scenarios (sequences of calls, passing time and
// concurrent callers), runs them on the reference interpreter and writes
// the outcomes as text. The scenario format is read and written here; the
// JSON of a run is in chobo/api. Both are documented in docs/formats.md.
package scenario

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/syntax"
)

// MaxTogether is the most operations one `together` may hold: beyond it
// the orders to enumerate grow too many (8 ops in 8 callers is 40,320).
const MaxTogether = 8

// Scenario is a named list of steps.
type Scenario struct {
	Name string
	// Tenant is the tenant the calls are for, which `chobo run --show`
	// sends. The interpreter keeps one ledger per scenario whatever it
	// is, and the conformance runner gives each run a fresh tenant of its
	// own, so that it starts from an empty ledger on a shared database.
	Tenant string
	// TitleJa is the Japanese title of the scenario (`chobo scenarios`
	// writes one); the English title is the name.
	TitleJa string
	Steps   []Step
	// Outcomes, when above zero, is how many outcomes the scenario must
	// have: a check, like Step.Expect.
	Outcomes int
}

// Title is the scenario's title for people reading lang: its title_ja
// in Japanese when it has one, else its name.
func (sc Scenario) Title(lang diag.Lang) string {
	return diag.T(sc.Name, sc.TitleJa).In(lang)
}

// Derives says whether the scenario deploys a version it derives from
// the one in place by changing bounds, rather than one a file holds.
func (sc Scenario) Derives() bool {
	for _, st := range sc.Steps {
		if st.Deploy != nil && st.Deploy.File == "" {
			return true
		}
	}
	return false
}

// Reads says whether the scenario holds a read step.
func (sc Scenario) Reads() bool {
	for _, st := range sc.Steps {
		if st.Read != nil {
			return true
		}
	}
	return false
}

// Step is exactly one of: a call, time passing, concurrent callers, a
// read of the ledger's history, or the deployment of a new version of
// the book.
type Step struct {
	Call     *Call
	Read     *ReadStep
	Deploy   *Deploy
	Pass     int64 // seconds; meaningful when PassText != ""
	PassText string
	Together [][]*Call
	// Expect, for a call, is the answer it must get: "done",
	// "done_before" or "refused: REASON". Empty: not checked.
	Expect string
}

// Deploy is a step that puts a new version of the book in place: the
// steps after it run under that version, on the ledger as the steps
// before it left it.
type Deploy struct {
	// File is the version's file as the scenario names it, or "" for a
	// version the step derives from the one in place by changing Bounds.
	File   string
	Bounds []BoundChange
	Book   *book.Book
}

// Deployer makes the version of the book a deploy step gives and checks
// that it may follow cur, the version in place before the step: the one
// in the file step.File names, as the scenario wrote it, or, when File
// is "", cur with step.Bounds changed (Derive writes its text). Its
// error says why it may not; one with a Text method says it in both
// languages.
type Deployer func(cur *book.Book, step *Deploy) (*book.Book, error)

// Call is an operation as read from a scenario. Bad, when set, is why the
// call cannot be made (an amount outside 64 bits): running it fails and
// changes nothing, as the generated clients do.
type Call struct {
	interp.Call
	Bad   string
	BadJa string // Bad in Japanese
	// Raw keeps amounts as written when they do not fit, for display.
	Raw map[string]string
}

// String writes the call as the scenario gave it, amounts in the
// smallest step.
func (c *Call) String() string { return c.text(false) }

// Display writes the call with each amount at its unit's scale, as the
// book writes amounts: what the text of a run prints, beside titles and
// diagnostics that read amounts the same way.
func (c *Call) Display() string { return c.text(true) }

func (c *Call) text(scaled bool) string {
	if len(c.Raw) == 0 {
		if scaled {
			return c.Call.Display()
		}
		return c.Call.String()
	}
	// Amounts that did not fit were read as 0: show them as written.
	return c.format(scaled, func(n string) string { return n })
}

// Format writes the call as Display does, every amount, at its unit's
// scale, passed through amount first: the page groups their digits.
func (c *Call) Format(amount func(string) string) string { return c.format(true, amount) }

func (c *Call) format(scaled bool, amount func(string) string) string {
	var parts []string
	for _, p := range c.Transfer.Params {
		if v, ok := c.Strings[p.Name]; ok {
			parts = append(parts, p.Name+": "+diag.Printable(v))
			continue
		}
		n, ok := c.Raw[p.Name]
		if !ok {
			v, given := c.Amounts[p.Name]
			if !given {
				continue
			}
			n = strconv.FormatInt(v, 10)
		}
		if scaled && p.Unit != nil {
			n = scaleDigits(n, p.Unit.Scale)
		}
		parts = append(parts, p.Name+": "+amount(n))
	}
	return c.Transfer.Name + "." + string(c.Op) + "(" + strings.Join(parts, ", ") + ")"
}

// scaleDigits writes a whole number given as decimal digits (perhaps
// beyond 64 bits, perhaps negative) with scale decimals, as
// book.FormatAmount does for one that fits.
func scaleDigits(digits string, scale int) string {
	sign, d := "", digits
	if rest, ok := strings.CutPrefix(d, "-"); ok {
		sign, d = "-", rest
	}
	if scale <= 0 {
		return sign + d
	}
	for len(d) <= scale {
		d = "0" + d
	}
	return sign + d[:len(d)-scale] + "." + d[len(d)-scale:]
}

// Read parses a scenario file: one scenario object, or an array of them.
// It is strict, as a file that runs must mean one thing: anything the
// format does not allow is an *Error, in both languages, before a call
// is made. An amount that is a whole number outside 0 to 2^63−1 is the
// one exception: it is read, and the call fails when run, as a client
// refuses to send it.
//
// A deploy step is refused: what it names is a file, found from the
// scenario file's place, so only ReadWith, given a Deployer, reads one.
func Read(b *book.Book, data []byte) ([]Scenario, error) { return ReadWith(b, data, nil) }

// ReadWith is Read with deploy steps read by deploy: the steps after one
// are read against the version it puts in place.
func ReadWith(b *book.Book, data []byte, deploy Deployer) ([]Scenario, error) {
	top, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	objs := []*value{top}
	switch top.kind {
	case jsonObject:
	case jsonArray:
		objs = top.elems
	default:
		return nil, fail("the file holds %s; write one scenario object, or an array of them",
			"ファイルの中身が%sです。シナリオのオブジェクト一つか、その配列を書いてください", top.kind.what())
	}
	var out []Scenario
	for i, v := range objs {
		sc, err := readScenario(b, v, deploy)
		if err != nil {
			return nil, within(fmt.Sprintf("scenario %d", i+1), fmt.Sprintf("シナリオ %d", i+1), err)
		}
		out = append(out, sc)
	}
	return out, nil
}

// fields checks that v is an object whose keys are all among allowed.
func fields(v *value, what diag.Text, allowed ...string) *Error {
	if v.kind != jsonObject {
		return fail("%s is an object, not %s", "%sにはオブジェクトを書きます(ここは%sです)", what, v.kind.what())
	}
	for _, k := range v.keys {
		if !slices.Contains(allowed, k) {
			return fail("unknown field %q; %s has %s", "%q という項目はありません。%sの項目は %s です",
				k, what, diag.T(quoteAll(allowed, ", "), quoteAll(allowed, "、")))
		}
	}
	return nil
}

func quoteAll(keys []string, sep string) string {
	var q []string
	for _, k := range keys {
		q = append(q, fmt.Sprintf("%q", k))
	}
	return strings.Join(q, sep)
}

// text reads the string under key, or "" and false when it is absent.
func text(v *value, key string) (string, bool, *Error) {
	f := v.field(key)
	if f == nil {
		return "", false, nil
	}
	if f.kind != jsonString {
		return "", false, fail("%q is a string, not %s", "%q には文字列を書きます(ここは%sです)", key, f.kind.what())
	}
	return f.str, true, nil
}

var (
	aScenario = diag.T("a scenario", "シナリオ")
	aStep     = diag.T("a step", "ステップ")
	aCall     = diag.T("a call", "呼び出し")
)

func readScenario(b *book.Book, v *value, deploy Deployer) (Scenario, *Error) {
	if err := fields(v, aScenario, "name", "title_ja", "tenant", "outcomes", "steps"); err != nil {
		return Scenario{}, err
	}
	var sc Scenario
	name, ok, err := text(v, "name")
	if err != nil {
		return sc, err
	}
	if !ok {
		return sc, fail(`"name" is missing`, `"name" がありません`)
	}
	sc.Name = name
	if sc.TitleJa, _, err = text(v, "title_ja"); err != nil {
		return sc, err
	}
	if sc.Tenant, _, err = text(v, "tenant"); err != nil {
		return sc, err
	}
	if len(sc.Tenant) > book.MaxTenant {
		return sc, fail(`"tenant" is %d bytes; a tenant is at most %d bytes of UTF-8`,
			`"tenant" が %d バイトあります。テナントは UTF-8 で %d バイトまでです`, len(sc.Tenant), book.MaxTenant)
	}
	if o := v.field("outcomes"); o != nil {
		n, convErr := strconv.Atoi(o.num)
		if o.kind != jsonNumber || convErr != nil || n < 0 {
			return sc, fail(`"outcomes" is a count: a whole number from 0, not %s`,
				`"outcomes" には 0 以上の整数を書きます(ここは %s です)`, shown(o))
		}
		sc.Outcomes = n
	}
	here := func(err *Error) *Error { return within(fmt.Sprintf("%q", sc.Name), fmt.Sprintf("%q", sc.Name), err) }
	steps := v.field("steps")
	if steps == nil {
		return sc, here(fail(`"steps" is missing`, `"steps" がありません`))
	}
	if steps.kind != jsonArray {
		return sc, here(fail(`"steps" is an array, not %s`, `"steps" には配列を書きます(ここは%sです)`, steps.kind.what()))
	}
	together := -1 // the first together step
	cur := b       // the version in place
	for i, sv := range steps.elems {
		var st Step
		var err *Error
		if sv.kind == jsonObject && sv.field("deploy") != nil {
			st, err = readDeploy(cur, sv, deploy)
			if err == nil {
				cur = st.Deploy.Book
			}
		} else {
			st, err = readStep(cur, sv, sc.Steps)
		}
		if err == nil && st.Together != nil && together < 0 {
			together = i
		}
		if err == nil && st.Read != nil && together >= 0 {
			err = fail("a read step cannot come after a together step (step %d): the orders of concurrent calls leave their entries in different orders, and a read reads one history",
				"together のステップ(ステップ %d)の後には読むステップを置けません。同時の呼び出しは順序によって記録の並びが変わり、読むステップは一つの履歴を読むからです", together+1)
		}
		if err != nil {
			return sc, here(within(fmt.Sprintf("step %d", i+1), fmt.Sprintf("ステップ %d", i+1), err))
		}
		sc.Steps = append(sc.Steps, st)
	}
	return sc, nil
}

// shown writes a value found where a number was wanted, for messages.
func shown(v *value) diag.Text {
	if v.kind == jsonNumber {
		return diag.T(v.num, v.num)
	}
	return v.kind.what()
}

func readStep(b *book.Book, v *value, earlier []Step) (Step, *Error) {
	if v.kind == jsonObject && v.field("read") != nil {
		rd, err := readRead(b, v, earlier)
		if err != nil {
			return Step{}, err
		}
		return Step{Read: rd}, nil
	}
	if err := fields(v, aStep, "op", "args", "amounts", "expect", "pass", "together", "read", "deploy"); err != nil {
		return Step{}, err
	}
	var kinds []string
	for _, k := range []string{"op", "pass", "together"} {
		if v.field(k) != nil {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		return Step{}, fail(`a step has exactly one of "op", "pass", "together", "read" or "deploy"`,
			`ステップには "op"、"pass"、"together"、"read"、"deploy" のどれか一つだけを書きます`)
	}
	if kinds[0] != "op" {
		// What only a call takes would be silently dropped.
		for _, k := range v.keys {
			if k != kinds[0] {
				err := fail(`%q belongs to a call; a %q step has nothing else`,
					`%q は呼び出しに書くものです。%q のステップにはほかに何も書きません`, k, kinds[0])
				if k == "expect" && kinds[0] == "together" {
					err = withOutcomesHint(err)
				}
				return Step{}, err
			}
		}
	}
	switch kinds[0] {
	case "pass":
		p, _, err := text(v, "pass")
		if err != nil {
			return Step{}, err
		}
		secs, err := parseDuration(p)
		if err != nil {
			return Step{}, err
		}
		return Step{Pass: secs, PassText: p}, nil
	case "together":
		return readTogether(b, v.field("together"))
	}
	c, err := readCall(b, v)
	if err != nil {
		return Step{}, err
	}
	expect, _, err := text(v, "expect")
	if err != nil {
		return Step{}, err
	}
	if reason, note, ok := strings.Cut(strings.TrimPrefix(expect, "refused: "), " ("); ok && strings.HasPrefix(expect, "refused: ") && strings.HasSuffix(note, ")") {
		return Step{}, fail(`expect %q: the words in brackets say which move refused, for people, and are not part of the answer, which a backend gives as the reason alone: write "refused: %s"`,
			`expect %q: 括弧の中は、どの移動で拒否されたかを人に示すもので、答えには含まれません(バックエンドは理由だけを返します)。"refused: %s" と書いてください`, expect, reason)
	}
	if expect != "" && !validExpect(expect) {
		return Step{}, fail(`expect %q: write "done", "done_before", "failed" or "refused: REASON"`,
			`expect %q: "done"、"done_before"、"failed"、"refused: 理由" のどれかを書いてください`, expect)
	}
	return Step{Call: c, Expect: expect}, nil
}

// readDeploy reads a deploy step: {"deploy": "FILE"}, the version of the
// book it names, or {"deploy": {"bounds": …}}, the version in place with
// bounds changed; either made and checked against cur by deploy.
func readDeploy(cur *book.Book, v *value, deploy Deployer) (Step, *Error) {
	for _, k := range v.keys {
		if k != "deploy" {
			return Step{}, fail(`%q does not go with "deploy": a deploy step gives the version of the book and nothing else`,
				`%q は "deploy" と一緒に書けません。deploy のステップには、帳簿のバージョンだけを書きます`, k)
		}
	}
	step := &Deploy{}
	where := diag.T("deploy", "deploy")
	if dv := v.field("deploy"); dv.kind == jsonObject {
		bounds, err := readDerived(cur, dv)
		if err != nil {
			return Step{}, within("deploy", "deploy", err)
		}
		step.Bounds = bounds
		where = diag.T(fmt.Sprintf("deploy v%d", cur.Version+1), fmt.Sprintf("deploy v%d", cur.Version+1))
	} else {
		file, _, err := text(v, "deploy")
		if err != nil {
			return Step{}, fail(`"deploy" is the name of a .book file, or an object that changes bounds, not %s`,
				`"deploy" には .book ファイルの名前か、境界を変えるオブジェクトを書きます(ここは%sです)`, dv.kind.what())
		}
		if !strings.HasSuffix(file, ".book") {
			return Step{}, fail(`deploy %q: name the .book file of the new version, from the scenario file's folder`,
				`deploy %q: 新しいバージョンの .book ファイルを、シナリオのファイルのフォルダから書いてください`, file)
		}
		step.File = file
		where = diag.T(fmt.Sprintf("deploy %q", file), fmt.Sprintf("deploy %q", file))
	}
	if deploy == nil {
		return Step{}, fail("%s: this command runs no deploy steps; `chobo run` does, without --show",
			"%s: このコマンドは deploy のステップを流せません。流せるのは --show を付けない `chobo run` です", where)
	}
	nb, derr := deploy(cur, step)
	if derr != nil {
		t := diag.T(derr.Error(), derr.Error())
		var tx interface{ Text() diag.Text }
		if errors.As(derr, &tx) {
			t = tx.Text()
		}
		return Step{}, within(where.En, where.Ja, &Error{t})
	}
	step.Book = nb
	return Step{Deploy: step}, nil
}

// readTogether reads the callers of a `together` step, each a list of
// calls made in order.
func readTogether(b *book.Book, v *value) (Step, *Error) {
	if v.kind != jsonArray {
		return Step{}, fail(`"together" is an array of callers, each an array of calls, not %s`,
			`"together" には呼び出し元の配列を書き、呼び出し元はそれぞれ呼び出しの配列にします(ここは%sです)`, v.kind.what())
	}
	var st Step
	n := 0
	for ci, caller := range v.elems {
		if caller.kind != jsonArray {
			return Step{}, fail(`together, caller %d: a caller is an array of calls, not %s`,
				`together の呼び出し元 %d: 呼び出し元には呼び出しの配列を書きます(ここは%sです)`, ci+1, caller.kind.what())
		}
		var calls []*Call
		for oi, cv := range caller.elems {
			callFields := []string{"op", "args", "amounts"}
			err := fields(cv, aCall, callFields...)
			if cv.kind == jsonObject && cv.field("read") != nil {
				err = fail("a read cannot stand inside together: the callers' calls come in every order, and a read there would read a different history in each; put the read after the calls, in a scenario without together",
					"together の中には読むステップを置けません。呼び出しはあらゆる順序で来るので、そこで読むと順序ごとに違う履歴を読むことになります。together の無いシナリオで、呼び出しの後に置いてください")
			}
			if err != nil && firstUnknown(cv, callFields) == "expect" {
				err = withOutcomesHint(err)
			}
			var c *Call
			if err == nil {
				c, err = readCall(b, cv)
			}
			if err != nil {
				return Step{}, within(fmt.Sprintf("together, caller %d, op %d", ci+1, oi+1),
					fmt.Sprintf("together の呼び出し元 %d の %d 番目", ci+1, oi+1), err)
			}
			calls = append(calls, c)
			n++
		}
		st.Together = append(st.Together, calls)
	}
	if n == 0 {
		return Step{}, fail("together holds no operation", "together に呼び出しがありません")
	}
	if n > MaxTogether {
		return Step{}, fail("together holds %d operations; at most %d are allowed, or the orders to explore grow too many",
			"together に呼び出しが %d 件あります。順序が多くなりすぎないよう、%d 件までです", n, MaxTogether)
	}
	return st, nil
}

// withOutcomesHint adds to err what to write instead of an expect in a
// together: which caller gets which answer depends on the order, so a
// race is checked by how many outcomes it has.
func withOutcomesHint(err *Error) *Error {
	return &Error{diag.T(err.Msg.En+`; inside "together" the answers depend on the order, so write "outcomes" (how many outcomes the run must have) on the scenario instead`,
		err.Msg.Ja+`。together の中の答えは順序で変わるので、expect は書けません。シナリオに "outcomes"(とりうる結果の数)を書いてください`)}
}

// firstUnknown is the first key of v that allowed does not hold, the one
// fields reports; "" when there is none or v is not an object.
func firstUnknown(v *value, allowed []string) string {
	if v.kind != jsonObject {
		return ""
	}
	for _, k := range v.keys {
		if !slices.Contains(allowed, k) {
			return k
		}
	}
	return ""
}

func validExpect(e string) bool {
	switch e {
	case "done", "done_before", "failed":
		return true
	}
	reason, ok := strings.CutPrefix(e, "refused: ")
	return ok && reason != ""
}

// ParseDuration reads "31 minutes", "1 day", "90 seconds". Its error is
// an *Error.
func ParseDuration(s string) (int64, error) {
	n, err := parseDuration(s)
	if err != nil {
		return 0, err
	}
	return n, nil
}

func parseDuration(s string) (int64, *Error) {
	if f := strings.Fields(s); len(f) == 2 {
		per, ok := syntax.TimeUnitSeconds(f[1])
		n, err := parseInt(f[0])
		// The cap keeps the clock, which adds passes up, inside 64 bits.
		if ok && err == nil && n >= 0 && n <= (1<<62)/per {
			return n * per, nil
		}
	}
	return 0, fail("pass %q: write a whole number and %s", "pass %q: 整数と単位(%s)を書いてください", s, syntax.TimeWordChoice())
}

func parseInt(s string) (int64, error) {
	var n int64
	_, err := fmt.Sscan(s, &n)
	if err != nil || fmt.Sprint(n) != s {
		return 0, fmt.Errorf("not a whole number: %q", s)
	}
	return n, nil
}

// readCall reads the "op", "args" and "amounts" of a call.
func readCall(b *book.Book, v *value) (*Call, *Error) {
	op, _, err := text(v, "op")
	if err != nil {
		return nil, err
	}
	name, o, ok := strings.Cut(op, ".")
	if !ok {
		return nil, fail("op %q: write TRANSFER.OPERATION, such as reserve.hold",
			"op %q: 振替.操作 の形で書いてください(reserve.hold など)", op)
	}
	t := b.Transfer(name)
	if t == nil {
		var names []string
		for _, t := range b.Transfers {
			names = append(names, t.Name)
		}
		if twin, ok := syntax.WidthTwin(name, names); ok {
			note := syntax.WidthNote(name, twin)
			return nil, fail("op %q: the book has no transfer %q; %s", "op %q: 帳簿に %q という振替はありません。%s", op, name, note)
		}
		if twin, ok := syntax.LookalikeTwin(name, names); ok {
			note := syntax.LookalikeNote(name, twin)
			return nil, fail("op %q: the book has no transfer %q; %s", "op %q: 帳簿に %q という振替はありません。%s", op, name, note)
		}
		return nil, fail("op %q: the book has no transfer %q", "op %q: 帳簿に %q という振替はありません", op, name)
	}
	c := &Call{Call: interp.Call{Transfer: t, Op: book.Op(o), Strings: map[string]string{}}}
	if !slices.Contains(t.Ops(), c.Op) {
		return nil, fail("op %q: %s has the operations %s", "op %q: %s の操作は %s です", op, t.Name,
			diag.T(book.JoinOps(t.Ops(), ", "), book.JoinOps(t.Ops(), "、")))
	}
	inOp := func(err *Error) *Error { return within(fmt.Sprintf("op %q", op), fmt.Sprintf("op %q", op), err) }
	if err := c.readArgs(v.field("args")); err != nil {
		return nil, inOp(err)
	}
	if am := v.field("amounts"); am != nil {
		if err := c.readPostAmounts(am); err != nil {
			return nil, inOp(err)
		}
	}
	return c, nil
}

// readArgs reads "args": for a do or a hold every parameter, for a post
// or a void the key, and nothing else. A missing value would only fail
// when run, after the calls before it; the file says it at once.
func (c *Call) readArgs(v *value) *Error {
	t := c.Transfer
	if v == nil {
		v = &value{kind: jsonObject}
	}
	if v.kind != jsonObject {
		return fail(`"args" is an object, not %s`, `"args" にはオブジェクトを書きます(ここは%sです)`, v.kind.what())
	}
	keyOnly := c.Op == book.Post || c.Op == book.Void
	amounts := map[string]int64{}
	for i, name := range v.keys {
		raw := v.elems[i]
		p := t.Param(name)
		switch {
		case p == nil:
			return fail("%s has no parameter %q", "%s に %q という引数はありません", t.Name, name)
		case keyOnly && p.IsAmount() && c.Op == book.Post:
			return fail(`give a post's amounts in "amounts", not in "args"`, `post の額は "args" ではなく "amounts" に書きます`)
		case keyOnly && !slices.Contains(t.Key, p):
			return fail(`%s is not part of the key; a %s takes only the key (%s) in "args"`,
				`%s はキーではありません。%s の "args" にはキー(%s)だけを書きます`, name, c.Op, paramNames(t.Key, ", "))
		case p.IsAmount():
			n, err := c.amount(name, raw)
			if err != nil {
				return within(name, name, err)
			}
			amounts[name] = n
		case raw.kind != jsonString:
			return fail("%s takes a string, not %s", "%s には文字列を渡します(ここは%sです)", name, raw.kind.what())
		default:
			c.Strings[name] = raw.str
		}
	}
	need := t.Params
	if keyOnly {
		need = t.Key
	}
	for _, p := range need {
		if !slices.Contains(v.keys, p.Name) {
			return fail(`%s is missing from "args", which takes %s`, `"args" に %s がありません。%s を書きます`,
				p.Name, diag.T(paramNames(need, ", "), paramNames(need, "、")))
		}
	}
	if len(amounts) > 0 {
		c.Amounts = amounts
	}
	return nil
}

func paramNames(ps []*book.Param, sep string) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return strings.Join(names, sep)
}

// readPostAmounts reads the "amounts" of a partial post: every amount its
// moves use. They stand apart from "args" so that a post's key and what
// it posts cannot be confused.
func (c *Call) readPostAmounts(v *value) *Error {
	if c.Op != book.Post {
		return fail(`only post takes "amounts"`, `"amounts" を取るのは post だけです`)
	}
	if v.kind != jsonObject {
		return fail(`"amounts" is an object, not %s`, `"amounts" にはオブジェクトを書きます(ここは%sです)`, v.kind.what())
	}
	need := c.Transfer.PostAmounts()
	c.Amounts = map[string]int64{}
	for i, name := range v.keys {
		if !slices.ContainsFunc(need, func(p *book.Param) bool { return p.Name == name }) {
			return fail("amounts: %q is not an amount the moves of %s use; give %s",
				"amounts: %q は %s の移動が使う額ではありません。%s を書きます",
				name, c.Transfer.Name, diag.T(paramNames(need, ", "), paramNames(need, "、")))
		}
		n, err := c.amount(name, v.elems[i])
		if err != nil {
			return within("amounts: "+name, "amounts: "+name, err)
		}
		c.Amounts[name] = n
	}
	if len(c.Amounts) != len(need) {
		return fail(`amounts: give every amount the moves use (%s), or leave "amounts" out to post the whole hold`,
			`amounts: 移動が使う額(%s)を全部書くか、"amounts" を書かずに押さえた全額を確定してください`,
			diag.T(paramNames(need, ", "), paramNames(need, "、")))
	}
	return nil
}

// amount reads the amount named name. One that is a whole number but
// cannot be sent is still read, as 0: the call is marked Bad, so running
// it fails the way a client refuses to send it.
func (c *Call) amount(name string, v *value) (int64, *Error) {
	scale := 0
	if p := c.Transfer.Param(name); p != nil && p.Unit != nil {
		scale = p.Unit.Scale
	}
	n, bad, err := readAmount(v, scale)
	if err != nil {
		return 0, err
	}
	if bad.En != "" {
		if c.Bad == "" {
			c.Bad = fmt.Sprintf("%s: %s", name, bad.En)
			c.BadJa = fmt.Sprintf("%s の%s", name, bad.Ja)
		}
		if c.Raw == nil {
			c.Raw = map[string]string{}
		}
		c.Raw[name] = v.num
	}
	return n, nil
}

// readAmount reads a JSON integer. A whole number outside 0..2^63-1 is
// readable but cannot be sent: it comes back as bad. The limit is one of
// the smallest step, as the file and a client count; in a unit with
// decimals, where a listing shows the call at scale, bad says so.
func readAmount(v *value, scale int) (n int64, bad diag.Text, err *Error) {
	if v.kind != jsonNumber {
		return 0, diag.Text{}, fail("an amount is a JSON integer in the unit's smallest step, not %s",
			"額は最小単位で数えた JSON の整数で書きます(ここは%sです)", v.kind.what())
	}
	i, ok := new(big.Int).SetString(v.num, 10)
	if !ok {
		return 0, diag.Text{}, fail("an amount is a whole number in the unit's smallest step, not %s",
			"額は最小単位で数えた整数で書きます(%s は書けません)", v.num)
	}
	if i.Sign() < 0 || i.Cmp(big.NewInt(book.MaxAmount)) > 0 {
		if scale > 0 {
			return 0, diag.T(fmt.Sprintf("the amount %s, counted in the unit's smallest step, is outside 0 to %d", v.num, book.MaxAmount),
				fmt.Sprintf("値 %s(最小単位で数えたもの)が 0 から %d の範囲外です", v.num, book.MaxAmount)), nil
		}
		return 0, diag.T(fmt.Sprintf("the amount %s is outside 0 to %d", v.num, book.MaxAmount),
			fmt.Sprintf("値 %s が 0 から %d の範囲外です", v.num, book.MaxAmount)), nil
	}
	return i.Int64(), diag.Text{}, nil
}
