// The driver of a generated TypeScript client: it serves chobo's driver
// protocol (docs/formats.md, "Driver protocol") on stdin and stdout, so
// that the conformance runner drives a TypeScript client the way it
// drives a client in any other language.
//
//   node driver.js <book>.js
//
// <book>.js is the generated client, compiled to JavaScript. Everything
// else comes in the open request: the target, what `chobo api` says of it
// (its "names": the driver reads no book, it calls the members those
// names give), and where the backend is. A "tigerbeetle" address means
// a TigerBeetle client, reached with tigerbeetle-node; a "dsn" a
// PostgreSQL one, reached with pg. With "hold_seconds", every hold that
// expires is sent with a timeout of that many seconds instead of the
// book's: TigerBeetle counts a hold's life from the timeout the client
// sends, and the conformance runner's test copy of a book gives holds
// seconds.
//
// With CHOBO_DRIVER_RECORD set to a file, every request the client hands
// to pg or to tigerbeetle-node is appended to that file as one JSON line,
// before it is sent, so that a test can hold what the client sends to
// what `chobo run --show` prints.

import { randomBytes, randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
import pg from "pg";
import { type Account as TigerBeetleAccountRecord, createClient, CreateAccountStatus, CreateTransferStatus } from "tigerbeetle-node";

/** The TypeScript entry of `chobo api`'s targets, as far as the driver reads it. */
interface Names {
  constructor: string;
  expire: string;
  /** The member that sends many calls, each made by a method's twin: its name and call_suffix. */
  bulk?: string;
  call_suffix?: string;
  /** The members that read an account's history, each with a method per account as balance has. */
  statement?: string;
  balance_at?: string;
  open_holds?: string;
  transfers: {
    transfer: string;
    member: string;
    methods: string[];
    /** The member's history reads: entries, and openHolds for a kind that holds. */
    reads?: string[];
    args: Struct;
    key: Struct | null;
    amounts: Struct | null;
  }[];
  accounts: { account: string; member: string; fields: Field[] }[];
}

interface Struct {
  type: string;
  fields: Field[];
}

interface Field {
  param: string;
  type: "string" | "bigint";
}

interface Request {
  id?: unknown;
  op?: string;
  target?: string;
  names?: Names;
  dsn?: string;
  tigerbeetle?: string;
  hold_seconds?: number;
  timeout_ms?: number;
  request_events?: number;
  tenant?: string;
  transfer?: string;
  operation?: string;
  account?: string;
  args?: Record<string, string>;
  max?: number;
  calls?: CallOf[];
  // statement; from, to and at are RFC 3339 times
  transfers?: string[];
  from?: string;
  to?: string;
  newest?: boolean;
  limit?: number;
  after?: string;
  at?: string;
  // bench
  key_param?: string;
  times?: number;
  sql?: string;
  params?: string[];
  prepared?: boolean;
  raw?: boolean;
}

/** One call: of a call request, or of a bulk's calls. */
interface CallOf {
  transfer?: string;
  operation?: string;
  args?: Record<string, string>;
}

type Response = Record<string, unknown> & { id: number };

// A book value, called by the names above: members hold methods.
type Callable = (...args: unknown[]) => Promise<unknown>;
type BookValue = Record<string, Record<string, Callable> | Callable>;
type Constructor = (connection: unknown, options: { tenant: string; timeoutMs?: number; requestEvents?: number }) => BookValue;

/** The most connections of the driver's pool: more calls at once wait their turn. */
const MAX_CONNS = 8;

const record = process.env["CHOBO_DRIVER_RECORD"] ?? "";

function write(line: unknown): void {
  appendFileSync(record, JSON.stringify(line, (_, v) => (typeof v === "bigint" ? v.toString() : v)) + "\n");
}

/** hex writes an id as TigerBeetle's tools do: 32 hex digits. */
function hex(v: unknown): unknown {
  return typeof v === "bigint" ? v.toString(16).padStart(32, "0") : v;
}

const idFields = new Set(["id", "debit_account_id", "credit_account_id", "pending_id", "user_data_128"]);

function records(batch: readonly object[]): unknown[] {
  return batch.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, idFields.has(k) ? hex(v) : v])));
}

