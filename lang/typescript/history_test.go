package typescript_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tsdriver "github.com/chobo-lang/chobo/lang/typescript/driver"
	"github.com/chobo-lang/chobo/tests/langtest"
)

// TestHistoryRefusedBeforeSending holds that both generated
// clients refuse a bad query, a bad cursor or a time that is not a Date
// before they send anything, and that a TigerBeetle client without the
// reads of an account's transfers says so: they run on a database and a
// cluster that are not there.
func TestHistoryRefusedBeforeSending(t *testing.T) {
	ts := tools(t)
	inputs := map[string][]byte{"main.ts": []byte(historyRefusals)}
	for _, tg := range []string{"postgres-typescript", "tigerbeetle-typescript"} {
		c := langtest.CaseClient(t, "history", tg)
		inputs[strings.TrimSuffix(tg, "-typescript")+"/"+c.Path] = c.Data
	}
	work := t.TempDir()
	if err := tsdriver.Compile(ts.Node, work, inputs); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ts.Node.Program, filepath.Join(work, "dist", "main.js")).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	wantLines := []string{
		"statement.wallet: CHOBO_BAD_ARGUMENT: chobo: statement.wallet: a statement's limit is the number 1001; it is a whole number from 1 to 1000, or 0 for 100",
		"statement.wallet: CHOBO_BAD_ARGUMENT: chobo: statement.wallet: a statement's limit is the number -1; it is a whole number from 1 to 1000, or 0 for 100",
		`statement.bank: CHOBO_BAD_ARGUMENT: chobo: statement.bank: the string "h3" is not a cursor of this book's statements; give the cursor or next a statement answered`,
		"statement.bank: CHOBO_BAD_ARGUMENT: chobo: statement.bank: transfers holds the string \"refund\", which is not a transfer kind of the book; it has top_up, payment",
		"balanceAt.wallet: CHOBO_BAD_ARGUMENT: chobo: balanceAt.wallet: the time must be a Date, got an Invalid Date",
		"payment.entries: CHOBO_BAD_ARGUMENT: chobo: payment.entries: the key has card, which is not part of payment's key",
		"queries sent: 0",
		"statement.wallet: CHOBO_BAD_ARGUMENT: chobo: statement.wallet: a statement's limit is the number 5000; it is a whole number from 1 to 1000, or 0 for 100",
		`statement.wallet: CHOBO_BAD_ARGUMENT: chobo: statement.wallet: the string "12y3" is not a cursor of this book's statements; give the cursor or next a statement answered`,
		`statement.bank: CHOBO_BAD_ARGUMENT: chobo: statement.bank: the string "012" is not a cursor of this book's statements; give the cursor or next a statement answered`,
		"statement.bank: CHOBO_BAD_ARGUMENT: chobo: statement.bank: transfers holds the string \"refund\", which is not a transfer kind of the book; it has top_up, payment",
		"balanceAt.bank: CHOBO_BAD_ARGUMENT: chobo: balanceAt.bank: the time must be a Date, got an Invalid Date",
		"payment.entries: CHOBO_BAD_ARGUMENT: chobo: payment.entries: the key has card, which is not part of payment's key",
		"requests sent: 0",
		"statement.wallet: CHOBO_UNSUPPORTED: chobo: statement.wallet: the TigerBeetle client does not read an account's transfers (getAccountTransfers, queryTransfers)",
		"balanceAt.bank: CHOBO_UNSUPPORTED: chobo: balanceAt.bank: the TigerBeetle client does not read an account's transfers (getAccountTransfers, queryTransfers)",
		"openHolds.wallet: CHOBO_UNSUPPORTED: chobo: openHolds.wallet: the TigerBeetle client does not read an account's transfers (getAccountTransfers, queryTransfers)",
		"payment.openHolds: CHOBO_UNSUPPORTED: chobo: payment.openHolds: the TigerBeetle client does not read an account's transfers (getAccountTransfers, queryTransfers)",
		"requests sent: 0",
	}
	if !slices.Equal(lines, wantLines) {
		t.Errorf("the reads answered\n  %s\nwant\n  %s", strings.Join(lines, "\n  "), strings.Join(wantLines, "\n  "))
	}
}

// historyRefusals calls the history reads of both clients of the history
// case with what they must refuse, over a database and a TigerBeetle
// client that count what they are handed and answer nothing.
const historyRefusals = `import { postgres } from "./postgres/card.js";
import { tigerbeetle } from "./tigerbeetle/card.js";

let queries = 0;
const db = { query: async (): Promise<{ rows: unknown[] }> => { queries++; return { rows: [] }; } };
let requests = 0;
const never = async (): Promise<never> => { requests++; throw new Error("sent"); };
const client = { createAccounts: never, createTransfers: never, lookupAccounts: never, lookupTransfers: never, getAccountTransfers: never, queryTransfers: never };

async function show(where: string, p: Promise<unknown>): Promise<void> {
  try {
    await p;
    console.log(where + ": answered");
  } catch (e) {
    const err = e as { code?: string; message?: string };
    console.log(where + ": " + String(err.code) + ": " + String(err.message));
  }
}

const pg = postgres(db, { tenant: "t" });
await show("statement.wallet", pg.statement.wallet({ card: "c-1" }, { limit: 1001 }));
await show("statement.wallet", pg.statement.wallet({ card: "c-1" }, { limit: -1 }));
await show("statement.bank", pg.statement.bank({ after: "h3" }));
await show("statement.bank", pg.statement.bank({ transfers: ["refund"] }));
await show("balanceAt.wallet", pg.balanceAt.wallet({ card: "c-1" }, new Date("soon")));
const wrongKey: { payment_id: string } = Object.assign({ payment_id: "p-1" }, { card: "c-1" });
await show("payment.entries", pg.payment.entries(wrongKey));
console.log("queries sent: " + queries);

const tb = tigerbeetle(client, { tenant: "t" });
await show("statement.wallet", tb.statement.wallet({ card: "c-1" }, { limit: 5000 }));
await show("statement.wallet", tb.statement.wallet({ card: "c-1" }, { after: "12y3" }));
await show("statement.bank", tb.statement.bank({ after: "012" }));
await show("statement.bank", tb.statement.bank({ newest: true, transfers: ["refund"] }));
await show("balanceAt.bank", tb.balanceAt.bank(new Date("soon")));
await show("payment.entries", tb.payment.entries(wrongKey));
console.log("requests sent: " + requests);

// A client without the two reads of an account's transfers makes calls
// but cannot read history.
const plain = tigerbeetle({ createAccounts: never, createTransfers: never, lookupAccounts: never, lookupTransfers: never }, { tenant: "t" });
await show("statement.wallet", plain.statement.wallet({ card: "c-1" }, { newest: true }));
await show("balanceAt.bank", plain.balanceAt.bank(new Date()));
await show("openHolds.wallet", plain.openHolds.wallet({ card: "c-1" }));
await show("payment.openHolds", plain.payment.openHolds());
console.log("requests sent: " + requests);
`
