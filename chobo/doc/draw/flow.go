package draw

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Node is an account kind: a box.
type Node struct {
	Title   string   // e.g. "stock(sku)"
	Lines   []string // e.g. {"pcs", "at least 0 (out_of_stock)"}; for an outside account {"pcs · outside"}
	Outside bool     // drawn as a rounded, dashed box
}

// Edge is one move of a transfer kind: an arrow from the account it takes
// from to the one it puts into.
type Edge struct {
	From, To int    // indexes into Graph.Nodes; From == To is a move between two accounts of the same kind
	Label    string // the transfer's name, e.g. "receive", or "sale (fee)" for one move of a transfer with several
	Dashed   bool   // a hold: dashed arrow
	Transfer int    // index of the transfer kind; written as data-transfer="N" on the edge's <g>
}

// Graph is what a flow diagram shows.
type Graph struct {
	Label string // names the diagram: its aria-label and its <title>
	// ID starts the ids of the elements in the SVG, so that several
	// diagrams can share a page; "chobo" when empty.
	ID    string
	Nodes []Node
	Edges []Edge // in the book's order: transfers in order, moves in order
}

// Flow returns the flow diagram as an <svg> element of its natural size.
//
// Account kinds stand in columns, left to right in the direction money
// moves: a walk starts from the kinds nothing flows into and puts the
// destination of each move it meets in the column right of its source;
// a move to a kind the walk has already met (a return) places nothing.
// Within a column, kinds are ordered to keep arrows from crossing.
// Arrows between neighbouring columns are curves; an arrow within a
// column bulges out to its right; an arrow across two or more columns
// runs below all the boxes; an arrow from a kind to itself is a loop
// above its box.
//
// Flow panics if an edge's From or To is not the index of a node.
func Flow(g Graph) string {
	l := layoutFlow(g)
	id := g.ID
	if id == "" {
		id = "chobo"
	}
	arrow := id + "-arrow"
	var b svg
	b.open("chobo-flow", l.w, l.h, g.Label)
	b.marker(arrow)
	for i, n := range g.Nodes {
		class := "node"
		if n.Outside {
			class += " outside"
		}
		b.raw(`<g class="`, class, `" data-node="`, i, `">`)
		b.box(l.boxes[i], n.Outside, n.Title, n.Lines)
		b.raw("</g>\n")
	}
	for k, e := range g.Edges {
		class := "edge"
		if e.Dashed {
			class += " held"
		}
		if l.back[k] {
			class += " back"
		}
		b.raw(`<g class="`, class, `" data-transfer="`, e.Transfer, `" data-edge="`, k, `"><path class="arrow" d="`, l.paths[k], `" fill="none"`)
		if e.Dashed {
			b.raw(` stroke-dasharray="6 4"`)
		}
		b.raw(` marker-end="url(#`)
		b.text(arrow)
		b.raw(`)"/>`)
		b.label(e.Label, l.labels[k])
		b.raw("</g>\n")
	}
	b.raw("</svg>\n")
	return b.String()
}

// The room the arrows take, in pixels.
const (
	boxGap    = 28         // between two boxes of a column
	minBoxW   = 96         // the narrowest box
	trackPad  = 12         // between a column and the first vertical run of an arrow beside it
	trackStep = 10         // between two vertical runs of arrows
	curveMin  = 56         // the least room a curve between two columns gets
	gapMin    = 40         // between two columns that no arrow joins
	laneStep  = 24         // between two arrows that run below the boxes
	corner    = 6          // the radius of an arrow's turns
	portStep  = labelH + 4 // between two arrows on a side of a box, so that their labels fit between
	portPad   = 8          // between a corner of a box and the nearest arrow
	loopW     = 14         // half the width of a kind's first loop
	loopH     = 20         // the height of a kind's first loop
)

// route is the way an arrow goes, which follows from the columns of its ends.
type route int

const (
	across route = iota // between neighbouring columns
	within              // between two boxes of one column
	around              // across two or more columns, below the boxes
	loop                // from a box to itself
)

// The sides of a box.
const (
	left  = 0
	right = 1
)

