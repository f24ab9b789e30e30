package draw

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

var lives = []struct {
	name string
	l    Life
	want []string // the classes of the arrows, in order
}{
	{
		name: "expires",
		l: Life{
			Label: "Life of a ship hold", Held: "held", Posted: "posted", Voided: "voided", Expired: "expired",
			Post: "post", Void: "void", Expire: "expires after 30 minutes", Expires: true,
			Refused: []string{"post after void: already_voided", "void after post: already_posted", "post after expiry: expired"},
		},
		want: []string{"edge begin", "edge post", "edge void", "edge expire"},
	},
	{
		name: "never",
		l: Life{
			Label: "Life of a pay hold", Held: "held", Posted: "posted", Voided: "voided", Expired: "expired",
			Post: "post", Void: "void", Expire: "expire",
		},
		want: []string{"edge begin", "edge post", "edge void"},
	},
	{
		name: "japanese",
		l: Life{
			Label: "出荷の保留", ID: "hold-1", Held: "保留中", Posted: "確定", Voided: "取消", Expired: "期限切れ",
			Post: "確定する", Void: "取り消す", Expire: "30 分後に期限切れ", Expires: true,
		},
		want: []string{"edge begin", "edge post", "edge void", "edge expire"},
	},
}

func TestLifecycleGolden(t *testing.T) {
	for _, tt := range lives {
		t.Run(tt.name, func(t *testing.T) {
			checkGolden(t, "life_"+tt.name+".svg", Lifecycle(tt.l))
		})
	}
}

func TestLifecycle(t *testing.T) {
	for _, tt := range lives {
		t.Run(tt.name, func(t *testing.T) {
			out := Lifecycle(tt.l)
			if Lifecycle(tt.l) != out {
				t.Fatal("a second call drew different bytes")
			}
			parseXML(t, out)
			var doc struct {
				Width   string `xml:"width,attr"`
				Height  string `xml:"height,attr"`
				ViewBox string `xml:"viewBox,attr"`
				Role    string `xml:"role,attr"`
				Label   string `xml:"aria-label,attr"`
				Title   string `xml:"title"`
				Groups  []struct {
					Class string `xml:"class,attr"`
				} `xml:"g"`
				Notes []string `xml:"text"`
			}
			if err := xml.NewDecoder(bytes.NewReader([]byte(out))).Decode(&doc); err != nil {
				t.Fatal(err)
			}
			if doc.ViewBox != "0 0 "+doc.Width+" "+doc.Height || doc.Role != "img" || doc.Label != tt.l.Label || doc.Title != tt.l.Label {
				t.Errorf("size %s×%s viewBox %q, role %q, aria-label %q, title %q", doc.Width, doc.Height, doc.ViewBox, doc.Role, doc.Label, doc.Title)
			}
			var arrows, finals []string
			for _, g := range doc.Groups {
				if strings.HasPrefix(g.Class, "edge") {
					arrows = append(arrows, g.Class)
				}
				if strings.HasSuffix(g.Class, " final") {
					finals = append(finals, g.Class)
				}
			}
			if strings.Join(arrows, ",") != strings.Join(tt.want, ",") {
				t.Errorf("arrows %q, want %q", arrows, tt.want)
			}
			if len(finals) != len(tt.want)-1 {
				t.Errorf("final states %q", finals)
			}
			if strings.Join(doc.Notes, "\n") != strings.Join(tt.l.Refused, "\n") {
				t.Errorf("notes %q, want %q", doc.Notes, tt.l.Refused)
			}
		})
	}
}

func TestLifecycleEscapes(t *testing.T) {
	l := Life{Label: `<"a" & 'b'>`, Held: "<held>", Posted: "&", Voided: "\x00", Post: "]]>", Void: "\xff", Expire: `"`, Expires: true, Refused: []string{"<x>"}}
	parseXML(t, Lifecycle(l))
}
