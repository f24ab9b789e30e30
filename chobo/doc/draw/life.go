package draw

// Life is the life of one hold transfer's holds.
type Life struct {
	Label string // names the diagram: its aria-label and its <title>
	// ID starts the ids of the elements in the SVG, so that several
	// diagrams can share a page; "chobo-life" when empty.
	ID string

	Held, Posted, Voided, Expired string // state labels in the page's language
	Post, Void, Expire            string // the event labels on arrows ("post", "void", "expires after 30 minutes")
	Expires                       bool   // false for `never expires`: no Expired state, no expire arrow
	// Refused are short notes drawn as lines under the diagram, e.g.
	// "post after void: already_voided". A page that lists them in its
	// own table, where they can be read and copied as text, leaves this
	// empty.
	Refused []string
}

// The room of a hold's life, in pixels.
const (
	startR    = 5  // the radius of the start
	beginLen  = 28 // the arrow from the start to the held state
	stateGap  = 16 // between two final states
	fanLen    = 40 // the curves from the held state to the labels
	noteStep  = 17 // from one note to the next
	notesGap  = 14 // between the states and the first note
	fanStep   = 8  // between two arrows leaving the held state
	minStateW = 80
)

// Lifecycle returns the hold's state diagram as an <svg> element of its
// natural size: the start, the held state on the left, and an arrow to
// each final state on the right, labelled with its event, each label over
// a level stretch of its arrow so that none lies on another. The notes
// of Refused follow underneath, one a line.
func Lifecycle(l Life) string {
	id := l.ID
	if id == "" {
		id = "chobo-life"
	}
	arrow := id + "-arrow"

	type final struct {
		class, state, on, event string
	}
	finals := []final{{"posted", l.Posted, "post", l.Post}, {"voided", l.Voided, "void", l.Void}}
	if l.Expires {
		finals = append(finals, final{"expired", l.Expired, "expire", l.Expire})
	}
	finalW, widest := 0.0, 0.0
	for _, f := range finals {
		w, _ := boxSize(f.state, nil, minStateW)
		finalW = max(finalW, w)
		widest = max(widest, labelW(f.event))
	}
	stateH := float64(2*padY + lineStep)
	colH := float64(len(finals))*stateH + float64(len(finals)-1)*stateGap

	heldW, _ := boxSize(l.Held, nil, minStateW)
	held := rect{margin + 2*startR + beginLen, margin + (colH-stateH)/2, heldW, stateH}
	stretch := widest + 16 + headLen // the level stretch each label lies over
	fx := held.right() + fanLen + stretch
	width, height := fx+finalW, margin+colH
	for i, s := range l.Refused {
		if i == 0 {
			height += notesGap
		}
		height += noteStep
		width = max(width, margin+textWidth(s, false))
	}
	width, height = width+margin, height+margin

	var b svg
	b.open("chobo-life", width, height, l.Label)
	b.marker(arrow)
	b.raw(`<circle class="start" cx="`, float64(margin+startR), `" cy="`, held.cy(), `" r="`, startR, `"/>`, "\n")
	b.raw(`<g class="state held">`)
	b.box(held, false, l.Held, nil)
	b.raw("</g>\n")
	b.raw(`<g class="edge begin"><path class="arrow" d="M`, float64(margin+2*startR), ` `, held.cy(), ` H`, held.x, `" fill="none" marker-end="url(#`)
	b.text(arrow)
	b.raw(`)"/></g>`, "\n")
	for i, f := range finals {
		r := rect{fx, margin + float64(i)*(stateH+stateGap), finalW, stateH}
		b.raw(`<g class="state `, f.class, ` final">`)
		b.box(r, false, f.state, nil)
		b.raw("</g>\n")
	}
	for i, f := range finals {
		y1 := held.cy() + (float64(i)-float64(len(finals)-1)/2)*fanStep
		y2 := margin + float64(i)*(stateH+stateGap) + stateH/2
		x1, sx := held.right(), fx-stretch
		var p path
		p.raw("M", x1, y1)
		p.raw("C", x1+fanLen/2, y1, sx-fanLen/2, y2, sx, y2)
		p.raw("H", fx)
		b.raw(`<g class="edge `, f.on, `"><path class="arrow" d="`, p.String(), `" fill="none" marker-end="url(#`)
		b.text(arrow)
		b.raw(`)"/>`)
		lw := labelW(f.event)
		b.label(f.event, rect{sx + (stretch-headLen-lw)/2, y2 - 2 - labelH, lw, labelH})
		b.raw("</g>\n")
	}
	y := margin + colH + notesGap
	for _, s := range l.Refused {
		b.raw(`<text class="note" x="`, float64(margin), `" y="`, y+baseline, `">`)
		b.text(s)
		b.raw("</text>\n")
		y += noteStep
	}
	b.raw("</svg>\n")
	return b.String()
}
