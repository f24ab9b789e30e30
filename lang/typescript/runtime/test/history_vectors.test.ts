import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type Entry, type OpenHold, checkQuery } from "../src/chobo.ts";
import { hex } from "../src/ids.ts";
import {
  FILTER_CREDITS, FILTER_DEBITS, FILTER_REVERSED, TRANSFER_LINKED, TRANSFER_VOID_PENDING, type TigerBeetleAccount,
  type TigerBeetleAccountFilter, type TigerBeetleClient, type TigerBeetleQueryFilter, type TigerBeetleTransfer,
  TigerBeetleBook, transferStatus,
} from "../src/tigerbeetle.ts";
import { type VectorDef, defOf, path } from "./vectors.ts";

// history_vectors.json holds the history reads on TigerBeetle as the Go
// runtime answers them on its model of a replica, with the records they
// read (runtime/testdata/README.md). Each read here is made against a
// client that answers from those records alone, and must answer the same.

interface HvBalance { posted: string; held_in: string; held_out: string }
interface HvEntry {
  transfer: string; op: string; key: string[] | null; args: Record<string, string> | null; id: string; move: number; out: boolean;
  account: string; account_args: string[] | null; posted: string; held_in: string; held_out: string; after: HvBalance | null;
  at: string | number; cursor: string;
}
interface HvHold {
  transfer: string; key: string[] | null; id: string;
  moves: { move: number; from: string; from_args: string[] | null; to: string; to_args: string[] | null; amount: string }[];
  created: string | number; deadline: string | number;
}
interface HvRead {
  read: "statement" | "entries" | "holds" | "balance_at";
  account?: string | null; args: string[] | null; transfer?: string | null; key?: string[];
  query?: { newest: boolean; from: string; to: string; transfers: string[]; limit: number; after: string };
  at?: string; error?: boolean;
  statement?: { entries: HvEntry[]; next: string; more: boolean }; entries?: HvEntry[]; holds?: HvHold[]; balance?: HvBalance;
}
interface HvCase {
  name: string; book: string; def: VectorDef; tenant: string;
  accounts: Record<string, string | number>[]; transfers: Record<string, string | number>[];
  status_chains: { pending_id: string; statuses: string[] }[]; reads: HvRead[];
}

const file: { cases: HvCase[] } = JSON.parse(readFileSync(path("CHOBO_HISTORY_VECTORS", "history_vectors.json"), "utf8"));

/** ms reads an RFC 3339 time of the file to the millisecond a Date holds: the rest is cut off. */
function ms(s: string): number {
  const m = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(s);
  assert.ok(m !== null, `not a time of the file: ${s}`);
  return new Date(`${m[1]}.${(m[2] ?? "").slice(0, 3).padEnd(3, "0")}Z`).getTime();
}

const statusNumbers = new Map<string, number>();
for (const n of [...Array(256).keys(), 0xffffffff]) {
  statusNumbers.set(transferStatus(n), n);
}

const id = (s: unknown) => BigInt("0x" + String(s));
const big = (s: unknown) => BigInt(String(s));

/** replay is a client that answers from a case's records, counting what it is sent. */
function replay(c: HvCase): TigerBeetleClient & { sent: number } {
  const accounts: TigerBeetleAccount[] = c.accounts.map((a) => ({
    id: id(a["id"]), debits_pending: big(a["debits_pending"]), debits_posted: big(a["debits_posted"]),
    credits_pending: big(a["credits_pending"]), credits_posted: big(a["credits_posted"]), user_data_128: id(a["user_data_128"]),
    user_data_64: 0n, user_data_32: 0, reserved: 0, ledger: Number(a["ledger"]), code: Number(a["code"]), flags: Number(a["flags"]),
    timestamp: big(a["timestamp"]),
  }));
  const transfers: TigerBeetleTransfer[] = c.transfers.map((t) => ({
    id: id(t["id"]), debit_account_id: id(t["debit_account_id"]), credit_account_id: id(t["credit_account_id"]), amount: big(t["amount"]),
    pending_id: id(t["pending_id"]), user_data_128: id(t["user_data_128"]), user_data_64: big(t["user_data_64"]), user_data_32: 0,
    timeout: Number(t["timeout"]), ledger: Number(t["ledger"]), code: Number(t["code"]), flags: Number(t["flags"]), timestamp: big(t["timestamp"]),
  }));
  const chains = new Map(c.status_chains.map((s) => [id(s.pending_id), s.statuses.map((n) => statusNumbers.get(n)!)]));
  const pick = (keep: (t: TigerBeetleTransfer) => boolean, lo: bigint, hi: bigint, limit: number, reversed: boolean) => {
    const out = transfers.filter((t) => keep(t) && t.timestamp >= lo && (hi === 0n || t.timestamp <= hi));
    if (reversed) {
      out.reverse();
    }
    return out.slice(0, limit);
  };
  const client = {
    sent: 0,
    async createAccounts(): Promise<{ status: number }[]> {
      throw new Error("a read sent create_accounts");
    },
    async createTransfers(batch: TigerBeetleTransfer[]): Promise<{ status: number }[]> {
      client.sent++;
      const out: { status: number }[] = [];
      for (let i = 0; i < batch.length; i += 2) {
        const [v, f] = [batch[i]!, batch[i + 1]];
        assert.ok(v.flags === (TRANSFER_VOID_PENDING | TRANSFER_LINKED) && f !== undefined && f.debit_account_id === f.credit_account_id,
          "a read sent create_transfers of something other than status chains");
        for (const n of chains.get(v.pending_id) ?? [statusNumbers.get("pending_transfer_not_found")!, statusNumbers.get("linked_event_failed")!]) {
          out.push({ status: n });
        }
      }
      return out;
    },
    async lookupAccounts(list: bigint[]): Promise<TigerBeetleAccount[]> {
      client.sent++;
      return list.flatMap((x) => accounts.filter((a) => a.id === x));
    },
    async lookupTransfers(list: bigint[]): Promise<TigerBeetleTransfer[]> {
      client.sent++;
      return list.flatMap((x) => transfers.filter((t) => t.id === x));
    },
    async getAccountTransfers(f: TigerBeetleAccountFilter): Promise<TigerBeetleTransfer[]> {
      client.sent++;
      return pick((t) => (((f.flags & FILTER_DEBITS) !== 0 && t.debit_account_id === f.account_id) ||
        ((f.flags & FILTER_CREDITS) !== 0 && t.credit_account_id === f.account_id)) && (f.code === 0 || t.code === f.code),
      f.timestamp_min, f.timestamp_max, f.limit, (f.flags & FILTER_REVERSED) !== 0);
    },
    async queryTransfers(f: TigerBeetleQueryFilter): Promise<TigerBeetleTransfer[]> {
      client.sent++;
      return pick((t) => (f.user_data_128 === 0n || t.user_data_128 === f.user_data_128) && (f.user_data_64 === 0n || t.user_data_64 === f.user_data_64) &&
        (f.ledger === 0 || t.ledger === f.ledger) && (f.code === 0 || t.code === f.code),
      f.timestamp_min, f.timestamp_max, f.limit, (f.flags & 1) !== 0);
    },
  };
  return client;
}