// flowLayout is where everything of a flow diagram goes, worked out in
// the order of layoutFlow's steps: each step reads what those before it
// set. A gap is the room right of a column, and has its column's index.
type flowLayout struct {
	g       Graph
	col     []int   // each node's column
	placing []bool  // for each edge, whether the walk placed its target by it
	cols    [][]int // the nodes of each column, top to bottom
	route   []route
	back    []bool   // for each edge, whether it is drawn right to left
	side    [][2]int // for each edge, the sides of the boxes its tail and its head are on
	loops   []int    // how many loops each node has
	loopOf  []int    // for a loop, how many loops of its node come before it
	boxes   []rect
	bottom  float64      // of the lowest box
	port    [][2]float64 // where each edge meets its boxes, the tail's y and the head's
	runs    [][2][]track // for each gap, the runs near its left and near its right
	runsW   [][2]float64 // the room those runs take
	colX    []float64
	colW    []float64
	gapW    []float64
	runX    [][2]float64 // the x of each edge's runs, by its tail and by its head
	lane    []int        // for an arrow below the boxes, its lane, the top one 0
	lanes   int
	paths   []string
	labels  []rect
	w, h    float64
}

// end is where an arrow meets the side of a box.
type end struct {
	edge int
	head bool    // the end the arrow points at
	key  float64 // where the arrow goes from here: ends are ordered by it so that arrows do not cross
}

// track is the vertical run of an arrow beside a column: a bulge, or the
// way down to or up from below the boxes.
type track struct {
	edge int
	head bool    // the run by the arrow's head, not by its tail
	top  float64 // where the run starts, the higher of its ends
	off  float64 // how far the run is from the column it is near
}

func layoutFlow(g Graph) *flowLayout {
	n := len(g.Nodes)
	for k, e := range g.Edges {
		if e.From < 0 || e.From >= n || e.To < 0 || e.To >= n {
			panic(fmt.Sprintf("draw: edge %d goes from %d to %d, and the graph has %d nodes", k, e.From, e.To, n))
		}
	}
	l := &flowLayout{g: g}
	var met []int
	l.col, l.placing, met = columns(g)
	l.cols = orderColumns(g, l.col, met)
	l.routes()
	l.sizes()
	l.stack()
	l.ports()
	l.tracks()
	l.widths()
	l.layLanes()
	l.draw()
	l.unclutter()
	return l
}

// routes says how each arrow goes and which sides of its boxes it meets.
func (l *flowLayout) routes() {
	edges := l.g.Edges
	l.route = make([]route, len(edges))
	l.back = make([]bool, len(edges))
	l.side = make([][2]int, len(edges))
	l.loops = make([]int, len(l.g.Nodes))
	l.loopOf = make([]int, len(edges))
	for k, e := range edges {
		d := l.col[e.To] - l.col[e.From]
		l.back[k] = d < 0
		switch {
		case e.From == e.To:
			l.route[k] = loop
			l.loopOf[k] = l.loops[e.From]
			l.loops[e.From]++
		case d == 0:
			l.route[k] = within
		case d == 1 || d == -1:
			l.route[k] = across
		default:
			l.route[k] = around
		}
		switch {
		case l.route[k] == within:
			l.side[k] = [2]int{right, right}
		case l.back[k]:
			l.side[k] = [2]int{left, right}
		default:
			l.side[k] = [2]int{right, left}
		}
	}
}

// sizes sizes the boxes to their text. A box grows taller when it has
// more arrows on a side than room for a label between each two.
func (l *flowLayout) sizes() {
	count := make([][2]int, len(l.g.Nodes))
	for k, e := range l.g.Edges {
		if l.route[k] != loop {
			count[e.From][l.side[k][0]]++
			count[e.To][l.side[k][1]]++
		}
	}
	l.boxes = make([]rect, len(l.g.Nodes))
	for v, nd := range l.g.Nodes {
		w, h := boxSize(nd.Title, nd.Lines, minBoxW)
		most := max(count[v][left], count[v][right])
		l.boxes[v].w, l.boxes[v].h = w, max(h, 2*portPad+float64(most-1)*portStep)
	}
}

// above is the room a box needs above it for its loops and their labels.
func (l *flowLayout) above(v int) float64 {
	if l.loops[v] == 0 {
		return 0
	}
	return loopHeight(l.loops[v]-1) + labelH/2 + 6
}