/** recordedPool hands each statement of one tenant's book to the pool, writing it down first. */
function recordedPool(pool: pg.Pool, tenant: string): unknown {
  return {
    query(text: string, values: unknown[]) {
      write({ tenant, sql: text, args: values.map((v) => (typeof v === "bigint" ? { amount: v.toString() } : v)) });
      return pool.query(text, values);
    },
  };
}

type TBClient = ReturnType<typeof createClient>;

/** shortened hands requests to c with the timeout of every hold that expires cut to secs. */
function shortened(c: TBClient, secs: number): TBClient {
  return {
    ...c,
    createTransfers(batch) {
      return c.createTransfers(batch.map((t) => ((t.flags & 2) !== 0 && t.timeout > 0 ? { ...t, timeout: secs } : t)));
    },
  };
}

/** recordedClient hands each request of one tenant's book to the official client, writing it down first. */
function recordedClient(c: TBClient, tenant: string): unknown {
  return {
    createAccounts(batch: Parameters<TBClient["createAccounts"]>[0]) {
      write({ tenant, op: "create_accounts", accounts: records(batch) });
      return c.createAccounts(batch);
    },
    createTransfers(batch: Parameters<TBClient["createTransfers"]>[0]) {
      write({ tenant, op: "create_transfers", transfers: records(batch) });
      return c.createTransfers(batch);
    },
    lookupAccounts(ids: bigint[]) {
      write({ tenant, op: "lookup_accounts", ids: ids.map(hex) });
      return c.lookupAccounts(ids);
    },
    lookupTransfers(ids: bigint[]) {
      write({ tenant, op: "lookup_transfers", ids: ids.map(hex) });
      return c.lookupTransfers(ids);
    },
    // the history reads change nothing, so they are passed on unrecorded
    getAccountTransfers(filter: Parameters<TBClient["getAccountTransfers"]>[0]) {
      return c.getAccountTransfers(filter);
    },
    queryTransfers(filter: Parameters<TBClient["queryTransfers"]>[0]) {
      return c.queryTransfers(filter);
    },
  };
}

/** libpq reads a connection string of key=value pairs, values quoted with ' when they must be. */
export function libpq(dsn: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /\s*([A-Za-z_]+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S*))/y;
  let end = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(dsn)) !== null) {
    out[m[1]!] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!;
    end = re.lastIndex;
  }
  if (dsn.slice(end).trim() !== "") {
    throw new Error(`the dsn ${JSON.stringify(dsn)} is not a libpq connection string`);
  }
  return out;
}

class Driver {
  readonly #module: Record<string, unknown>;
  #names: Names = { constructor: "", expire: "", transfers: [], accounts: [] };
  #make: Constructor | undefined;
  #timeoutMs = 0;
  #requestEvents = 0;
  #connection: unknown;
  #pool: pg.Pool | undefined;
  #tb: TBClient | undefined;
  readonly #books = new Map<string, BookValue>();

  constructor(module: Record<string, unknown>) {
    this.#module = module;
  }

  get isOpen(): boolean {
    return this.#connection !== undefined;
  }

