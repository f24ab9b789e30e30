// How a TypeScript client calls a chobo book kept in PostgreSQL, the same
// for every book: one statement per operation, the call of one of the
// book's SQL functions, sent again when the server could not serialize
// it, with the answer read into chobo's types.

import { randomUUID } from "node:crypto";
import {
  type Balance,
  ChoboError,
  checkQuery,
  checkSize,
  checkTime,
  type Entry,
  type EntryOp,
  type HoldMove,
  type HoldState,
  type OpenHold,
  type ResultOf,
  type Statement,
  describe,
  parseHoldState,
  parseOutcome,
} from "./chobo.ts";

/**
 * What a book sends its statements through: anything with query(text,
 * values) answering rows, as pg's Client, Pool and PoolClient do. A
 * client never commits or rolls back: called inside the caller's
 * transaction (a PoolClient after BEGIN), its writes commit with it.
 */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** How often one call is sent at most while the server keeps answering with a failure that may be retried. */
export const MAX_ATTEMPTS = 30;

/**
 * backoff is the longest wait, in milliseconds, before attempt n + 1 (n
 * from 0): 1, 2, 4 … 128, then 128. The wait itself is drawn at random up
 * to it, so that callers that collided do not collide again in step.
 */
export function backoff(n: number): number {
  return n >= 7 ? 128 : 1 << n;
}

// The SQLSTATEs the runtime acts on.
/** Only under REPEATABLE READ or SERIALIZABLE; nothing was written, the call may go again. */
export const SERIALIZATION_FAILURE = "40001";
/** The book's functions lock in one order and should never meet it; retried all the same. */
export const DEADLOCK_DETECTED = "40P01";
/** The caller's transaction failed earlier; the first error is the telling one. */
export const IN_FAILED_TRANSACTION = "25P02";
/** chobo's own: an account made outside met a book in which its kind has bounds. */
export const BOUNDS_CHANGED = "CB001";

/** retryable says whether a call that failed with the SQLSTATE may be sent again unchanged; its key makes that safe. */
export function retryable(code: string): boolean {
  return code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED;
}

/** sqlState is the SQLSTATE of a driver's error, or "". */
export function sqlState(err: unknown): string {
  if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "string" && /^[0-9A-Z]{5}$/.test(err.code)) {
    return err.code;
  }
  return "";
}

const retries = new Map<string, number>([[SERIALIZATION_FAILURE, 0], [DEADLOCK_DETECTED, 0]]);

/** retriesOf says how often, in this process, a call was sent again after failing with the SQLSTATE. */
export function retriesOf(code: string): number {
  return retries.get(code) ?? 0;
}

function classify(where: string, err: unknown): unknown {
  const code = sqlState(err);
  const message = err instanceof Error ? err.message : String(err);
  if (code === BOUNDS_CHANGED) {
    return new ChoboError("CHOBO_BOUNDS_CHANGED", `${where}: an account keeps bounds other than the book has now: ${message}`, { cause: err });
  }
  if (code.startsWith("22")) {
    return new ChoboError("CHOBO_BAD_CALL", `${where}: the function rejected the call: ${message}`, { cause: err });
  }
  return err;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * How long, in milliseconds, a call whose connection was lost is sent
 * again with the same arguments, unless the book was made with another
 * resendMs: long enough for a standby to be promoted, short enough that a
 * caller hears of a server that is gone. Its key makes a second sending
 * safe, and its call id, the same in every sending, has the server answer
 * what it answered the first that was applied: done or refused, never
 * done_before for a call of the caller's made once.
 */
export const DEFAULT_RESEND_MS = 30_000;

const SETTINGS = Symbol("chobo settings");

interface Settings {
  db: Queryable;
  resendMs: number;
}

/**
 * configure gives db the book's settings, for a generated constructor to
 * keep: resendMs (0: a lost call's error is thrown at once).
 */
export function configure(db: Queryable, options: { resendMs?: number }): Queryable {
  const inner = settingsOf(db).db;
  const resendMs = options.resendMs ?? DEFAULT_RESEND_MS;
  if (typeof resendMs !== "number" || !Number.isFinite(resendMs) || resendMs < 0) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `postgres: resendMs must be a number of milliseconds from 0, got ${describe(resendMs)}`);
  }
  const settings: Settings = { db: inner, resendMs };
  return Object.assign({ query: (text: string, values?: unknown[]) => inner.query(text, values) }, { [SETTINGS]: settings });
}

