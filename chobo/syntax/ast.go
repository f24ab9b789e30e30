package syntax

// Pos is a place in a file: 1-based line, and 1-based column counted in
// characters so that Japanese names point where a reader looks.
type Pos struct {
	Line int
	Col  int
}

// Ident is a name as written, with its place.
type Ident struct {
	Pos  Pos
	Name string
}

// Number is a numeric literal as written ("-12.50"); its value depends on
// the unit's scale, which only resolution knows.
type Number struct {
	Pos  Pos
	Text string
}

// File is a parsed book file. Declarations keep source order.
type File struct {
	Name         string
	Lines        []string
	Book         *BookDecl
	ExtraBooks   []*BookDecl // further `book` lines, for resolution to report
	Descriptions []*Description
	Units        []*UnitDecl
	Accounts     []*AccountDecl
	Transfers    []*TransferDecl
}

// BookDecl is `book NAME vN`.
type BookDecl struct {
	Pos     Pos
	Name    Ident
	Version int
}

// Description is `description "…"`.
type Description struct {
	Pos  Pos
	Text string
}

// Tax is the tax marking of a money unit.
type Tax int

const (
	NoTax Tax = iota
	InclTax
	ExclTax
)

func (t Tax) String() string {
	switch t {
	case InclTax:
		return "incl_tax"
	case ExclTax:
		return "excl_tax"
	}
	return ""
}

// UnitDecl is `unit NAME [scale N] [incl_tax|excl_tax]`.
type UnitDecl struct {
	Pos    Pos
	Name   Ident
	Scale  *Number // nil when not written (scale 0)
	Tax    Tax
	TaxPos Pos
}

// Param is `name: type` in a parameter list.
type Param struct {
	Name Ident
	Type Ident
}

// AccountDecl is `account NAME[(params)] : UNIT [outside]` and its block.
type AccountDecl struct {
	Pos          Pos
	Name         Ident
	Params       []Param
	Unit         Ident
	Outside      bool
	OutsidePos   Pos
	Descriptions []*Description
	Bounds       []*Bound
}

// BoundKind tells a lower bound from an upper one.
type BoundKind int

const (
	AtLeast BoundKind = iota
	AtMost
)

func (k BoundKind) String() string {
	if k == AtMost {
		return "at most"
	}
	return "at least"
}

// Bound is `at least|at most X [refused as R]`.
type Bound struct {
	Pos    Pos
	Kind   BoundKind
	Value  Number
	Reason *Ident // nil when `refused as` is missing
}

// TransferDecl is `transfer NAME(params)` and its block.
type TransferDecl struct {
	Pos          Pos
	Name         Ident
	Params       []Param
	Descriptions []*Description
	Keys         []*KeyDecl
	Pendings     []*PendingDecl
	Moves        []*Move
}

// KeyDecl is `key a, b`.
type KeyDecl struct {
	Pos   Pos
	Names []Ident
}

// PendingDecl is `pending`, optionally followed by how the hold ends.
type PendingDecl struct {
	Pos   Pos
	Ends  bool // false for a bare `pending`
	Never bool // `pending never expires`
	// For `expires after N WORD`:
	Amount   Number
	TimeWord Ident
}

// Move is `move AMOUNT from ACCOUNT to ACCOUNT`.
type Move struct {
	Pos    Pos
	Amount Amount
	From   AccountRef
	To     AccountRef
}

// Amount is either a parameter name or a literal.
type Amount struct {
	Name    *Ident
	Literal *Number
}

// Pos returns where the amount is written.
func (a Amount) Pos() Pos {
	if a.Name != nil {
		return a.Name.Pos
	}
	return a.Literal.Pos
}

// AccountRef is an account with its arguments: `stock(sku)`.
type AccountRef struct {
	Name Ident
	Args []Ident
}
