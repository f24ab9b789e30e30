package draw

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func outside(title, unit string) Node {
	return Node{Title: title, Lines: []string{unit + " · outside"}, Outside: true}
}

// flows are the books of the golden files: each shows one way of
// drawing an arrow.
var flows = []struct {
	name string
	g    Graph
	cols []int // the column of each node
}{
	{
		name: "inventory",
		g: Graph{
			Label: "Flow of inventory",
			Nodes: []Node{
				outside("suppliers", "pcs"),
				{Title: "stock(sku)", Lines: []string{"pcs", "at least 0 (out_of_stock)"}},
				outside("customers", "pcs"),
			},
			Edges: []Edge{
				{From: 0, To: 1, Label: "receive", Transfer: 0},
				{From: 1, To: 2, Label: "ship", Dashed: true, Transfer: 1},
				{From: 2, To: 1, Label: "return", Transfer: 2},
			},
		},
		cols: []int{0, 1, 2},
	},
	{
		// One transfer with two moves out of the buyer's wallet.
		name: "sale",
		g: Graph{
			Label: "Flow of market",
			Nodes: []Node{
				outside("bank", "JPY"),
				{Title: "wallet(user)", Lines: []string{"JPY", "at least 0 (insufficient_funds)"}},
				{Title: "sales(shop)", Lines: []string{"JPY"}},
				{Title: "fees", Lines: []string{"JPY", "at least 0"}},
			},
			Edges: []Edge{
				{From: 0, To: 1, Label: "deposit", Transfer: 0},
				{From: 1, To: 2, Label: "sale (price)", Transfer: 1},
				{From: 1, To: 3, Label: "sale (fee)", Transfer: 1},
				{From: 2, To: 0, Label: "payout", Transfer: 2},
			},
		},
		cols: []int{0, 1, 2, 2},
	},
	{
		// save joins two kinds the walk put in one column.
		name: "within",
		g: Graph{
			Label: "Flow of savings",
			Nodes: []Node{
				outside("bank", "USD"),
				{Title: "checking(user)", Lines: []string{"USD"}},
				{Title: "savings(user)", Lines: []string{"USD", "at least 0"}},
			},
			Edges: []Edge{
				{From: 0, To: 1, Label: "deposit", Transfer: 0},
				{From: 0, To: 2, Label: "deposit_savings", Transfer: 1},
				{From: 1, To: 2, Label: "save", Transfer: 2},
				{From: 2, To: 1, Label: "withdraw", Dashed: true, Transfer: 3},
			},
		},
		cols: []int{0, 1, 1},
	},
	{
		// refund goes back two columns, below the boxes.
		name: "long",
		g: Graph{
			Label: "Flow of escrow",
			Nodes: []Node{
				outside("buyer", "USD"),
				{Title: "escrow(order)", Lines: []string{"USD", "at least 0"}},
				{Title: "seller(shop)", Lines: []string{"USD"}},
			},
			Edges: []Edge{
				{From: 0, To: 1, Label: "pay", Dashed: true, Transfer: 0},
				{From: 1, To: 2, Label: "release", Transfer: 1},
				{From: 2, To: 0, Label: "refund", Transfer: 2},
			},
		},
		cols: []int{0, 1, 2},
	},
	{
		// Moves between two wallets are moves from the kind to itself.
		name: "loop",
		g: Graph{
			Label: "Flow of wallets",
			Nodes: []Node{
				outside("bank", "JPY"),
				{Title: "wallet(user)", Lines: []string{"JPY", "at least 0"}},
			},
			Edges: []Edge{
				{From: 0, To: 1, Label: "deposit", Transfer: 0},
				{From: 1, To: 1, Label: "send", Transfer: 1},
				{From: 1, To: 1, Label: "gift (held)", Dashed: true, Transfer: 2},
				{From: 1, To: 0, Label: "withdraw", Transfer: 3},
			},
		},
		cols: []int{0, 1},
	},
	{
		name: "japanese",
		g: Graph{
			Label: "在庫の流れ",
			Nodes: []Node{
				outside("仕入先", "個"),
				{Title: "在庫(商品)", Lines: []string{"個", "0 以上 (在庫切れ)"}},
				outside("顧客", "個"),
			},
			Edges: []Edge{
				{From: 0, To: 1, Label: "入荷", Transfer: 0},
				{From: 1, To: 2, Label: "出荷", Dashed: true, Transfer: 1},
				{From: 2, To: 1, Label: "返品", Transfer: 2},
				{From: 1, To: 0, Label: "返品(仕入先へ)", Transfer: 3},
			},
		},
		cols: []int{0, 1, 2},
	},
	{
		// Several arrows between the same two boxes, both ways.
		name: "parallel",
		g: Graph{
			Label: "Flow of points",
			Nodes: []Node{
				outside("shop", "pt"),
				{Title: "points(member)", Lines: []string{"pt", "at least 0"}},
			},
			Edges: []Edge{
				{From: 0, To: 1, Label: "grant", Transfer: 0},
				{From: 0, To: 1, Label: "bonus", Transfer: 1},
				{From: 1, To: 0, Label: "redeem", Dashed: true, Transfer: 2},
				{From: 1, To: 0, Label: "expire", Transfer: 3},
			},
		},
		cols: []int{0, 1},
	},
}

