// The shared connection vectors (runtime/testdata/connection_vectors.json)
// replayed against scripted pg objects: a Pool, a Client, and a Client
// inside the caller's transaction, each answering the book's statements
// (an operation, a status, expire, a balance, a call's entries), and a
// bulk's statement of many, from a model of a book's functions, and failing each sending as the vector says.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ChoboError } from "../src/chobo.ts";
import { DEFAULT_RESEND_MS, type HistoryKinds, MAX_ATTEMPTS, type PgAnswer, type PgCall, type Queryable, backoff, balance, bulk, call, callEntries, configure, expire, makeCall, sqlState, status } from "../src/postgres.ts";
import { path } from "./vectors.ts";

type Fault = string | { fault: string; ms?: number };

interface Want {
  result?: string;
  reason?: string;
  resent?: boolean;
  count?: number;
  balance?: number[];
  entries?: number;
  error?: string;
  sqlstate?: string;
  one_of?: Want[];
}

interface VCall {
  op: "call" | "status" | "expire" | "balance" | "entries";
  key: string;
  max?: number;
  applies?: string;
  faults?: Fault[];
  client_error?: boolean;
  want: Want | string | null;
  sent?: number;
  attempts?: number;
}

interface VCase {
  name: string;
  over: "pool" | "pool_of_one" | "conn" | "tx";
  resend_for_ms?: number;
  before?: string[];
  before_refused?: string[];
  closed?: boolean;
  cancelled_before?: boolean;
  not_lent?: number;
  bulk?: boolean;
  due?: number;
  calls: VCall[];
}

const file: { constants: { max_attempts: number; backoff_ms: number[]; resend_for_ms: number }; tenant: string; cases: VCase[] } =
  JSON.parse(readFileSync(path("CHOBO_CONNECTION_VECTORS", "connection_vectors.json"), "utf8"));

test("the connection vectors' constants are the runtime's", () => {
  const c = file.constants;
  assert.equal(c.max_attempts, MAX_ATTEMPTS);
  assert.equal(c.resend_for_ms, DEFAULT_RESEND_MS);
  assert.ok(c.backoff_ms.length >= 8);
  assert.deepEqual(c.backoff_ms.map((_, n) => backoff(n)), c.backoff_ms);
});

const OP = "select result, reason from op($1, $2, $3::uuid)";
const STATUS = "select st($1, $2)";
const EXPIRE = "select expire($1, $2::uuid)";
const BALANCE = "select posted, held_in, held_out from bal($1, $2)";
const ENTRIES = "select * from hist($1, $2, $3)";

/** The book of the reads of a call's entries: one transfer kind, which names nothing but its key. */
const KINDS: HistoryKinds = new Map([["pay", { args: ["k"], key: ["k"], amounts: [] }]]);

interface Rec {
  id: string;
  outcome: string;
  reason: string | null;
  /** Of an expire (kept under "expire:" and its call id): how many holds it gave back in all. */
  n?: number;
}

