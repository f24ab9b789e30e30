package doc

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"

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
// outcome.
type stepperData struct {
	Texts     map[string]string `json:"texts"`
	Scenarios []jsonScenario    `json:"scenarios"`
}

type jsonScenario struct {
	Number   int           `json:"number"`
	Title    string        `json:"title"`
	Steps    []jsonStep    `json:"steps"`
	Outcomes []jsonOutcome `json:"outcomes"`
}

type jsonStep struct {
	Label     string   `json:"label"`
	Calls     []string `json:"calls"`
	Transfers []int    `json:"transfers"`
}

type jsonOutcome struct {
	Steps []jsonState `json:"steps"`
}

type jsonState struct {
	Answers []string    `json:"answers"`
	Refused []int       `json:"refused"`
	Ledger  []jsonRow   `json:"ledger"`
	Holds   [][2]string `json:"holds"`
}

type jsonRow struct {
	Account string `json:"account"`
	Posted  string `json:"posted"`
	HeldOut string `json:"held_out"`
	HeldIn  string `json:"held_in"`
	Changed bool   `json:"changed"`
}

// HTML writes the page as one file that loads nothing from elsewhere:
// its style, script, diagrams and data are inline, and its
// Content-Security-Policy allows exactly that style and that script.
func HTML(p *Page) ([]byte, error) {
	style, err := templates.ReadFile("templates/page.css")
	if err != nil {
		return nil, err
	}
	script, err := templates.ReadFile("templates/stepper.js")
	if err != nil {
		return nil, err
	}
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
	tmpl, err := template.New("page.html.tmpl").Funcs(template.FuncMap(words(p.Lang))).ParseFS(templates, "templates/page.html.tmpl", "templates/transfer.html.tmpl")
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
	for _, sc := range p.All() {
		js := jsonScenario{Number: sc.Number, Title: sc.Title}
		for _, st := range sc.Steps {
			js.Steps = append(js.Steps, jsonStep{Label: st.Label, Calls: nonNil(st.Calls), Transfers: nonNilInts(st.Transfers)})
		}
		for _, o := range sc.Outcomes {
			var jo jsonOutcome
			for _, ss := range o.Steps {
				st := jsonState{Answers: nonNil(ss.Answers), Refused: []int{}, Ledger: []jsonRow{}, Holds: [][2]string{}}
				for _, t := range slices.Sorted(maps.Keys(ss.Refused)) {
					if ss.Refused[t] {
						st.Refused = append(st.Refused, t)
					}
				}
				for i, r := range ss.Ledger {
					st.Ledger = append(st.Ledger, jsonRow{Account: r.Account, Posted: r.Posted, HeldOut: r.HeldOut, HeldIn: r.HeldIn, Changed: ss.Changed[i]})
				}
				st.Holds = append(st.Holds, ss.Holds...)
				jo.Steps = append(jo.Steps, st)
			}
			js.Outcomes = append(js.Outcomes, jo)
		}
		d.Scenarios = append(d.Scenarios, js)
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