// stack places the boxes of each column one under the other, centred
// on the tallest column. The loops of the first box of each column take
// room above them all, so that the boxes, not the loops, line up.
func (l *flowLayout) stack() {
	colH := make([]float64, len(l.cols))
	top := 0.0
	for c, vs := range l.cols {
		for i, v := range vs {
			if i > 0 {
				colH[c] += boxGap + l.above(v)
			} else {
				top = max(top, l.above(v))
			}
			colH[c] += l.boxes[v].h
		}
	}
	tallest := slices.Max(append(colH, 0))
	for c, vs := range l.cols {
		y := margin + top + (tallest-colH[c])/2
		for i, v := range vs {
			if i > 0 {
				y += l.above(v)
			}
			l.boxes[v].y = y
			y += l.boxes[v].h + boxGap
			l.bottom = max(l.bottom, l.boxes[v].bottom())
		}
	}
}

// ports spreads the arrows along each side of a box in the order of
// where they go, so that they do not cross on the way; those that run
// below the boxes leave last.
func (l *flowLayout) ports() {
	sides := make([][2][]end, len(l.g.Nodes))
	for k, e := range l.g.Edges {
		fromKey, toKey := l.boxes[e.To].cy(), l.boxes[e.From].cy()
		switch l.route[k] {
		case loop:
			continue
		case around:
			fromKey, toKey = math.MaxFloat64, math.MaxFloat64
		}
		s := l.side[k]
		sides[e.From][s[0]] = append(sides[e.From][s[0]], end{k, false, fromKey})
		sides[e.To][s[1]] = append(sides[e.To][s[1]], end{k, true, toKey})
	}
	l.port = make([][2]float64, len(l.g.Edges))
	for v := range sides {
		r := l.boxes[v]
		for _, ends := range sides[v] {
			slices.SortStableFunc(ends, func(a, b end) int {
				if a.key != b.key {
					return cmpFloat(a.key, b.key)
				}
				// Bulges to a box above nest the other way round from
				// those to a box below, so that the first is the outermost.
				if a.key < r.cy() && l.route[a.edge] == within && l.route[b.edge] == within {
					return b.edge - a.edge
				}
				return a.edge - b.edge
			})
			step := 0.0
			if len(ends) > 1 {
				step = min(portStep, (r.h-2*portPad)/float64(len(ends)-1))
			}
			y0 := r.cy() - step*float64(len(ends)-1)/2
			for i, en := range ends {
				l.port[en.edge][btoi(en.head)] = y0 + step*float64(i)
			}
		}
	}
}

// tracks gives each bulge, and each arrow below the boxes, its vertical
// runs in the gaps. Runs nearer the column start lower, so that the way
// out to a run further off does not cross them; a bulge has its label
// just beyond its run, and the next run keeps clear of it.
func (l *flowLayout) tracks() {
	ncol := len(l.cols)
	l.runs = make([][2][]track, ncol)
	add := func(gap, side int, t track) {
		l.runs[gap][side] = append(l.runs[gap][side], t)
	}
	for k, e := range l.g.Edges {
		a, b := l.col[e.From], l.col[e.To]
		y1, y2 := l.port[k][0], l.port[k][1]
		switch {
		case l.route[k] == within:
			add(a, left, track{edge: k, top: min(y1, y2)})
		case l.route[k] == around && b > a:
			add(a, left, track{edge: k, top: y1})
			add(b-1, right, track{edge: k, head: true, top: y2})
		case l.route[k] == around:
			add(a-1, right, track{edge: k, top: y1})
			add(b, left, track{edge: k, head: true, top: y2})
		}
	}
	l.runsW = make([][2]float64, ncol)
	for c := range ncol {
		for side, runs := range l.runs[c] {
			slices.SortStableFunc(runs, func(a, b track) int {
				if a.top != b.top {
					return cmpFloat(b.top, a.top)
				}
				return a.edge - b.edge
			})
			at := float64(trackPad)
			for i := range runs {
				runs[i].off = at
				reach := at + trackPad
				at += trackStep
				if l.route[runs[i].edge] == within {
					reach = at + labelW(l.g.Edges[runs[i].edge].Label) + 6
					at = reach
				}
				l.runsW[c][side] = max(l.runsW[c][side], reach)
			}
		}
	}
}

