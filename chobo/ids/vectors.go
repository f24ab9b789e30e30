package ids

// Vectors pins ids of every role, Japanese names and empty parts among
// them. The PostgreSQL function and the clients of every language are
// checked against this table: a change here changes the scheme, and
// every stored account would lose its callers.
var Vectors = []struct {
	Role  string
	Parts []string
	Hex   string
}{
	{"account", []string{"inventory", "", "stock", "A-1"}, "f0857e5a2049d01a7f4989e04ee4e37f"},
	{"account", []string{"inventory", "", "suppliers"}, "4ecee4317f649781b78b1adf6c4ee6ff"},
	{"account", []string{"在庫", "", "在庫", "sku-1"}, "5b31ddd4b05e77e50a7d6f8f1f875598"},
	{"account", []string{"在庫", "テナント", "在庫", "ｓｋｕ"}, "f2383ca7508ff28952c6d34266336443"},
	{"account", []string{"", "", ""}, "66f4896832815fb8f7f8651c13af2059"},
	{"account", []string{"b", "", "k", ""}, "1d26cab3408d93081b356cabd949c9f0"},
	{"transfer", []string{"inventory", "", "reserve", "hold", "order-1", "sku-2", "0"}, "235042af4efd4c6a036b2208597e3863"},
	{"transfer", []string{"在庫", "", "引当", "post", "注文-1", "sku-2", "3"}, "e0a3d39912da753dcb9477468aaee49d"},
	{"floor", []string{"0123456789abcdef0123456789abcdef"}, "5a88b7dddc2ec291a2cd46aea1c82b39"},
	{"room", []string{"0123456789abcdef0123456789abcdef"}, "0f3406299591a743d2eb0031f445c9c9"},
	{"sink", []string{"inventory", "", "pcs"}, "c6cdb7999fdcd9fb13c63c6bbd265a9e"},
	{"opening", []string{"ffffffffffffffffffffffffffffffff"}, "ebd9ea078671e304a648a861a5898506"},
	{"kind", []string{"wallet", "t-1", "wallet"}, "69b6e4a4e2d6e9c159daefe6de8ad919"},
	{"never", []string{}, "d4dd20cdd290ea3f39c5c7b0d822fbe7"},
	{"content", []string{"wallet", "", "pay", "do", "0f1e2d3c4b5a6978", "{\"amount\":5}"}, "b7a0b758db42d883efafc01e7c53db97"},
	{"x", []string{"a:b", "c"}, "75cf08ebecf0b813738062b031a37828"},
	{"x", []string{"a", "b:c"}, "9ec72900c58537bb35a13200ab93848a"},
	{"", []string{}, "9aab5fc26fb07e08ef6c1a3e981ce972"},
}
