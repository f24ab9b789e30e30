// Package draw draws the diagrams of chobo's HTML documentation as SVG:
// the flow of a book between its account kinds ([Flow]) and the life of
// a hold ([Lifecycle]). It knows nothing of books: the page turns a book
// into a [Graph] or a [Life], and draw only lays out boxes, arrows and
// text. Text is measured by estimate, without fonts, so the same input
// gives the same bytes on every machine.
//
// # Styling
//
// The SVG carries no colours. The page's stylesheet gives them, for the
// light and the dark scheme alike, through these classes (scope them
// under the root class: the names are short and would match elsewhere):
//
//	svg.chobo-flow            the root of a flow diagram
//	svg.chobo-life            the root of a hold's life
//	.node, .node.outside      an account kind, <g>; outside ones are dashed and rounded
//	.state                    a state of a hold, <g>, with one of .held .posted .voided .expired;
//	                          the last three also have .final
//	.box                      the <rect> of a node or a state
//	.title, .line             a node's name (bold) and its other lines, <text>
//	.edge                     an arrow and its label, <g>; the page adds its own
//	                          class to highlight the arrows of one transfer
//	.edge.held                an arrow of a hold (dashed)
//	.edge.back                an arrow drawn right to left (a return)
//	.edge.post .edge.void .edge.expire .edge.begin
//	                          the arrows of a hold's life; .begin leaves the start
//	.arrow                    the <path> of an arrow; fill none, stroke the colour
//	.label                    an arrow's label, <text>
//	.label-bg                 the <rect> under a label; fill it with the background
//	                          colour, so that the arrow it lies on does not strike
//	                          through it
//	.start                    the filled <circle> a hold's life starts from
//	.note                     a line under a hold's life, <text>
//
// Arrowheads are one <marker> per diagram whose fill is context-stroke,
// so they take the colour of the arrow, highlighted or not.
//
// Dashes, rounding and the font are set as attributes: the layout counts
// on text of 13px in a sans-serif font, so the stylesheet should not
// change the font size, and need not set dashes.
package draw

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// Text metrics, estimated: a 13px sans-serif font averages about 7.5px
// for an ASCII character, East Asian wide characters take twice that,
// and bold text is a little wider.
const (
	fontSize  = 13
	charWidth = 7.5
	boldRatio = 1.1
	lineStep  = 18 // from one line of a box to the next
	baseline  = 13 // from the top of a line to its baseline
	padX      = 12 // inside a box, left and right of the text
	padY      = 8  // inside a box, above and below the text
	labelH    = 16 // the height of an arrow's label
	labelPadX = 4  // the background's room left and right of a label
	margin    = 16 // around the whole diagram
	headLen   = 10 // how far back from its tip an arrowhead reaches, and a bit
)

// textWidth estimates how wide s is drawn, counting runes, wide ones twice.
func textWidth(s string, bold bool) float64 {
	n := 0
	for _, r := range s {
		n++
		if wide(r) {
			n++
		}
	}
	w := float64(n) * charWidth
	if bold {
		w *= boldRatio
	}
	return w
}

// wide reports whether r is an East Asian wide or full-width character:
// Hangul Jamo, CJK and kana, Hangul syllables, compatibility ideographs,
// vertical and compatibility forms, full-width forms and the
// supplementary ideographic planes.
func wide(r rune) bool {
	return (r >= 0x1100 && r <= 0x115F) || (r >= 0x2E80 && r <= 0xA4CF) ||
		(r >= 0xAC00 && r <= 0xD7A3) || (r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0xFE30 && r <= 0xFE4F) || (r >= 0xFF00 && r <= 0xFF60) ||
		(r >= 0xFFE0 && r <= 0xFFE6) || (r >= 0x20000 && r <= 0x3FFFD)
}

// rect is an axis-aligned rectangle: a box, or the room a label takes.
type rect struct{ x, y, w, h float64 }