// widths sets the width of each column and of the gap right of it, room
// for the runs on either side and for the curves and labels between
// them, and so where the boxes and the runs stand.
func (l *flowLayout) widths() {
	ncol := len(l.cols)
	l.colW = make([]float64, ncol)
	for c, vs := range l.cols {
		for _, v := range vs {
			l.colW[c] = max(l.colW[c], l.boxes[v].w)
		}
	}
	l.gapW = make([]float64, ncol)
	for c := range ncol {
		curves := 0.0   // the room across arrows need
		overflow := 0.0 // how far loop labels reach out of the column
		for k, e := range l.g.Edges {
			a, b := l.col[e.From], l.col[e.To]
			switch l.route[k] {
			case across:
				if min(a, b) == c {
					curves = max(curves, curveMin+labelW(e.Label)+8+headLen)
				}
			case loop:
				if a == c {
					r := l.boxes[e.From]
					reach := l.colW[c]/2 + loopWidth(l.loops[e.From]-1, r.w) + 6 + labelW(e.Label)
					overflow = max(overflow, reach-l.colW[c])
				}
			}
		}
		l.gapW[c] = max(l.runsW[c][left]+curves+l.runsW[c][right], overflow+trackPad)
		if c < ncol-1 {
			l.gapW[c] = max(l.gapW[c], gapMin)
		}
	}
	l.colX = make([]float64, ncol)
	x := float64(margin)
	for c := range ncol {
		l.colX[c] = x
		x += l.colW[c] + l.gapW[c]
	}
	l.w = x
	for c, vs := range l.cols {
		for _, v := range vs {
			l.boxes[v].x = l.colX[c] + (l.colW[c]-l.boxes[v].w)/2
		}
	}
	l.runX = make([][2]float64, len(l.g.Edges))
	for c := range ncol {
		lo, hi := l.gapLeft(c), l.gapLeft(c)+l.gapW[c]
		for _, t := range l.runs[c][left] {
			l.runX[t.edge][btoi(t.head)] = lo + t.off
		}
		for _, t := range l.runs[c][right] {
			l.runX[t.edge][btoi(t.head)] = hi - t.off
		}
	}
}

func (l *flowLayout) gapLeft(c int) float64 { return l.colX[c] + l.colW[c] }

// free is the room between the runs of gap c, where curves go.
func (l *flowLayout) free(c int) (lo, hi float64) {
	return l.gapLeft(c) + l.runsW[c][left], l.gapLeft(c) + l.gapW[c] - l.runsW[c][right]
}

// layLanes gives the arrows below the boxes their lanes: each takes the
// highest one free along its way, the shorter ones first, so that the
// longer ones pass beneath.
func (l *flowLayout) layLanes() {
	var under []int
	for k := range l.g.Edges {
		if l.route[k] == around {
			under = append(under, k)
		}
	}
	span := func(k int) (lo, hi float64) {
		return min(l.runX[k][0], l.runX[k][1]), max(l.runX[k][0], l.runX[k][1])
	}
	slices.SortStableFunc(under, func(a, b int) int {
		la, ha := span(a)
		lb, hb := span(b)
		return cmpFloat(ha-la, hb-lb)
	})
	l.lane = make([]int, len(l.g.Edges))
	var taken [][]int // the arrows in each lane
	for _, k := range under {
		lo, hi := span(k)
		lane := slices.IndexFunc(taken, func(in []int) bool {
			return !slices.ContainsFunc(in, func(o int) bool {
				olo, ohi := span(o)
				return lo < ohi+trackStep && olo < hi+trackStep
			})
		})
		if lane < 0 {
			lane = len(taken)
			taken = append(taken, nil)
		}
		taken[lane] = append(taken[lane], k)
		l.lane[k] = lane
	}
	l.lanes = len(taken)
}

func (l *flowLayout) laneY(lane int) float64 {
	return l.bottom + 26 + float64(lane)*laneStep
}