function settingsOf(db: Queryable): Settings {
  const s = (db as { [SETTINGS]?: Settings })[SETTINGS];
  return s ?? { db, resendMs: DEFAULT_RESEND_MS };
}

/** inTransaction says whether db is a pg Client inside a transaction of the caller's. */
function inTransaction(db: Queryable): boolean {
  const c = db as { getTransactionStatus?: () => string | null };
  if (typeof c.getTransactionStatus !== "function") {
    return false;
  }
  const st = c.getTransactionStatus();
  return st === "T" || st === "E";
}

/**
 * pooled says whether db lends a connection per statement, as pg's Pool
 * does (connect(), and its counts of connections): only there does a
 * statement sent again go on another connection. A pg Client or a
 * PoolClient is one connection, which pg never opens again once lost.
 */
function pooled(db: Queryable): boolean {
  const p = db as { connect?: unknown; totalCount?: unknown; idleCount?: unknown };
  return typeof p.connect === "function" && typeof p.totalCount === "number" && typeof p.idleCount === "number";
}

const lines = new WeakMap<object, Promise<unknown>>();

/**
 * query sends one statement over db. Over one connection the book's
 * statements go one after another, each when the one before it has been
 * answered: pg queues statements given to a busy Client itself, but warns
 * that it will stop doing so. A Pool lends each its own connection, and
 * a Client in pg's pipeline mode is meant to have many out at once.
 */
function query(db: Queryable, text: string, values: unknown[]): Promise<{ rows: unknown[] }> {
  if (pooled(db) || (db as { pipeline?: unknown }).pipeline === true) {
    return db.query(text, values);
  }
  const before = lines.get(db) ?? Promise.resolve();
  const sent = before.then(() => db.query(text, values));
  lines.set(db, sent.catch(() => {}));
  return sent;
}

/**
 * resends says whether a lost call goes again over db: for the book's
 * resendMs, and only over a pool, which has another connection to send
 * it on. Over a single connection it is answered at once, as it is inside
 * a transaction of the caller's, which the lost connection took with it.
 */
function resends(configured: Queryable): boolean {
  const { db, resendMs } = settingsOf(configured);
  return resendMs > 0 && pooled(db) && !inTransaction(db);
}

/** The errors of Node's sockets that come before anything is sent. */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ENOENT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/** Those of a connection that broke, maybe while a statement was out. */
const BROKEN = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED"]);

/**
 * PgBouncer's messages (all SQLSTATE 08P01) for a statement it held while
 * it waited for a server connection that never came: the statement never
 * reached the server. Its other errors, such as "server conn crashed?" when
 * the server went away while the statement was out, leave the outcome
 * unknown.
 */
const POOLER_NOT_SENT = /pgbouncer cannot connect to server|server login has been failing|query_wait_timeout|no more connections allowed/;

/**
 * connectionFailure says how a statement failed when the connection, not
 * the server's answer, was the cause: CHOBO_NOT_SENT when nothing of it
 * went (no connection could be made or used), CHOBO_OUTCOME_UNKNOWN when it
 * may have (the connection broke, or the server shut down, while it was
 * out). null for an answer of the server's.
 */
