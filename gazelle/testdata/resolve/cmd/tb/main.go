package main

import (
	"fmt"

	"example.com/shop/ledger/stocktb"

	"github.com/chobo-lang/chobo/runtime/go/chobotb"
)

func main() { fmt.Println(stock.TigerBeetle, chobotb.U128{}) }
