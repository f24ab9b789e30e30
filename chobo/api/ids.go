package api

import "github.com/chobo-lang/chobo/chobo/ids"

// IDScheme is how chobo derives ids, so that a tool can compute them
// itself: SHA-256 over the length-prefixed parts, in order, of the
// prefix, the role's name and the role's parts; the first Bits/8 bytes of
// the hash, read big-endian, are the value.
type IDScheme struct {
	Prefix string `json:"prefix"`
	Hash   string `json:"hash"`
	// Encoding says how one part is written: its UTF-8 byte length as a
	// big-endian 32-bit number, then its UTF-8 bytes.
	Encoding string `json:"encoding"`
	// Zero and Max say what replaces a value of 0 and, for a 128-bit id,
	// of 2^128-1 (TigerBeetle refuses both as ids).
	Zero  string   `json:"zero"`
	Max   string   `json:"max"`
	Roles []IDRole `json:"roles"`
}

// IDRole is one role: the parts hashed after its name, and the bits kept.
type IDRole struct {
	Role  string   `json:"role"`
	Parts []IDPart `json:"parts"`
	Bits  int      `json:"bits"`
}

// IDPart is one part of a role; Many is true for a run of values (one
// part each, in declaration order).
type IDPart struct {
	Name string `json:"name"`
	Many bool   `json:"many"`
}

func idScheme() IDScheme {
	out := IDScheme{
		Prefix:   ids.Version,
		Hash:     "sha256",
		Encoding: "u32be_length_utf8",
		Zero:     "1",
		Max:      "2^128-2",
		Roles:    []IDRole{},
	}
	for _, r := range ids.Roles {
		role := IDRole{Role: r.Name, Parts: []IDPart{}, Bits: r.Bits}
		for _, p := range r.Parts {
			role.Parts = append(role.Parts, IDPart{Name: p.Name, Many: p.Many})
		}
		out.Roles = append(out.Roles, role)
	}
	return out
}
