package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/chobo-lang/chobo/chobo/interp"
)

// Encode writes scenarios in the format Read takes, as one JSON array.
// Keys come in a fixed order and arguments in parameter order, so the
// same scenarios give the same bytes.
func Encode(scs []Scenario) []byte {
	var b bytes.Buffer
	b.WriteString("[")
	for i, sc := range scs {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {\n    \"name\": " + str(sc.Name))
		if sc.TitleJa != "" {
			b.WriteString(",\n    \"title_ja\": " + str(sc.TitleJa))
		}
		if sc.Tenant != "" {
			b.WriteString(",\n    \"tenant\": " + str(sc.Tenant))
		}
		if sc.Outcomes > 0 {
			fmt.Fprintf(&b, ",\n    \"outcomes\": %d", sc.Outcomes)
		}
		b.WriteString(",\n    \"steps\": [")
		for j, st := range sc.Steps {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n      ")
			switch {
			case st.Call != nil:
				b.WriteString(encodeCall(st.Call, st.Expect))
			case st.Together != nil:
				b.WriteString(`{"together": [`)
				for ci, calls := range st.Together {
					if ci > 0 {
						b.WriteString(", ")
					}
					b.WriteString("[")
					for oi, c := range calls {
						if oi > 0 {
							b.WriteString(", ")
						}
						b.WriteString(encodeCall(c, ""))
					}
					b.WriteString("]")
				}
				b.WriteString("]}")
			case st.Read != nil:
				b.WriteString(encodeRead(sc.Steps, st.Read))
			case st.Deploy != nil && st.Deploy.File == "":
				b.WriteString(`{"deploy": {"bounds": ` + st.Deploy.EncodeBounds() + `}}`)
			case st.Deploy != nil:
				b.WriteString(`{"deploy": ` + str(st.Deploy.File) + `}`)
			default:
				b.WriteString(`{"pass": ` + str(st.PassText) + `}`)
			}
		}
		b.WriteString("\n    ]\n  }")
	}
	b.WriteString("\n]\n")
	return b.Bytes()
}

func str(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func encodeCall(c *Call, expect string) string {
	var b bytes.Buffer
	b.WriteString(`{"op": ` + str(c.Transfer.Name+"."+string(c.Op)) + `, "args": {`)
	n := 0
	arg := func(k, v string) {
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString(str(k) + ": " + v)
		n++
	}
	post := c.Op == "post" || c.Op == "void"
	for _, p := range c.Transfer.Params {
		if v, ok := c.Strings[p.Name]; ok {
			arg(p.Name, str(v))
		} else if v, ok := c.Amounts[p.Name]; ok && !post {
			arg(p.Name, strconv.FormatInt(v, 10))
		}
	}
	b.WriteString("}")
	if post && c.Amounts != nil {
		b.WriteString(`, "amounts": {`)
		n = 0
		for _, p := range c.Transfer.Params {
			if v, ok := c.Amounts[p.Name]; ok {
				arg(p.Name, strconv.FormatInt(v, 10))
			}
		}
		b.WriteString("}")
	}
	if expect != "" {
		b.WriteString(`, "expect": ` + str(expect))
	}
	b.WriteString("}")
	return b.String()
}

// encodeRead writes a read step with its fields in the order the format
// lists them.
func encodeRead(steps []Step, rd *ReadStep) string {
	parts := []string{`"read": ` + str(rd.Kind)}
	add := func(k, v string) { parts = append(parts, str(k)+": "+v) }
	if rd.Name != "" {
		add("name", str(rd.Name))
	}
	if rd.Account != nil {
		add("account", str(rd.Account.String()))
	}
	if rd.Transfer != nil {
		add("transfer", str(rd.Transfer.Name))
	}
	if rd.Kind == ReadEntries {
		var kv []string
		for i, p := range rd.Transfer.Key {
			kv = append(kv, str(p.Name)+": "+str(rd.Key[i]))
		}
		add("key", "{"+strings.Join(kv, ", ")+"}")
	}
	if len(rd.Transfers) > 0 {
		var names []string
		for _, t := range rd.Transfers {
			names = append(names, str(t.Name))
		}
		add("transfers", "["+strings.Join(names, ", ")+"]")
	}
	if rd.FromText != "" {
		add("from", str(rd.FromText))
	}
	if rd.ToText != "" {
		add("to", str(rd.ToText))
	}
	if rd.Order == interp.Newest {
		add("order", `"newest"`)
	}
	if rd.Limit > 0 {
		add("limit", strconv.Itoa(rd.Limit))
	}
	if rd.AfterStep >= 0 {
		add("after", str(steps[rd.AfterStep].Read.Name))
	}
	if rd.AtText != "" {
		add("at", str(rd.AtText))
	}
	if ex := rd.Expect; ex != nil {
		var lines []string
		for _, l := range ex.Lines {
			lines = append(lines, str(l))
		}
		switch rd.Kind {
		case ReadBalance:
			add("expect", `{"balance": `+lines[0]+`}`)
		default:
			key := "entries"
			if rd.Kind == ReadHolds {
				key = "holds"
			}
			e := `{"` + key + `": [` + strings.Join(lines, ", ") + `]`
			if ex.More != nil {
				e += `, "more": ` + strconv.FormatBool(*ex.More)
			}
			add("expect", e+"}")
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
