// The part of every TypeScript client of a chobo book that depends neither
// on the book nor on the backend: the answers an operation gets, what an
// account holds, the error a failed call throws, and the checks every
// argument passes before anything is sent.
//
// chobo build writes this file, and the file of the client's backend,
// into every generated client without their import lines, so that a
// client is one file that needs no package of chobo's.

/** How an operation ended. */
export type Outcome = "done" | "done_before" | "refused";

/**
 * The answer to an operation. A refusal is an answer, not an exception:
 * nothing changed, and `reason` says why. `done_before` means the same
 * call, with the same key and content, took effect earlier.
 */
export type ResultOf<R extends string> =
  | { result: "done"; resent?: true }
  | { result: "done_before"; resent?: true }
  | { result: "refused"; reason: R; resent?: true };

/** Where a hold stands. A status call answers null when there is none. */
export type HoldState = "held" | "posted" | "voided" | "expired";

/** What an account holds, in the smallest step of its unit. */
export interface Balance {
  posted: bigint;
  held_in: bigint;
  held_out: bigint;
}

/**
 * The codes of ChoboError, one per way a call can fail. A failure is not
 * an answer: the call was not made, or its answer could not be read.
 */
export type ChoboErrorCode =
  | "CHOBO_BAD_ARGUMENT" // an argument of the wrong type, or a value no backend stores
  | "CHOBO_BAD_CALL" // PostgreSQL rejected the call as malformed (SQLSTATE class 22)
  | "CHOBO_BOUNDS_CHANGED" // an account keeps bounds other than the book's (CB001)
  | "CHOBO_ACCOUNT_CHANGED" // a TigerBeetle account exists with another definition
  | "CHOBO_BALANCE_OVERFLOW" // a TigerBeetle balance outside 64 bits
  | "CHOBO_TIMEOUT" // no answer within the time a request may take
  | "CHOBO_OUTCOME_UNKNOWN" // the connection was lost while the call was out: it may have been applied
  | "CHOBO_NOT_SENT" // no connection could be used: the call never went
  | "CHOBO_UNEXPECTED" // an answer chobo's statements or chains never get
  | "CHOBO_UNSUPPORTED"; // a read this client cannot make on its backend

/**
 * The exception every failed call of a chobo client throws. `cause` is the
 * error of the driver underneath, when there is one.
 */
export class ChoboError extends Error {
  readonly code: ChoboErrorCode;

  constructor(code: ChoboErrorCode, message: string, options?: { cause?: unknown }) {
    super("chobo: " + message, options);
    this.name = "ChoboError";
    this.code = code;
  }
}

/** The largest amount: amounts are 64-bit integers from 0 up. */
export const AMOUNT_MAX = (1n << 63n) - 1n;

/**
 * NoExtra makes a call's parameter exact: a property of T that the
 * parameter's type S does not declare must be of type never. TypeScript
 * refuses an excess property of a fresh object literal only; with a
 * method generic in T, written `T & NoExtra<T, S>`, it refuses one of a
 * variable as well, so that an amount given in a key fails to compile
 * rather than being left out of the call.
 */
export type NoExtra<T, S> = { [P in Exclude<keyof T, keyof S>]: never };

/** What one argument of a call is, as its messages name it. */
export type ArgumentKind = "arguments" | "key" | "amounts" | "account" | "options" | "query";

/**
 * argsOf returns the object a call's values are read from, or throws when
 * the caller passed something else, or an object with an own property
 * not among takes: a value the call would not read must not be dropped
 * without a word. `where` names the call (`reserve.hold`) in the message;
 * `elsewhere` lists the names that belong in the call's other argument
 * (the amounts of a post, for its key; the key, for its amounts), which
 * the message then points to.
 */
export function argsOf(where: string, what: ArgumentKind, v: unknown, takes: readonly string[], elsewhere: readonly string[] = []): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: the ${what} must be an object, got ${describe(v)}`);
  }
  for (const name of Object.getOwnPropertyNames(v)) {
    if (!takes.includes(name)) {
      throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: ${extraMessage(where, what, name, takes, elsewhere.includes(name))}`);
    }
  }
  return v as Record<string, unknown>;
}