// draw draws the arrows and puts each label where it belongs.
func (l *flowLayout) draw() {
	l.paths = make([]string, len(l.g.Edges))
	l.labels = make([]rect, len(l.g.Edges))
	for k, e := range l.g.Edges {
		from, to := l.boxes[e.From], l.boxes[e.To]
		y1, y2 := l.port[k][0], l.port[k][1]
		lw := labelW(e.Label)
		var p path
		switch l.route[k] {
		case across:
			// Between the runs of the gap, a curve leaves the tail and a
			// level stretch with the label over it reaches the head: the
			// heads are spread along their box, so the labels are too.
			x1, x2 := from.right(), to.x
			start, stop := l.free(l.col[e.From])
			dir := 1.0
			if l.back[k] {
				x1, x2 = from.x, to.right()
				stop, start = l.free(l.col[e.To])
				dir = -1
			}
			stretch := stop - dir*(lw+8+headLen)
			m := (start + stretch) / 2
			p.raw("M", x1, y1)
			if start != x1 {
				p.raw("H", start)
			}
			p.raw("C", m, y1, m, y2, stretch, y2)
			p.raw("H", x2)
			l.labels[k] = rect{(stretch + stop - dir*headLen - lw) / 2, y2 - 2 - labelH, lw, labelH}
		case within:
			t := l.runX[k][0]
			p.corners(from.right(), y1, t, y1, t, y2, to.right(), y2)
			l.labels[k] = rect{t + 6, (y1+y2)/2 - labelH/2, lw, labelH}
		case around:
			t1, t2 := l.runX[k][0], l.runX[k][1]
			x1, x2 := from.right(), to.x
			if l.back[k] {
				x1, x2 = from.x, to.right()
			}
			y := l.laneY(l.lane[k])
			p.corners(x1, y1, t1, y1, t1, y, t2, y, t2, y2, x2, y2)
			l.labels[k] = rect{(t1 + t2 - lw) / 2, y - 2 - labelH, lw, labelH}
		case loop:
			// A cubic whose control points stand 4/3 of the height above
			// its ends peaks at that height.
			cx, top := from.cx(), from.y
			w, h := loopWidth(l.loopOf[k], from.w), loopHeight(l.loopOf[k])
			p.raw("M", cx-w, top)
			p.raw("C", cx-w, top-h*4/3, cx+w, top-h*4/3, cx+w, top)
			outer := loopWidth(l.loops[e.From]-1, from.w)
			l.labels[k] = rect{cx + outer + 6, top - h - labelH/2, lw, labelH}
		}
		l.paths[k] = p.String()
	}
}

// unclutter moves down each label that would lie on an earlier one, or
// on a box, until it does not, and sizes the diagram to what it holds.
func (l *flowLayout) unclutter() {
	h := l.bottom
	if l.lanes > 0 {
		h = l.laneY(l.lanes - 1)
	}
	for k := range l.labels {
		r := &l.labels[k]
		r.x = max(r.x, margin/2)
		r.y = max(r.y, margin/2)
		for moved := true; moved; {
			moved = false
			for _, o := range slices.Concat(l.labels[:k], l.boxes) {
				if r.overlaps(o) {
					r.y = o.bottom() + 2
					moved = true
				}
			}
		}
		l.w = max(l.w, r.right())
		h = max(h, r.bottom())
	}
	l.w = math.Ceil(l.w + margin)
	l.h = math.Ceil(h + margin)
}

// loopWidth is half the width of the kth loop on a box w wide; loops nest.
func loopWidth(k int, w float64) float64 {
	return min(loopW+8*float64(k), w/2-4)
}

// loopHeight is the height of the kth loop on a box: each leaves room
// for the label of the one inside it.
func loopHeight(k int) float64 {
	return loopH + float64(k)*(labelH+2)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// columns places every node in a column: the walk Flow describes, from
// the kinds nothing flows into or, when every kind has something flowing
// in, from the first outside kind a move takes from (else the first
// move's). Nodes the walk never reached go left of the first met node
// they move into, or in column 0 when they move into none, the walk
// going on from each. It returns the columns, for each edge whether it
// placed its target, and the nodes in the order they were met.
func columns(g Graph) (col []int, placing []bool, met []int) {
	n := len(g.Nodes)
	col = make([]int, n)
	placing = make([]bool, len(g.Edges))
	seen := make([]bool, n)
	into := make([]bool, n)
	outOf := make([][]int, n)
	for k, e := range g.Edges {
		if e.From != e.To {
			into[e.To] = true
		}
		outOf[e.From] = append(outOf[e.From], k)
	}
	var queue []int
	visit := func(v, c int) {
		seen[v] = true
		col[v] = c
		met = append(met, v)
		queue = append(queue, v)
	}
	for v := range n {
		if !into[v] {
			visit(v, 0)
		}
	}
	if len(queue) == 0 && len(g.Edges) > 0 {
		start := g.Edges[0].From
		for _, e := range g.Edges {
			if g.Nodes[e.From].Outside {
				start = e.From
				break
			}
		}
		visit(start, 0)
	}
	for {
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for _, k := range outOf[u] {
				if v := g.Edges[k].To; !seen[v] {
					placing[k] = true
					visit(v, col[u]+1)
				}
			}
		}
		if len(met) == n {
			break
		}
		next, c := -1, 0
		for _, e := range g.Edges {
			if !seen[e.From] && seen[e.To] {
				next, c = e.From, col[e.To]-1
				break
			}
		}
		if next < 0 {
			for v := range n {
				if !seen[v] {
					next = v
					break
				}
			}
		}
		visit(next, c)
	}
	least := 0
	for _, c := range col {
		least = min(least, c)
	}
	for v := range col {
		col[v] -= least
	}
	return col, placing, met
}

