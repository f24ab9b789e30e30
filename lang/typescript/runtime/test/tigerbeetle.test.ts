import assert from "node:assert/strict";
import { test } from "node:test";
import { type Client, CreateAccountStatus, CreateTransferStatus } from "tigerbeetle-node";
import { ChoboError } from "../src/chobo.ts";
import {
  type ChainEvent, type Def, type TigerBeetleAccount, type TigerBeetleClient, type TigerBeetleTransfer,
  MAX_REQUEST_EVENTS, MAX_TIMEOUT_MS, TigerBeetleBook, accountStatus, balanceOf, content, definitionTag, finish, finishOf, holdOf, jsonString, lookups, plan, read, readStatus,
  statusChain, tenantIdsOf, transferStatus, UNBOUNDED,
} from "../src/tigerbeetle.ts";
import { neverId } from "../src/ids.ts";

// The official client must be what a book takes: the check is the compiler's.
export function takes(c: Client): TigerBeetleClient {
  return c;
}

test("the status numbers are tigerbeetle-node 0.17.9's", () => {
  const transfers = Object.entries(CreateTransferStatus).filter(([, v]) => typeof v === "number");
  const accounts = Object.entries(CreateAccountStatus).filter(([, v]) => typeof v === "number");
  assert.ok(transfers.length > 60 && accounts.length > 20);
  for (const [name, n] of transfers) {
    assert.equal(transferStatus(n as number), name);
  }
  for (const [name, n] of accounts) {
    assert.equal(accountStatus(n as number), name);
  }
  assert.equal(transferStatus(9999), "status 9999");
});