const bal = (b: { posted: bigint; held_in: bigint; held_out: bigint }): HvBalance =>
  ({ posted: String(b.posted), held_in: String(b.held_in), held_out: String(b.held_out) });

function entryOf(e: Entry): HvEntry {
  return {
    transfer: e.transfer, op: e.op, key: e.key, args: e.args, id: e.id, move: e.move, out: e.out, account: e.account,
    account_args: e.accountArgs, posted: String(e.posted), held_in: String(e.heldIn), held_out: String(e.heldOut),
    after: e.after === null ? null : bal(e.after), at: e.at.getTime(), cursor: e.cursor,
  };
}

function holdOf(h: OpenHold): HvHold {
  return {
    transfer: h.transfer, key: h.key, id: h.id, created: h.created.getTime(), deadline: h.deadline === null ? "" : h.deadline.getTime(),
    moves: h.moves.map((m) => ({ move: m.move, from: m.from, from_args: m.fromArgs, to: m.to, to_args: m.toArgs, amount: String(m.amount) })),
  };
}

/** coarse is an answer of the file with its times cut to milliseconds, as a Date holds them. */
const coarse = (e: HvEntry): HvEntry => ({ ...e, at: ms(String(e.at)) });
const coarseHold = (h: HvHold): HvHold => ({ ...h, created: ms(String(h.created)), deadline: h.deadline === "" ? "" : ms(String(h.deadline)) });

async function answer(book: TigerBeetleBook, r: HvRead): Promise<unknown> {
  const d = book.def;
  const account = r.account === undefined || r.account === null ? -1 : d.accounts.findIndex((a) => a.name === r.account);
  const kind = r.transfer === undefined || r.transfer === null ? -1 : d.transfers.findIndex((t) => t.name === r.transfer);
  switch (r.read) {
    case "statement": {
      const q = r.query!;
      const checked = checkQuery("statement", {
        newest: q.newest, from: q.from === "" ? null : new Date(ms(q.from)), to: q.to === "" ? null : new Date(ms(q.to)),
        transfers: q.transfers, limit: q.limit, after: q.after,
      }, d.transfers.map((t) => t.name));
      const st = await book.statement(account, r.args!, checked);
      return { statement: { entries: st.entries.map(entryOf), next: st.next, more: st.more } };
    }
    case "entries":
      return { entries: (await book.callEntries(kind, r.key!)).map(entryOf) };
    case "holds":
      return { holds: (await book.openHolds(account, r.args, kind)).map(holdOf) };
    case "balance_at":
      return { balance: bal(await book.balanceAt(account, r.args!, new Date(ms(r.at!)))) };
  }
}

test("the history reads answer as the Go runtime does, from the same records", async () => {
  assert.ok(file.cases.length >= 3);
  let reads = 0;
  for (const c of file.cases) {
    const client = replay(c);
    const book = new TigerBeetleBook(client, defOf(c.def), { tenant: c.tenant });
    for (const [i, r] of c.reads.entries()) {
      const where = `${c.name} read ${i} (${r.read})`;
      if (r.error === true) {
        const before = client.sent;
        await assert.rejects(answer(book, r), `${where}: no error`);
        assert.equal(client.sent, before, `${where}: sent a request before failing`);
        continue;
      }
      const want = r.read === "statement" ? { statement: { ...r.statement!, entries: r.statement!.entries.map(coarse) } }
        : r.read === "entries" ? { entries: r.entries!.map(coarse) }
          : r.read === "holds" ? { holds: r.holds!.map(coarseHold) }
            : { balance: r.balance };
      assert.deepEqual(await answer(book, r), want, where);
      reads++;
    }
  }
  assert.ok(reads >= 100, `${reads} reads`);
});

test("ids of the file are the runtime's", () => {
  // Every id an entry names is a record of its case, written as the runtime writes ids.
  for (const c of file.cases) {
    const known = new Set(c.transfers.map((t) => hex(id(t["id"]))));
    for (const r of c.reads) {
      for (const e of [...(r.statement?.entries ?? []), ...(r.entries ?? [])]) {
        assert.ok(known.has(e.id), `${c.name}: entry id ${e.id}`);
      }
    }
  }
});
