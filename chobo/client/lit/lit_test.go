package lit

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

// calls is a syntax unlike either client's: its booleans and null are
// capitalised words, its structs are calls with named arguments, and it
// has no bigint suffix. It shows that every spelling comes from the
// table, none from the walk.
var calls = Syntax{
	Indent: "    ",
	Struct: func(typ string, elem, pointer bool) string {
		return typ + "("
	},
	Close:     ")",
	List:      func(string) string { return "[" },
	ListClose: "]",
	Field:     strings.ToLower,
	Bind:      "=",
	String:    strconv.Quote,
	True:      "True",
	False:     "False",
	Null:      "None",
}

var def = &chobotb.Def{
	Book:  "shop",
	Units: []chobotb.Unit{{Name: "JPY", Scale: 0}},
	Accounts: []chobotb.AccountKind{
		{Name: "stock", Unit: 0, Params: 1, Lower: &chobotb.Bound{Value: 0, Reason: "out of \"stock\""}},
		{Name: "world", Unit: 0, Outside: true},
	},
	Transfers: []chobotb.TransferKind{{
		Name: "buy", Definition: "transfer buy", Legacy: "transfer buy, bounded", Pending: true, Timeout: 60,
		Params:      []chobotb.Param{{Name: "sku"}, {Name: "n", Amount: true}},
		Key:         []int{0},
		PostAmounts: []int{1},
		Moves: []chobotb.Move{
			{Amount: 1, From: chobotb.Side{Account: 0, Args: []int{0}}, To: chobotb.Side{Account: 1}},
			{Amount: -1, Literal: 9007199254740993, From: chobotb.Side{Account: 1}, To: chobotb.Side{Account: 0, Args: []int{0}}},
		},
	}},
}

func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Syntax
		want string
	}{
		{"calls", calls, `Def(
    book="shop",
    units=[
        Unit(name="JPY", scale=0),
    ],
    accounts=[
        AccountKind(name="stock", unit=0, params=1, outside=False, lower=Bound(value=0, reason="out of \"stock\""), upper=None),
        AccountKind(name="world", unit=0, params=0, outside=True, lower=None, upper=None),
    ],
    transfers=[
        TransferKind(
            name="buy", definition="transfer buy", legacy="transfer buy, bounded", pending=True, timeout=60,
            params=[Param(name="sku", amount=False), Param(name="n", amount=True)],
            key=[0], postamounts=[1],
            moves=[
                Move(amount=1, literal=0, from=Side(account=0, args=[0]), to=Side(account=1, args=[])),
                Move(amount=-1, literal=9007199254740993, from=Side(account=1, args=[]), to=Side(account=0, args=[0])),
            ],
        ),
    ],
)`},
		{"padded with a suffix", Syntax{
			Indent: " ", Struct: func(string, bool, bool) string { return "{" }, Close: "}", Pad: " ",
			List: func(string) string { return "<" }, ListClose: ">", Field: func(n string) string { return "." + n }, Bind: ": ",
			String: strconv.Quote, True: "yes", False: "no", Null: "nothing", Big: "L",
		}, `{
 .Book: "shop",
 .Units: <
  { .Name: "JPY", .Scale: 0 },
 >,
 .Accounts: <
  { .Name: "stock", .Unit: 0, .Params: 1, .Outside: no, .Lower: { .Value: 0L, .Reason: "out of \"stock\"" }, .Upper: nothing },
  { .Name: "world", .Unit: 0, .Params: 0, .Outside: yes, .Lower: nothing, .Upper: nothing },
 >,
 .Transfers: <
  {
   .Name: "buy", .Definition: "transfer buy", .Legacy: "transfer buy, bounded", .Pending: yes, .Timeout: 60,
   .Params: <{ .Name: "sku", .Amount: no }, { .Name: "n", .Amount: yes }>,
   .Key: <0>, .PostAmounts: <1>,
   .Moves: <
    { .Amount: 1, .Literal: 0L, .From: { .Account: 0, .Args: <0> }, .To: { .Account: 1, .Args: <> } },
    { .Amount: -1, .Literal: 9007199254740993L, .From: { .Account: 1, .Args: <> }, .To: { .Account: 0, .Args: <0> } },
   >,
  },
 >,
}`},
		{"tuples", func() Syntax {
			s := calls
			s.List, s.ListClose, s.Lone = func(string) string { return "(" }, ")", ","
			return s
		}(), `Def(
    book="shop",
    units=(
        Unit(name="JPY", scale=0),
    ),
    accounts=(
        AccountKind(name="stock", unit=0, params=1, outside=False, lower=Bound(value=0, reason="out of \"stock\""), upper=None),
        AccountKind(name="world", unit=0, params=0, outside=True, lower=None, upper=None),
    ),
    transfers=(
        TransferKind(
            name="buy", definition="transfer buy", legacy="transfer buy, bounded", pending=True, timeout=60,
            params=(Param(name="sku", amount=False), Param(name="n", amount=True)),
            key=(0,), postamounts=(1,),
            moves=(
                Move(amount=1, literal=0, from=Side(account=0, args=(0,)), to=Side(account=1, args=())),
                Move(amount=-1, literal=9007199254740993, from=Side(account=1, args=()), to=Side(account=0, args=(0,))),
            ),
        ),
    ),
)`},
	} {
		if got := Write(def, tc.s); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}