  async open(req: Request): Promise<Response> {
    if (this.isOpen) {
      throw new Error("open: already open");
    }
    if (!req.target || typeof req.names !== "object" || req.names === null) {
      throw new Error('open: no "target" and "names"');
    }
    const holdSeconds = req.hold_seconds ?? 0;
    if (!Number.isSafeInteger(holdSeconds) || holdSeconds < 0) {
      throw new Error(`open: "hold_seconds" ${JSON.stringify(req.hold_seconds)} is not a number of seconds`);
    }
    const timeoutMs = req.timeout_ms ?? 0;
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0) {
      throw new Error(`open: "timeout_ms" ${JSON.stringify(req.timeout_ms)} is not a number of milliseconds`);
    }
    this.#timeoutMs = timeoutMs;
    const requestEvents = req.request_events ?? 0;
    if (!Number.isSafeInteger(requestEvents) || requestEvents < 0) {
      throw new Error(`open: "request_events" ${JSON.stringify(req.request_events)} is not a number of events`);
    }
    this.#requestEvents = requestEvents;
    const c = this.#module[req.names.constructor];
    if (typeof c !== "function") {
      throw new Error(`open: the client exports no function ${req.names.constructor}`);
    }
    this.#names = req.names;
    this.#make = c as Constructor;
    if (req.tigerbeetle) {
      this.#tb = createClient({ cluster_id: 0n, replica_addresses: req.tigerbeetle.split(",") });
      if (holdSeconds > 0) {
        this.#tb = shortened(this.#tb, holdSeconds);
      }
      this.#connection = this.#tb;
    } else {
      const p = libpq(req.dsn ?? "");
      this.#pool = new pg.Pool({
        host: p["host"], port: p["port"] ? Number(p["port"]) : undefined, user: p["user"], password: p["password"],
        database: p["dbname"], max: MAX_CONNS, idleTimeoutMillis: 1000,
      });
      // pg reports an idle connection that the server ended (a restart,
      // a failover) on the pool; without a listener Node ends the process.
      // The pool drops that connection, and a call meets such errors itself.
      this.#pool.on("error", () => {});
      await this.#pool.query("select 1");
      this.#connection = this.#pool;
    }
    this.#fits(this.#book(""));
    return { id: Number(req.id), ok: true, client: req.target };
  }

  /** fits checks that the client has every member the names call for, so that a driver of another book stops at open. */
  #fits(book: BookValue): void {
    for (const t of this.#names.transfers) {
      const m = book[t.member];
      for (const op of t.methods) {
        if (typeof m !== "object" || typeof m[op] !== "function") {
          throw new Error(`open: the client has no ${t.member}.${op}`);
        }
      }
    }
    for (const t of this.#names.transfers) {
      const m = book[t.member];
      for (const r of t.reads ?? []) {
        if (typeof m !== "object" || typeof m[r] !== "function") {
          throw new Error(`open: the client has no ${t.member}.${r}`);
        }
      }
    }
    const readers = [this.#names.statement, this.#names.balance_at, this.#names.open_holds].filter((r) => r !== undefined);
    for (const a of this.#names.accounts) {
      for (const r of ["balance", ...readers]) {
        const b = book[r];
        if (typeof b !== "object" || typeof b[a.member] !== "function") {
          throw new Error(`open: the client has no ${r}.${a.member}`);
        }
      }
    }
  }

  #book(tenant: string): BookValue {
    let b = this.#books.get(tenant);
    if (b === undefined) {
      let c = this.#connection;
      if (record !== "") {
        c = this.#pool !== undefined ? recordedPool(this.#pool, tenant) : recordedClient(this.#tb!, tenant);
      }
      b = this.#make!(c, {
        tenant,
        ...(this.#timeoutMs > 0 ? { timeoutMs: this.#timeoutMs } : {}),
        ...(this.#requestEvents > 0 ? { requestEvents: this.#requestEvents } : {}),
      });
      this.#books.set(tenant, b);
    }
    return b;
  }

  async handle(req: Request): Promise<Response> {
    const id = Number(req.id);
    switch (req.op) {
      case "call":
        return { id, ...(await this.#call(req)) };
      case "balance":
        return { id, ...(await this.#balance(req)) };
      case "bulk":
        return { id, ...(await this.#bulk(req)) };
      case "statement":
        return { id, ...(await this.#statement(req)) };
      case "entries":
        return { id, ...(await this.#entries(req)) };
      case "holds":
        return { id, ...(await this.#holds(req)) };
      case "balance_at":
        return { id, ...(await this.#balanceAt(req)) };
      case "bench":
        return { id, ...(await this.#bench(req)) };
      case "expire": {
        if (this.#names.expire === "") {
          return { id, expired: 0 };
        }
        const expire = this.#book("")[this.#names.expire] as Callable;
        return { id, expired: await expire(req.max ?? 1000) };
      }
    }
    throw new Error(`unknown op ${JSON.stringify(req.op)}`);
  }

  /** invoke calls the method of a call's operation, or its twin named with suffix, and answers what it returned. */
  #invoke(tenant: string, req: CallOf, suffix: string): { op: string; value: unknown } {
    const t = this.#names.transfers.find((x) => x.transfer === req.transfer);
    if (t === undefined) {
      throw new Error(`the book has no transfer ${JSON.stringify(req.transfer)}`);
    }
    const op = req.operation ?? "";
    if (!t.methods.includes(op)) {
      throw new Error(`${t.transfer} has no operation ${JSON.stringify(op)}`);
    }
    const member = this.#book(tenant)[t.member] as Record<string, Callable>;
    const method = member[op + suffix];
    if (method === undefined) {
      throw new Error(`the client has no method ${op + suffix} for ${t.transfer}`);
    }
    const args = req.args ?? {};
    onlyKnown(args, op === "do" || op === "hold" ? t.args.fields : t.key!.fields, op === "post" ? (t.amounts?.fields ?? []) : []);
    switch (op) {
      case "do":
      case "hold":
        return { op, value: method(values(t.args.fields, args)) };
      case "post": {
        const amounts = t.amounts?.fields.filter((f) => f.param in args) ?? [];
        return { op, value: amounts.length === 0 ? method(values(t.key!.fields, args)) : method(values(t.key!.fields, args), values(amounts, args)) };
      }
      default:
        return { op, value: method(values(t.key!.fields, args)) };
    }
  }

  /**
   * bench times req.times calls, one after another, each its own key:
   * through the client, or with req.sql through pg alone. Every call's
   * values are made before the clock starts.
   */
  async #bench(req: Request): Promise<Record<string, unknown>> {
    const times = req.times ?? 0;
    const key = req.key_param ?? "";
    const given = req.args ?? {};
    if (req.raw === true) {
      return await this.#benchRaw(times);
    }
    if (!Number.isSafeInteger(times) || times < 1 || !(key in given)) {
      throw new Error(`bench: times ${JSON.stringify(req.times)}, key parameter ${JSON.stringify(key)}`);
    }
    const tenant = req.tenant ?? "";
    const argsOf = (i: number): Record<string, string> => ({ ...given, [key]: `${given[key]}-${i}` });
    if (req.sql !== undefined && req.sql !== "") {
      if (this.#pool === undefined) {
        throw new Error("bench: raw SQL needs a PostgreSQL client");
      }
      const sql = req.sql;
      const calls = Array.from({ length: times }, (_, i) => {
        const a = argsOf(i);
        return [tenant, ...(req.params ?? []).map((p) => a[p]), randomUUID()] as unknown[];
      });
      const pool = this.#pool;
      // unnamed, as the client sends it; prepared, under a name pg keeps per connection
      const name = req.prepared === true ? "chobo_bench" : undefined;
      const start = process.hrtime.bigint();
      for (const values of calls) {
        const r = await pool.query({ text: sql, values, name });
        if (r.rows[0]?.result !== "done") {
          throw new Error(`bench: the statement answered ${JSON.stringify(r.rows[0])}`);
        }
      }
      return { nanos: Number(process.hrtime.bigint() - start) };
    }
    const t = this.#names.transfers.find((x) => x.transfer === req.transfer);
    const op = req.operation ?? "";
    if (t === undefined || (op !== "do" && op !== "hold")) {
      throw new Error(`bench: ${JSON.stringify(req.transfer)} ${JSON.stringify(op)} is not a do or hold of the book`);
    }
    const method = (this.#book(tenant)[t.member] as Record<string, Callable>)[op]!;
    const calls = Array.from({ length: times }, (_, i) => values(t.args.fields, argsOf(i)));
    const start = process.hrtime.bigint();
    for (const v of calls) {
      const r = (await method(v)) as { result: string; reason?: string };
      if (r.result !== "done") {
        throw new Error(`bench: the client answered ${r.result} ${r.reason ?? ""}`);
      }
    }
    return { nanos: Number(process.hrtime.bigint() - start) };
  }

  /** benchRaw sends times requests of one transfer each through tigerbeetle-node itself, between two accounts it makes first. */
  async #benchRaw(times: number): Promise<Record<string, unknown>> {
    const tb = this.#tb;
    if (tb === undefined || !Number.isSafeInteger(times) || times < 1) {
      throw new Error("bench: raw transfers need a TigerBeetle client and a count");
    }
    // Random ids, as a client's hashed ids are: the replica files ids made
    // in time order (tigerbeetle-node's id()) faster, which would favour
    // the raw requests over the client's.
    const tbID = (): bigint => {
      const b = randomBytes(16);
      return ((b.readBigUInt64BE(0) << 64n) | b.readBigUInt64BE(8)) % ((1n << 128n) - 2n) + 1n;
    };
    const account = (): TigerBeetleAccountRecord => ({
      id: tbID(), debits_pending: 0n, debits_posted: 0n, credits_pending: 0n, credits_posted: 0n, user_data_128: 0n,
      user_data_64: 0n, user_data_32: 0, reserved: 0, ledger: 1, code: 1, flags: 0, timestamp: 0n,
    });
    const [from, to] = [account(), account()];
    const made = await tb.createAccounts([from, to]);
    if (made.some((r) => r.status !== CreateAccountStatus.created)) {
      throw new Error(`bench: the accounts: ${JSON.stringify(made)}`);
    }
    const transfers = Array.from({ length: times }, () => ({
      id: tbID(), debit_account_id: from.id, credit_account_id: to.id, amount: 1n, pending_id: 0n, user_data_128: 0n,
      user_data_64: 0n, user_data_32: 0, timeout: 0, ledger: 1, code: 1, flags: 0, timestamp: 0n,
    }));
    const start = process.hrtime.bigint();
    for (const t of transfers) {
      const r = await tb.createTransfers([t]);
      if (r.length !== 1 || r[0]!.status !== CreateTransferStatus.created) {
        throw new Error(`bench: a transfer: ${JSON.stringify(r)}`);
      }
    }
    return { nanos: Number(process.hrtime.bigint() - start) };
  }

  async #call(req: Request): Promise<Record<string, unknown>> {
    const { op, value } = this.#invoke(req.tenant ?? "", req, "");
    return answer(op, await value);
  }

  /** bulk makes every call of the request with the twins of the methods and sends them in one bulk of the book; a call the driver cannot make is answered with its error. */
  async #bulk(req: Request): Promise<Record<string, unknown>> {
    const bulk = this.#names.bulk ?? "";
    const suffix = this.#names.call_suffix ?? "";
    if (bulk === "" || suffix === "") {
      throw new Error("the client has no bulk call");
    }
    const tenant = req.tenant ?? "";
    const calls = req.calls ?? [];
    const answers: Record<string, unknown>[] = calls.map(() => ({}));
    const made: { i: number; op: string; call: unknown }[] = [];
    calls.forEach((c, i) => {
      try {
        const { op, value } = this.#invoke(tenant, c, suffix);
        made.push({ i, op, call: value });
      } catch (err) {
        answers[i] = { error: message(err) };
      }
    });
    if (made.length > 0) {
      const res = (await (this.#book(tenant)[bulk] as Callable)(made.map((m) => m.call))) as unknown[];
      made.forEach((m, n) => (answers[m.i] = answer(m.op, res[n])));
    }
    return { answers };
  }

  async #balance(req: Request): Promise<Record<string, unknown>> {
    const a = this.#names.accounts.find((x) => x.account === req.account);
    if (a === undefined) {
      throw new Error(`the book has no account ${JSON.stringify(req.account)}`);
    }
    const balance = this.#book(req.tenant ?? "")["balance"] as Record<string, Callable>;
    const read = balance[a.member]!;
    onlyKnown(req.args ?? {}, a.fields, []);
    const b = (await (a.fields.length === 0 ? read() : read(values(a.fields, req.args ?? {})))) as Record<string, bigint>;
    return { posted: String(b["posted"]), held_in: String(b["held_in"]), held_out: String(b["held_out"]) };
  }

  /** account finds an account kind of the request, and the object that names one of it (null for a kind without parameters). */
  #account(req: Request): { member: string; value: Record<string, unknown> | null } {
    const a = this.#names.accounts.find((x) => x.account === req.account);
    if (a === undefined) {
      throw new Error(`the book has no account ${JSON.stringify(req.account)}`);
    }
    onlyKnown(req.args ?? {}, a.fields, []);
    return { member: a.member, value: a.fields.length === 0 ? null : values(a.fields, req.args ?? {}) };
  }

  /** reader is the method of an account's history member (statement, balance_at, open_holds). */
  #reader(tenant: string, member: string | undefined, account: string): Callable {
    const m = this.#book(tenant)[member ?? ""];
    if (typeof m !== "object" || typeof m[account] !== "function") {
      throw new Error(`the client has no ${member ?? "history reader"}.${account}`);
    }
    return m[account];
  }

  /** transferOf finds a transfer kind of the request and its member of the book value. */
  #transferOf(req: Request): { t: Names["transfers"][number]; member: Record<string, Callable> } {
    const t = this.#names.transfers.find((x) => x.transfer === req.transfer);
    if (t === undefined) {
      throw new Error(`the book has no transfer ${JSON.stringify(req.transfer)}`);
    }
    return { t, member: this.#book(req.tenant ?? "")[t.member] as Record<string, Callable> };
  }

  async #statement(req: Request): Promise<Record<string, unknown>> {
    const { member, value } = this.#account(req);
    const read = this.#reader(req.tenant ?? "", this.#names.statement, member);
    const query: Record<string, unknown> = {};
    if (req.newest) {
      query["newest"] = true;
    }
    if (req.from) {
      query["from"] = parseTime(req.from);
    }
    if (req.to) {
      query["to"] = parseTime(req.to);
    }
    if (req.transfers && req.transfers.length > 0) {
      query["transfers"] = req.transfers;
    }
    if (req.limit) {
      query["limit"] = req.limit;
    }
    if (req.after) {
      query["after"] = req.after;
    }
    const st = (await (value === null ? read(query) : read(value, query))) as Statement;
    return { entries: st.entries.map(entryJSON), next: st.next, more: st.more };
  }

  async #entries(req: Request): Promise<Record<string, unknown>> {
    const { t, member } = this.#transferOf(req);
    const entries = member["entries"];
    if (t.key === null || typeof entries !== "function") {
      throw new Error(`the client has no ${t.member}.entries`);
    }
    onlyKnown(req.args ?? {}, t.key.fields, []);
    return { entries: ((await entries(values(t.key.fields, req.args ?? {}))) as Entry[]).map(entryJSON) };
  }

  /**
   * holds reads the open holds of an account, of a transfer kind, of
   * both (the account's, kept to the kind) or of neither (every kind's
   * that holds, in the order the book's function gives them: by when
   * they were made, then kind and key).
   */
  async #holds(req: Request): Promise<Record<string, unknown>> {
    const tenant = req.tenant ?? "";
    let holds: OpenHold[];
    if (req.account) {
      const { member, value } = this.#account(req);
      const read = this.#reader(tenant, this.#names.open_holds, member);
      holds = (await (value === null ? read() : read(value))) as OpenHold[];
      if (req.transfer) {
        this.#transferOf(req);
        holds = holds.filter((h) => h.transfer === req.transfer);
      }
    } else {
      if (req.args !== undefined && Object.keys(req.args).length > 0) {
        throw new Error("holds: args name an account, and no account is given");
      }
      const kinds = req.transfer ? [this.#transferOf(req).t] : this.#names.transfers.filter((t) => t.reads?.includes("openHolds"));
      holds = [];
      for (const t of kinds) {
        const read = (this.#book(tenant)[t.member] as Record<string, Callable>)["openHolds"];
        if (typeof read !== "function") {
          throw new Error(`the client has no ${t.member}.openHolds`);
        }
        holds.push(...((await read()) as OpenHold[]));
      }
      if (kinds.length > 1) {
        // Each kind's holds come in the function's order; merged, two made
        // within one millisecond (what a Date tells apart) are put in the
        // order of their kind and key, as the function orders a tie.
        holds.sort((a, b) => a.created.getTime() - b.created.getTime() || compare(a.transfer, b.transfer) || compare(JSON.stringify(a.key), JSON.stringify(b.key)));
      }
    }
    return { holds: holds.map(holdJSON) };
  }

  async #balanceAt(req: Request): Promise<Record<string, unknown>> {
    const { member, value } = this.#account(req);
    const read = this.#reader(req.tenant ?? "", this.#names.balance_at, member);
    const at = parseTime(req.at ?? "");
    const b = (await (value === null ? read(at) : read(value, at))) as Record<string, bigint>;
    return { posted: String(b["posted"]), held_in: String(b["held_in"]), held_out: String(b["held_out"]) };
  }

  async close(): Promise<void> {
    await this.#pool?.end();
    this.#tb?.destroy();
  }
}

// The history's answers, as the client gives them: the runtime's types,
// declared again here, since the driver reaches its client by names only.

interface Entry {
  transfer: string;
  op: string;
  key: string[] | null;
  args: Record<string, string> | null;
  id: string;
  move: number;
  out: boolean;
  account: string;
  accountArgs: string[] | null;
  posted: bigint;
  heldIn: bigint;
  heldOut: bigint;
  after: { posted: bigint; held_in: bigint; held_out: bigint } | null;
  at: Date;
  cursor: string;
}

interface Statement {
  entries: Entry[];
  next: string;
  more: boolean;
}

interface OpenHold {
  transfer: string;
  key: string[] | null;
  id: string;
  moves: { move: number; from: string; fromArgs: string[] | null; to: string; toArgs: string[] | null; amount: bigint }[];
  created: Date;
  deadline: Date | null;
}

/** compare orders strings by their UTF-16 code units. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * parseTime reads a time of the protocol, RFC 3339 with up to nine digits
 * of a second. A Date holds milliseconds, so what is past them is cut off.
 */
export function parseTime(s: string): Date {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(s);
  const d = m === null ? null : new Date(`${m[1]}.${(m[2] ?? "").slice(0, 3).padEnd(3, "0")}${m[3]}`);
  if (d === null || Number.isNaN(d.getTime())) {
    throw new Error(`${JSON.stringify(s)} is not an RFC 3339 time`);
  }
  return d;
}

/** formatTime writes a time as the protocol does, in UTC: RFC 3339, its fraction of a second without trailing zeros. */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.?0+Z$/, "Z");
}

function entryJSON(e: Entry): Record<string, unknown> {
  return {
    transfer: e.transfer, op: e.op, key: e.key, args: e.args, ...(e.id === "" ? {} : { id: e.id }), move: e.move, out: e.out,
    account: e.account, account_args: e.accountArgs, posted: String(e.posted), held_in: String(e.heldIn), held_out: String(e.heldOut),
    after: e.after === null ? null : { posted: String(e.after.posted), held_in: String(e.after.held_in), held_out: String(e.after.held_out) },
    at: formatTime(e.at), cursor: e.cursor,
  };
}

function holdJSON(h: OpenHold): Record<string, unknown> {
  return {
    transfer: h.transfer, key: h.key, ...(h.id === "" ? {} : { id: h.id }),
    moves: h.moves.map((m) => ({ move: m.move, from: m.from, from_args: m.fromArgs, to: m.to, to_args: m.toArgs, amount: String(m.amount) })),
    created: formatTime(h.created), deadline: h.deadline === null ? "" : formatTime(h.deadline),
  };
}

/** values makes the object a call takes from the protocol's strings; amounts become bigints. */
function values(fields: Field[], args: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = args[f.param];
    if (v === undefined) {
      continue; // the client says what is missing
    }
    if (f.type === "bigint") {
      if (!/^-?[0-9]+$/.test(v)) {
        throw new Error(`${JSON.stringify(v)} is not an amount (decimal digits, in a string)`);
      }
      out[f.param] = BigInt(v);
    } else {
      out[f.param] = v;
    }
  }
  return out;
}

// onlyKnown fails for an argument that names no parameter of the
// operation, as the Go driver does: a misspelt name would otherwise be
// dropped in silence and the client would report the value as missing,
// or not at all.
function onlyKnown(args: Record<string, string>, fields: Field[], also: Field[]): void {
  for (const name of Object.keys(args)) {
    if (!fields.some((f) => f.param === name) && !also.some((f) => f.param === name)) {
      throw new Error(`${name} is not one of its parameters`);
    }
  }
}

/** answer writes what a call got as the protocol does: an error, a state or an outcome. */
function answer(op: string, res: unknown): Record<string, unknown> {
  if (res instanceof Error) {
    return { error: message(res) };
  }
  if (op === "status") {
    return { state: res ?? "" };
  }
  const r = res as { result: string; reason?: string };
  return r.result === "refused" ? { outcome: r.result, reason: r.reason } : { outcome: r.result };
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length !== 1 || args[0]!.startsWith("-")) {
    process.stderr.write("usage: node driver.js <book>.js\n");
    return 2;
  }
  const module = (await import(new URL(args[0]!, `file://${process.cwd()}/`).href)) as Record<string, unknown>;
  const driver = new Driver(module);
  const inFlight = new Set<Promise<void>>();
  const answer = (r: Response) => process.stdout.write(JSON.stringify(r) + "\n");
  let broken = "";
  let opening: Promise<void> = Promise.resolve();
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") {
      continue;
    }
    let req: Request;
    try {
      req = JSON.parse(line) as Request;
    } catch (err) {
      broken = `a line that is not a JSON object (${message(err)}): ${JSON.stringify(line)}`;
      break;
    }
    if (typeof req !== "object" || req === null || typeof req.id !== "number") {
      broken = `a request without a numeric "id": ${JSON.stringify(line)}`;
      break;
    }
    const id = req.id;
    if (req.op === "open") {
      // Answered before the next request is read: every other one needs it.
      opening = driver.open(req).then((r) => void answer(r), (err) => void answer({ id, error: message(err) }));
      await opening;
      continue;
    }
    await opening;
    if (!driver.isOpen) {
      answer({ id, error: 'not open: the first request must be "open"' });
      continue;
    }
    const p: Promise<void> = driver.handle(req)
      .then((r) => void answer(r), (err) => void answer({ id, error: message(err) }))
      .then(() => void inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  await driver.close();
  if (broken !== "") {
    process.stderr.write(`chobo driver: ${broken}\n`);
    return 2;
  }
  return 0;
}

process.exitCode = await main();