export function connectionFailure(err: unknown): "CHOBO_NOT_SENT" | "CHOBO_OUTCOME_UNKNOWN" | null {
  const sys = typeof err === "object" && err !== null && "code" in err && typeof err.code === "string" ? err.code : "";
  if (NOT_CONNECTED.has(sys)) {
    return "CHOBO_NOT_SENT";
  }
  if (BROKEN.has(sys)) {
    return "CHOBO_OUTCOME_UNKNOWN";
  }
  const code = sqlState(err);
  if (code === "57P03") {
    return "CHOBO_NOT_SENT"; // the server takes no connections yet: said at the start of one
  }
  if (code === "08P01" && err instanceof Error && POOLER_NOT_SENT.test(err.message)) {
    return "CHOBO_NOT_SENT";
  }
  if (code.startsWith("57P") || code.startsWith("08")) {
    return "CHOBO_OUTCOME_UNKNOWN";
  }
  if (code !== "") {
    return null;
  }
  const message = err instanceof Error ? err.message : "";
  if (/not queryable|timeout exceeded when trying to connect/i.test(message)) {
    return "CHOBO_NOT_SENT";
  }
  if (/connection terminated|connection error|connection is closed/i.test(message)) {
    return "CHOBO_OUTCOME_UNKNOWN";
  }
  return null;
}

/**
 * clientTimeout says whether err is pg's query_timeout: the client gave up
 * waiting but told the server nothing, so a statement that was out runs on
 * and may commit. A Client keeps the connection and sends what comes next
 * after that statement's answer; a Pool closes it.
 */
export function clientTimeout(err: unknown): boolean {
  return err instanceof Error && !(err instanceof ChoboError) && sqlState(err) === "" && /^Query read timeout$/.test(err.message);
}

const lostMessages = {
  CHOBO_OUTCOME_UNKNOWN: "the connection was lost after the call was sent, so it may or may not have been applied; sending it again with the same arguments is safe, and its answer says which",
  CHOBO_NOT_SENT: "the call was not sent: no connection to the server could be used",
};

/** timeoutError is the error of a call the driver stopped waiting for. */
function timeoutError(where: string, err: unknown): ChoboError {
  const message = err instanceof Error ? err.message : String(err);
  return new ChoboError("CHOBO_OUTCOME_UNKNOWN", `${where}: no answer within the driver's query_timeout, and the server may still apply the call; sending it again with the same arguments is safe, and its answer says which: ${message}`, { cause: err });
}

/** lostError is the error of a call whose connection failed: what that means for the call, then what the driver said. */
function lostError(kind: keyof typeof lostMessages, where: string, err: unknown): ChoboError {
  const message = err instanceof Error ? err.message : String(err);
  return new ChoboError(kind, `${where}: ${lostMessages[kind]}: ${message}`, { cause: err });
}

const resent = new Map<string, number>([["CHOBO_OUTCOME_UNKNOWN", 0], ["CHOBO_NOT_SENT", 0]]);

/** resentOf says how often, in this process, a call was sent again after its connection was lost while it was out (CHOBO_OUTCOME_UNKNOWN) or before it went (CHOBO_NOT_SENT). */
export function resentOf(kind: "CHOBO_OUTCOME_UNKNOWN" | "CHOBO_NOT_SENT"): number {
  return resent.get(kind) ?? 0;
}

/**
 * queryRow sends one statement and answers the values of its one row, in
 * column order. A failure that may be retried is sent again after a
 * random wait, up to MAX_ATTEMPTS times in all; inside a transaction the
 * caller let fail, the first error is thrown rather than the 25P02 after it.
 */
export async function queryRow(db: Queryable, where: string, text: string, values: unknown[]): Promise<unknown[]> {
  return (await send(db, where, text, values)).row;
}

/**
 * send is queryRow, saying also whether the answer is that of the
 * statement sent again after its connection was lost while it was out.
 * Such a statement is sent again, with the same values, for the book's
 * resendMs, never inside a transaction of the caller's, which the lost
 * connection took with it.
 */
async function send(configured: Queryable, where: string, text: string, values: unknown[]): Promise<{ row: unknown[]; resent: boolean }> {
  const { rows, resent } = await sendRows(configured, where, text, values);
  const row = rows[0];
  if (row === undefined) {
    throw new ChoboError("CHOBO_UNEXPECTED", `${where}: the statement answered no row`);
  }
  return { row, resent };
}

