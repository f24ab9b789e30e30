package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Args are the values of a call's parameters, written as one JSON object
// whose keys keep the order of the transfer's parameters (a Go map would
// sort them). Strings are JSON strings, amounts JSON integers, as in a
// scenario file. A nil Args is written as null.
type Args []Arg

// Arg is one parameter's value.
type Arg struct {
	Name     string
	String   string
	Amount   int64
	IsAmount bool
}

// MarshalJSON writes the values in order.
func (a Args) MarshalJSON() ([]byte, error) {
	if a == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, x := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(x.Name)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		if x.IsAmount {
			b.WriteString(strconv.FormatInt(x.Amount, 10))
			continue
		}
		v, err := json.Marshal(x.String)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the values back in the order written.
func (a *Args) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*a = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("arguments: want a JSON object")
	}
	out := Args{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		tok, err = dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case string:
			out = append(out, Arg{Name: name, String: v})
		case json.Number:
			n, err := v.Int64()
			if err != nil {
				return fmt.Errorf("arguments: %s: %v", name, err)
			}
			out = append(out, Arg{Name: name, Amount: n, IsAmount: true})
		default:
			return fmt.Errorf("arguments: %s: want a string or an integer", name)
		}
	}
	*a = out
	return nil
}
