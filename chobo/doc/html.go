package doc

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/chobo-lang/chobo/chobo/diag"
	"github.com/chobo-lang/chobo/chobo/doc/draw"
	"github.com/chobo-lang/chobo/chobo/interp"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// htmlView is what the HTML template reads beside the page: the parts
// that are already markup, and the policy that lets only them run.
type htmlView struct {
	Page     *Page
	LangCode string
	CSP      template.HTML // the meta element that carries the policy
	Style    template.CSS
	Script   template.JS
	Flow     template.HTML
	Lives    []template.HTML // per transfer; empty for one that posts at once
	Data     template.HTML
	// RenderedTransfers are the transfers' sections, written side by side
	// before the page.
	RenderedTransfers []template.HTML
}

// htmlTransfer is what the template of one transfer's section reads.
type htmlTransfer struct {
	Index    int
	Life     template.HTML
	Transfer TransferSection
}

// stepperData is the JSON the stepper reads: texts it writes itself, and
// each scenario's steps with the ledger after every step of every
// outcome. A ledger row, a hold, a step and the state after a step are
// each written once, in their own list, and named by their place in it
// wherever they recur: scenarios share their first steps, outcomes their
// steps before a together, and steps most rows, so that the data does
// not grow with every repetition of them.
type stepperData struct {
	Texts map[string]string `json:"texts"`
	// Rows are ledger rows: account, posted, held out, held in, the
	// amounts plain (the stepper groups their digits).
	Rows [][4]string `json:"rows"`
	// Holds are a hold's name and state.
	Holds [][2]string `json:"holds"`
	// Steps are a label, the calls of a together (one line each, with
	// its caller) and the transfers called.
	Steps [][3]any `json:"steps"`
	// States are what a step of an outcome shows: its answers, the
	// transfers refused in it, its rows, the places in them of the rows
	// that changed, and its holds.
	States    [][5]any       `json:"states"`
	Scenarios []jsonScenario `json:"scenarios"`
}

// jsonScenario is a scenario's steps and, per outcome, the state after
// each, all named by place.
type jsonScenario struct {
	Steps    []int   `json:"steps"`
	Outcomes [][]int `json:"outcomes"`
}

// interner gives each distinct value its place in a list, in the order
// first met, so that the data is the same bytes on every run.
type interner struct {
	at  map[string]int
	out []any
}

func (n *interner) id(v any) int {
	b, _ := json.Marshal(v)
	if i, ok := n.at[string(b)]; ok {
		return i
	}
	if n.at == nil {
		n.at = map[string]int{}
	}
	n.at[string(b)] = len(n.out)
	n.out = append(n.out, v)
	return len(n.out) - 1
}