/** sendRows is send for a statement that answers any number of rows, each as its values in column order. */
async function sendRows(configured: Queryable, where: string, text: string, values: unknown[]): Promise<{ rows: unknown[][]; resent: boolean }> {
  const { db, resendMs } = settingsOf(configured);
  const until = resends(configured) ? Date.now() + resendMs : 0;
  let first: unknown;
  let lostOnce = false;
  let lostTries = 0;
  for (let n = 0; ; n++) {
    try {
      const res = await query(db, text, values);
      const rows = res.rows.map((row) => {
        if (typeof row !== "object" || row === null) {
          throw new ChoboError("CHOBO_UNEXPECTED", `${where}: the statement answered a row that is not one`);
        }
        return Object.values(row);
      });
      return { rows, resent: lostOnce };
    } catch (err) {
      if (err instanceof ChoboError) {
        throw err;
      }
      if (clientTimeout(err)) {
        // Never sent again: the statement may still be running, and on
        // one connection its second sending would wait behind it.
        throw timeoutError(where, err);
      }
      const kind = connectionFailure(err);
      if (kind !== null) {
        lostOnce ||= kind === "CHOBO_OUTCOME_UNKNOWN";
        if (Date.now() >= until) {
          // An earlier sending may have been applied.
          throw lostError(lostOnce ? "CHOBO_OUTCOME_UNKNOWN" : kind, where, err);
        }
        resent.set(kind, (resent.get(kind) ?? 0) + 1);
        await sleep(Math.random() * backoff(lostTries++));
        continue;
      }
      first ??= err;
      const code = sqlState(err);
      if (code === IN_FAILED_TRANSACTION) {
        throw classify(where, first);
      }
      if (!retryable(code) || n + 1 >= MAX_ATTEMPTS) {
        if (lostOnce) {
          throw lostError("CHOBO_OUTCOME_UNKNOWN", where, err);
        }
        throw classify(where, err);
      }
      retries.set(code, (retries.get(code) ?? 0) + 1);
      await sleep(Math.random() * backoff(n));
    }
  }
}

/**
 * callId makes the id of one call: a random version 4 UUID. The server
 * keeps it with the call's key, so that a second sending with the same id
 * is known for the book's own and answered what the first was answered,
 * while a new call with the same arguments, with an id of its own, still
 * hears done_before or already_refused.
 */
function callId(): string {
  return randomUUID();
}

/**
 * call sends an operation (do, hold, post, void), whose statement answers
 * (result, reason) and takes the call's id after values: a new one, the
 * same for every sending of this call.
 */
export async function call<R extends string>(db: Queryable, where: string, text: string, values: unknown[]): Promise<ResultOf<R>> {
  checkSize(where, values[0], values.slice(1));
  return operate<R>(db, where, text, [...values, callId()]);
}

/** operate sends an operation whose values end with its call's id. */
async function operate<R extends string>(db: Queryable, where: string, text: string, values: unknown[]): Promise<ResultOf<R>> {
  const { row, resent } = await send(db, where, text, values);
  const [outcome, reason] = row;
  const again = resent ? { resent: true as const } : {};
  switch (parseOutcome(outcome)) {
    case "done":
      return { result: "done", ...again };
    case "done_before":
      return { result: "done_before", ...again };
  }
  if (typeof reason !== "string") {
    throw new ChoboError("CHOBO_UNEXPECTED", `${where}: a refusal without a reason`);
  }
  return { result: "refused", reason: reason as R, ...again };
}

/** status sends a status statement, which answers the state of a hold or null. */
export async function status(db: Queryable, where: string, text: string, values: unknown[]): Promise<HoldState | null> {
  checkSize(where, values[0], values.slice(1));
  const [state] = await queryRow(db, where, text, values);
  return parseHoldState(state);
}

/** int64 reads a bigint column, which pg hands over as a string. */
function int64(where: string, v: unknown): bigint {
  if (typeof v === "bigint") {
    return v;
  }
  if ((typeof v === "string" && /^-?[0-9]+$/.test(v)) || (typeof v === "number" && Number.isSafeInteger(v))) {
    return BigInt(v);
  }
  throw new ChoboError("CHOBO_UNEXPECTED", `${where}: a balance of ${describe(v)}`);
}