function extraMessage(where: string, what: ArgumentKind, name: string, takes: readonly string[], misplaced: boolean): string {
  const dot = where.lastIndexOf(".");
  const owner = where.slice(0, dot);
  const op = where.slice(dot + 1);
  const shown = /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(name) ? name : JSON.stringify(name);
  switch (what) {
    case "key":
      return `the key has ${shown}, which is not part of ${owner}'s key` +
        (misplaced ? `; give amounts as the second argument: ${op}(key, { ${shown} })` : "");
    case "amounts":
      return `the amounts have ${shown}, which is not an amount of ${owner}` +
        (misplaced ? `; ${shown} is part of the key, the first argument: ${op}({ ${shown} }, amounts)` : "");
    case "account":
      return `the account has ${shown}, which is not a parameter of the account ${op}`;
    case "options":
      return `the options have ${shown}, which ${where} does not take; it takes ${takes.join(", ")}`;
    case "query":
      return `the query has ${shown}, which a statement does not read; it reads ${takes.join(", ")}`;
  }
  return `the arguments have ${shown}, which ${where} does not take`;
}

/**
 * checkArity refuses a call given more positional arguments than its
 * method takes (params, named in the message): the method would never
 * read them.
 */
export function checkArity(where: string, got: number, params: readonly string[]): void {
  if (got > params.length) {
    const op = where.slice(where.lastIndexOf(".") + 1);
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: got ${got} arguments; ${op}(${params.join(", ")}) takes ${params.length === 0 ? "none" : `at most ${params.length}`}`);
  }
}

/**
 * field reads one value of a call. Only the object's own properties
 * count, so that a parameter named like a property every object inherits
 * (toString, __proto__) is never read from the prototype.
 */
export function field(args: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(args, name) ? args[name] : undefined;
}

/**
 * checkAmount returns v when it is an amount: a bigint from 0 to
 * 2^63 - 1. Anything else throws, naming the parameter.
 */
export function checkAmount(where: string, name: string, v: unknown): bigint {
  if (typeof v !== "bigint") {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: the amount ${name} must be a bigint, got ${describe(v)}`);
  }
  if (v < 0n || v > AMOUNT_MAX) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: the amount ${name} is ${v}; amounts run from 0 to ${AMOUNT_MAX}`);
  }
  return v;
}

/**
 * checkText returns v when it is a string every backend can store: one
 * that is valid Unicode (no lone surrogate, so it has a UTF-8 form) and
 * holds no NUL character. PostgreSQL's text type holds neither, so the
 * rule is the same on every backend and in the reference interpreter.
 */
export function checkText(where: string, name: string, v: unknown): string {
  if (typeof v !== "string") {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: ${name} must be a string, got ${describe(v)}`);
  }
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 0) {
      throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: ${name} holds a NUL character (U+0000) at index ${i}; strings are Unicode text without NUL`);
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < v.length ? v.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: ${name} has a lone surrogate (U+${hex4(c)}) at index ${i}, which is not text UTF-8 can carry; strings are Unicode text without NUL`);
    }
  }
  return v;
}

/**
 * The most text a call may carry, the same on every backend and in the
 * reference interpreter: a tenant of at most MAX_TENANT bytes of UTF-8,
 * and text values of one call taking at most MAX_TEXTS bytes together,
 * each counted with TEXT_OVERHEAD bytes more than its UTF-8. A key and
 * its tenant are stored in an index of PostgreSQL's, whose rows hold
 * about 2.7 kB at the most.
 */
export const MAX_TENANT = 256;
export const MAX_TEXTS = 2048;
export const TEXT_OVERHEAD = 8;

/** checkSize refuses, before anything is sent, a tenant or text values longer than every backend stores. */
export function checkSize(where: string, tenant: unknown, values: readonly unknown[]): void {
  const t = typeof tenant === "string" ? Buffer.byteLength(tenant, "utf8") : 0;
  if (t > MAX_TENANT) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: the tenant is ${t} bytes; a tenant is at most ${MAX_TENANT} bytes of UTF-8`);
  }
  let n = 0;
  for (const v of values) {
    if (typeof v === "string") {
      n += Buffer.byteLength(v, "utf8") + TEXT_OVERHEAD;
    }
  }
  if (n > MAX_TEXTS) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: the text values of the call take ${n} bytes; they take at most ${MAX_TEXTS} together, each counted with ${TEXT_OVERHEAD} bytes more than its UTF-8`);
  }
}

