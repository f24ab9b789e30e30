package main

import (
	"fmt"

	"example.com/shop/ledger/stock"
)

func main() { fmt.Println(stock.Postgres) }