/** sqlError is an error as pg throws the server's. */
function sqlError(code: string, message = `scripted ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

/** The book's side: its state, the faults due for each key, what each key's sendings carried. */
class Model {
  state = new Map<string, Rec>();
  applies = new Map<string, string>();
  faults = new Map<string, { fault: string; ms: number }[]>();
  sent = new Map<string, number>();
  ids = new Map<string, string[]>();
  clock = 0;
  /** Whether the connection of a Client is closed; a Pool lends a new one each time. */
  closed = false;
  /** How many more times the pool lends no connection. */
  notLent = 0;
  explicit = false;
  failed = false;
  /** Holds past their deadline when the case starts. */
  due = 0;
  /** Expires sent with no call id. */
  anonymous = 0;

  readonly over: VCase["over"];

  constructor(over: VCase["over"]) {
    this.over = over;
    this.explicit = over === "tx";
  }

  get pooled(): boolean {
    return this.over === "pool" || this.over === "pool_of_one";
  }

  head(key: string): string {
    return this.faults.get(key)?.[0]?.fault ?? "";
  }

  pop(key: string): string {
    const f = this.faults.get(key)?.shift();
    if (f === undefined) {
      return "";
    }
    this.clock += f.ms;
    return f.fault;
  }

  apply(key: string, id: string, pending: Map<string, Rec>): { row?: [string, string | null]; code?: string; write?: Rec } {
    const applies = this.applies.get(key) ?? "done";
    if (applies.startsWith("error:")) {
      return { code: applies.slice("error:".length) };
    }
    const r = pending.get(key) ?? this.state.get(key);
    if (r !== undefined) {
      if (r.id === id) {
        return { row: [r.outcome, r.reason] };
      }
      return { row: r.outcome === "refused" ? ["refused", "already_refused"] : ["done_before", null] };
    }
    const w: Rec = applies.startsWith("refused:") ? { id, outcome: "refused", reason: applies.slice("refused:".length) } : { id, outcome: "done", reason: null };
    return { row: [w.outcome, w.reason], write: w };
  }

  /** dueLeft is how many holds past their deadline are not given back. */
  dueLeft(pending: Map<string, Rec>): number {
    let n = this.due;
    for (const [k, r] of [...this.state].filter(([k]) => !pending.has(k)).concat([...pending])) {
      if (k.startsWith("expire:")) {
        n -= r.n ?? 0;
      }
    }
    return n;
  }

  /** expire gives back up to max holds for the call id, its earlier sendings' included, and answers how many in all. */
  expire(id: string, max: number, pending: Map<string, Rec>): number {
    const k = id === "" ? `expire:#${++this.anonymous}` : `expire:${id}`;
    const r = pending.get(k) ?? this.state.get(k) ?? { id, outcome: "", reason: null, n: 0 };
    const n = (r.n ?? 0) + Math.min(Math.max(max - (r.n ?? 0), 0), this.dueLeft(pending));
    pending.set(k, { ...r, n });
    return n;
  }

  /** balanceOf answers the balance statement: posted counts the keys done, held out the holds not given back. */
  balanceOf(pending: Map<string, Rec>): [string, string, string] {
    const posted = [...this.state].filter(([k]) => !pending.has(k)).concat([...pending]).filter(([, r]) => r.outcome === "done").length;
    return [String(posted), "0", String(this.dueLeft(pending))];
  }

  statusOf(key: string, pending: Map<string, Rec>): string | null {
    const r = pending.get(key) ?? this.state.get(key);
    return r !== undefined && r.outcome === "done" ? "posted" : null;
  }

  /** lose breaks the connection: a Client stays closed, a Pool lends another next time. */
  lose(): Error {
    if (!this.pooled) {
      this.closed = true;
    }
    return new Error("Connection terminated unexpectedly");
  }

  /** run answers one statement: one call's, or a bulk's union of many, as one transaction. */
  run(text: string, values: unknown[]): { rows: unknown[] } {
    if (this.closed) {
      throw new Error("Client has encountered a connection error and is not queryable");
    }
    const branches = text.split("\nunion all\n");
    const calls: { key: string; id: string; kind: string; max: number }[] = [];
    let at = 0;
    for (const b of branches) {
      const kind = b.includes("hist(") ? ENTRIES : b.includes(" st(") ? STATUS : b.includes("expire(") ? EXPIRE : b.includes("bal(") ? BALANCE : OP;
      const n = kind === OP || kind === ENTRIES ? 3 : 2;
      const v = values.slice(at, at + n);
      at += n;
      // Every statement's key is its second value; expire's is "expire"
      // (its second value is its call id), and a read of a call's
      // entries has the key as an array of one.
      switch (kind) {
        case EXPIRE:
          calls.push({ key: "expire", id: v[1] === null || v[1] === undefined ? "" : String(v[1]), kind, max: Number(v[0]) });
          break;
        case ENTRIES:
          calls.push({ key: String((v[2] as unknown[])[0]), id: "", kind, max: 0 });
          break;
        default:
          calls.push({ key: String(v[1]), id: kind === OP ? String(v[2]) : "", kind, max: 0 });
      }
    }
    // No connection lent: nothing reaches the server.
    if (this.pooled && this.notLent > 0) {
      this.notLent--;
      throw new Error("timeout exceeded when trying to connect");
    }
    if (this.pooled && calls.length === 1 && this.head(calls[0]!.key) === "not_connected") {
      this.pop(calls[0]!.key);
      throw new Error("timeout exceeded when trying to connect");
    }
    const pending = new Map<string, Rec>();
    const rows: unknown[] = [];
    let lostAfter: Error | null = null;
    for (const [i, c] of calls.entries()) {
      this.sent.set(c.key, (this.sent.get(c.key) ?? 0) + 1);
      if (this.failed) {
        throw sqlError("25P02");
      }
      const fail = (err: Error): never => {
        if (this.explicit) {
          this.failed = true;
        }
        throw err;
      };
      if (c.kind === OP || c.kind === EXPIRE) {
        this.ids.set(c.key, [...(this.ids.get(c.key) ?? []), c.id]);
      }
      // answer is what the statement answers when nothing fails.
      const answer = (): void => {
        switch (c.kind) {
          case STATUS: {
            const s = this.statusOf(c.key, pending);
            rows.push(calls.length === 1 ? { st: s } : { chobo_i: i, a: s, b: null });
            return;
          }
          case EXPIRE:
            rows.push({ expire: this.expire(c.id, c.max, pending) });
            return;
          case BALANCE: {
            const [posted, heldIn, heldOut] = this.balanceOf(pending);
            rows.push({ posted, held_in: heldIn, held_out: heldOut });
            return;
          }
          case ENTRIES:
            if (this.statusOf(c.key, pending) !== null) {
              for (const [n, account] of ["from", "to"].entries()) {
                rows.push({
                  cursor: String(n + 1), kind: "pay", op: "do", key: [c.key], args: [c.key], move: 1, out: n === 0, account, account_args: [],
                  posted: "1", held_in: "0", held_out: "0", after_posted: null, after_held_in: null, after_held_out: null, at: new Date(Date.UTC(2026, 0, 1)),
                });
              }
            }
            return;
        }
        const { row, code, write } = this.apply(c.key, c.id, pending);
        if (code !== undefined) {
          fail(sqlError(code));
        }
        if (write !== undefined) {
          pending.set(c.key, write);
        }
        rows.push(calls.length === 1 ? { result: row![0], reason: row![1] } : { chobo_i: i, a: row![0], b: row![1] });
      };
      const fault: string = lostAfter === null ? this.pop(c.key) : "";
      switch (fault) {
        case "serialization_failure":
          fail(sqlError("40001"));
          break;
        case "deadlock_detected":
          fail(sqlError("40P01"));
          break;
        case "lost_before_commit":
        case "lost_while_reading": // pg hands over an answer whole
          throw this.lose();
        case "timeout":
          // pg's query_timeout: the client stops waiting, the statement
          // is taken to have written nothing.
          throw new Error("Query read timeout");
        case "lost_after_commit":
        case "shutdown_after_commit": {
          answer();
          lostAfter = fault === "lost_after_commit" ? this.lose() : (this.lose(), sqlError("57P01", "terminating connection due to administrator command"));
          rows.push(null);
          continue;
        }
        case "":
          answer();
          break;
        default:
          throw new Error(`a fault the scripted connection cannot make: ${fault}`);
      }
    }
    if (!this.explicit || lostAfter !== null) {
      for (const [k, r] of pending) {
        this.state.set(k, r);
      }
    }
    if (lostAfter !== null) {
      throw lostAfter;
    }
    return { rows };
  }
}

