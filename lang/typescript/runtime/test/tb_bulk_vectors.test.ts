import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ChoboError } from "../src/chobo.ts";
import { hex } from "../src/ids.ts";
import {
  type Def, type TbCall, type TigerBeetleAccount, type TigerBeetleClient, type TigerBeetleTransfer, TRANSFER_VOID_PENDING,
  TigerBeetleBook, accountStatus, transferStatus,
} from "../src/tigerbeetle.ts";
import { type VectorAccount, type VectorDef, type VectorTransfer, type VectorValue, defOf, path, value } from "./vectors.ts";

// tb_bulk_vectors.json holds scripted sessions of a bulk call on
// TigerBeetle as the Go runtime makes them (runtime/testdata/README.md).
// Each is replayed here against a client that answers every request as
// the file does: the book must send the requests the file holds, in
// order, and answer each call as the file does.

interface BulkReply {
  statuses?: string[];
  accounts?: (VectorAccount & { debits_pending: string; debits_posted: string; credits_pending: string; credits_posted: string })[];
  transfers?: VectorTransfer[];
  error?: string;
  timeout?: boolean;
}
interface BulkRequest {
  op: "create_accounts" | "create_transfers" | "lookup_accounts" | "lookup_transfers";
  accounts?: VectorAccount[];
  transfers?: VectorTransfer[];
  ids?: string[];
  answer: BulkReply;
}
interface BulkCall {
  op: TbCall["op"];
  transfer: string;
  values: VectorValue[];
  amounts?: string[];
  client_error?: boolean;
}
type Answer = { result: string; reason?: string } | { state: string | null } | { error: string };
interface BulkCase {
  name: string; book: string; def: VectorDef; legacy?: Record<string, string>; tenant: string;
  calls: BulkCall[]; requests: BulkRequest[]; answers: Answer[];
}

const file: { cases: BulkCase[] } = JSON.parse(readFileSync(path("CHOBO_TB_BULK_VECTORS", "tb_bulk_vectors.json"), "utf8"));

/** How long the book waits for a request the file says times out. */
const TIMEOUT_MS = 20;

const transferNumbers = new Map<string, number>();
const accountNumbers = new Map<string, number>();
for (const n of [...Array(256).keys(), 0xffffffff]) {
  transferNumbers.set(transferStatus(n), n);
  accountNumbers.set(accountStatus(n), n);
}

const id = (s: string) => BigInt("0x" + s);

function vecTransfer(t: TigerBeetleTransfer): VectorTransfer {
  return {
    id: hex(t.id), debit_account_id: hex(t.debit_account_id), credit_account_id: hex(t.credit_account_id), amount: String(t.amount),
    pending_id: hex(t.pending_id), user_data_128: hex(t.user_data_128), user_data_64: String(t.user_data_64), timeout: t.timeout,
    ledger: t.ledger, code: t.code, flags: t.flags,
  };
}

function record(t: VectorTransfer): TigerBeetleTransfer {
  return {
    id: id(t.id), debit_account_id: id(t.debit_account_id), credit_account_id: id(t.credit_account_id), amount: BigInt(t.amount),
    pending_id: id(t.pending_id), user_data_128: id(t.user_data_128), user_data_64: BigInt(t.user_data_64), user_data_32: 0,
    timeout: t.timeout, ledger: t.ledger, code: t.code, flags: t.flags, timestamp: 0n,
  };
}