func (r rect) right() float64  { return r.x + r.w }
func (r rect) bottom() float64 { return r.y + r.h }
func (r rect) cx() float64     { return r.x + r.w/2 }
func (r rect) cy() float64     { return r.y + r.h/2 }

// overlaps reports whether r and o share more than an edge.
func (r rect) overlaps(o rect) bool {
	return r.x < o.right() && o.x < r.right() && r.y < o.bottom() && o.y < r.bottom()
}

// labelW is the width of the room a label of text s takes.
func labelW(s string) float64 {
	return textWidth(s, false) + 2*labelPadX
}

// svg writes SVG text. Numbers are rounded to a tenth of a pixel: finer
// is not seen, and the last bits of the arithmetic stay out of the bytes.
type svg struct{ strings.Builder }

func num(f float64) string {
	return strconv.FormatFloat(float64(int64(f*10+sign(f)*0.5))/10, 'f', -1, 64)
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// raw writes its arguments as they are, numbers formatted with num.
func (b *svg) raw(parts ...any) {
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			b.WriteString(p)
		case float64:
			b.WriteString(num(p))
		case int:
			b.WriteString(strconv.Itoa(p))
		}
	}
}

// text writes s escaped for XML, in text or in a quoted attribute.
// Characters XML cannot hold, and bytes that are not UTF-8, become U+FFFD.
func (b *svg) text(s string) {
	xml.EscapeText(b, []byte(s))
}

// open writes the root element with its natural size, its name for
// assistive technology and a title a browser shows on hover.
func (b *svg) open(class string, w, h float64, label string) {
	b.raw(`<svg xmlns="http://www.w3.org/2000/svg" class="`, class, `" width="`, w, `" height="`, h,
		`" viewBox="0 0 `, w, ` `, h, `" role="img" aria-label="`)
	b.text(label)
	b.raw(`" font-family="sans-serif" font-size="`, fontSize, `">`, "\n<title>")
	b.text(label)
	b.raw("</title>\n")
}

// marker writes the arrowhead every arrow of the diagram ends with.
// Its size is in the diagram's units, not the stroke's: an arrow drawn
// thicker to stand out keeps the same head.
func (b *svg) marker(id string) {
	b.raw(`<defs><marker id="`)
	b.text(id)
	b.raw(`" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto">`,
		`<path d="M0,1 L10,5 L0,9 z" fill="context-stroke"/></marker></defs>`, "\n")
}

// label writes an arrow's label centred in r, on a background that
// hides the arrow where the label lies.
func (b *svg) label(s string, r rect) {
	b.raw(`<rect class="label-bg" x="`, r.x, `" y="`, r.y, `" width="`, r.w, `" height="`, r.h, `" rx="3"/>`)
	b.raw(`<text class="label" x="`, r.cx(), `" y="`, r.y+baseline-1, `" text-anchor="middle">`)
	b.text(s)
	b.raw("</text>")
}

// box writes a box with its title in bold and its lines under it.
func (b *svg) box(r rect, rounded bool, title string, lines []string) {
	b.raw(`<rect class="box" x="`, r.x, `" y="`, r.y, `" width="`, r.w, `" height="`, r.h, `"`)
	if rounded {
		b.raw(` rx="10" stroke-dasharray="5 3"`)
	} else {
		b.raw(` rx="2"`)
	}
	b.raw("/>")
	for i, s := range append([]string{title}, lines...) {
		class, weight := "line", ""
		if i == 0 {
			class, weight = "title", ` font-weight="bold"`
		}
		b.raw(`<text class="`, class, `" x="`, r.cx(), `" y="`, r.y+padY+float64(i*lineStep)+baseline, `" text-anchor="middle"`, weight, ">")
		b.text(s)
		b.raw("</text>")
	}
}

// boxSize is the size of a box holding a bold title and lines.
func boxSize(title string, lines []string, minW float64) (w, h float64) {
	w = textWidth(title, true)
	for _, s := range lines {
		w = max(w, textWidth(s, false))
	}
	return max(w+2*padX, minW), float64(2*padY + lineStep*(1+len(lines)))
}