/** balance sends a balance statement: posted, held in, held out. */
export async function balance(db: Queryable, where: string, text: string, values: unknown[]): Promise<Balance> {
  checkSize(where, values[0], values.slice(1));
  const [posted, heldIn, heldOut] = await queryRow(db, where, text, values);
  return { posted: int64(where, posted), held_in: int64(where, heldIn), held_out: int64(where, heldOut) };
}

/** How many holds expire gives back when the caller names no max, as the book's SQL function does. */
export const DEFAULT_EXPIRE_MAX = 1000;

/** The largest max of expire: the SQL function takes a PostgreSQL integer. */
export const EXPIRE_MAX = 2147483647;

/**
 * expire sends the book's expire statement: it gives back up to max holds
 * past their deadline and answers how many. The call's id goes with it,
 * so that a second sending of a lost call answers the count of the first
 * rather than giving back up to max more.
 */
export async function expire(db: Queryable, text: string, max: number = DEFAULT_EXPIRE_MAX): Promise<number> {
  if (!Number.isSafeInteger(max) || max < 0 || max > EXPIRE_MAX) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `expire: max must be a whole number from 0 to ${EXPIRE_MAX}, got ${describe(max)}`);
  }
  const [n] = await queryRow(db, "expire", text, [max, callId()]);
  return Number(int64("expire", n));
}

/** One call of a bulk, made by a transfer's *Call method and sent by the book's bulk. */
export interface PgCall {
  readonly where: string;
  readonly text: string;
  /** What is sent after the statement's text; an operation's call id is not among them: bulk gives each call its id as it takes it. */
  readonly values: readonly unknown[];
  /** A status, answered with a hold state rather than a result. */
  readonly status: boolean;
  /** Why the client would not make the call: its answer, and nothing is sent. */
  readonly error?: Error;
}

/** What one call of a bulk got: a result, a hold state (or null) for a status, or the error the call alone would throw. */
export type PgAnswer<R extends string> = ResultOf<R> | HoldState | null | Error;

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * makeCall is one call of a bulk; an error of its values is the call's
 * answer, never thrown.
 */
export function makeCall(where: string, text: string, status: boolean, values: () => unknown[]): PgCall {
  try {
    const v = values();
    checkSize(where, v[0], v.slice(1));
    return { where, text, values: v, status };
  } catch (err) {
    return { where, text, values: [], status, error: asError(err) };
  }
}

/** How many calls go in one statement of a bulk at most. */
export const BULK_STATEMENT_MAX = 200;

let inOneStatement = 0;

/** bulkStatements says how many calls, in this process, went in a statement together with others. */
export function bulkStatements(): number {
  return inOneStatement;
}

/** renumber moves the $n placeholders of a statement, outside its quoted names, up by off. */
function renumber(text: string, off: number): string {
  return text
    .split('"')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/\$([0-9]+)/g, (_, n: string) => "$" + (Number(n) + off))))
    .join('"');
}

/**
 * oneStatement sends calls as one statement, each call's function in a
 * branch of a union all, which the server runs in order in one
 * transaction; it answers each call's row, or throws what failed, in
 * which case the server has undone every call of it.
 */
async function oneStatement(db: Queryable, calls: readonly PgCall[]): Promise<unknown[][]> {
  const parts: string[] = [];
  const values: unknown[] = [];
  calls.forEach((c, i) => {
    const text = renumber(c.text, values.length);
    values.push(...c.values);
    parts.push(
      c.status
        ? `select ${i} as chobo_i, x.s::text as a, null::text as b from (${text}) as x (s)`
        : `select ${i} as chobo_i, x.result::text as a, x.reason::text as b from (${text}) as x`,
    );
  });
  inOneStatement += calls.length;
  const res = await query(settingsOf(db).db, parts.join("\nunion all\n"), values);
  const rows: unknown[][] = calls.map(() => []);
  for (const r of res.rows) {
    const [i, a, b] = Object.values(r as object) as unknown[];
    rows[Number(i)] = [a, b];
  }
  if (rows.some((r) => r.length === 0)) {
    throw new ChoboError("CHOBO_UNEXPECTED", "a call of a bulk answered no row");
  }
  return rows;
}

