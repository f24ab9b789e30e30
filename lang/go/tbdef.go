package golang

import (
	"strconv"

	"github.com/chobo-lang/chobo/chobo/client/lit"
)

// defSyntax writes the chain definition as a Go expression of type
// *chobotb.Def; go/format lines it up afterwards.
var defSyntax = lit.Syntax{
	Indent: "\t",
	Struct: func(typ string, elem, pointer bool) string {
		switch {
		case elem:
			return "{" // the list's type says it
		case pointer:
			return "&chobotb." + typ + "{"
		}
		return "chobotb." + typ + "{"
	},
	Close: "}",
	List: func(elem string) string {
		if elem == "int" {
			return "[]int{"
		}
		return "[]chobotb." + elem + "{"
	},
	ListClose: "}",
	Field:     func(name string) string { return name },
	Bind:      ": ",
	String:    strconv.Quote,
	True:      "true",
	False:     "false",
	Null:      "nil",
}
