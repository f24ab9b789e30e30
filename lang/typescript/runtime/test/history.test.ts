// The history reads of the runtime, against scripted answers: what each
// read sends, how it names and reads the rows it gets, and what it refuses
// before anything is sent.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ChoboError, DEFAULT_PAGE, MAX_PAGE, checkQuery, pageLimit } from "../src/chobo.ts";
import { type HistoryKinds, type Queryable, balanceAt, callEntries, openHolds, parseCursor, statement } from "../src/postgres.ts";

/** scripted answers each query with the next of its row lists. */
function scripted(...steps: unknown[][]): Queryable & { sent: { text: string; values: unknown[] }[] } {
  const sent: { text: string; values: unknown[] }[] = [];
  return {
    sent,
    async query(text: string, values: unknown[] = []) {
      sent.push({ text, values });
      const rows = steps.shift();
      if (rows === undefined) {
        throw new Error("no more steps");
      }
      return { rows };
    },
  };
}

const kinds: HistoryKinds = new Map([
  ["top_up", { args: ["top_up_id", "card", "amount"], key: ["top_up_id"], amounts: [] }],
  ["payment", { args: ["payment_id", "card", "price", "fee"], key: ["payment_id"], amounts: ["price", "fee"] }],
]);

const T0 = new Date("2026-01-02T03:04:05.678Z");

/** row is a row of history_statement or history_call, in its column order. */
function row(cursor: number, kind: string, op: string, key: string[], args: string[], move: number, out: boolean, posted: string, after: string[] | null) {
  return {
    cursor: String(cursor), kind, op, key, args, move, out, account: "wallet", account_args: ["c-1"],
    posted, held_in: "0", held_out: "0", after_posted: after?.[0] ?? null, after_held_in: after?.[1] ?? null, after_held_out: after?.[2] ?? null, at: T0,
  };
}