function answerOf<R extends string>(c: PgCall, row: unknown[]): PgAnswer<R> {
  try {
    if (c.status) {
      return parseHoldState(row[0]);
    }
    switch (parseOutcome(row[0])) {
      case "done":
        return { result: "done" };
      case "done_before":
        return { result: "done_before" };
    }
    if (typeof row[1] !== "string") {
      throw new ChoboError("CHOBO_UNEXPECTED", `${c.where}: a refusal without a reason`);
    }
    return { result: "refused", reason: row[1] as R };
  } catch (err) {
    return asError(err);
  }
}

/**
 * bulk sends many calls and answers each, in order, as it would be
 * answered alone. pg has no pipeline mode, so up to BULK_STATEMENT_MAX
 * calls go as one statement, which the server runs in order as one
 * transaction: when every call succeeds they commit together, each
 * answered from its row; when one fails, the server undoes them all and
 * they go again one by one, each its own transaction with the retries and
 * errors of a single call. Inside the caller's transaction, which the
 * failure has spoilt, nothing goes again: every call of the statement is
 * answered with its error, and the caller rolls back.
 */
export async function bulk<R extends string>(db: Queryable, given: readonly PgCall[]): Promise<PgAnswer<R>[]> {
  // Each operation gets its call id as the bulk takes it, and keeps it
  // when it goes again alone: the same PgCall given twice, in one bulk or
  // two, is two calls, as in the Go and Python books.
  const calls = given.map((c) => (c.status || c.error !== undefined ? c : { ...c, values: [...c.values, callId()] }));
  const out: PgAnswer<R>[] = calls.map((c) => c.error ?? null);
  const send = calls.flatMap((c, i) => (c.error === undefined ? [i] : []));
  for (let k = 0; k < send.length; k += BULK_STATEMENT_MAX) {
    const part = send.slice(k, k + BULK_STATEMENT_MAX);
    let failed: unknown;
    if (part.length > 1) {
      try {
        const rows = await oneStatement(db, part.map((i) => calls[i]!));
        part.forEach((i, n) => (out[i] = answerOf<R>(calls[i]!, rows[n]!)));
        continue;
      } catch (err) {
        failed = err;
      }
    }
    // A statement the driver stopped waiting for may still commit: its
    // calls are of unknown outcome, and never go again.
    if (failed !== undefined && clientTimeout(failed)) {
      for (const i of part) {
        out[i] = timeoutError(calls[i]!.where, failed);
      }
      continue;
    }
    // A statement whose connection broke while it was out may have
    // committed: its calls are of unknown outcome, unless the book sends
    // lost calls again; then each goes again, and one that cannot go is
    // still of unknown outcome, not unsent.
    const lost = failed !== undefined && connectionFailure(failed) === "CHOBO_OUTCOME_UNKNOWN";
    if (lost && !resends(db)) {
      for (const i of part) {
        out[i] = lostError("CHOBO_OUTCOME_UNKNOWN", calls[i]!.where, failed);
      }
      continue;
    }
    for (const i of part) {
      const c = calls[i]!;
      try {
        if (c.status) {
          out[i] = await status(db, c.where, c.text, [...c.values]);
        } else {
          const r = await operate<R>(db, c.where, c.text, [...c.values]);
          out[i] = lost ? { ...r, resent: true } : r;
        }
      } catch (err) {
        if (lost && err instanceof ChoboError && err.code === "CHOBO_NOT_SENT") {
          out[i] = lostError("CHOBO_OUTCOME_UNKNOWN", c.where, failed);
          continue;
        }
        if (failed !== undefined && sqlState(err) === IN_FAILED_TRANSACTION) {
          // The caller's transaction: the statement's failure is the answer of every call it carried.
          for (const j of part.slice(part.indexOf(i))) {
            out[j] = asError(classify(calls[j]!.where, failed));
          }
          break;
        }
        out[i] = asError(err);
      }
    }
  }
  return out;
}