function hex4(c: number): string {
  return c.toString(16).toUpperCase().padStart(4, "0");
}

/** describe writes a value for an error message: its type, and itself when short. */
export function describe(v: unknown): string {
  switch (typeof v) {
    case "undefined":
      return "nothing";
    case "string":
      return v.length > 40 ? `a string of ${v.length} characters` : `the string ${JSON.stringify(v)}`;
    case "number":
      return `the number ${v}`;
    case "bigint":
      return `the bigint ${v}n`;
    case "boolean":
      return `${v}`;
    case "object":
      return v === null ? "null" : Array.isArray(v) ? "an array" : "an object";
  }
  return `a ${typeof v}`;
}

/** parseOutcome reads an outcome as a backend writes it. */
export function parseOutcome(s: unknown): Outcome {
  if (s === "done" || s === "done_before" || s === "refused") {
    return s;
  }
  throw new ChoboError("CHOBO_UNEXPECTED", `unknown outcome ${describe(s)}`);
}

/** parseHoldState reads a hold state as a backend writes it; null is no hold. */
export function parseHoldState(s: unknown): HoldState | null {
  if (s === null || s === undefined) {
    return null;
  }
  if (s === "held" || s === "posted" || s === "voided" || s === "expired") {
    return s;
  }
  throw new ChoboError("CHOBO_UNEXPECTED", `unknown hold state ${describe(s)}`);
}

/** refused is the answer of a refusal. */
export function refused<R extends string>(reason: R): ResultOf<R> {
  return { result: "refused", reason };
}