// orderColumns orders the nodes of each column, starting from the order
// they were met, by the barycentre of their neighbours in the column
// before, sweeping left to right, then in the column after, sweeping
// right to left, four times. A node with no neighbour there keeps its
// place as its key; ties keep the order they had.
func orderColumns(g Graph, col []int, met []int) [][]int {
	ncol := 0
	for _, c := range col {
		ncol = max(ncol, c+1)
	}
	cols := make([][]int, ncol)
	for _, v := range met {
		cols[col[v]] = append(cols[col[v]], v)
	}
	pos := make([]int, len(col))
	for _, vs := range cols {
		for i, v := range vs {
			pos[v] = i
		}
	}
	type key struct{ sum, count int }
	keys := make([]key, len(col))
	sweep := func(c, by int) {
		for _, v := range cols[c] {
			keys[v] = key{}
		}
		for _, e := range g.Edges {
			if col[e.From] == c && col[e.To] == by {
				keys[e.From].sum += pos[e.To]
				keys[e.From].count++
			}
			if col[e.To] == c && col[e.From] == by {
				keys[e.To].sum += pos[e.From]
				keys[e.To].count++
			}
		}
		for _, v := range cols[c] {
			if keys[v].count == 0 {
				keys[v] = key{pos[v], 1}
			}
		}
		// Compares the fractions exactly, in whole numbers.
		slices.SortStableFunc(cols[c], func(a, b int) int {
			return keys[a].sum*keys[b].count - keys[b].sum*keys[a].count
		})
		for i, v := range cols[c] {
			pos[v] = i
		}
	}
	for range 4 {
		for c := 1; c < ncol; c++ {
			sweep(c, c-1)
		}
		for c := ncol - 2; c >= 0; c-- {
			sweep(c, c+1)
		}
	}
	return cols
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// path builds the d attribute of a <path>.
type path struct{ strings.Builder }

func (p *path) raw(cmd string, xy ...float64) {
	if p.Len() > 0 {
		p.WriteByte(' ')
	}
	p.WriteString(cmd)
	for i, v := range xy {
		if i > 0 {
			p.WriteByte(' ')
		}
		p.WriteString(num(v))
	}
}

// corners draws straight lines through the points x0, y0, x1, y1, …,
// each level or upright, rounding the turns.
func (p *path) corners(xy ...float64) {
	p.raw("M", xy[0], xy[1])
	n := len(xy) / 2
	for i := 1; i < n-1; i++ {
		x, y := xy[2*i], xy[2*i+1]
		inX, inY := x-xy[2*i-2], y-xy[2*i-1]
		outX, outY := xy[2*i+2]-x, xy[2*i+3]-y
		r := min(corner, math.Hypot(inX, inY)/2, math.Hypot(outX, outY)/2)
		if r == 0 {
			continue
		}
		p.raw("L", x-r*unit(inX), y-r*unit(inY))
		p.raw("Q", x, y, x+r*unit(outX), y+r*unit(outY))
	}
	p.raw("L", xy[2*n-2], xy[2*n-1])
}

// unit is the sign of d: the direction of a level or upright line.
func unit(d float64) float64 {
	return float64(cmpFloat(d, 0))
}