/** The scripted pg object the book is given. */
function queryable(m: Model, over: VCase["over"]): Queryable {
  const db = { query: async (text: string, values: unknown[] = []) => m.run(text, values) };
  switch (over) {
    case "pool":
    case "pool_of_one":
      return Object.assign(db, { connect: async () => db, totalCount: 1, idleCount: 1 });
    case "conn":
      return Object.assign(db, { connect: async () => {}, getTransactionStatus: () => "I" });
    case "tx":
      return Object.assign(db, { connect: async () => {}, getTransactionStatus: () => (m.failed ? "E" : "T") });
  }
}

const clientError = new Error("refused by the client");

function kindOf(a: unknown): string {
  if (a === clientError) {
    return "client";
  }
  if (a instanceof ChoboError) {
    switch (a.code) {
      case "CHOBO_OUTCOME_UNKNOWN":
        return "outcome_unknown";
      case "CHOBO_NOT_SENT":
        return "not_sent";
      case "CHOBO_BAD_CALL":
        return "bad_call";
      case "CHOBO_BOUNDS_CHANGED":
        return "bounds_changed";
    }
  }
  return sqlState(a) !== "" ? "server" : "other";
}

function check(w: Want | string | null, a: PgAnswer<string> | unknown): string | null {
  if (w === null || typeof w === "string") {
    return a === w ? null : `state ${String(a)}, want ${String(w)}`;
  }
  if (w.one_of !== undefined) {
    const misses = w.one_of.map((o) => check(o, a));
    return misses.includes(null) ? null : misses.join("; ");
  }
  if (w.error !== undefined) {
    if (!(a instanceof Error)) {
      return `answered ${JSON.stringify(a)}, want the error ${w.error}`;
    }
    const code = sqlState(a) || sqlState(a.cause);
    if (kindOf(a) !== w.error || (w.sqlstate !== undefined && code !== w.sqlstate)) {
      return `error ${kindOf(a)} (${a.message}, SQLSTATE ${code}), want ${w.error} ${w.sqlstate ?? ""}`;
    }
    return null;
  }
  if (a instanceof Error) {
    return `error ${a.message}, want ${JSON.stringify(w)}`;
  }
  if (w.count !== undefined) {
    return a === w.count ? null : `expire answered ${String(a)}, want ${w.count}`;
  }
  if (w.entries !== undefined) {
    return Array.isArray(a) && a.length === w.entries ? null : `entries ${JSON.stringify(a, (_, v) => (typeof v === "bigint" ? String(v) : v))}, want ${w.entries}`;
  }
  if (w.balance !== undefined) {
    const b = a as { posted: bigint; held_in: bigint; held_out: bigint };
    const got = [b.posted, b.held_in, b.held_out];
    return got.every((v, i) => v === BigInt(w.balance![i]!)) ? null : `balance ${got.join(", ")}, want ${w.balance.join(", ")}`;
  }
  const r = a as { result: string; reason?: string; resent?: boolean };
  if (r.result !== w.result || (r.reason ?? "") !== (w.reason ?? "") || (w.resent !== undefined && (r.resent ?? false) !== w.resent)) {
    return `answered ${JSON.stringify(r)}, want ${JSON.stringify(w)}`;
  }
  return null;
}

