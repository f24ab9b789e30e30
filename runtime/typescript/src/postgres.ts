// How a TypeScript client calls a chobo book kept in PostgreSQL, the same
// for every book: one statement per operation, the call of one of the
// book's SQL functions, sent again when the server could not serialize
// it, with the answer read into chobo's types.

import {
  type Balance,
  ChoboError,
  checkSize,
  type HoldState,
  type ResultOf,
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
/** chobo's own: an account's row keeps bounds other than the book's. */
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
 * queryRow sends one statement and answers the values of its one row, in
 * column order. A failure that may be retried is sent again after a
 * random wait, up to MAX_ATTEMPTS times in all; inside a transaction the
 * caller let fail, the first error is thrown rather than the 25P02 after it.
 */
export async function queryRow(db: Queryable, where: string, text: string, values: unknown[]): Promise<unknown[]> {
  let first: unknown;
  for (let n = 0; ; n++) {
    try {
      const res = await db.query(text, values);
      const row = res.rows[0];
      if (typeof row !== "object" || row === null) {
        throw new ChoboError("CHOBO_UNEXPECTED", `${where}: the statement answered no row`);
      }
      return Object.values(row);
    } catch (err) {
      if (err instanceof ChoboError) {
        throw err;
      }
      first ??= err;
      const code = sqlState(err);
      if (code === IN_FAILED_TRANSACTION) {
        throw classify(where, first);
      }
      if (!retryable(code) || n + 1 >= MAX_ATTEMPTS) {
        throw classify(where, err);
      }
      retries.set(code, (retries.get(code) ?? 0) + 1);
      await sleep(Math.random() * backoff(n));
    }
  }
}

/** call sends an operation (do, hold, post, void), whose statement answers (result, reason). */
export async function call<R extends string>(db: Queryable, where: string, text: string, values: unknown[]): Promise<ResultOf<R>> {
  checkSize(where, values[0], values.slice(1));
  const [outcome, reason] = await queryRow(db, where, text, values);
  switch (parseOutcome(outcome)) {
    case "done":
      return { result: "done" };
    case "done_before":
      return { result: "done_before" };
  }
  if (typeof reason !== "string") {
    throw new ChoboError("CHOBO_UNEXPECTED", `${where}: a refusal without a reason`);
  }
  return { result: "refused", reason: reason as R };
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

/** expire sends the book's expire statement: it gives back up to max holds past their deadline and answers how many. */
export async function expire(db: Queryable, text: string, max: number): Promise<number> {
  if (!Number.isSafeInteger(max) || max < 0) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `expire: max must be a whole number from 0, got ${describe(max)}`);
  }
  const [n] = await queryRow(db, "expire", text, [max]);
  return Number(int64("expire", n));
}

/** One call of a bulk, made by a transfer's *Call method and sent by the book's bulk. */
export interface PgCall {
  readonly where: string;
  readonly text: string;
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

/** makeCall is one call of a bulk; an error of its values is the call's answer, never thrown. */
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
  const res = await db.query(parts.join("\nunion all\n"), values);
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
export async function bulk<R extends string>(db: Queryable, calls: readonly PgCall[]): Promise<PgAnswer<R>[]> {
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
    for (const i of part) {
      const c = calls[i]!;
      try {
        out[i] = c.status ? await status(db, c.where, c.text, [...c.values]) : await call<R>(db, c.where, c.text, [...c.values]);
      } catch (err) {
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