/** scripted is a client that records each request and answers it as the case's request of the same place was answered. */
function scripted(c: BulkCase): TigerBeetleClient & { sent: Omit<BulkRequest, "answer">[] } {
  const sent: Omit<BulkRequest, "answer">[] = [];
  const answer = (req: Omit<BulkRequest, "answer">): Promise<BulkReply> => {
    const n = sent.length;
    sent.push(req);
    const r = c.requests[n];
    if (r === undefined) {
      return Promise.reject(new Error(`request ${n + 1} (${req.op}) is not in the file`));
    }
    if (r.answer.timeout) {
      return new Promise(() => {});
    }
    if (r.answer.error !== undefined) {
      return Promise.reject(new Error(r.answer.error));
    }
    return Promise.resolve(r.answer);
  };
  return {
    sent,
    async createAccounts(batch) {
      const r = await answer({
        op: "create_accounts",
        accounts: batch.map((a) => ({ id: hex(a.id), user_data_128: hex(a.user_data_128), ledger: a.ledger, code: a.code, flags: a.flags })),
      });
      return (r.statuses ?? []).map((s) => ({ status: accountNumbers.get(s)! }));
    },
    async createTransfers(batch) {
      const r = await answer({ op: "create_transfers", transfers: batch.map(vecTransfer) });
      return (r.statuses ?? []).map((s) => ({ status: transferNumbers.get(s)! }));
    },
    async lookupAccounts(batch) {
      const r = await answer({ op: "lookup_accounts", ids: batch.map(hex) });
      return (r.accounts ?? []).map((a): TigerBeetleAccount => ({
        id: id(a.id), debits_pending: BigInt(a.debits_pending), debits_posted: BigInt(a.debits_posted),
        credits_pending: BigInt(a.credits_pending), credits_posted: BigInt(a.credits_posted), user_data_128: id(a.user_data_128),
        user_data_64: 0n, user_data_32: 0, reserved: 0, ledger: a.ledger, code: a.code, flags: a.flags, timestamp: 0n,
      }));
    },
    async lookupTransfers(batch) {
      const r = await answer({ op: "lookup_transfers", ids: batch.map(hex) });
      return (r.transfers ?? []).map(record);
    },
  };
}

/** normalise names the random ids of the status chains sent, random:1, random:2, … in the order first sent. */
function normalise(reqs: Omit<BulkRequest, "answer">[]): void {
  const names = new Map<string, string>();
  const name = (x: string) => {
    if (!names.has(x)) {
      names.set(x, `random:${names.size + 1}`);
    }
    return names.get(x)!;
  };
  for (const r of reqs) {
    const ts = r.transfers ?? [];
    for (let k = 0; k + 1 < ts.length; k++) {
      const [v, f] = [ts[k]!, ts[k + 1]!];
      if ((v.flags & TRANSFER_VOID_PENDING) !== 0 && f.debit_account_id === f.credit_account_id && f.debit_account_id === v.pending_id) {
        v.id = name(v.id);
        f.id = name(f.id);
      }
    }
  }
}

/** answerOf writes a call's answer as the file does. */
function answerOf(op: TbCall["op"], a: unknown): Answer {
  if (a instanceof Error) {
    if (a instanceof ChoboError && a.code === "CHOBO_TIMEOUT") {
      return { error: "timeout" };
    }
    const m = /scripted: request [0-9]+ fails/.exec(a.message);
    return { error: m !== null ? m[0] : "call" };
  }
  if (op === "status") {
    return { state: a as string | null };
  }
  const r = a as { result: string; reason?: string };
  return r.reason !== undefined ? { result: r.result, reason: r.reason } : { result: r.result };
}

function callOf(d: Def, c: BulkCall): TbCall {
  const kind = d.transfers.findIndex((t) => t.name === c.transfer);
  const amounts = c.amounts === undefined ? null : c.amounts.map((a) => BigInt(a));
  if (c.client_error) {
    return { kind, op: c.op, values: [], amounts: null, error: new Error("the client refused the arguments") };
  }
  return { kind, op: c.op, values: c.values.map(value), amounts };
}

test("the file holds every kind of session", () => {
  assert.ok(file.cases.length >= 8, `${file.cases.length} cases`);
});

for (const c of file.cases) {
  test(`bulk vector: ${c.name}`, async () => {
    const d = defOf(c.def);
    d.transfers = d.transfers.map((t) => (c.legacy?.[t.name] !== undefined ? { ...t, legacy: c.legacy[t.name]! } : t));
    const client = scripted(c);
    const book = new TigerBeetleBook(client, d, { tenant: c.tenant, timeoutMs: TIMEOUT_MS });
    const got = await book.bulk(c.calls.map((call) => callOf(d, call)));
    normalise(client.sent);
    const want = c.requests.map(({ answer: _, ...r }) => r);
    assert.equal(client.sent.length, want.length, "requests sent");
    client.sent.forEach((r, i) => assert.deepEqual(r, want[i], `request ${i + 1}`));
    assert.deepEqual(got.map((a, i) => answerOf(c.calls[i]!.op, a)), c.answers);
  });
}