// The history reads. The book's four read functions answer rows; the
// statements that call them are the client's, and what each row's values
// are named comes from the book (HistoryKinds), since a row keeps a
// call's values in the order its operation takes them.

/** The parameters of one transfer kind, by the book's names: all of them in declared order, the key's, a post's amounts. */
export interface HistoryKind {
  readonly args: readonly string[];
  readonly key: readonly string[];
  readonly amounts: readonly string[];
}

/** The transfer kinds of a book, by name, as the history reads name the values of each entry's call. */
export type HistoryKinds = ReadonlyMap<string, HistoryKind>;

/** The statements that read a book's history: a statement, a call's entries, the open holds, a balance at a time. */
export interface HistoryStatements {
  readonly statement: string;
  readonly call: string;
  readonly openHolds: string;
  readonly balanceAt: string;
}

/** The largest cursor: an account's entry number, a PostgreSQL bigint. */
const CURSOR_MAX = (1n << 63n) - 1n;

/** parseCursor reads a statement's cursor as PostgreSQL gives it, the decimal text of an entry number; anything else throws before anything is sent. */
export function parseCursor(where: string, c: string): string | null {
  if (c === "") {
    return null;
  }
  if (!/^[1-9][0-9]{0,18}$/.test(c) || BigInt(c) > CURSOR_MAX) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: ${describe(c)} is not a cursor of this book's statements; give the cursor or next a statement answered`);
  }
  return c;
}

function unexpected(where: string, what: string, v: unknown): never {
  throw new ChoboError("CHOBO_UNEXPECTED", `${where}: ${what} of ${describe(v)}`);
}

function asText(where: string, what: string, v: unknown): string {
  return typeof v === "string" ? v : unexpected(where, what, v);
}

function texts(where: string, what: string, v: unknown): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
    unexpected(where, what, v);
  }
  return [...(v as string[])];
}

function whole(where: string, what: string, v: unknown): number {
  const n = typeof v === "string" && /^[0-9]+$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isSafeInteger(n) ? n : unexpected(where, what, v);
}

/** time reads a timestamptz, which pg hands over as a Date. */
function time(where: string, what: string, v: unknown): Date {
  const d = v instanceof Date ? v : typeof v === "string" ? new Date(v) : null;
  return d !== null && !Number.isNaN(d.getTime()) ? d : unexpected(where, what, v);
}

const entryOps: readonly string[] = ["do", "hold", "post", "void", "expire"];

/** callArgs names the values a row keeps of an entry's call, as its operation took them. */
function callArgs(where: string, kind: HistoryKind, op: EntryOp, values: string[]): Record<string, string> {
  let names: readonly string[];
  switch (op) {
    case "do":
    case "hold":
      names = kind.args;
      break;
    case "post":
      names = values.length === kind.key.length ? kind.key : [...kind.key, ...kind.amounts];
      break;
    default:
      names = kind.key;
  }
  if (names.length !== values.length) {
    unexpected(where, `a ${op} with the values`, values);
  }
  const out: Record<string, string> = {};
  names.forEach((n, i) => Object.defineProperty(out, n, { value: values[i], enumerable: true, writable: true, configurable: true }));
  return out;
}

