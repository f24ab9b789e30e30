package ids

// Part is one part hashed after a role's name.
type Part struct {
	// Name says what the part holds: "book", "tenant", "account_kind",
	// "args" and so on.
	Name string
	// Many is true for a run of values, one part each (argument values,
	// key values), in declaration order.
	Many bool
}

// Role is one use of the scheme: the parts hashed after the role's name,
// in order, and how many bits of the hash are kept.
type Role struct {
	Name  string
	Parts []Part
	// Bits is 128 for an id, 32 for a ledger and 16 for a code.
	Bits int
}

func parts(names ...string) []Part {
	out := make([]Part, len(names))
	for i, n := range names {
		out[i] = Part{Name: n}
	}
	return out
}

func many(name string) Part { return Part{Name: name, Many: true} }

// Roles lists every role the functions of this package hash, with the
// parts each one takes: the scheme as data, for tools that compute ids
// themselves (`chobo api` prints it). A test keeps it in step with the
// functions.
var Roles = []Role{
	{Name: "account", Parts: append(parts("book", "tenant", "account_kind"), many("args")), Bits: 128},
	{Name: "floor", Parts: parts("account_id_hex"), Bits: 128},
	{Name: "room", Parts: parts("account_id_hex"), Bits: 128},
	{Name: "sink", Parts: parts("book", "tenant", "unit"), Bits: 128},
	{Name: "opening", Parts: parts("helper_id_hex"), Bits: 128},
	{Name: "transfer", Parts: append(append(parts("book", "tenant", "transfer_kind", "op"), many("key")), Part{Name: "position"}), Bits: 128},
	{Name: "kind", Parts: parts("book", "tenant", "account_kind"), Bits: 128},
	{Name: "never", Parts: []Part{}, Bits: 128},
	{Name: "content", Parts: parts("book", "tenant", "transfer_kind", "op", "definition", "content"), Bits: 128},
	{Name: "ledger", Parts: parts("unit", "scale"), Bits: 32},
	{Name: "code", Parts: parts("book", "category", "name"), Bits: 16},
}