/**
 * withTimeout waits for p at most ms milliseconds, or for ever for 0. The
 * official TigerBeetle client waits for ever for a replica that does not
 * answer; a chobo client does so only when it is told to.
 */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  if (ms === 0) {
    return p;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ChoboError("CHOBO_TIMEOUT", `${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

// The history of a ledger, as every client reads it: entries, each one
// side of one move of one call that took effect, read by account (a
// statement), by call (the entries of one key) or as the holds still
// open, and an account's balance at a time. The reference interpreter
// defines what each read answers.

/** What wrote an entry: an operation, or the expiry of a hold, which no caller asks for. */
export type EntryOp = "do" | "hold" | "post" | "void" | "expire";

/** One change of one account by one call. */
export interface Entry {
  /** The transfer kind of the call. */
  transfer: string;
  op: EntryOp;
  /**
   * The call's key, in key order, and what it was given, by parameter
   * name, amounts in the smallest step of their unit as decimal text:
   * every argument of a do or a hold, the key and the amounts of a post in
   * part, the key alone for a post in full, a void or an expiry. null
   * where the backend keeps neither.
   */
  key: string[] | null;
  args: Record<string, string> | null;
  /** The id of the entry's transfer where the backend has one (TigerBeetle); "" on PostgreSQL. */
  id: string;
  /** The move of the transfer kind, from 1 as the book writes them; out is the side the move leaves. */
  move: number;
  out: boolean;
  /**
   * The account's kind, and its values; null where the backend does not
   * know them (TigerBeetle, for the entries of a call, when a value of the
   * account is not in the key: its records keep only hashes).
   */
  account: string;
  accountArgs: string[] | null;
  /** What the entry changed. */
  posted: bigint;
  heldIn: bigint;
  heldOut: bigint;
  /**
   * What the account held right after the entry; null for an account
   * without bounds on PostgreSQL, whose balance is spread over rows that
   * calls change side by side (balanceAt still answers for it).
   */
  after: Balance | null;
  /** When the entry was written: its call, or for an expiry when the hold was given back. */
  at: Date;
  /** Where a statement read after this entry starts: the after of the next query. */
  cursor: string;
}

/** Which of an account's entries a statement reads. Every property may be left out. */
export interface StatementQuery {
  /** The newest entry first; else the oldest. */
  newest?: boolean;
  /** From <= at, at < to; null or left out leaves that side open. */
  from?: Date | null;
  to?: Date | null;
  /** Only the entries of these transfer kinds; empty or left out keeps all. */
  transfers?: readonly string[];
  /** The most entries a page holds: 0 or left out is DEFAULT_PAGE, at most MAX_PAGE. */
  limit?: number;
  /** The cursor of the last entry read, or the next of the page before: the page starts past it. */
  after?: string;
}

/** One page of an account's entries. */
export interface Statement {
  entries: Entry[];
  /**
   * The cursor to read on from: the last entry's, or the query's after
   * when the page is empty. Read oldest first, a later page also holds the
   * entries written since.
   */
  next: string;
  /** Entries the query keeps were left past the page. */
  more: boolean;
}

/** A hold still held: not posted, voided or past its deadline. */
export interface OpenHold {
  transfer: string;
  /** The hold's key; null where the backend keeps none, with id then naming the hold's first move. */
  key: string[] | null;
  id: string;
  moves: HoldMove[];
  created: Date;
  /** When it expires; null for a kind whose holds never do. */
  deadline: Date | null;
}

/** What one move of a hold holds. */
export interface HoldMove {
  move: number;
  /**
   * The account kinds the move leaves and reaches, and their values; null
   * where the backend does not know them (TigerBeetle, for an account with
   * values other than the one the holds were read by).
   */
  from: string;
  fromArgs: string[] | null;
  to: string;
  toArgs: string[] | null;
  amount: bigint;
}

/** Page sizes of a statement. */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

/** A statement's query as checked: what is sent. */
export interface CheckedQuery {
  newest: boolean;
  from: Date | null;
  to: Date | null;
  transfers: string[];
  limit: number;
  after: string;
}

const queryProps = ["newest", "from", "to", "transfers", "limit", "after"];

/**
 * checkQuery reads a statement's query, or throws before anything is
 * sent: a property it does not know, a value of the wrong type, a
 * transfer kind not among transfers (the book's), a limit out of range.
 */
export function checkQuery(where: string, q: unknown, transfers: readonly string[]): CheckedQuery {
  const o = argsOf(where, "query", q, queryProps);
  const newest = field(o, "newest") ?? false;
  if (typeof newest !== "boolean") {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: newest must be a boolean, got ${describe(newest)}`);
  }
  const time = (name: string): Date | null => {
    const v = field(o, name) ?? null;
    return v === null ? null : checkTime(where, name, v);
  };
  const kinds = field(o, "transfers") ?? [];
  if (!Array.isArray(kinds)) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: transfers must be an array of transfer kinds, got ${describe(kinds)}`);
  }
  for (const k of kinds as unknown[]) {
    if (typeof k !== "string" || !transfers.includes(k)) {
      throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: transfers holds ${describe(k)}, which is not a transfer kind of the book; it has ${transfers.join(", ")}`);
    }
  }
  const after = field(o, "after") ?? "";
  if (typeof after !== "string") {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: after must be a cursor (a string), got ${describe(after)}`);
  }
  return { newest, from: time("from"), to: time("to"), transfers: [...(kinds as string[])], limit: pageLimit(where, field(o, "limit") ?? 0), after };
}

/** pageLimit is the number of entries a query asks for: 0 is DEFAULT_PAGE; anything but a whole number from 0 to MAX_PAGE throws. */
export function pageLimit(where: string, limit: unknown): number {
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 0 || limit > MAX_PAGE) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: a statement's limit is ${describe(limit)}; it is a whole number from 1 to ${MAX_PAGE}, or 0 for ${DEFAULT_PAGE}`);
  }
  return limit === 0 ? DEFAULT_PAGE : limit;
}

/** checkTime returns v when it is a Date that holds a time (not an Invalid Date). */
export function checkTime(where: string, name: string, v: unknown): Date {
  if (!(v instanceof Date) || Number.isNaN(v.getTime())) {
    throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: ${name} must be a Date, got ${v instanceof Date ? "an Invalid Date" : describe(v)}`);
  }
  return v;
}