func TestFlowGolden(t *testing.T) {
	for _, tt := range flows {
		t.Run(tt.name, func(t *testing.T) {
			checkGolden(t, "flow_"+tt.name+".svg", Flow(tt.g))
		})
	}
}

func TestColumns(t *testing.T) {
	tests := []struct {
		name  string
		nodes int
		out   []bool // which nodes are outside
		edges [][2]int
		want  []int
	}{
		{"chain", 3, nil, [][2]int{{0, 1}, {1, 2}}, []int{0, 1, 2}},
		{"two roots", 3, nil, [][2]int{{0, 2}, {1, 2}}, []int{0, 0, 1}},
		{"a return places nothing", 2, nil, [][2]int{{0, 1}, {1, 0}}, []int{0, 1}},
		{"first met wins", 3, nil, [][2]int{{0, 1}, {0, 2}, {1, 2}}, []int{0, 1, 1}},
		// Everything flows into something: the walk starts from the
		// first outside account a move takes from.
		{"cycle from outside", 3, []bool{false, false, true}, [][2]int{{0, 1}, {2, 0}, {1, 2}}, []int{1, 2, 0}},
		{"cycle", 3, nil, [][2]int{{1, 2}, {2, 0}, {0, 1}}, []int{2, 0, 1}},
		// A loop is not something flowing in.
		{"loop", 2, nil, [][2]int{{1, 1}, {1, 0}}, []int{1, 0}},
		{"alone", 3, nil, [][2]int{{0, 1}}, []int{0, 1, 0}},
		// 3 and 4 are never reached: 3 goes left of 1, where it moves to.
		{"unreached", 5, nil, [][2]int{{0, 1}, {3, 4}, {4, 3}, {3, 1}}, []int{0, 1, 0, 0, 1}},
		{"unreached before 0", 4, nil, [][2]int{{0, 1}, {2, 3}, {3, 2}, {2, 0}}, []int{1, 2, 0, 1}},
		{"no edges", 2, nil, nil, []int{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g Graph
			for i := range tt.nodes {
				g.Nodes = append(g.Nodes, Node{Title: strconv.Itoa(i), Outside: i < len(tt.out) && tt.out[i]})
			}
			for _, e := range tt.edges {
				g.Edges = append(g.Edges, Edge{From: e[0], To: e[1]})
			}
			if got, _, _ := columns(g); !slices.Equal(got, tt.want) {
				t.Errorf("columns = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFlowColumns(t *testing.T) {
	for _, tt := range flows {
		if got := layoutFlow(tt.g).col; !slices.Equal(got, tt.cols) {
			t.Errorf("%s: columns %v, want %v", tt.name, got, tt.cols)
		}
	}
}

// TestOrder holds the ordering of a column to what it is for: x, met
// first, is tied mostly to b, the lower of the two sources, so it goes
// below y, which only a feeds.
func TestOrder(t *testing.T) {
	g := Graph{
		Nodes: []Node{{Title: "a"}, {Title: "b"}, {Title: "x"}, {Title: "y"}},
		Edges: []Edge{{From: 0, To: 2}, {From: 0, To: 3}, {From: 1, To: 2}, {From: 1, To: 2}},
	}
	l := layoutFlow(g)
	if l.boxes[3].y >= l.boxes[2].y {
		t.Errorf("y is at %v, not above x at %v", l.boxes[3].y, l.boxes[2].y)
	}
	if l.boxes[0].y >= l.boxes[1].y {
		t.Errorf("a is at %v, not above b at %v", l.boxes[0].y, l.boxes[1].y)
	}
}

func TestFlowPanicsOnBadIndex(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for an edge to a node that is not there")
		}
	}()
	Flow(Graph{Nodes: []Node{{Title: "a"}}, Edges: []Edge{{From: 0, To: 1}}})
}

// TestFlowProperties checks what must hold of every layout, on the
// goldens' books and on random ones.
func TestFlowProperties(t *testing.T) {
	for _, tt := range flows {
		t.Run(tt.name, func(t *testing.T) { checkFlow(t, tt.g) })
	}
	t.Run("empty", func(t *testing.T) { checkFlow(t, Graph{}) })
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		g := randomGraph(rnd)
		t.Run(fmt.Sprint("random", i), func(t *testing.T) { checkFlow(t, g) })
	}
}

var odd = []string{
	"", "a", "receive", "stock(sku)", "在庫", "返品(仕入先へ)", "ｶﾀｶﾅ", "ＦＵＬＬ",
	`<&>"'`, "]]>", "nul\x00", "bad\xff\xfe", "\uFFFE", "e\u0301", "עברית", "🙂", "tab\tnl\n",
	"a rather long label for a move between two accounts",
}

func randomGraph(rnd *rand.Rand) Graph {
	var g Graph
	g.Label = odd[rnd.IntN(len(odd))]
	n := 1 + rnd.IntN(8)
	for range n {
		nd := Node{Title: odd[rnd.IntN(len(odd))], Outside: rnd.IntN(3) == 0}
		for range rnd.IntN(3) {
			nd.Lines = append(nd.Lines, odd[rnd.IntN(len(odd))])
		}
		g.Nodes = append(g.Nodes, nd)
	}
	for i := range rnd.IntN(12) {
		g.Edges = append(g.Edges, Edge{
			From: rnd.IntN(n), To: rnd.IntN(n), Label: odd[rnd.IntN(len(odd))],
			Dashed: rnd.IntN(3) == 0, Transfer: i / 2,
		})
	}
	return g
}

func checkFlow(t *testing.T, g Graph) {
	t.Helper()
	out := Flow(g)
	if again := Flow(g); again != out {
		t.Fatal("a second call drew different bytes")
	}
	parseXML(t, out)
	l := layoutFlow(g)
	for i, a := range l.boxes {
		for j, b := range l.boxes[:i] {
			if a.overlaps(b) {
				t.Errorf("boxes %d %v and %d %v overlap", j, b, i, a)
			}
		}
		if l.col[i] < 0 {
			t.Errorf("box %d in column %d", i, l.col[i])
		}
		for j, b := range l.boxes {
			if l.col[j] > l.col[i] && b.x <= a.right() {
				t.Errorf("box %d of column %d is not right of box %d of column %d", j, l.col[j], i, l.col[i])
			}
		}
		if a.x < 0 || a.y < 0 || a.right() > l.w || a.bottom() > l.h {
			t.Errorf("box %d %v is not inside %v×%v", i, a, l.w, l.h)
		}
	}
	for k, r := range l.labels {
		if r.x < 0 || r.y < 0 || r.right() > l.w || r.bottom() > l.h {
			t.Errorf("label %d %v is not inside %v×%v", k, r, l.w, l.h)
		}
		for j, o := range l.labels[:k] {
			if r.overlaps(o) {
				t.Errorf("labels %d %v and %d %v overlap", j, o, k, r)
			}
		}
		for i, b := range l.boxes {
			if r.overlaps(b) {
				t.Errorf("label %d %v lies on box %d %v", k, r, i, b)
			}
		}
	}
	placed := make([]bool, len(g.Nodes))
	for k, e := range g.Edges {
		if !l.placing[k] {
			continue
		}
		if placed[e.To] {
			t.Errorf("node %d placed twice", e.To)
		}
		placed[e.To] = true
		if l.col[e.To] <= l.col[e.From] {
			t.Errorf("edge %d placed node %d in column %d, not right of %d in column %d", k, e.To, l.col[e.To], e.From, l.col[e.From])
		}
	}
	checkSVG(t, out, l.w, l.h, len(g.Nodes), g.Edges)
}

// checkSVG reads the diagram back: its size, its name, and one group for
// each node and for each edge, tagged as the page expects.
func checkSVG(t *testing.T, s string, w, h float64, nodes int, edges []Edge) {
	t.Helper()
	var doc struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
		Height  string `xml:"height,attr"`
		ViewBox string `xml:"viewBox,attr"`
		Role    string `xml:"role,attr"`
		Label   string `xml:"aria-label,attr"`
		Title   string `xml:"title"`
		Groups  []struct {
			Class    string `xml:"class,attr"`
			Transfer string `xml:"data-transfer,attr"`
			Edge     string `xml:"data-edge,attr"`
			Paths    []struct {
				D      string `xml:"d,attr"`
				Marker string `xml:"marker-end,attr"`
			} `xml:"path"`
			Labels []string `xml:"text"`
		} `xml:"g"`
	}
	if err := xml.NewDecoder(bytes.NewReader([]byte(s))).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.XMLName.Local != "svg" || doc.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Errorf("root %v", doc.XMLName)
	}
	if doc.Width != num(w) || doc.Height != num(h) || doc.ViewBox != "0 0 "+num(w)+" "+num(h) {
		t.Errorf("size %s×%s, viewBox %q; want %v×%v", doc.Width, doc.Height, doc.ViewBox, w, h)
	}
	if doc.Role != "img" || doc.Label != doc.Title {
		t.Errorf("role %q, aria-label %q, title %q", doc.Role, doc.Label, doc.Title)
	}
	var got []int
	for _, g := range doc.Groups {
		if !strings.HasPrefix(g.Class, "edge") {
			continue
		}
		k, err := strconv.Atoi(g.Edge)
		if err != nil || k >= len(edges) {
			t.Errorf("edge group %q", g.Edge)
			continue
		}
		got = append(got, k)
		if g.Transfer != strconv.Itoa(edges[k].Transfer) {
			t.Errorf("edge %d: data-transfer %q, want %d", k, g.Transfer, edges[k].Transfer)
		}
		if len(g.Paths) != 1 || g.Paths[0].Marker == "" || g.Paths[0].D == "" || len(g.Labels) != 1 {
			t.Errorf("edge %d: paths %v, labels %q", k, g.Paths, g.Labels)
		}
		if want := edges[k].Dashed; strings.Contains(g.Class, "held") != want {
			t.Errorf("edge %d: class %q for Dashed %v", k, g.Class, want)
		}
	}
	if len(got) != len(edges) {
		t.Errorf("%d edge groups for %d edges", len(got), len(edges))
	}
	if n := len(doc.Groups) - len(got); n != nodes {
		t.Errorf("%d node groups for %d nodes", n, nodes)
	}
}