test("content is JSON as Go's encoding/json writes it", () => {
  assert.equal(content(["o-1", 3n, ""]), '["o-1",3,""]');
  assert.equal(jsonString('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(jsonString("<&>"), '"\\u003c\\u0026\\u003e"');
  assert.equal(jsonString("\b\f\n\r\t\u0001\u001f\u007f"), '"\\b\\f\\n\\r\\t\\u0001\\u001f\u007f"');
  assert.equal(jsonString("\u2028\u2029在庫😀"), '"\\u2028\\u2029在庫😀"');
});

// A book of one bounded account and one outside one, with a hold of two moves.
const def: Def = {
  book: "shop", units: [{ name: "pcs", scale: 0 }],
  accounts: [
    { name: "stock", unit: 0, params: 1, outside: false, lower: { value: 2n, reason: "low" }, upper: { value: 100n, reason: "full" } },
    { name: "out", unit: 0, params: 0, outside: true, lower: null, upper: null },
    { name: "debt", unit: 0, params: 0, outside: false, lower: { value: -50n, reason: "limit" }, upper: null },
  ],
  transfers: [
    {
      name: "take", definition: "00", pending: true, timeout: 60,
      params: [{ name: "sku", amount: false }, { name: "qty", amount: true }], key: [0], postAmounts: [1],
      moves: [
        { amount: 1, literal: 0n, from: { account: 0, args: [0] }, to: { account: 1, args: [] } },
        { amount: -1, literal: 1n, from: { account: 2, args: [] }, to: { account: 1, args: [] } },
      ],
    },
    {
      name: "loop", definition: "01", pending: false, timeout: 0,
      params: [{ name: "a", amount: false }, { name: "b", amount: false }], key: [0, 1], postAmounts: [],
      moves: [{ amount: -1, literal: 1n, from: { account: 0, args: [0] }, to: { account: 0, args: [1] } }],
    },
    {
      name: "lend", definition: "02", pending: false, timeout: 0,
      params: [{ name: "ref", amount: false }, { name: "qty", amount: true }], key: [0], postAmounts: [],
      moves: [
        { amount: 1, literal: 0n, from: { account: 1, args: [] }, to: { account: 2, args: [] } },
        { amount: 1, literal: 0n, from: { account: 1, args: [] }, to: { account: 0, args: [0] } },
      ],
    },
  ],
};

test("a chain has a key guard unless its first event is the only one a bound may refuse", () => {
  // Into debt (a floor to give back, nothing to refuse), then into stock: its room may refuse, after the first event.
  assert.deepEqual(plan(def, "", 2, "do", ["r", 1n]).chain.map((e) => e.role), ["move", "floor_give", "move", "room_net", "room_take", "key_guard"]);
  assert.equal(plan(def, "", 0, "hold", ["A", 1n]).chain.at(-1)!.role, "key_guard");
  // Out of a stock kept at 0 or more by its flag alone: the move is the one event a bound may refuse.
  const flagOnly: Def = { ...def, accounts: def.accounts.map((a, i) => (i === 0 ? { ...a, lower: { value: 0n, reason: "empty" }, upper: null } : a)) };
  assert.deepEqual(plan(flagOnly, "", 1, "do", ["A", "B"]).chain.map((e) => e.role), ["move"]);
});

test("a hold lays out probes, floors and rooms in move order, linked", () => {
  const p = plan(def, "", 0, "hold", ["A", 5n]);
  assert.deepEqual(p.chain.map((e) => `${e.role}/${e.move}`), ["move/1", "lower_probe/1", "lower_probe_void/1", "room_give/1", "move/2", "floor_net/2", "floor_take/2", "key_guard/0"]);
  assert.deepEqual(p.chain.map((e) => e.reason), ["low", "low", "", "", "", "", "limit", ""]);
  // The netting: posted though the rest is held, from the floor to its
  // shortfall, as much as they allow, under the sink's code, with an id
  // after every position of the layout.
  const net = p.chain[5]!.transfer;
  assert.deepEqual([net.debit_account_id, net.flags & ~1, net.amount, net.timeout, net.code], [p.chain[6]!.transfer.debit_account_id, 48, UNBOUNDED, 0, p.openings[1]!.code]);
  const linked = p.chain.slice(0, -1);
  assert.ok(linked.slice(0, -1).every((e) => (e.transfer.flags & 1) === 1) && (linked.at(-1)!.transfer.flags & 1) === 0);
  // The key guard: outside the chain, the first event's id, a void of a transfer chobo never makes.
  const g = p.chain.at(-1)!.transfer;
  assert.equal(g.id, p.chain[0]!.transfer.id);
  assert.equal(g.pending_id, neverId());
  assert.equal(g.flags, 8);
  assert.deepEqual([g.debit_account_id, g.credit_account_id, g.amount, g.user_data_128, g.ledger, g.code, g.timeout], [0n, 0n, 0n, 0n, 0, 0, 0]);
  assert.equal(p.chain[0]!.transfer.amount, 5n);
  assert.equal(p.chain[0]!.transfer.timeout, 60);
  assert.equal(p.chain[1]!.transfer.timeout, 0, "a probe never expires on its own");
  assert.equal(p.chain[2]!.transfer.pending_id, p.chain[1]!.transfer.id);
  assert.equal(p.accounts.length, 7, "stock, out, sink, room(stock), debt, floor(debt), shortfall(floor(debt))");
  assert.equal(p.accounts[6]!.flags, 4, "a shortfall's credits must not exceed its debits");
  assert.deepEqual(p.openings.map((o) => o.amount), [100n, 50n]);
  assert.equal(new Set(p.chain.map((e) => e.transfer.id)).size, p.chain.length - 1);
  assert.deepEqual(plan(def, "", 0, "hold", ["A", 5n]), p, "the same call, the same bytes");
  assert.deepEqual(plan(def, "", 0, "hold", ["A", 5n], tenantIdsOf(def, "")), p, "a book's ids worked out once, the same bytes");
  assert.notEqual(plan(def, "t2", 0, "hold", ["A", 5n]).chain[0]!.transfer.id, p.chain[0]!.transfer.id, "tenants apart");
  assert.equal(plan(def, "", 1, "do", ["A", "A"]).sameAccount, true);
  assert.throws(() => plan(def, "", 1, "hold", ["A", "B"]), ChoboError);
});

test("post and void end the hold's pending events; the lookups reach every place a layout may put one", () => {
  const hold = plan(def, "", 0, "hold", ["A", 5n]).chain;
  const ids = lookups(def, "", 0, ["A"]);
  assert.equal(ids.length, 12, "six places a move");
  assert.deepEqual(ids.slice(0, 5), hold.slice(0, 5).map((e) => e.transfer.id));
  const post = finish(def, "", 0, "post", ["A"], [3n, 1n]);
  assert.deepEqual(post.map((e) => e.transfer.pending_id), [hold[0], hold[3], hold[4], hold[6]].map((e) => e!.transfer.id));
  assert.deepEqual(post.map((e) => e.transfer.amount), [3n, 3n, 1n, 1n]);
  assert.ok(post.every((e) => (e.transfer.flags & 4) === 4));
  const v = finish(def, "", 0, "void", ["A"], []);
  assert.ok(v.every((e) => e.transfer.amount === 0n && (e.transfer.flags & 8) === 8));
  const s = statusChain(def, "", 0, ["A"], 7n, 8n);
  assert.equal(s[0]!.transfer.pending_id, hold[0]!.transfer.id);
  assert.equal(s[1]!.transfer.debit_account_id, s[1]!.transfer.credit_account_id);
});

test("a hold laid out by another version is ended by the events found", () => {
  // The version before: no probe, no room on stock, no floor on debt.
  const before: Def = {
    ...def, accounts: def.accounts.map((a, i) => (i === 0 ? { ...a, lower: { value: 0n, reason: "low" }, upper: null } : i === 2 ? { ...a, lower: null } : a)),
  };
  const made = plan(before, "", 0, "hold", ["A", 5n]).chain;
  assert.deepEqual(made.map((e) => e.role), ["move", "move"]);
  const records = new Map(made.map((e) => [e.transfer.id, e.transfer] as const));
  const h = holdOf(def, "", 0, lookups(def, "", 0, ["A"]), records);
  assert.ok(h !== null && h !== "other");
  assert.deepEqual(h.amounts, [5n, 1n]);
  const post = finishOf(def, "", 0, "post", ["A"], [3n, 1n], h.hold);
  assert.deepEqual(post.map((e) => e.transfer.pending_id), [made[0]!.transfer.id, made[1]!.transfer.id]);
  assert.deepEqual(post.map((e) => e.move), [1, 2]);
  assert.deepEqual(post.map((e) => e.transfer.amount), [3n, 1n]);
  // The same hold under the version it was made by sends the same chain.
  assert.deepEqual(post, finish(before, "", 0, "post", ["A"], [3n, 1n]));
  // And the other way: a hold of this version, with its probe, room,
  // netting and floor, ended by the version before.
  const now = plan(def, "", 0, "hold", ["A", 5n]).chain;
  const all = new Map(now.slice(0, -1).map((e) => [e.transfer.id, e.transfer] as const));
  const back = holdOf(before, "", 0, lookups(before, "", 0, ["A"]), all);
  assert.ok(back !== null && back !== "other");
  assert.deepEqual(finishOf(before, "", 0, "void", ["A"], [], back.hold).map((e) => e.transfer.pending_id), finish(def, "", 0, "void", ["A"], []).map((e) => e.transfer.pending_id));
  assert.equal(holdOf(def, "", 0, lookups(def, "", 0, ["B"]), records), null);
});

const CREATED = 0xffffffff;
const chain = (reasons: string[]): ChainEvent[] => reasons.map((reason) => ({ role: "move", move: 1, reason, transfer: {} as TigerBeetleTransfer }));

test("the first status that decides gives the answer", () => {
  const n = (s: string) => Number(Object.entries(CreateTransferStatus).find(([k]) => k === s)![1]);
  assert.deepEqual(read(chain(["", ""]), [CREATED, CREATED]), { result: "done" });
  assert.deepEqual(read(chain(["", ""]), [n("exists"), n("linked_event_failed")]), { result: "done_before" });
  assert.deepEqual(read(chain(["", ""]), [n("linked_event_failed"), n("exists")]), { result: "refused", reason: "key_conflict" });
  assert.deepEqual(read(chain(["", "low"]), [n("linked_event_failed"), n("exceeds_credits")]), { result: "refused", reason: "low" });
  assert.deepEqual(read(chain([""]), [n("id_already_failed")]), { result: "refused", reason: "already_refused" });
  assert.deepEqual(read(chain([""]), [n("exists_with_different_amount")]), { result: "refused", reason: "key_conflict" });
  assert.deepEqual(read(chain([""]), [n("pending_transfer_expired")]), { result: "refused", reason: "expired" });
  assert.throws(() => read(chain([""]), [n("exceeds_credits")]), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_UNEXPECTED");
  assert.throws(() => read(chain([""]), [n("debit_account_not_found")]), /debit_account_not_found/);
  assert.throws(() => read(chain(["", ""]), [CREATED]), ChoboError);
  assert.equal(readStatus([n("linked_event_failed"), n("accounts_must_be_different")]), "held");
  assert.equal(readStatus([n("pending_transfer_already_posted"), n("linked_event_failed")]), "posted");
  assert.equal(readStatus([n("pending_transfer_not_found"), n("linked_event_failed")]), null);
  assert.throws(() => readStatus([CREATED, CREATED]), ChoboError);
});

test("the key guard never decides the answer", () => {
  const n = (s: string) => Number(Object.entries(CreateTransferStatus).find(([k]) => k === s)![1]);
  const guarded: ChainEvent[] = [...chain(["a_short", "b_short"]), { role: "key_guard", move: 0, reason: "", transfer: {} as TigerBeetleTransfer }];
  const LF = n("linked_event_failed");
  const EWDF = n("exists_with_different_flags");
  const PTNF = n("pending_transfer_not_found");
  const IAF = n("id_already_failed");
  assert.deepEqual(read(guarded, [CREATED, CREATED, EWDF]), { result: "done" });
  assert.deepEqual(read(guarded, [n("exists"), LF, EWDF]), { result: "done_before" });
  assert.deepEqual(read(guarded, [LF, n("exceeds_credits"), PTNF]), { result: "refused", reason: "b_short" });
  assert.deepEqual(read(guarded, [n("exceeds_credits"), LF, IAF]), { result: "refused", reason: "a_short" });
  assert.deepEqual(read(guarded, [IAF, LF, IAF]), { result: "refused", reason: "already_refused" });
  assert.deepEqual(read(guarded, [LF, IAF, PTNF]), { result: "refused", reason: "already_refused" });
  for (const s of [CREATED, n("exists"), n("exists_with_different_amount"), LF]) {
    assert.throws(() => read(guarded, [CREATED, CREATED, s]), /key_guard/);
  }
});

test("a balance outside 64 bits is an error, not a wrong number", () => {
  const a = (cp: bigint, dp: bigint, pend = 0n) => ({ credits_posted: cp, debits_posted: dp, credits_pending: pend, debits_pending: 0n } as TigerBeetleAccount);
  assert.deepEqual(balanceOf("x", a(5n, 7n, 1n)), { posted: -2n, held_in: 1n, held_out: 0n });
  assert.equal(balanceOf("x", a(0n, 1n << 63n)).posted, -(1n << 63n));
  assert.throws(() => balanceOf("x", a(1n << 63n, 0n)), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_BALANCE_OVERFLOW" && e.message.includes("posted"));
  assert.throws(() => balanceOf("x", a(0n, 0n, 1n << 64n)), /held_in/);
});

/** fake answers every create with created and records what was sent. */
// The key guard is answered as TigerBeetle would: its id is the first
// event's, taken when that was created, and the transfer it voids never exists.
function fake(answer?: (ts: TigerBeetleTransfer[]) => number[]) {
  const sent: string[] = [];
  const transfers = new Map<bigint, TigerBeetleTransfer>();
  const client: TigerBeetleClient = {
    async createAccounts(as) { sent.push(`accounts ${as.length}`); return as.map(() => ({ status: CREATED })); },
    async createTransfers(ts) {
      sent.push(`transfers ${ts.length}`);
      const st = answer !== undefined ? answer(ts) : ts.map((t) => t.pending_id !== neverId() ? CREATED
        : transfers.has(t.id) ? Number(CreateTransferStatus.exists_with_different_flags) : Number(CreateTransferStatus.pending_transfer_not_found));
      ts.forEach((t, i) => { if (st[i] === CREATED) transfers.set(t.id, t); });
      return st.map((status) => ({ status }));
    },
    async lookupAccounts(ids) { sent.push(`lookup accounts ${ids.length}`); return []; },
    async lookupTransfers(ids) { sent.push(`lookup transfers ${ids.length}`); return ids.flatMap((id) => transfers.has(id) ? [transfers.get(id)!] : []); },
  };
  return { client, sent };
}

test("a book makes each account and opening once, then sends the chain", async () => {
  const { client, sent } = fake();
  const book = new TigerBeetleBook(client, def);
  assert.deepEqual(await book.call(0, "hold", ["A", 5n]), { result: "done" });
  assert.deepEqual(await book.call(0, "hold", ["A", 5n]), { result: "done" });
  assert.deepEqual(sent, ["accounts 7", "transfers 2", "transfers 8", "transfers 8"]);
  sent.length = 0;
  assert.deepEqual(await book.post(0, ["A"], [2n]), { result: "done" });
  assert.deepEqual(sent, ["lookup transfers 12", "transfers 4"]);
  sent.length = 0;
  // More than the hold holds: the state decides, read by a status chain
  // (which this fake cannot answer as TigerBeetle would).
  await assert.rejects(book.post(0, ["A"], [6n]), /status chain/);
  assert.deepEqual(sent, ["lookup transfers 12", "transfers 2"]);
});

test("post with no hold is no_such_hold, without sending a chain", async () => {
  const { client, sent } = fake();
  const book = new TigerBeetleBook(client, def);
  assert.deepEqual(await book.post(0, ["none"], null), { result: "refused", reason: "no_such_hold" });
  assert.deepEqual(await book.void(0, ["none"]), { result: "refused", reason: "no_such_hold" });
  assert.deepEqual(sent, ["lookup transfers 12", "lookup transfers 12"]);
  assert.deepEqual(await book.balance(1, []), { posted: 0n, held_in: 0n, held_out: 0n });
  assert.deepEqual(await book.call(1, "do", ["A", "A"]), { result: "refused", reason: "same_account" });
  assert.throws(() => new TigerBeetleBook({} as TigerBeetleClient, def), ChoboError);
});

test("an account of another definition stops the call", async () => {
  const exists = Number(CreateAccountStatus.exists_with_different_flags);
  const client: TigerBeetleClient = { ...fake().client, async createAccounts(as) { return as.map(() => ({ status: exists })); } };
  await assert.rejects(new TigerBeetleBook(client, def).call(0, "hold", ["A", 1n]), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_ACCOUNT_CHANGED");
});

test("an opening of another amount does not stop the call; an account made before its floor or room opens it unbounded", async () => {
  const other = Number(CreateTransferStatus.exists_with_different_amount);
  const existsAccount = Number(CreateAccountStatus.exists);
  const base = fake();
  const openings: TigerBeetleTransfer[] = [];
  const used = { id: 0n, credits_posted: 3n, debits_posted: 0n, credits_pending: 0n, debits_pending: 0n } as TigerBeetleAccount;
  const client: TigerBeetleClient = {
    ...base.client,
    // The accounts were there; the ones asked for have something on them.
    async createAccounts(as) { return as.map(() => ({ status: existsAccount })); },
    async lookupAccounts(ids) { base.sent.push(`lookup accounts ${ids.length}`); return ids.map((id) => ({ ...used, id })); },
    async createTransfers(ts) {
      if (ts.every((t) => t.pending_id === 0n && t.flags === 0)) {
        openings.push(...ts);
        return ts.map(() => ({ status: other }));
      }
      return base.client.createTransfers(ts);
    },
  };
  assert.deepEqual(await new TigerBeetleBook(client, def).call(0, "hold", ["A", 1n]), { result: "done" });
  assert.ok(openings.length > 0 && openings.every((o) => o.amount === UNBOUNDED), "every opening unbounded");
  assert.ok(base.sent.some((x) => x.startsWith("lookup accounts")));
  // Made by this call: opened by the bound, with no lookup.
  const fresh = fake();
  const sentOpenings: TigerBeetleTransfer[] = [];
  const c2: TigerBeetleClient = { ...fresh.client, async createTransfers(ts) { if (ts.every((t) => t.flags === 0)) sentOpenings.push(...ts); return fresh.client.createTransfers(ts); } };
  assert.deepEqual(await new TigerBeetleBook(c2, def).call(0, "hold", ["A", 1n]), { result: "done" });
  assert.ok(sentOpenings.length > 0 && sentOpenings.every((o) => o.amount !== UNBOUNDED));
  assert.ok(!fresh.sent.some((x) => x.startsWith("lookup accounts")));
});

test("a replica that never answers is a timeout", async () => {
  const client: TigerBeetleClient = { ...fake().client, createAccounts: () => new Promise(() => {}) };
  await assert.rejects(new TigerBeetleBook(client, def, { timeoutMs: 20 }).call(0, "hold", ["A", 1n]), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_TIMEOUT");
});

test("timeoutMs is a whole number of milliseconds a timer can keep; 0 waits for ever", async () => {
  for (const ms of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_TIMEOUT_MS + 1, "20", 20n]) {
    assert.throws(() => new TigerBeetleBook(fake().client, def, { timeoutMs: ms as number }),
      (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_BAD_ARGUMENT" && e.message.includes("timeoutMs"), String(ms));
  }
  let answer = () => {};
  const f = fake();
  const client: TigerBeetleClient = { ...f.client, createAccounts: (as) => new Promise((resolve) => { answer = () => resolve(f.client.createAccounts(as)); }) };
  const call = new TigerBeetleBook(client, def, { timeoutMs: 0 }).call(0, "hold", ["A", 1n]);
  let ended = false;
  call.then(() => { ended = true; }, () => { ended = true; });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(ended, false, "still waiting, with no timer to end it");
  answer();
  assert.deepEqual(await call, { result: "done" });
});

test("requestEvents packs bulk calls and the accounts they make into requests of that many events", async () => {
  for (const n of [0, -1, 2.5, MAX_REQUEST_EVENTS + 1, "20"]) {
    assert.throws(() => new TigerBeetleBook(fake().client, def, { requestEvents: n as number }),
      (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_BAD_ARGUMENT" && e.message.includes("requestEvents"), String(n));
  }
  const lends = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ kind: 2, op: "do" as const, values: [`${prefix}${i}`, 1n], amounts: null }));
  // A lend is a chain of six events (see the key guard's test above).
  // Each makes three accounts (the stock account of its ref, its floor and
  // its room) and one opening.
  for (const [events, want] of [
    [undefined, ["accounts 90", "transfers 30", "transfers 180"]],
    [20, [...Array(4).fill("accounts 20"), "accounts 10", "transfers 20", "transfers 10", ...Array(10).fill("transfers 18")]],
  ] as const) {
    const { client, sent } = fake();
    const book = new TigerBeetleBook(client, def, events === undefined ? {} : { requestEvents: events });
    await book.call(2, "do", ["warm", 1n]);
    sent.length = 0;
    const answers = await book.bulk(lends("r", 30));
    assert.deepEqual(answers, Array(30).fill({ result: "done" }));
    assert.deepEqual(sent, want, `requestEvents ${events}`);
  }
  await assert.rejects(new TigerBeetleBook(fake().client, def, { requestEvents: 5 }).call(2, "do", ["r", 1n]),
    (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_UNEXPECTED" && e.message.includes("one request of 5"));
});

test("a hold carries its definition, and another definition neither posts nor voids it", async () => {
  assert.equal(definitionTag("00000000000000ff"), 255n);
  assert.equal(definitionTag("0000000000000000"), 1n);
  assert.equal(definitionTag("00"), 0xf1534392279bddbfn, "not a hash of chobo's: SHA-256, as Go");
  const hold = plan(def, "", 0, "hold", ["A", 5n]).chain;
  assert.ok(hold.slice(0, -1).every((e) => e.transfer.user_data_64 === definitionTag("00")));
  assert.equal(hold.at(-1)!.transfer.user_data_64, 0n, "the key guard carries none");
  assert.ok(plan(def, "", 2, "do", ["r", 1n]).chain.every((e) => e.transfer.user_data_64 === 0n), "a do carries none");
  const { client, sent } = fake();
  assert.deepEqual(await new TigerBeetleBook(client, def).call(0, "hold", ["A", 5n]), { result: "done" });
  const other: Def = { ...def, transfers: def.transfers.map((t, i) => (i === 0 ? { ...t, definition: "ff" } : t)) };
  const book = new TigerBeetleBook(client, other);
  sent.length = 0;
  assert.deepEqual(await book.void(0, ["A"]), { result: "refused", reason: "key_conflict" });
  assert.deepEqual(await book.post(0, ["A"], null), { result: "refused", reason: "key_conflict" });
  assert.deepEqual(sent, ["lookup transfers 12", "lookup transfers 12"], "nothing but the lookups");
  assert.deepEqual(await new TigerBeetleBook(client, def).void(0, ["A"]), { result: "done" });
});

// failLinked is what TigerBeetle answers to ts, whose events alone would
// answer st: a failed event fails the rest of its linked chain (a chain
// runs to the first event without the linked flag, 1), and no other; the
// events created are kept in stored.
function failLinked(ts: TigerBeetleTransfer[], st: number[], stored: Map<bigint, TigerBeetleTransfer>): number[] {
  const LF = Number(CreateTransferStatus.linked_event_failed);
  const out = [...st];
  for (let start = 0; start < ts.length; ) {
    let end = start;
    while ((ts[end]!.flags & 1) !== 0) {
      end++;
    }
    if (st.slice(start, end + 1).some((s) => s !== CREATED)) {
      for (let i = start; i <= end; i++) {
        out[i] = st[i] === CREATED ? LF : st[i]!;
      }
    }
    start = end + 1;
  }
  ts.forEach((t, i) => { if (out[i] === CREATED) stored.set(t.id, t); });
  return out;
}

test("a retry across a deploy that lays the chain out otherwise answers by what the call means", async () => {
  // Before: a stock kept at 0 or more by its flag alone, so a loop is its
  // move alone; after: the probe and rooms of def follow it, linked.
  const before: Def = { ...def, accounts: def.accounts.map((a, i) => (i === 0 ? { ...a, lower: { value: 0n, reason: "low" }, upper: null } : a)) };
  const changed: Def = { ...def, transfers: def.transfers.map((t, i) => (i === 1 ? { ...t, definition: "09" } : t)) };
  // As TigerBeetle answers: an id there already is compared flags first;
  // a failed event fails its linked chain.
  const stored = new Map<bigint, TigerBeetleTransfer>();
  const { client, sent } = fake((ts) => {
    const st = ts.map((t) => {
      const had = stored.get(t.id);
      if (t.pending_id === neverId()) {
        return had ? Number(CreateTransferStatus.exists_with_different_flags) : Number(CreateTransferStatus.pending_transfer_not_found);
      }
      if (had === undefined) {
        return CREATED;
      }
      if (had.flags !== t.flags) {
        return Number(CreateTransferStatus.exists_with_different_flags);
      }
      return had.user_data_128 === t.user_data_128 ? Number(CreateTransferStatus.exists) : Number(CreateTransferStatus.exists_with_different_user_data_128);
    });
    return failLinked(ts, st, stored);
  });
  assert.deepEqual(await new TigerBeetleBook(client, before).call(1, "do", ["A", "B"]), { result: "done" });
  const after = new TigerBeetleBook(client, def);
  sent.length = 0;
  assert.deepEqual(await after.call(1, "do", ["A", "B"]), { result: "done_before" });
  assert.deepEqual(sent.slice(-1), ["lookup transfers 1"], "the first event's record read");
  assert.deepEqual(await after.bulk([{ kind: 1, op: "do", values: ["A", "B"], amounts: null }]), [{ result: "done_before" }]);
  const other = new TigerBeetleBook(client, changed);
  assert.deepEqual(await other.call(1, "do", ["A", "B"]), { result: "refused", reason: "key_conflict" });
  assert.deepEqual(await other.bulk([{ kind: 1, op: "do", values: ["A", "B"], amounts: null }]), [{ result: "refused", reason: "key_conflict" }]);
});

test("a hold and a call made under the kind's legacy hash are this kind's", async () => {
  // A client of an earlier chobo: its hash had the bounds in it ("0a").
  const old: Def = { ...def, transfers: def.transfers.map((t) => ({ ...t, definition: t.definition + "0a" })) };
  const now: Def = { ...def, transfers: def.transfers.map((t) => ({ ...t, legacy: t.definition + "0a" })) };
  const another: Def = { ...def, transfers: def.transfers.map((t) => ({ ...t, legacy: "0b" })) };
  // As TigerBeetle answers: an id there already with the same content is
  // exists, with another exists_with_different_user_data_128; a failed
  // event fails its linked chain, and no other.
  const { client, sent } = fake((ts) => {
    const st = ts.map((t) => {
      const had = stored.get(t.id);
      if (t.pending_id === neverId()) {
        return had ? Number(CreateTransferStatus.exists_with_different_flags) : Number(CreateTransferStatus.pending_transfer_not_found);
      }
      if (had === undefined) {
        return CREATED;
      }
      return had.user_data_128 === t.user_data_128 && had.user_data_64 === t.user_data_64 ? Number(CreateTransferStatus.exists)
        : Number(CreateTransferStatus.exists_with_different_user_data_128);
    });
    return failLinked(ts, st, stored);
  });
  const stored = new Map<bigint, TigerBeetleTransfer>();
  const before = new TigerBeetleBook(client, old);
  for (const k of ["A", "B", "C", "D"]) {
    assert.deepEqual(await before.call(0, "hold", [k, 5n]), { result: "done" });
  }
  assert.deepEqual(await before.call(2, "do", ["r", 1n]), { result: "done" });
  assert.deepEqual(await before.post(0, ["D"], null), { result: "done" });

  const wrong = new TigerBeetleBook(client, another);
  assert.deepEqual(await wrong.post(0, ["A"], null), { result: "refused", reason: "key_conflict" });
  assert.deepEqual(await wrong.call(2, "do", ["r", 1n]), { result: "refused", reason: "key_conflict" });

  const book = new TigerBeetleBook(client, now);
  assert.deepEqual(await book.call(0, "hold", ["A", 5n]), { result: "done_before" });
  assert.deepEqual(await book.call(0, "hold", ["A", 4n]), { result: "refused", reason: "key_conflict" });
  assert.deepEqual(await book.call(2, "do", ["r", 1n]), { result: "done_before" });
  assert.deepEqual(await book.post(0, ["A"], null), { result: "done" });
  assert.deepEqual(await book.post(0, ["A"], null), { result: "done_before" });
  assert.deepEqual(await book.void(0, ["B"]), { result: "done" });
  assert.deepEqual(await book.post(0, ["D"], null), { result: "done_before" }, "the earlier client's post, again");
  sent.length = 0;
  const answers = await book.bulk([
    { kind: 0, op: "post", values: ["C"], amounts: null },
    { kind: 0, op: "hold", values: ["A", 5n], amounts: null },
    { kind: 2, op: "do", values: ["r", 1n], amounts: null },
    { kind: 0, op: "void", values: ["B"], amounts: null },
  ]);
  assert.deepEqual(answers, [{ result: "done" }, { result: "done_before" }, { result: "done_before" }, { result: "done_before" }]);
});