const isBad = (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_BAD_ARGUMENT";

test("a statement asks for one entry more than its page, to tell whether more are left", async () => {
  const db = scripted([
    row(1, "top_up", "do", ["t-1"], ["t-1", "c-1", "500"], 1, false, "500", ["500", "0", "0"]),
    row(2, "payment", "hold", ["p-1"], ["p-1", "c-1", "100", "5"], 1, true, "0", ["500", "0", "100"]),
    row(3, "payment", "post", ["p-1"], ["p-1", "60", "5"], 1, true, "-60", ["440", "0", "0"]),
  ]);
  const st = await statement(db, "statement.wallet", "S", kinds, "t", "wallet", ["c-1"], { limit: 2 });
  assert.deepEqual(db.sent, [{ text: "S", values: ["t", "wallet", ["c-1"], null, null, null, false, 3, null] }]);
  assert.equal(st.more, true);
  assert.equal(st.next, "2");
  assert.deepEqual(st.entries.map((e) => e.cursor), ["1", "2"]);
  assert.deepEqual(st.entries[0], {
    transfer: "top_up", op: "do", key: ["t-1"], args: { top_up_id: "t-1", card: "c-1", amount: "500" }, id: "", move: 1, out: false,
    account: "wallet", accountArgs: ["c-1"], posted: 500n, heldIn: 0n, heldOut: 0n, after: { posted: 500n, held_in: 0n, held_out: 0n }, at: T0, cursor: "1",
  });
  assert.deepEqual(st.entries[1]!.args, { payment_id: "p-1", card: "c-1", price: "100", fee: "5" });
});

test("a page that holds all that is left has no more, and its next is its last cursor", async () => {
  const db = scripted([row(7, "top_up", "do", ["t-1"], ["t-1", "c-1", "500"], 1, false, "500", null)]);
  const st = await statement(db, "statement.bank", "S", kinds, "t", "bank", [], {});
  assert.equal(db.sent[0]!.values[7], DEFAULT_PAGE + 1);
  assert.deepEqual([st.more, st.next, st.entries[0]!.after], [false, "7", null]);
});

test("an empty page's next is the query's after", async () => {
  const from = new Date(0);
  const db = scripted([]);
  const st = await statement(db, "statement.wallet", "S", kinds, "t", "wallet", ["c-1"],
    { newest: true, from, to: null, transfers: ["payment"], limit: 10, after: "42" });
  assert.deepEqual(db.sent[0]!.values, ["t", "wallet", ["c-1"], from, null, ["payment"], true, 11, "42"]);
  assert.deepEqual(st, { entries: [], next: "42", more: false });
});

test("the values of a call are named as its operation took them", async () => {
  const db = scripted([
    row(1, "payment", "post", ["p-1"], ["p-1"], 1, true, "-100", null),
    row(2, "payment", "post", ["p-2"], ["p-2", "60", "5"], 1, true, "-60", null),
    row(3, "payment", "void", ["p-3"], ["p-3"], 1, true, "0", null),
    row(4, "payment", "expire", ["p-4"], ["p-4"], 2, false, "0", null),
  ]);
  const es = await callEntries(db, "payment.entries", "C", kinds, "t", "payment", ["p-1"]);
  assert.deepEqual(db.sent[0], { text: "C", values: ["t", "payment", ["p-1"]] });
  assert.deepEqual(es.map((e) => [e.op, e.args]), [
    ["post", { payment_id: "p-1" }],
    ["post", { payment_id: "p-2", price: "60", fee: "5" }],
    ["void", { payment_id: "p-3" }],
    ["expire", { payment_id: "p-4" }],
  ]);
});

test("a row the book's functions never write is an error, not a wrong entry", async () => {
  const bad = [
    row(1, "refund", "do", ["r"], ["r"], 1, false, "1", null),
    row(1, "payment", "hold", ["p"], ["p"], 1, false, "1", null),
    row(1, "payment", "undo", ["p"], ["p"], 1, false, "1", null),
    { ...row(1, "top_up", "do", ["t"], ["t", "c", "1"], 1, false, "1", null), at: "yesterday" },
  ];
  for (const r of bad) {
    await assert.rejects(callEntries(scripted([r]), "payment.entries", "C", kinds, "t", "payment", ["p"]),
      (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_UNEXPECTED");
  }
});

test("a query is checked before anything is sent", async () => {
  const bad: unknown[] = [
    { limit: -1 }, { limit: MAX_PAGE + 1 }, { limit: 1.5 }, { limit: "10" }, { after: "x" }, { after: "0" }, { after: "-3" },
    { after: "9223372036854775808" }, { transfers: ["refund"] }, { transfers: "payment" }, { from: "2026-01-01" },
    { to: new Date(Number.NaN) }, { newest: 1 }, { page: 2 }, null, "all",
  ];
  for (const q of bad) {
    const db = scripted();
    await assert.rejects(statement(db, "statement.wallet", "S", kinds, "t", "wallet", ["c-1"], q), isBad, JSON.stringify(q));
    assert.equal(db.sent.length, 0);
  }
});

test("a limit of 0 is a page of 100; the largest is 1000", () => {
  assert.equal(pageLimit("s", 0), DEFAULT_PAGE);
  assert.equal(pageLimit("s", MAX_PAGE), MAX_PAGE);
  assert.equal(checkQuery("s", {}, []).limit, DEFAULT_PAGE);
  assert.throws(() => pageLimit("s", MAX_PAGE + 1), /from 1 to 1000, or 0 for 100/);
});

test("a cursor is an entry number, at most a bigint", () => {
  assert.equal(parseCursor("s", ""), null);
  assert.equal(parseCursor("s", "9223372036854775807"), "9223372036854775807");
  assert.throws(() => parseCursor("s", "01"), isBad);
  assert.throws(() => parseCursor("s", "h3"), /not a cursor of this book's statements/);
});

test("the open holds come a row per move, and a hold's moves are put together", async () => {
  const created = new Date("2026-01-02T00:00:00Z");
  const deadline = new Date("2026-01-02T00:30:00Z");
  const move = (kind: string, key: string[], n: number, to: string, amount: string, dl: Date | null) =>
    ({ kind, key, move: n, from_account: "wallet", from_args: ["c-1"], to_account: to, to_args: [], amount, created, deadline: dl });
  const db = scripted([
    move("payment", ["p-1"], 1, "merchants", "100", deadline),
    move("payment", ["p-1"], 2, "fees", "5", deadline),
    move("payment", ["p-2"], 1, "merchants", "7", deadline),
    move("other", ["p-2"], 1, "merchants", "8", null),
  ]);
  const hs = await openHolds(db, "openHolds.wallet", "H", "t", "wallet", ["c-1"], null);
  assert.deepEqual(db.sent[0], { text: "H", values: ["t", "wallet", ["c-1"], null] });
  assert.deepEqual(hs.map((h) => [h.transfer, h.key, h.moves.map((m) => [m.move, m.to, m.amount]), h.deadline]), [
    ["payment", ["p-1"], [[1, "merchants", 100n], [2, "fees", 5n]], deadline],
    ["payment", ["p-2"], [[1, "merchants", 7n]], deadline],
    ["other", ["p-2"], [[1, "merchants", 8n]], null],
  ]);
  assert.deepEqual(hs[0]!.moves[0], { move: 1, from: "wallet", fromArgs: ["c-1"], to: "merchants", toArgs: [], amount: 100n });
  assert.equal(hs[0]!.created, created);

  const any = scripted([]);
  assert.deepEqual(await openHolds(any, "payment.openHolds", "H", "t", null, null, "payment"), []);
  assert.deepEqual(any.sent[0]!.values, ["t", null, null, "payment"]);
});

test("a balance at a time sends the time, and refuses what is not one", async () => {
  const db = scripted([{ posted: "440", held_in: "0", held_out: "5" }]);
  assert.deepEqual(await balanceAt(db, "balanceAt.wallet", "B", "t", "wallet", ["c-1"], T0), { posted: 440n, held_in: 0n, held_out: 5n });
  assert.deepEqual(db.sent[0], { text: "B", values: ["t", "wallet", ["c-1"], T0] });
  for (const at of [undefined, "2026-01-01T00:00:00Z", 0, new Date("no")]) {
    const none = scripted();
    await assert.rejects(balanceAt(none, "balanceAt.wallet", "B", "t", "wallet", ["c-1"], at), isBad);
    assert.equal(none.sent.length, 0);
  }
});