// HTML writes the page as one file that loads nothing from elsewhere:
// its style, script, diagrams and data are inline, and its
// Content-Security-Policy allows exactly that style and that script.
func HTML(p *Page) ([]byte, error) {
	style, err := templates.ReadFile("templates/page.css")
	if err != nil {
		return nil, err
	}
	style = bareStyle(style)
	script, err := templates.ReadFile("templates/stepper.js")
	if err != nil {
		return nil, err
	}
	script = bareScript(script)
	data, err := stepperJSON(p)
	if err != nil {
		return nil, err
	}
	v := htmlView{Page: p, LangCode: "en", Style: template.CSS(style), Script: template.JS(script),
		Flow: template.HTML(draw.Flow(flowGraph(p)))}
	if p.Lang == diag.Japanese {
		v.LangCode = "ja"
	}
	for _, t := range p.Transfers {
		v.Lives = append(v.Lives, template.HTML(lifeOf(t, p.Lang)))
	}
	// The data is not script: a JSON block the policy need not allow.
	// json.Marshal writes <, > and & as \u escapes, so no text of the
	// book can close the element.
	v.Data = template.HTML(`<script type="application/json" id="chobo-data">` + string(data) + `</script>`)
	// Written whole, so that the quotes of the policy read as quotes.
	v.CSP = template.HTML(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src '` + hash(style) +
		`'; script-src '` + hash(script) + `'; img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'">`)
	fm := template.FuncMap(words(p.Lang))
	fm["name"] = nameHTML
	fm["code"] = codeHTML
	fm["plain"] = plainHTML
	fm["call"] = callHTML
	fm["moves"] = movesHTML
	// names writes a list of names, each as name does.
	fm["names"] = func(list []string) template.HTML {
		parts := make([]string, len(list))
		for i, n := range list {
			parts[i] = string(nameHTML(n))
		}
		return template.HTML(strings.Join(parts, diag.T(", ", "、").In(p.Lang)))
	}
	tmpl, err := template.New("page.html.tmpl").Funcs(fm).ParseFS(templates, "templates/page.html.tmpl", "templates/transfer.html.tmpl")
	if err != nil {
		return nil, err
	}
	// Each section is escaped by the template as it is written; the page
	// takes it as it is.
	v.RenderedTransfers = make([]template.HTML, len(p.Transfers))
	err = eachAtOnce(len(p.Transfers), func(i int) error {
		var b strings.Builder
		if err := tmpl.ExecuteTemplate(&b, "transfer", htmlTransfer{Index: i, Life: v.Lives[i], Transfer: p.Transfers[i]}); err != nil {
			return err
		}
		v.RenderedTransfers[i] = template.HTML(b.String())
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// bareStyle is the stylesheet as the page carries it: without its
// comments and indentation, which are for the people who change it, not
// for the browser. Every page carries it, so every byte counts once per
// page. The stylesheet holds no string with "/*" in it.
func bareStyle(css []byte) []byte {
	var out []byte
	for len(css) > 0 {
		i := bytes.Index(css, []byte("/*"))
		if i < 0 {
			out = append(out, css...)
			break
		}
		out = append(out, css[:i]...)
		j := bytes.Index(css[i+2:], []byte("*/"))
		if j < 0 {
			break
		}
		css = css[i+2+j+2:]
	}
	return compactRules(bareLines(out, nil))
}

// compactRules drops the spaces a rule reads well with but the browser
// does without: after a colon, a semicolon or a comma, around braces,
// and the semicolon before a closing brace. The stylesheet writes no
// string or selector where one of these spaces means something.
func compactRules(css []byte) []byte {
	for _, r := range [][2]string{{"; ", ";"}, {": ", ":"}, {" {", "{"}, {"{ ", "{"}, {" }", "}"}, {", ", ","}, {";}", "}"}} {
		css = bytes.ReplaceAll(css, []byte(r[0]), []byte(r[1]))
	}
	return css
}

// bareScript is the stepper as the page carries it: without its comment
// lines and indentation. Lines stay lines, so that no statement runs into
// the next; a comment after code on its line stays.
func bareScript(js []byte) []byte { return bareLines(js, []byte("//")) }

// bareLines trims each line and drops the empty ones and those that
// start with comment.
func bareLines(src, comment []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(src, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || (comment != nil && bytes.HasPrefix(line, comment)) {
			continue
		}
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out
}

// longName is the length past which a name may not fit the width of a
// phone: it gets places to break between its words.
const longName = 16

// nameHTML writes a name (an account with its parameters, an operation)
// for a cell of a table. A name breaks at no place inside a word; a long
// one, when it is wider than a phone's screen, may break before its
// parameters and after each underscore, between the words of a
// snake_case name (page.css keeps names whole on a wide screen).
func nameHTML(s string) template.HTML {
	esc := template.HTMLEscapeString(s)
	if utf8.RuneCountInString(s) <= longName {
		return template.HTML(esc)
	}
	esc = strings.ReplaceAll(esc, "_", "_<wbr>")
	return template.HTML(strings.Replace(esc, "(", "<wbr>(", 1))
}

// keyValue is a value of a call's key with a hyphen in it (order-3).
var keyValue = regexp.MustCompile(`: ([^\s,()]*-[^\s,()]*)`)

// callHTML writes a call of a statement for a cell: as nameHTML, and no
// value with a hyphen broken after it (order-|3), where a narrow cell
// would break it; a long value still breaks between its words. The call
// is one element then: on a narrow screen a cell lays out its children
// side by side, beside the name of its column (page.css), and would
// split it.
func callHTML(s string) template.HTML {
	h := string(nameHTML(s))
	if w := keyValue.ReplaceAllString(h, `: <span class="nw">$1</span>`); w != h {
		h = "<span>" + w + "</span>"
	}
	return template.HTML(h)
}

// accountArgs are the values of an account in a text, with a hyphen in
// them: (KANTO-NORTH).
var accountArgs = regexp.MustCompile(`\(([^()\s]*-[^()\s]*)\)`)

// movesHTML writes what a hold moves for a cell: the names in it break
// between their words and not after the hyphen of a value, and the text
// is one element, as callHTML's.
func movesHTML(s string) template.HTML {
	h := strings.ReplaceAll(template.HTMLEscapeString(s), "_", "_<wbr>")
	h = accountArgs.ReplaceAllString(h, `(<span class="nw">$1</span>)`)
	return template.HTML("<span>" + h + "</span>")
}

// codeHTML writes a text of the page's own, where the words a reader
// types or calls (`post`, `chobo scenarios`) are between backticks as in
// the Markdown page, with those words as code: without the mark, a
// sentence that starts with one reads as a sentence without a capital.
func codeHTML(s string) template.HTML {
	return template.HTML(codeSpans(s, template.HTMLEscapeString, func(c string) string {
		return "<code>" + template.HTMLEscapeString(c) + "</code>"
	}))
}

// plainHTML escapes what HTML needs escaped and no more: the template
// would write each sign of an amount's change as an entity five times
// its size.
func plainHTML(s string) template.HTML { return template.HTML(template.HTMLEscapeString(s)) }

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

func flowGraph(p *Page) draw.Graph {
	g := draw.Graph{ID: "chobo-flow", Label: diag.T("where amounts flow between the accounts of ", "勘定のあいだの流れ: ").In(p.Lang) + p.Name}
	for _, n := range p.Flow.Nodes {
		g.Nodes = append(g.Nodes, draw.Node{Title: n.Title, Lines: n.Lines, Outside: n.Outside})
	}
	for _, e := range p.Flow.Edges {
		g.Edges = append(g.Edges, draw.Edge{From: e.From, To: e.To, Label: e.Label, Dashed: e.Held, Transfer: e.Transfer})
	}
	return g
}

func lifeOf(t TransferSection, lang diag.Lang) string {
	if t.Hold == nil {
		return ""
	}
	l := draw.Life{
		Label:  diag.T("the life of a hold of ", "仮押さえのライフサイクル: ").In(lang) + t.Name,
		ID:     fmt.Sprintf("chobo-life-%d", t.Index),
		Held:   scenario.HoldStateText(interp.Held, lang),
		Posted: scenario.HoldStateText(interp.Posted, lang),
		Voided: scenario.HoldStateText(interp.Voided, lang),
		Post:   "post", Void: "void",
		Expires: t.Hold.Expires,
	}
	if t.Hold.Expires {
		l.Expired = scenario.HoldStateText(interp.HoldExpired, lang)
		l.Expire = diag.T("after "+t.Hold.Lifetime, t.Hold.Lifetime+"後").In(lang)
	}
	return draw.Lifecycle(l)
}

func stepperJSON(p *Page) ([]byte, error) {
	d := stepperData{Texts: map[string]string{
		"stepOf":    diag.T("Step %1 of %2", "ステップ %1 / %2").In(p.Lang),
		"outcomeOf": diag.T("Outcome %1 of %2", "結果 %1 / %2").In(p.Lang),
		"changed":   diag.T("changed", "変わった").In(p.Lang),
	}, Scenarios: []jsonScenario{}}
	var rows, holds, steps, states interner
	for _, sc := range p.All() {
		var js jsonScenario
		for _, st := range sc.Steps {
			js.Steps = append(js.Steps, steps.id([3]any{st.Label, nonNil(st.Calls), nonNilInts(st.Transfers)}))
		}
		for _, o := range sc.Outcomes {
			var jo []int
			for _, ss := range o.Steps {
				refused := []int{}
				for _, t := range slices.Sorted(maps.Keys(ss.Refused)) {
					if ss.Refused[t] {
						refused = append(refused, t)
					}
				}
				ledger, changed, hs := []int{}, []int{}, []int{}
				for i, r := range ss.Ledger {
					ledger = append(ledger, rows.id([4]string{r.Account, r.Posted, r.HeldOut, r.HeldIn}))
					if ss.Changed[i] {
						changed = append(changed, i)
					}
				}
				for _, h := range ss.Holds {
					hs = append(hs, holds.id(h))
				}
				jo = append(jo, states.id([5]any{nonNil(ss.Answers), refused, ledger, changed, hs}))
			}
			js.Outcomes = append(js.Outcomes, jo)
		}
		d.Scenarios = append(d.Scenarios, js)
	}
	d.Rows = make([][4]string, 0, len(rows.out))
	for _, r := range rows.out {
		d.Rows = append(d.Rows, r.([4]string))
	}
	d.Holds = make([][2]string, 0, len(holds.out))
	for _, h := range holds.out {
		d.Holds = append(d.Holds, h.([2]string))
	}
	d.Steps = make([][3]any, 0, len(steps.out))
	for _, st := range steps.out {
		d.Steps = append(d.Steps, st.([3]any))
	}
	d.States = make([][5]any, 0, len(states.out))
	for _, st := range states.out {
		d.States = append(d.States, st.([5]any))
	}
	return json.Marshal(d)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilInts(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}
