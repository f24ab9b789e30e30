// The shared connection vectors (runtime/testdata/connection_vectors.json)
// replayed against scripted pg objects: a Pool, a Client, and a Client
// inside the caller's transaction, each answering the book's two
// statements, and a bulk's statement of many, from a model of a book's
// function, and failing each sending as the vector says.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ChoboError } from "../src/chobo.ts";
import { DEFAULT_RESEND_MS, MAX_ATTEMPTS, type PgAnswer, type PgCall, type Queryable, backoff, bulk, call, configure, makeCall, sqlState, status } from "../src/postgres.ts";
import { path } from "./vectors.ts";

type Fault = string | { fault: string; ms?: number };

interface Want {
  result?: string;
  reason?: string;
  resent?: boolean;
  error?: string;
  sqlstate?: string;
  one_of?: Want[];
}

interface VCall {
  op: "call" | "status";
  key: string;
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

interface Rec {
  id: string;
  outcome: string;
  reason: string | null;
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
    const calls: { key: string; id: string; isStatus: boolean }[] = [];
    let at = 0;
    for (const b of branches) {
      const isStatus = b.includes("st(");
      const n = isStatus ? 2 : 3;
      const v = values.slice(at, at + n);
      at += n;
      calls.push({ key: String(v[1]), id: isStatus ? "" : String(v[2]), isStatus });
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
      if (c.isStatus) {
        const s = this.statusOf(c.key, pending);
        rows.push(calls.length === 1 ? { st: s } : { chobo_i: i, a: s, b: null });
        continue;
      }
      this.ids.set(c.key, [...(this.ids.get(c.key) ?? []), c.id]);
      const fault: string = lostAfter === null ? this.pop(c.key) : "";
      switch (fault) {
        case "serialization_failure":
          fail(sqlError("40001"));
          break;
        case "deadlock_detected":
          fail(sqlError("40P01"));
          break;
        case "lost_before_commit":
          throw this.lose();
        case "timeout":
          // pg's query_timeout: the client stops waiting, the statement
          // is taken to have written nothing.
          throw new Error("Query read timeout");
        case "lost_after_commit":
        case "shutdown_after_commit": {
          const { write } = this.apply(c.key, c.id, pending);
          if (write !== undefined) {
            pending.set(c.key, write);
          }
          lostAfter = fault === "lost_after_commit" ? this.lose() : (this.lose(), sqlError("57P01", "terminating connection due to administrator command"));
          rows.push(null);
          continue;
        }
        case "": {
          const { row, code, write } = this.apply(c.key, c.id, pending);
          if (code !== undefined) {
            fail(sqlError(code));
          }
          if (write !== undefined) {
            pending.set(c.key, write);
          }
          rows.push(calls.length === 1 ? { result: row![0], reason: row![1] } : { chobo_i: i, a: row![0], b: row![1] });
          break;
        }
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
    return `error ${a.message}, want ${w.result}`;
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
        m.faults.set(k.key, [...(m.faults.get(k.key) ?? []), ...(k.faults ?? []).map((f) => (typeof f === "string" ? { fault: f, ms: 0 } : { fault: f.fault, ms: f.ms ?? 0 }))]);
      }
    }
    m.closed = c.closed === true;
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
            a = k.op === "status" ? await status(db, where, STATUS, [file.tenant, k.key]) : await call(db, where, OP, [file.tenant, k.key]);
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