/** The faults TypeScript cannot make: its book offers no way to cancel a call. */
function cannot(c: VCase): string | null {
  if (c.cancelled_before || c.calls.some((k) => (k.faults ?? []).some((f) => (typeof f === "string" ? f : f.fault) === "cancelled"))) {
    return "the TypeScript book offers no way to cancel a call";
  }
  return null;
}

for (const c of file.cases) {
  const why = cannot(c);
  test(`connection vector: ${c.name}`, why !== null ? { skip: `SKIP: ${why}` } : {}, async () => {
    const m = new Model(c.over);
    for (const k of c.before ?? []) {
      m.state.set(k, { id: "00000000-0000-4000-8000-000000000000", outcome: "done", reason: null });
    }
    for (const k of c.before_refused ?? []) {
      m.state.set(k, { id: "00000000-0000-4000-8000-000000000000", outcome: "refused", reason: "too_much" });
    }
    for (const k of c.calls) {
      if (k.op === "call" && k.client_error !== true) {
        m.applies.set(k.key, k.applies ?? "done");
      }
      if (k.client_error !== true) {
        m.faults.set(k.key, [...(m.faults.get(k.key) ?? []), ...(k.faults ?? []).map((f) => (typeof f === "string" ? { fault: f, ms: 0 } : { fault: f.fault, ms: f.ms ?? 0 }))]);
      }
    }
    m.closed = c.closed === true;
    m.due = c.due ?? 0;
    m.notLent = c.not_lent ?? 0;
    let db = queryable(m, c.over);
    if (c.resend_for_ms !== undefined) {
      db = configure(db, { resendMs: c.resend_for_ms });
    }
    // The scripted clock: a sending moves it on by its fault's ms, a wait
    // between sendings by the longest it may be drawn, which is held to
    // the backoff table; the wait itself takes no time.
    const [now, random, timer] = [Date.now, Math.random, globalThis.setTimeout];
    const waits: number[] = [];
    Date.now = () => m.clock;
    Math.random = () => 1;
    globalThis.setTimeout = ((fn: () => void, ms: number) => {
      waits.push(ms);
      m.clock += ms;
      return setImmediate(fn);
    }) as unknown as typeof setTimeout;
    const problems: string[] = [];
    try {
      const where = "vector";
      if (c.bulk === true) {
        const calls: PgCall[] = c.calls.map((k) =>
          k.client_error === true
            ? { where, text: OP, values: [], status: false, error: clientError }
            : makeCall(where, k.op === "status" ? STATUS : OP, k.op === "status", () => [file.tenant, k.key]),
        );
        const got = await bulk(db, calls);
        c.calls.forEach((k, i) => {
          const p = check(k.want, got[i]);
          if (p !== null) {
            problems.push(`call ${i} (${k.key}): ${p}`);
          }
        });
        for (const [k, ids] of m.ids) {
          if (ids.some((id) => id !== ids[0])) {
            problems.push(`${k} was sent with the ids ${ids.join(", ")}`);
          }
        }
      } else {
        for (const [i, k] of c.calls.entries()) {
          const [sentBefore, idsBefore, waitsBefore] = [m.sent.get(k.key) ?? 0, (m.ids.get(k.key) ?? []).length, waits.length];
          let a: unknown;
          try {
            switch (k.op) {
              case "status":
                a = await status(db, where, STATUS, [file.tenant, k.key]);
                break;
              case "expire":
                a = await expire(db, EXPIRE, k.max);
                break;
              case "balance":
                a = await balance(db, where, BALANCE, [file.tenant, k.key]);
                break;
              case "entries": {
                const es = await callEntries(db, where, ENTRIES, KINDS, file.tenant, "pay", [k.key]);
                for (const e of es) {
                  if (e.transfer !== "pay" || e.key?.join() !== k.key || e.args?.["k"] !== k.key) {
                    problems.push(`call ${i} (${k.key}): an entry ${JSON.stringify(e, (_, v) => (typeof v === "bigint" ? String(v) : v))}`);
                  }
                }
                a = es;
                break;
              }
              default:
                a = await call(db, where, OP, [file.tenant, k.key]);
            }
          } catch (err) {
            a = err;
          }
          const p = check(k.want, a);
          if (p !== null) {
            problems.push(`call ${i} (${k.key}): ${p}`);
          }
          const sent = (m.sent.get(k.key) ?? 0) - sentBefore;
          if (k.sent !== undefined && sent !== k.sent) {
            problems.push(`call ${i} (${k.key}) reached the server ${sent} times, want ${k.sent}`);
          }
          // Every try after the first waits first.
          const tried = waits.length - waitsBefore + 1;
          if (k.attempts !== undefined && tried !== Math.max(k.attempts, 1)) {
            problems.push(`call ${i} (${k.key}) was tried ${tried} times, want ${k.attempts}`);
          }
          const all = m.ids.get(k.key) ?? [];
          const ids = all.slice(idsBefore);
          if (ids.some((id) => id !== ids[0]) || (idsBefore > 0 && ids.length > 0 && ids[0] === all[0])) {
            problems.push(`call ${i} (${k.key}) was sent with the ids ${ids.join(", ")}, after ${all.slice(0, idsBefore).join(", ")}`);
          }
        }
      }
    } finally {
      Date.now = now;
      Math.random = random;
      globalThis.setTimeout = timer;
    }
    for (const w of waits) {
      if (!file.constants.backoff_ms.includes(w)) {
        problems.push(`a wait of up to ${w} ms, which the backoff table does not have`);
      }
    }
    for (const [k, f] of m.faults) {
      if (f.length > 0) {
        problems.push(`${k}: faults never met: ${JSON.stringify(f)}`);
      }
    }
    assert.deepEqual(problems, []);
  });
}
