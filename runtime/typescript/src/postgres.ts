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