func FuzzFlow(f *testing.F) {
	f.Add([]byte{3, 0, 1, 0, 1, 2, 1, 2, 1, 4})
	f.Add([]byte{1, 0, 0, 3, 0, 0, 5})
	f.Add([]byte{6, 5, 4, 1, 4, 3, 2, 3, 2, 0, 2, 1, 7, 1, 0, 9, 0, 5, 11})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b)
		}
		// Labels take their bytes from the input itself, whatever they are.
		text := func() string {
			n := next() % 8
			if n == 0 {
				return odd[next()%len(odd)]
			}
			n = min(n, len(data))
			s := string(data[:n])
			data = data[n:]
			return s
		}
		var g Graph
		g.Label = text()
		n := 1 + next()%9
		for range n {
			nd := Node{Title: text(), Outside: next()%2 == 1}
			for range next() % 3 {
				nd.Lines = append(nd.Lines, text())
			}
			g.Nodes = append(g.Nodes, nd)
		}
		for i := 0; len(data) > 0 && i < 24; i++ {
			flags := next()
			g.Edges = append(g.Edges, Edge{
				From: next() % n, To: next() % n, Label: text(),
				Dashed: flags%2 == 1, Transfer: flags / 2,
			})
		}
		checkFlow(t, g)
	})
}
