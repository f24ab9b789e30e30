package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
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