/** entryOf reads one row of a statement or of a call's entries. */
function entryOf(where: string, kinds: HistoryKinds, row: unknown[]): Entry {
  const [cursor, transfer, op, key, args, move, out, account, accountArgs, posted, heldIn, heldOut, ap, ai, ao, at] = row;
  const t = asText(where, "a transfer kind", transfer);
  const kind = kinds.get(t) ?? unexpected(where, "a transfer kind", t);
  const o = asText(where, "an op", op);
  if (!entryOps.includes(o)) {
    unexpected(where, "an op", o);
  }
  if (typeof out !== "boolean") {
    unexpected(where, "a side", out);
  }
  const after = ap === null && ai === null && ao === null ? null
    : { posted: int64(where, ap), held_in: int64(where, ai), held_out: int64(where, ao) };
  return {
    transfer: t, op: o as EntryOp, key: texts(where, "a key", key),
    args: callArgs(where, kind, o as EntryOp, texts(where, "the values of a call", args)), id: "",
    move: whole(where, "a move", move), out, account: asText(where, "an account kind", account),
    accountArgs: texts(where, "the values of an account", accountArgs),
    posted: int64(where, posted), heldIn: int64(where, heldIn), heldOut: int64(where, heldOut), after,
    at: time(where, "a time", at), cursor: String(int64(where, cursor)),
  };
}

/**
 * statement reads a page of an account's entries: values are the
 * account's. It asks for one row more than the page holds, to tell
 * whether more are left.
 */
export async function statement(db: Queryable, where: string, text: string, kinds: HistoryKinds, tenant: string, account: string, values: string[], q: unknown): Promise<Statement> {
  const query = checkQuery(where, q === undefined ? {} : q, [...kinds.keys()]);
  const after = parseCursor(where, query.after);
  checkSize(where, tenant, values);
  const { rows } = await sendRows(db, where, text, [tenant, account, values, query.from, query.to,
    query.transfers.length === 0 ? null : query.transfers, query.newest, query.limit + 1, after]);
  const more = rows.length > query.limit;
  const entries = rows.slice(0, query.limit).map((r) => entryOf(where, kinds, r));
  return { entries, next: entries.length === 0 ? query.after : entries[entries.length - 1]!.cursor, more };
}

/** callEntries reads every entry written under the key of a transfer kind, oldest first. */
export async function callEntries(db: Queryable, where: string, text: string, kinds: HistoryKinds, tenant: string, transfer: string, key: string[]): Promise<Entry[]> {
  checkSize(where, tenant, key);
  const { rows } = await sendRows(db, where, text, [tenant, transfer, key]);
  return rows.map((r) => entryOf(where, kinds, r));
}

/**
 * openHolds reads the holds still held that move from or to an account
 * (null: any) and are of a transfer kind (null: any). The function
 * answers a row per move, a hold's moves together.
 */
export async function openHolds(db: Queryable, where: string, text: string, tenant: string, account: string | null, values: string[] | null, transfer: string | null): Promise<OpenHold[]> {
  checkSize(where, tenant, values ?? []);
  const { rows } = await sendRows(db, where, text, [tenant, account, values, transfer]);
  const out: OpenHold[] = [];
  let last = "";
  for (const [kind, key, move, from, fromArgs, to, toArgs, amount, created, deadline] of rows) {
    const t = asText(where, "a transfer kind", kind);
    const k = texts(where, "a key", key);
    const m: HoldMove = {
      move: whole(where, "a move", move), from: asText(where, "an account kind", from), fromArgs: texts(where, "the values of an account", fromArgs),
      to: asText(where, "an account kind", to), toArgs: texts(where, "the values of an account", toArgs), amount: int64(where, amount),
    };
    const name = JSON.stringify([t, k]);
    if (name === last) {
      out[out.length - 1]!.moves.push(m);
      continue;
    }
    last = name;
    out.push({ transfer: t, key: k, id: "", moves: [m], created: time(where, "a time", created),
      deadline: deadline === null ? null : time(where, "a deadline", deadline) });
  }
  return out;
}

/** balanceAt reads what an account held at a time: after every entry written then or before. */
export async function balanceAt(db: Queryable, where: string, text: string, tenant: string, account: string, values: string[], at: unknown): Promise<Balance> {
  const when = checkTime(where, "the time", at);
  checkSize(where, tenant, values);
  const [posted, heldIn, heldOut] = await queryRow(db, where, text, [tenant, account, values, when]);
  return { posted: int64(where, posted), held_in: int64(where, heldIn), held_out: int64(where, heldOut) };
}
