// How a TypeScript client keeps a chobo book in TigerBeetle, the same for
// every book: an operation becomes the accounts it needs, the openings of
// their floor and room accounts, and one linked chain of transfers sent in
// one request, so that every bound is kept in one write; the per-event
// answers of the chain become chobo's answer. It is the Go runtime
// (runtime/go/chobotb) written again, and the tests check that both send
// the same bytes for every operation of every test book.

import { randomBytes } from "node:crypto";
import {
  type Balance,
  type CheckedQuery,
  ChoboError,
  checkAmount,
  checkSize,
  describe,
  type Entry,
  type EntryOp,
  type HoldMove,
  type HoldState,
  type OpenHold,
  type Statement,
  type ResultOf,
  refused,
  withTimeout,
} from "./chobo.ts";
import {
  accountId,
  codeOf,
  contentId,
  floorId,
  hex,
  kindId,
  ledgerOf,
  neverId,
  openingId,
  roomId,
  sha256,
  shortfallId,
  sinkId,
  transferId,
} from "./ids.ts";

/** The events one request carries: what a --development replica of TigerBeetle 0.17.9 takes. */
export const MAX_EVENTS = 253;

/**
 * The most events a request to TigerBeetle 0.17.9 carries: what a replica
 * started without --development takes, the limit of its 1 MiB messages.
 */
export const MAX_REQUEST_EVENTS = 8189;

/**
 * What a floor or room holds for a side without a bound: further than any
 * balance of 64 bits goes. An account made before its kind had the bound
 * is opened with it, until `chobo migrate` moves it onto the bound.
 */
export const UNBOUNDED = 1n << 64n;

/** How long one request may take, in milliseconds, unless the book is given another figure. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** TigerBeetle's account record, as tigerbeetle-node 0.17.9 writes it. */
export interface TigerBeetleAccount {
  id: bigint;
  debits_pending: bigint;
  debits_posted: bigint;
  credits_pending: bigint;
  credits_posted: bigint;
  user_data_128: bigint;
  user_data_64: bigint;
  user_data_32: number;
  reserved: number;
  ledger: number;
  code: number;
  flags: number;
  timestamp: bigint;
}

/** TigerBeetle's transfer record, as tigerbeetle-node 0.17.9 writes it. */
export interface TigerBeetleTransfer {
  id: bigint;
  debit_account_id: bigint;
  credit_account_id: bigint;
  amount: bigint;
  pending_id: bigint;
  user_data_128: bigint;
  user_data_64: bigint;
  user_data_32: number;
  timeout: number;
  ledger: number;
  code: number;
  flags: number;
  timestamp: bigint;
}

/**
 * What a book sends its requests through: the four requests of the
 * official client (tigerbeetle-node 0.17.9, createClient) that chobo uses.
 * Every create answers one status per event, in order, "created" included.
 */
export interface TigerBeetleClient {
  createAccounts(batch: TigerBeetleAccount[]): Promise<{ status: number }[]>;
  createTransfers(batch: TigerBeetleTransfer[]): Promise<{ status: number }[]>;
  lookupAccounts(batch: bigint[]): Promise<TigerBeetleAccount[]>;
  lookupTransfers(batch: bigint[]): Promise<TigerBeetleTransfer[]>;
  /**
   * The two reads of the history: the official client has both; a client
   * without them makes calls but cannot read a ledger's history.
   */
  getAccountTransfers?(filter: TigerBeetleAccountFilter): Promise<TigerBeetleTransfer[]>;
  queryTransfers?(filter: TigerBeetleQueryFilter): Promise<TigerBeetleTransfer[]>;
}

/**
 * TigerBeetle's filter of get_account_transfers, as tigerbeetle-node
 * 0.17.9 writes it: the transfers that name account_id on the sides the
 * flags ask for, timestamps from timestamp_min to timestamp_max (both
 * inclusive, 0 for no bound), of code when not 0, at most limit of them,
 * oldest first unless reversed.
 */
export interface TigerBeetleAccountFilter {
  account_id: bigint;
  user_data_128: bigint;
  user_data_64: bigint;
  user_data_32: number;
  code: number;
  timestamp_min: bigint;
  timestamp_max: bigint;
  limit: number;
  flags: number;
}

/**
 * TigerBeetle's filter of query_transfers: the transfers whose fields
 * equal every one of user_data_128, user_data_64, user_data_32, ledger
 * and code that is not 0, timestamps and limit as above.
 */
export interface TigerBeetleQueryFilter {
  user_data_128: bigint;
  user_data_64: bigint;
  user_data_32: number;
  ledger: number;
  code: number;
  timestamp_min: bigint;
  timestamp_max: bigint;
  limit: number;
  flags: number;
}

// The flags of an account filter (AccountFilterFlags).
export const FILTER_DEBITS = 1 << 0;
export const FILTER_CREDITS = 1 << 1;
export const FILTER_REVERSED = 1 << 2;

// Flags, with TigerBeetle's bit values.
export const ACCOUNT_DEBITS_MUST_NOT_EXCEED_CREDITS = 1 << 1;
export const ACCOUNT_CREDITS_MUST_NOT_EXCEED_DEBITS = 1 << 2;
export const TRANSFER_LINKED = 1 << 0;
export const TRANSFER_PENDING = 1 << 1;
export const TRANSFER_POST_PENDING = 1 << 2;
export const TRANSFER_VOID_PENDING = 1 << 3;
/** balancing_debit and balancing_credit: a netting moves what the floor or room has and its shortfall owes, at most. */
export const TRANSFER_BALANCING = (1 << 4) | (1 << 5);

/** The whole of a pending transfer, as an amount to post. */
export const AMOUNT_MAX_128 = (1n << 128n) - 1n;

// The statuses of tigerbeetle-node 0.17.9 by number (CreateTransferStatus,
// CreateAccountStatus), so that a client needs the package only to make
// its connection. A unit test holds them against the package's own.
const CREATED = 0xffffffff;
const transferStatuses: Record<number, string> = {
  [CREATED]: "created", 1: "linked_event_failed", 2: "linked_event_chain_open", 3: "timestamp_must_be_zero",
  4: "reserved_flag", 5: "id_must_not_be_zero", 6: "id_must_not_be_int_max", 7: "flags_are_mutually_exclusive",
  8: "debit_account_id_must_not_be_zero", 9: "debit_account_id_must_not_be_int_max",
  10: "credit_account_id_must_not_be_zero", 11: "credit_account_id_must_not_be_int_max",
  12: "accounts_must_be_different", 13: "pending_id_must_be_zero", 14: "pending_id_must_not_be_zero",
  15: "pending_id_must_not_be_int_max", 16: "pending_id_must_be_different", 17: "timeout_reserved_for_pending_transfer",
  19: "ledger_must_not_be_zero", 20: "code_must_not_be_zero", 21: "debit_account_not_found",
  22: "credit_account_not_found", 23: "accounts_must_have_the_same_ledger",
  24: "transfer_must_have_the_same_ledger_as_accounts", 25: "pending_transfer_not_found",
  26: "pending_transfer_not_pending", 27: "pending_transfer_has_different_debit_account_id",
  28: "pending_transfer_has_different_credit_account_id", 29: "pending_transfer_has_different_ledger",
  30: "pending_transfer_has_different_code", 31: "exceeds_pending_transfer_amount",
  32: "pending_transfer_has_different_amount", 33: "pending_transfer_already_posted",
  34: "pending_transfer_already_voided", 35: "pending_transfer_expired", 36: "exists_with_different_flags",
  37: "exists_with_different_debit_account_id", 38: "exists_with_different_credit_account_id",
  39: "exists_with_different_amount", 40: "exists_with_different_pending_id", 41: "exists_with_different_user_data_128",
  42: "exists_with_different_user_data_64", 43: "exists_with_different_user_data_32",
  44: "exists_with_different_timeout", 45: "exists_with_different_code", 46: "exists", 47: "overflows_debits_pending",
  48: "overflows_credits_pending", 49: "overflows_debits_posted", 50: "overflows_credits_posted",
  51: "overflows_debits", 52: "overflows_credits", 53: "overflows_timeout", 54: "exceeds_credits",
  55: "exceeds_debits", 56: "imported_event_expected", 57: "imported_event_not_expected",
  58: "imported_event_timestamp_out_of_range", 59: "imported_event_timestamp_must_not_advance",
  60: "imported_event_timestamp_must_not_regress", 61: "imported_event_timestamp_must_postdate_debit_account",
  62: "imported_event_timestamp_must_postdate_credit_account", 63: "imported_event_timeout_must_be_zero",
  64: "closing_transfer_must_be_pending", 65: "debit_account_already_closed", 66: "credit_account_already_closed",
  67: "exists_with_different_ledger", 68: "id_already_failed",
};
const accountStatuses: Record<number, string> = {
  [CREATED]: "created", 1: "linked_event_failed", 2: "linked_event_chain_open", 3: "timestamp_must_be_zero",
  4: "reserved_field", 5: "reserved_flag", 6: "id_must_not_be_zero", 7: "id_must_not_be_int_max",
  8: "flags_are_mutually_exclusive", 9: "debits_pending_must_be_zero", 10: "debits_posted_must_be_zero",
  11: "credits_pending_must_be_zero", 12: "credits_posted_must_be_zero", 13: "ledger_must_not_be_zero",
  14: "code_must_not_be_zero", 15: "exists_with_different_flags", 16: "exists_with_different_user_data_128",
  17: "exists_with_different_user_data_64", 18: "exists_with_different_user_data_32",
  19: "exists_with_different_ledger", 20: "exists_with_different_code", 21: "exists",
  22: "imported_event_expected", 23: "imported_event_not_expected", 24: "imported_event_timestamp_out_of_range",
  25: "imported_event_timestamp_must_not_advance", 26: "imported_event_timestamp_must_not_regress",
};

/** transferStatus names a status of create_transfers as TigerBeetle's documentation does. */
export function transferStatus(n: number): string {
  return transferStatuses[n] ?? `status ${n}`;
}

/** accountStatus names a status of create_accounts. */
export function accountStatus(n: number): string {
  return accountStatuses[n] ?? `status ${n}`;
}

// The definition of a book, as a generated client carries it: what the
// chains are built from. Indexes refer to the lists of the Def. `chobo
// run --show tigerbeetle` builds the same value from the book.

export interface Unit {
  name: string;
  scale: number;
}

export interface Bound {
  value: bigint;
  reason: string;
}

export interface AccountKind {
  name: string;
  unit: number; // index in units
  params: number; // how many string arguments name one account
  outside: boolean;
  lower: Bound | null;
  upper: Bound | null;
}

export interface Param {
  name: string;
  amount: boolean;
}

export interface Side {
  account: number;
  args: number[]; // indexes in the transfer kind's params
}

export interface Move {
  amount: number; // index in params of the amount, or -1 for literal
  literal: bigint;
  from: Side;
  to: Side;
}

export interface TransferKind {
  name: string;
  /** The hash of the kind's definition, part of every content hash. */
  definition: string;
  /**
   * The hash earlier versions of chobo had for the same kind, with the
   * bounds of its accounts in it: a hold tagged with it, or a call hashed
   * with it, is this kind's all the same. Absent when not known.
   */
  legacy?: string;
  params: Param[];
  key: number[]; // indexes in params, in key order
  pending: boolean;
  timeout: number; // seconds; 0 for never
  moves: Move[];
  postAmounts: number[]; // the amount params a partial post gives, in declaration order
}

export interface Def {
  book: string;
  units: Unit[];
  accounts: AccountKind[];
  transfers: TransferKind[];
}

/** A value of a call: a string, or a bigint for an amount. */
export type Value = string | bigint;

/** What an event of a chain is for; `chobo run --show tigerbeetle` prints the same names. */
export type Role =
  | "move"
  | "lower_probe"
  | "lower_probe_void"
  | "floor_net"
  | "floor_take"
  | "room_give"
  | "room_net"
  | "room_take"
  | "floor_give"
  | "post"
  | "void"
  | "status_void"
  | "status_fail"
  | "key_guard";

/** One transfer of a chain, what it is for, and the reason when TigerBeetle answers exceeds_credits for it. */
export interface ChainEvent {
  transfer: TigerBeetleTransfer;
  role: Role;
  move: number; // from 1; 0 in a status chain and for the key guard
  reason: string;
}

/** Everything a do or hold sends: its accounts (first use first), the openings, the chain. */
export interface Plan {
  accounts: TigerBeetleAccount[];
  openings: TigerBeetleTransfer[];
  chain: ChainEvent[];
  /** A move from an account to itself: nothing is sent, the call is refused with same_account. */
  sameAccount: boolean;
}

function account(id: bigint, userData: bigint, ledger: number, code: number, flags: number): TigerBeetleAccount {
  return {
    id, debits_pending: 0n, debits_posted: 0n, credits_pending: 0n, credits_posted: 0n,
    user_data_128: userData, user_data_64: 0n, user_data_32: 0, reserved: 0, ledger, code, flags, timestamp: 0n,
  };
}

function transfer(fields: Partial<TigerBeetleTransfer> & { id: bigint }): TigerBeetleTransfer {
  return {
    debit_account_id: 0n, credit_account_id: 0n, amount: 0n, pending_id: 0n, user_data_128: 0n,
    user_data_64: 0n, user_data_32: 0, timeout: 0, ledger: 0, code: 0, flags: 0, timestamp: 0n, ...fields,
  };
}

/** text writes a value as an id part: a string as itself, an amount in decimal. */
function text(v: Value): string {
  return typeof v === "bigint" ? v.toString() : v;
}

/**
 * content is what a key is compared on, hashed into user_data_128: every
 * value of a do or hold in declaration order, as a compact JSON array.
 * Strings are escaped as Go's encoding/json escapes them (the HTML
 * characters and U+2028, U+2029 included), so that clients of every
 * language hash the same bytes.
 */
export function content(vals: readonly Value[]): string {
  return "[" + vals.map((v) => (typeof v === "bigint" ? v.toString() : jsonString(v))).join(",") + "]";
}

const shortEscapes: Record<number, string> = { 0x08: "\\b", 0x0c: "\\f", 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t", 0x22: '\\"', 0x5c: "\\\\" };

/** jsonString writes s as a JSON string, as Go's json.Marshal does. */
export function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = shortEscapes[c];
    if (short !== undefined) {
      out += short;
    } else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) {
      out += "\\u" + c.toString(16).padStart(4, "0");
    } else {
      out += s[i];
    }
  }
  return out + '"';
}

/** postContent is the content of a post: what each move posts, in move order. */
export function postContent(amounts: readonly bigint[]): string {
  return "[" + amounts.join(",") + "]";
}

interface Slot {
  role: Role;
  move: number;
}

/** layout lists the events a do or hold of a kind lays out, in order. */
function layout(d: Def, t: TransferKind): Slot[] {
  const out: Slot[] = [];
  t.moves.forEach((m, i) => {
    const from = d.accounts[m.from.account]!;
    const to = d.accounts[m.to.account]!;
    const move = i + 1;
    out.push({ role: "move", move });
    if (from.lower !== null && from.lower.value > 0n) {
      out.push({ role: "lower_probe", move }, { role: "lower_probe_void", move });
    }
    if (from.lower !== null && from.lower.value < 0n) {
      out.push({ role: "floor_take", move });
    }
    if (from.upper !== null) {
      out.push({ role: "room_give", move });
    }
    if (to.upper !== null) {
      out.push({ role: "room_take", move });
    }
    if (to.lower !== null && to.lower.value < 0n) {
      out.push({ role: "floor_give", move });
    }
  });
  if (guarded(d, t)) {
    out.push({ role: "key_guard", move: 0 });
  }
  return out;
}

/**
 * guarded says whether a do or hold of t sends a key guard: when an event
 * of its chain other than the first may be refused by a bound, or two or
 * more may. The guard uses the first event's id up on a refusal, so a
 * retry is answered at the first event whatever bounds the chain keeps by
 * then: the move keeps its place and id when a deploy adds or removes the
 * events of a bound after it, where a later event's id may not be sent
 * again. A chain whose only refusable event is its first uses that id up
 * itself.
 */
function guarded(d: Def, t: TransferKind): boolean {
  let n = 0;
  let first = false;
  t.moves.forEach((m, i) => {
    const lower = d.accounts[m.from.account]!.lower;
    if (lower !== null) {
      n += lower.value > 0n ? 2 : 1; // the move, its probe, or its floor_take
      first ||= i === 0 && lower.value === 0n;
    }
    if (d.accounts[m.to.account]!.upper !== null) {
      n++; // room_take
    }
  });
  return n >= 2 || (n === 1 && !first);
}

/**
 * guard is the key guard sent after the chain of a guarded do or hold, outside it,
 * with the id of the chain's first event: a void of a transfer that never
 * exists. When the chain was written, now or before, the id is taken and
 * the guard gets exists_with_different_flags, writing nothing. When it was
 * not, the guard is refused with pending_transfer_not_found, which uses
 * the id up: every later call with the key stops at the first event with
 * id_already_failed (already_refused) before any bound is looked at.
 */
function guard(first: bigint): ChainEvent {
  return { role: "key_guard", move: 0, reason: "", transfer: transfer({ id: first, pending_id: neverId(), flags: TRANSFER_VOID_PENDING }) };
}

function kindOf(d: Def, kind: number): TransferKind {
  const t = d.transfers[kind];
  if (t === undefined) {
    throw new ChoboError("CHOBO_UNEXPECTED", `the book ${d.book} has no transfer kind ${kind}`);
  }
  return t;
}

/** The codes and ledgers of a book, which every call would hash the same. */
interface FixedIds {
  ledgers: number[]; // by unit
  sinkCodes: number[]; // by unit
  accountCodes: number[]; // by account kind
  transferCodes: number[]; // by transfer kind
}

const fixedIds = new WeakMap<Def, FixedIds>();

/** fixedOf works out a book's codes and ledgers once per definition. */
function fixedOf(d: Def): FixedIds {
  let f = fixedIds.get(d);
  if (f === undefined) {
    f = {
      ledgers: d.units.map((u) => ledgerOf(u.name, u.scale)),
      sinkCodes: d.units.map((u) => codeOf(d.book, "sink", u.name)),
      accountCodes: d.accounts.map((a) => codeOf(d.book, "account", a.name)),
      transferCodes: d.transfers.map((t) => codeOf(d.book, "transfer", t.name)),
    };
    fixedIds.set(d, f);
  }
  return f;
}

/**
 * The ids every call of one tenant shares: a TigerBeetleBook works them
 * out once, so that a call hashes only what depends on it.
 */
export interface TenantIds {
  sinks: bigint[]; // by unit
  kinds: bigint[]; // by account kind: what its accounts carry in user_data_128
  plain: (bigint | null)[]; // by account kind: the one account of a kind without parameters
}

/** tenantIdsOf works out the ids a tenant's calls share. */
export function tenantIdsOf(d: Def, tenant: string): TenantIds {
  return {
    sinks: d.units.map((u) => sinkId(d.book, tenant, u.name)),
    kinds: d.accounts.map((a) => kindId(d.book, tenant, a.name)),
    plain: d.accounts.map((a) => (a.params === 0 ? accountId(d.book, tenant, a.name, []) : null)),
  };
}

function accountIdOf(d: Def, tenant: string, tids: TenantIds, s: Side, vals: readonly Value[]): bigint {
  if (s.args.length === 0) {
    return tids.plain[s.account]!;
  }
  return accountId(d.book, tenant, d.accounts[s.account]!.name, s.args.map((p) => text(vals[p]!)));
}

/** keyValues picks the key's values out of a call's values, as its ids hash them. */
export function keyValues(t: TransferKind, vals: readonly Value[]): string[] {
  return t.key.map((k) => text(vals[k]!));
}

/**
 * definitionTag is what every event of a hold's chain carries in
 * user_data_64: the kind's definition hash (8 bytes, as hex) as a number;
 * 1 when it is zero, since 0 means none. Post and void compare it with
 * their own. A definition that is not such a hash takes the first 8 bytes
 * of its SHA-256.
 */
export function definitionTag(definition: string): bigint {
  let v = /^[0-9a-f]{16}$/i.test(definition)
    ? BigInt("0x" + definition)
    : sha256(definition).readBigUInt64BE(0);
  if (v === 0n) {
    v = 1n;
  }
  return v;
}

/**
 * tagged reports whether a hold's event tagged with tag may be ended by
 * the kind: its own tag, its legacy hash's, or none (a client that did
 * not tag holds).
 */
function tagged(t: TransferKind, tag: bigint): boolean {
  return tag === 0n || tag === definitionTag(t.definition) || (t.legacy !== undefined && t.legacy !== "" && tag === definitionTag(t.legacy));
}

/**
 * laidOutOtherwise reports whether the answer to a do or hold chain says
 * its first event exists with other flags. A deploy that adds or removes
 * the events keeping a bound (a room, a floor, a probe) lays the chain out
 * otherwise, and the move goes alone or linked to the events after it: a
 * retry of a call made before meets its first event with other flags,
 * which TigerBeetle reports before any other field, whether or not the
 * call means what the first one meant. So that answer is judged by what
 * the call means, as the Go runtime does: the first event is looked up,
 * and it is the same call when the record carries this call's content
 * (user_data_128) and definition tag (user_data_64), done before.
 */
function laidOutOtherwise(chain: readonly ChainEvent[], statuses: readonly number[]): boolean {
  return chain.length > 0 && statuses.length > 0 && chain[0]!.role === "move" && transferStatus(statuses[0]!) === "exists_with_different_flags";
}

/**
 * madeByLegacy reports whether the statuses of a chain of the kind say its
 * first event exists with other fields, and the kind has a legacy hash
 * that could have made it: an earlier version of chobo hashed the bounds
 * of the accounts into the definition, and so into the content and tag.
 * TigerBeetle names one field that differs, not always the content, so
 * any is sent again, as the Go runtime does.
 */
function madeByLegacy(t: TransferKind, statuses: readonly number[]): boolean {
  if (statuses.length === 0 || t.legacy === undefined || t.legacy === "" || t.legacy === t.definition) {
    return false;
  }
  return transferStatus(statuses[0]!).startsWith("exists_with_different_");
}

const legacyDefs = new WeakMap<Def, Def>();

/**
 * asLegacy is the definition with every kind's legacy hash as its own:
 * what an earlier version of chobo laid out for the same book. A chain
 * whose first event exists fails whole, so sending it again writes
 * nothing; its answer is that version's.
 */
function asLegacy(d: Def): Def {
  let l = legacyDefs.get(d);
  if (l === undefined) {
    l = { ...d, transfers: d.transfers.map((t) => (t.legacy ? { ...t, definition: t.legacy } : t)) };
    legacyDefs.set(d, l);
  }
  return l;
}

function link(chain: ChainEvent[]): void {
  chain.forEach((e, i) => {
    if (i < chain.length - 1) {
      e.transfer.flags |= TRANSFER_LINKED;
    }
  });
}

/** One end of a move: the account's id, its kind's index and the kind. */
interface End {
  id: bigint;
  kind: number;
  a: AccountKind;
}

/**
 * Planner is what plan keeps while it lays out one call, step by step as
 * the Go runtime's planner does: the accounts each move names, which
 * decide alone whether anything is sent (sameAccount); then, move by
 * move, the move and the events that keep its accounts' bounds, in the
 * order of layout; then the links and the key guard.
 */
class Planner {
  readonly p: Plan = { accounts: [], openings: [], chain: [], sameAccount: false };
  readonly d: Def;
  readonly tenant: string;
  readonly tids: TenantIds;
  readonly t: TransferKind;
  readonly vals: readonly Value[];
  readonly #fixed: FixedIds;
  readonly #seen = new Set<bigint>();
  // What every event of the call's chain carries; start sets them.
  #op = "";
  #code = 0;
  #key: string[] = [];
  #user = 0n;
  #flags = 0;
  #timeout = 0;
  #tag = 0n;
  // That of the account the current move takes from: every event of a move is on it.
  #ledger = 0;
  // Every event's id is its layout position; the nettings are numbered on
  // from the end of the layout, so the other events keep the ids they had
  // before chains netted.
  #pos = 0;
  #net: number;

  constructor(d: Def, tenant: string, tids: TenantIds, t: TransferKind, vals: readonly Value[]) {
    this.d = d;
    this.tenant = tenant;
    this.tids = tids;
    this.t = t;
    this.vals = vals;
    this.#fixed = fixedOf(d);
    this.#net = layout(d, t).length;
  }

  /** start works out what every event of the call carries. */
  start(kind: number, op: "do" | "hold"): void {
    const t = this.t;
    this.#op = op;
    this.#code = this.#fixed.transferCodes[kind]!;
    this.#key = keyValues(t, this.vals);
    this.#user = contentId(this.d.book, this.tenant, t.name, op, t.definition, content(this.vals));
    if (op === "hold") {
      this.#timeout = t.timeout;
      this.#flags = TRANSFER_PENDING;
      this.#tag = definitionTag(t.definition);
    }
  }

  /** sides are the accounts at both ends of every move; a move from an account to itself marks the plan sameAccount. */
  sides(): [End, End][] {
    const { d, tenant, tids, vals } = this;
    const sides: [End, End][] = this.t.moves.map((m) => [
      { id: accountIdOf(d, tenant, tids, m.from, vals), kind: m.from.account, a: d.accounts[m.from.account]! },
      { id: accountIdOf(d, tenant, tids, m.to, vals), kind: m.to.account, a: d.accounts[m.to.account]! },
    ]);
    this.p.sameAccount = sides.some(([from, to]) => from.id === to.id);
    return sides;
  }

  #ledgerOf(unit: number): number {
    return this.#fixed.ledgers[unit]!;
  }

  /** account adds an account to the plan the first time it is named. */
  #account(a: TigerBeetleAccount): void {
    if (!this.#seen.has(a.id)) {
      this.#seen.add(a.id);
      this.p.accounts.push(a);
    }
  }

  /** sink is the tenant's sink account of a unit, added to the plan. */
  #sink(unit: number): bigint {
    const id = this.tids.sinks[unit]!;
    this.#account(account(id, 0n, this.#ledgerOf(unit), this.#fixed.sinkCodes[unit]!, 0));
    return id;
  }

  /**
   * opened is a floor or room account of owner, added to the plan with the
   * opening that puts amount into it from the sink: the distance from zero
   * to the bound it keeps.
   */
  #opened(owner: End, id: bigint, amount: bigint): bigint {
    if (amount < 0n) {
      throw new ChoboError("CHOBO_UNEXPECTED", `the bounds of ${owner.a.name} cannot be kept in TigerBeetle: a room or floor would open below zero`);
    }
    const unit = owner.a.unit;
    const s = this.#sink(unit);
    if (!this.#seen.has(id)) {
      this.#account(account(id, owner.id, this.#ledgerOf(unit), this.#fixed.accountCodes[owner.kind]!, ACCOUNT_DEBITS_MUST_NOT_EXCEED_CREDITS));
      this.p.openings.push(transfer({
        id: openingId(id), debit_account_id: s, credit_account_id: id, amount,
        ledger: this.#ledgerOf(unit), code: this.#fixed.sinkCodes[unit]!,
      }));
    }
    return id;
  }

  /** add appends an event to the chain; its id is its place in the layout. */
  #add(s: Slot, debit: bigint, credit: bigint, amount: bigint, fl: number, to: number, pendingId: bigint, reason: string): void {
    this.p.chain.push({
      role: s.role, move: s.move, reason,
      transfer: transfer({
        id: transferId(this.d.book, this.tenant, this.t.name, this.#op, this.#key, this.#pos++), debit_account_id: debit,
        credit_account_id: credit, amount, pending_id: pendingId, user_data_128: this.#user, user_data_64: this.#tag, timeout: to,
        ledger: this.#ledger, code: this.#code, flags: fl,
      }),
    });
  }

  /**
   * netting pays what a floor or room h has towards its shortfall, before
   * a take from it: a posted transfer with both balancing flags, under the
   * sink's code, that moves as much as the one has and the other owes.
   */
  #netting(role: "floor_net" | "room_net", n: number, owner: End, h: bigint): void {
    const unit = owner.a.unit;
    const short = shortfallId(h);
    this.#account(account(short, h, this.#ledgerOf(unit), this.#fixed.accountCodes[owner.kind]!, ACCOUNT_CREDITS_MUST_NOT_EXCEED_DEBITS));
    this.p.chain.push({
      role, move: n, reason: "",
      transfer: transfer({
        id: transferId(this.d.book, this.tenant, this.t.name, this.#op, this.#key, this.#net++), debit_account_id: h, credit_account_id: short,
        amount: UNBOUNDED, user_data_128: this.#user, user_data_64: this.#tag, ledger: this.#ledgerOf(unit), code: this.#fixed.sinkCodes[unit]!,
        flags: TRANSFER_BALANCING,
      }),
    });
  }

  /** move lays out move n (from 1) and the events that keep the bounds of its two accounts, in the order of layout. */
  move(n: number, m: Move, from: End, to: End): void {
    for (const s of [from, to]) {
      const flag = s.a.lower !== null && s.a.lower.value >= 0n ? ACCOUNT_DEBITS_MUST_NOT_EXCEED_CREDITS : 0;
      this.#account(account(s.id, this.tids.kinds[s.kind]!, this.#ledgerOf(s.a.unit), this.#fixed.accountCodes[s.kind]!, flag));
    }
    const amount = m.amount >= 0 ? (this.vals[m.amount] as bigint) : m.literal;
    this.#ledger = this.#ledgerOf(from.a.unit);
    const lower = from.a.lower;
    this.#add({ role: "move", move: n }, from.id, to.id, amount, this.#flags, this.#timeout, 0n, lower !== null && lower.value >= 0n ? lower.reason : "");
    if (lower !== null && lower.value > 0n) {
      this.#probe(n, from, lower);
    }
    this.#floorsAndRooms(n, amount, from, to);
  }

  /**
   * probe keeps a lower bound L > 0 of the account a move takes from: after
   * the move, a pending transfer of L from it must still pass, and is voided
   * at once, so that nothing stays held.
   */
  #probe(n: number, from: End, lower: Bound): void {
    const s = this.#sink(from.a.unit);
    const probe = this.p.chain.length;
    this.#add({ role: "lower_probe", move: n }, from.id, s, lower.value, TRANSFER_PENDING, 0, 0n, lower.reason);
    this.#add({ role: "lower_probe_void", move: n }, 0n, 0n, 0n, TRANSFER_VOID_PENDING, 0, this.p.chain[probe]!.transfer.id, "");
    // A void takes its ledger and code from the probe.
    const last = this.p.chain[this.p.chain.length - 1]!.transfer;
    last.ledger = 0;
    last.code = 0;
  }

  /**
   * floorsAndRooms are the events of move n that keep the bounds a flag or
   * a probe cannot: each moves the amount between a floor or room account
   * and the sink in step with the move, so that the helper holds the
   * distance from its account's balance to the bound, and its own flag
   * refuses the event that would cross it.
   */
  #floorsAndRooms(n: number, amount: bigint, from: End, to: End): void {
    const [flags, timeout] = [this.#flags, this.#timeout];
    const lower = from.a.lower;
    if (lower !== null && lower.value < 0n) {
      const f = this.#opened(from, floorId(from.id), -lower.value);
      this.#netting("floor_net", n, from, f);
      this.#add({ role: "floor_take", move: n }, f, this.#sink(from.a.unit), amount, flags, timeout, 0n, lower.reason);
    }
    if (from.a.upper !== null) {
      const r = this.#opened(from, roomId(from.id), from.a.upper.value);
      this.#add({ role: "room_give", move: n }, this.#sink(from.a.unit), r, amount, flags, timeout, 0n, "");
    }
    if (to.a.upper !== null) {
      const r = this.#opened(to, roomId(to.id), to.a.upper.value);
      this.#netting("room_net", n, to, r);
      this.#add({ role: "room_take", move: n }, r, this.#sink(to.a.unit), amount, flags, timeout, 0n, to.a.upper.reason);
    }
    if (to.a.lower !== null && to.a.lower.value < 0n) {
      const f = this.#opened(to, floorId(to.id), -to.a.lower.value);
      this.#add({ role: "floor_give", move: n }, this.#sink(to.a.unit), f, amount, flags, timeout, 0n, "");
    }
  }
}

/**
 * plan lays out what a do or hold of a kind sends; vals are its values in
 * declaration order, tids the tenant's shared ids (tenantIdsOf).
 */
export function plan(d: Def, tenant: string, kind: number, op: "do" | "hold", vals: readonly Value[], tids: TenantIds = tenantIdsOf(d, tenant)): Plan {
  const t = kindOf(d, kind);
  if ((op === "hold") !== t.pending) {
    throw new ChoboError("CHOBO_UNEXPECTED", `${t.name} has no operation ${op}`);
  }
  const b = new Planner(d, tenant, tids, t, vals);
  const sides = b.sides();
  if (b.p.sameAccount) {
    return b.p;
  }
  b.start(kind, op);
  t.moves.forEach((m, i) => b.move(i + 1, m, ...sides[i]!));
  link(b.p.chain);
  if (guarded(d, t)) {
    b.p.chain.push(guard(b.p.chain[0]!.transfer.id));
  }
  return b.p;
}

/**
 * REACH is how many places of a hold's chain one move can take under any
 * layout: the move, a probe and its void, a room_give, a room_take and a
 * floor_give (a floor_take needs a lower bound below zero, which never
 * comes with a probe: a lower bound cannot cross zero between versions).
 */
const REACH = 6;

/**
 * lookups are the ids of every place a hold of the kind can have put an
 * event at, under this layout or another one a version of the book lays
 * its chain out by: what post and void read first. A deploy that adds or
 * removes a floor, room or probe on an account a hold moves through moves
 * the hold's later events to other places, and the hold made before it is
 * ended after it by what is found (holdOf), in one lookup as before.
 */
export function lookups(d: Def, tenant: string, kind: number, key: readonly string[]): bigint[] {
  const t = kindOf(d, kind);
  const out: bigint[] = [];
  for (let pos = 0; pos < REACH * t.moves.length; pos++) {
    out.push(transferId(d.book, tenant, t.name, "hold", key, pos));
  }
  return out;
}

/** HoldEvent is an event of a hold that a post or void ends, and its move (from 1). */
export interface HoldEvent {
  id: bigint;
  move: number;
}

/**
 * holdOf reads a hold of the kind from what the lookup of its lookups ids
 * found: the events a post or void ends, in the order of its chain, and
 * what each move holds; null when there is no hold, "other" when an event
 * was made under another definition of the kind. It goes by the records,
 * not by this version's layout: only pending events are ended (nettings
 * and a probe's void are not pending); a probe is voided by the event
 * after it and left out; every other event belongs to the move before it,
 * a move's accounts being the book's and its satellites' a floor or room
 * and the sink, so a found event that names no sink starts the next move.
 */
export function holdOf(d: Def, tenant: string, kind: number, ids: readonly bigint[],
  found: ReadonlyMap<bigint, TigerBeetleTransfer>, sinks?: readonly bigint[]): { hold: HoldEvent[]; amounts: bigint[] } | null | "other" {
  const t = kindOf(d, kind);
  const sink = new Set(sinks ?? d.units.map((u) => sinkId(d.book, tenant, u.name)));
  const hold: HoldEvent[] = [];
  const amounts: bigint[] = [];
  for (let pos = 0; pos < ids.length; pos++) {
    const e = found.get(ids[pos]!);
    if (e === undefined) {
      continue;
    }
    if (!tagged(t, e.user_data_64)) {
      return "other";
    }
    if ((e.flags & TRANSFER_PENDING) === 0) {
      continue;
    }
    const next = pos + 1 < ids.length ? found.get(ids[pos + 1]!) : undefined;
    if (next !== undefined && (next.flags & TRANSFER_VOID_PENDING) !== 0 && next.pending_id === e.id) {
      continue; // a probe
    }
    if (!sink.has(e.debit_account_id) && !sink.has(e.credit_account_id)) {
      amounts.push(e.amount);
    } else if (amounts.length === 0) {
      throw new ChoboError("CHOBO_UNEXPECTED", "the lookup of a hold found an event of no move");
    }
    hold.push({ id: e.id, move: amounts.length });
  }
  if (amounts.length === 0) {
    return null;
  }
  if (amounts.length !== t.moves.length) {
    throw new ChoboError("CHOBO_UNEXPECTED", `${amounts.length} of the ${t.moves.length} moves of a hold were found`);
  }
  return { hold, amounts };
}

/**
 * finish lays out the chain that posts or voids a hold this version laid
 * out: one event per pending event of the hold (the probes were voided
 * already), in the hold's order. amounts are what each move posts; a
 * void sends none.
 */
export function finish(d: Def, tenant: string, kind: number, op: "post" | "void", key: readonly string[], amounts: readonly bigint[]): ChainEvent[] {
  const t = kindOf(d, kind);
  const hold: HoldEvent[] = [];
  layout(d, t).forEach((s, pos) => {
    if (s.role !== "lower_probe" && s.role !== "lower_probe_void" && s.role !== "key_guard") {
      hold.push({ id: transferId(d.book, tenant, t.name, "hold", key, pos), move: s.move });
    }
  });
  return finishOf(d, tenant, kind, op, key, amounts, hold);
}

/**
 * finishOf lays out the chain that posts or voids the hold whose events
 * holdOf read, whatever layout made it: one event per held event, in
 * order, with its move's amount. The ids count the chain's own events, as
 * for every layout, so a post or void sent before a deploy and again
 * after it sends the same chain.
 */
export function finishOf(d: Def, tenant: string, kind: number, op: "post" | "void", key: readonly string[],
  amounts: readonly bigint[], hold: readonly HoldEvent[]): ChainEvent[] {
  const t = kindOf(d, kind);
  if (!t.pending) {
    throw new ChoboError("CHOBO_UNEXPECTED", `${t.name} has no operation ${op}`);
  }
  const post = op === "post";
  const user = contentId(d.book, tenant, t.name, op, t.definition, post ? postContent(amounts) : "");
  const chain: ChainEvent[] = hold.map((h, i) => ({
    role: op, move: h.move, reason: "",
    transfer: transfer({
      id: transferId(d.book, tenant, t.name, op, key, i),
      pending_id: h.id,
      amount: post ? amounts[h.move - 1]! : 0n, user_data_128: user,
      flags: post ? TRANSFER_POST_PENDING : TRANSFER_VOID_PENDING,
    }),
  }));
  link(chain);
  return chain;
}

/**
 * statusChain reads where a hold stands without writing anything: a void
 * of the hold's first event linked to a transfer from an account to
 * itself, which TigerBeetle always refuses. The two ids are fresh random
 * ones, so that no status ever meets an earlier one.
 */
export function statusChain(d: Def, tenant: string, kind: number, key: readonly string[], voidId: bigint, failId: bigint): ChainEvent[] {
  const t = kindOf(d, kind);
  const held = transferId(d.book, tenant, t.name, "hold", key, 0);
  const unit = d.accounts[t.moves[0]!.from.account]!.unit;
  const fixed = fixedOf(d);
  const chain: ChainEvent[] = [
    { role: "status_void", move: 0, reason: "", transfer: transfer({ id: voidId, pending_id: held, flags: TRANSFER_VOID_PENDING }) },
    {
      role: "status_fail", move: 0, reason: "",
      transfer: transfer({
        id: failId, debit_account_id: held, credit_account_id: held, amount: 1n,
        ledger: fixed.ledgers[unit]!, code: fixed.transferCodes[kind]!,
      }),
    },
  ];
  link(chain);
  return chain;
}

/** randomId is a random id, kept off the two values TigerBeetle refuses. */
export function randomId(): bigint {
  const id = BigInt("0x" + randomBytes(16).toString("hex"));
  if (id === 0n) {
    return 1n;
  }
  return id === AMOUNT_MAX_128 ? AMOUNT_MAX_128 - 1n : id;
}

/**
 * read turns the statuses of a chain into chobo's answer. The first status
 * that is neither created nor linked_event_failed decides: TigerBeetle
 * marks every other event of a failed chain, earlier ones too, as
 * linked_event_failed.
 */
export function read<R extends string>(chain: readonly ChainEvent[], statuses: readonly number[]): ResultOf<R> {
  if (statuses.length !== chain.length) {
    throw new ChoboError("CHOBO_UNEXPECTED", `${statuses.length} statuses for a chain of ${chain.length} events`);
  }
  // A key guard after the chain never decides the answer; it can get one of three statuses.
  const n = chain.length - 1;
  if (n > 0 && chain[n]!.role === "key_guard") {
    const g = transferStatus(statuses[n]!);
    if (g !== "exists_with_different_flags" && g !== "pending_transfer_not_found" && g !== "id_already_failed") {
      throw unexpected(chain, n, g);
    }
    chain = chain.slice(0, n);
    statuses = statuses.slice(0, n);
  }
  const as = (reason: string) => refused(reason as R);
  for (let i = 0; i < statuses.length; i++) {
    const s = transferStatus(statuses[i]!);
    switch (s) {
      case "created":
      case "linked_event_failed":
        continue;
      case "exists":
        // Only a later event is there: another definition of the kind made the chain.
        return i === 0 ? { result: "done_before" } : as("key_conflict");
      case "id_already_failed":
        return as("already_refused");
      case "exceeds_credits":
        if (chain[i]!.reason === "") {
          throw unexpected(chain, i, s);
        }
        return as(chain[i]!.reason);
      case "accounts_must_be_different":
        return as("same_account");
      case "pending_transfer_already_posted":
        return as("already_posted");
      case "pending_transfer_already_voided":
        return as("already_voided");
      case "pending_transfer_expired":
        return as("expired");
      case "exceeds_pending_transfer_amount":
        return as("over_hold");
    }
    if (s.startsWith("exists_with_different_")) {
      return as("key_conflict");
    }
    throw unexpected(chain, i, s);
  }
  for (let i = 0; i < statuses.length; i++) {
    if (statuses[i] !== CREATED) {
      throw unexpected(chain, i, transferStatus(statuses[i]!));
    }
  }
  return { result: "done" };
}

function unexpected(chain: readonly ChainEvent[], i: number, status: string): ChoboError {
  return new ChoboError("CHOBO_UNEXPECTED", `TigerBeetle answered ${status} for event ${i} (${chain[i]!.role}) of a chain`);
}

/** readStatus turns the answer to a status chain into where the hold stands; null when there is none. */
export function readStatus(statuses: readonly number[]): HoldState | null {
  if (statuses.length !== 2) {
    throw new ChoboError("CHOBO_UNEXPECTED", `${statuses.length} statuses for a status chain`);
  }
  const [first, second] = [transferStatus(statuses[0]!), transferStatus(statuses[1]!)];
  if (first === "linked_event_failed" && second === "accounts_must_be_different") {
    return "held";
  }
  if (second === "linked_event_failed") {
    switch (first) {
      case "pending_transfer_already_posted":
        return "posted";
      case "pending_transfer_already_voided":
        return "voided";
      case "pending_transfer_expired":
        return "expired";
      case "pending_transfer_not_found":
        return null;
    }
  }
  throw new ChoboError("CHOBO_UNEXPECTED", `a status chain answered ${first}, ${second}`);
}

/**
 * balanceOf reads an account record as chobo counts it: posted is credits
 * less debits. TigerBeetle keeps 128 bits, chobo's other backends 64; a
 * figure outside 64 bits throws (design 4.4).
 */
export function balanceOf(name: string, a: TigerBeetleAccount): Balance {
  const fits = (field: string, v: bigint) => {
    if (v < -(1n << 63n) || v >= 1n << 63n) {
      throw new ChoboError("CHOBO_BALANCE_OVERFLOW", `the ${field} balance of ${name} is ${v}, outside 64 bits`);
    }
    return v;
  };
  return {
    posted: fits("posted", a.credits_posted - a.debits_posted),
    held_in: fits("held_in", a.credits_pending),
    held_out: fits("held_out", a.debits_pending),
  };
}

/** A request as the book sends it, for a caller that records them (the conformance tests do). */
export type Request =
  | { op: "create_accounts"; accounts: TigerBeetleAccount[] }
  | { op: "create_transfers"; transfers: TigerBeetleTransfer[] }
  | { op: "lookup_accounts" | "lookup_transfers"; ids: bigint[] };

/** One call of a bulk, made by a transfer's *Call method and sent by the book's bulk. */
export interface TbCall {
  readonly kind: number;
  readonly op: "do" | "hold" | "post" | "void" | "status";
  /** For do and hold the values in declaration order; for post, void and status the key's values. */
  readonly values: readonly Value[];
  /** A partial post's amounts, or null for the whole hold. */
  readonly amounts: readonly bigint[] | null;
  /** Why the client would not make the call: its answer, and nothing is sent. */
  readonly error?: Error;
}

/** What one call of a bulk got: a result, a hold state (or null) for a status, or the error the call alone would throw. */
export type TbAnswer<R extends string> = ResultOf<R> | HoldState | null | Error;

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** tbCall is one call of a bulk; an error of its values is the call's answer, never thrown. */
export function tbCall(kind: number, op: TbCall["op"], values: () => Value[], amounts: () => bigint[] | null = () => null): TbCall {
  try {
    return { kind, op, values: values(), amounts: amounts() };
  } catch (err) {
    return { kind, op, values: [], amounts: null, error: asError(err) };
  }
}

/** overHold answers a post over its hold from the hold's state, which the reference interpreter looks at first. */
function overHold<R extends string>(state: HoldState | null): ResultOf<R> {
  switch (state) {
    case "held":
      return refused("over_hold" as R);
    case "posted":
      return refused("key_conflict" as R);
    case "voided":
      return refused("already_voided" as R);
    case "expired":
      return refused("expired" as R);
  }
  return refused("no_such_hold" as R);
}

/** A post or void of a bulk: its call, its key, and the ids its hold's lookup asks for. */
interface Finishing {
  i: number;
  key: string[];
  ids: bigint[];
}

/** BulkRun is one bulk under way: what each call sends, how its statuses are read, and each call's answer. */
interface BulkRun<R extends string> {
  readonly calls: readonly TbCall[];
  readonly out: TbAnswer<R>[];
  readonly chains: Map<number, ChainEvent[]>;
  /** How a chain's statuses are read: a result, a state, or a post over its hold answered from the hold's state. */
  readonly reads: Map<number, "result" | "state" | "over_hold">;
  /** How a call's chain is laid out under another definition: to send it again as an earlier version sent it (madeByLegacy). */
  readonly layouts: Map<number, (d: Def) => ChainEvent[]>;
  readonly plans: [number, Plan][];
  readonly finishing: Finishing[];
}

/** Options of a book over TigerBeetle. */
export interface TigerBeetleOptions {
  /** The tenant whose balances the book keeps; "" by default. */
  tenant?: string;
  /**
   * How long one request may take, in whole milliseconds up to
   * MAX_TIMEOUT_MS (30 000 by default); 0 waits for ever.
   */
  timeoutMs?: number;
  /**
   * How many events the book puts in one request (the requests of bulk,
   * and those that make accounts): MAX_EVENTS (253) by default, what every
   * replica takes; up to MAX_REQUEST_EVENTS (8,189) for a cluster started
   * without --development, whose fuller requests carry more calls a round
   * trip. A cluster that takes fewer refuses such a request before
   * anything is sent.
   */
  requestEvents?: number;
}

/** The longest timeoutMs: the longest delay a Node timer keeps. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * TigerBeetleBook sends the calls of one book, for one tenant. It
 * remembers the accounts and openings it has made, so that each is sent
 * once per book value: keep one value per tenant rather than making one
 * per call.
 */
export class TigerBeetleBook {
  readonly def: Def;
  readonly tenant: string;
  readonly #client: TigerBeetleClient;
  readonly #timeoutMs: number;
  readonly #events: number;
  readonly #made = new Set<bigint>();
  readonly #tids: TenantIds;

  constructor(client: TigerBeetleClient, def: Def, options: TigerBeetleOptions = {}) {
    if (typeof client !== "object" || client === null || typeof client.createTransfers !== "function") {
      throw new ChoboError("CHOBO_BAD_ARGUMENT", "tigerbeetle: the client must be a tigerbeetle-node client (createClient)");
    }
    this.#client = client;
    this.def = def;
    this.tenant = options.tenant ?? "";
    const ms = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_TIMEOUT_MS) {
      // A longer delay, or one not a number, would fire at once.
      throw new ChoboError("CHOBO_BAD_ARGUMENT", `tigerbeetle: timeoutMs must be a whole number from 0 to ${MAX_TIMEOUT_MS}, got ${describe(ms)}`);
    }
    this.#timeoutMs = ms;
    const events = options.requestEvents ?? MAX_EVENTS;
    if (!Number.isSafeInteger(events) || events < 1 || events > MAX_REQUEST_EVENTS) {
      throw new ChoboError("CHOBO_BAD_ARGUMENT", `tigerbeetle: requestEvents must be a whole number from 1 to ${MAX_REQUEST_EVENTS}, got ${describe(events)}`);
    }
    this.#events = events;
    this.#tids = tenantIdsOf(def, this.tenant);
  }

  async #createTransfers(ts: TigerBeetleTransfer[]): Promise<number[]> {
    const res = await withTimeout(this.#client.createTransfers(ts), this.#timeoutMs, "TigerBeetle create_transfers");
    if (res.length !== ts.length) {
      throw new ChoboError("CHOBO_UNEXPECTED", `${res.length} statuses for ${ts.length} transfers`);
    }
    return res.map((r) => r.status);
  }

  async #sendChain(chain: readonly ChainEvent[]): Promise<number[]> {
    return this.#createTransfers(chain.map((e) => e.transfer));
  }

  /**
   * ensure makes the accounts, then the openings, of a plan that this book
   * has not made yet. An opening puts into a floor or room the distance
   * from zero to its bound, right only for an account with nothing on it:
   * one that existed before its floor or room (a bound added to its kind
   * since) is opened with UNBOUNDED, so that it answers by the bound it had,
   * none, until `chobo migrate` moves it. An opening that exists with
   * another amount is fine: the floor or room keeps its bound until the
   * migration reaches it.
   */
  async #ensure(p: Plan): Promise<void> {
    const created = new Set<bigint>();
    await this.#makeOnce(p.accounts, async (as) => {
      const res = await withTimeout(this.#client.createAccounts(as), this.#timeoutMs, "TigerBeetle create_accounts");
      const st = res.map((r) => accountStatus(r.status));
      st.forEach((s, i) => {
        if (s === "created" && i < as.length) {
          created.add(as[i]!.id);
        }
      });
      return st;
    }, "CHOBO_ACCOUNT_CHANGED", "an account exists in TigerBeetle with another definition: the book's account kinds changed", "account");
    await this.#makeOnce(await this.#openingsFor(p, created), async (ts) => (await this.#createTransfers(ts)).map(transferStatus),
      null, "", "opening");
  }

  /** openingsFor is the plan's openings not made yet, each with the amount it opens with. */
  async #openingsFor(p: Plan, created: Set<bigint>): Promise<TigerBeetleTransfer[]> {
    const owner = new Map<bigint, bigint>();
    for (const a of p.accounts) {
      owner.set(a.id, a.user_data_128);
    }
    const todo = p.openings.filter((o) => !this.#made.has(o.id)).map((o) => ({ ...o }));
    const ask = [...new Set(todo.map((o) => owner.get(o.credit_account_id)!).filter((id) => !created.has(id)))];
    const used = new Set<bigint>();
    for (let start = 0; start < ask.length; start += MAX_EVENTS) {
      const found = await withTimeout(this.#client.lookupAccounts(ask.slice(start, start + MAX_EVENTS)), this.#timeoutMs,
        "TigerBeetle lookup_accounts");
      for (const a of found) {
        if (a.debits_posted !== 0n || a.credits_posted !== 0n || a.debits_pending !== 0n || a.credits_pending !== 0n) {
          used.add(a.id);
        }
      }
    }
    for (const o of todo) {
      if (used.has(owner.get(o.credit_account_id)!)) {
        o.amount = UNBOUNDED;
      }
    }
    return todo;
  }

  async #makeOnce<T extends { id: bigint }>(items: T[], create: (batch: T[]) => Promise<string[]>,
    code: "CHOBO_ACCOUNT_CHANGED" | null, changed: string, what: string): Promise<void> {
    let todo = items.filter((it) => !this.#made.has(it.id));
    while (todo.length > 0) {
      const batch = todo.slice(0, this.#events);
      const st = await create(batch);
      if (st.length !== batch.length) {
        throw new ChoboError("CHOBO_UNEXPECTED", `${st.length} statuses for ${batch.length} ${what}s`);
      }
      st.forEach((s, i) => {
        if (s === "created" || s === "exists" || (code === null && s === "exists_with_different_amount")) {
          return;
        }
        if (code !== null && s.startsWith("exists_with_different_")) {
          throw new ChoboError(code, `${changed} (${what} ${hex(batch[i]!.id)}: ${s})`);
        }
        throw new ChoboError("CHOBO_UNEXPECTED", `creating ${what} ${hex(batch[i]!.id)}: TigerBeetle answered ${s}`);
      });
      for (const it of batch) {
        this.#made.add(it.id);
      }
      todo = todo.slice(batch.length);
    }
  }

  /** call sends a do or a hold with its values in declaration order. */
  async call<R extends string>(kind: number, op: "do" | "hold", vals: readonly Value[]): Promise<ResultOf<R>> {
    checkSize(`${kindOf(this.def, kind).name}.${op}`, this.tenant, vals);
    const p = plan(this.def, this.tenant, kind, op, vals, this.#tids);
    if (p.sameAccount) {
      return refused("same_account" as R);
    }
    if (p.chain.length > this.#events) {
      throw new ChoboError("CHOBO_UNEXPECTED", `a chain of ${p.chain.length} events does not fit one request of ${this.#events}`);
    }
    await this.#ensure(p);
    const st = await this.#sendChain(p.chain);
    if (laidOutOtherwise(p.chain, st) && (await this.#sameCalls([p.chain]))[0]) {
      return { result: "done_before" } as ResultOf<R>;
    }
    if (madeByLegacy(kindOf(this.def, kind), st)) {
      const again = plan(asLegacy(this.def), this.tenant, kind, op, vals, this.#tids).chain;
      return read<R>(again, await this.#sendChain(again));
    }
    return read<R>(p.chain, st);
  }

  /**
   * sameCalls reports, for chains whose first event exists with other
   * flags (laidOutOtherwise), whether each first event's record is the same
   * call: the same content and definition tag.
   */
  async #sameCalls(chains: readonly (readonly ChainEvent[])[]): Promise<boolean[]> {
    const ids = chains.map((c) => c[0]!.transfer.id);
    const found = new Map<bigint, TigerBeetleTransfer>();
    for (let k = 0; k < ids.length; k += MAX_EVENTS) {
      for (const t of await withTimeout(this.#client.lookupTransfers(ids.slice(k, k + MAX_EVENTS)), this.#timeoutMs, "TigerBeetle lookup_transfers")) {
        found.set(t.id, t);
      }
    }
    return chains.map((c) => {
      const t = found.get(c[0]!.transfer.id);
      return t !== undefined && t.user_data_128 === c[0]!.transfer.user_data_128 && t.user_data_64 === c[0]!.transfer.user_data_64;
    });
  }

  /**
   * held reads a hold: the events a post or void ends and what each move
   * holds (holdOf); null when there is no hold, "other" when it was made
   * under another definition of its kind.
   */
  async #held(kind: number, key: readonly string[]): Promise<{ hold: HoldEvent[]; amounts: bigint[] } | null | "other"> {
    const ids = lookups(this.def, this.tenant, kind, key);
    const found = new Map<bigint, TigerBeetleTransfer>();
    for (let i = 0; i < ids.length; i += MAX_EVENTS) {
      const batch = ids.slice(i, i + MAX_EVENTS);
      for (const t of await withTimeout(this.#client.lookupTransfers(batch), this.#timeoutMs, "TigerBeetle lookup_transfers")) {
        if (!batch.includes(t.id)) {
          throw new ChoboError("CHOBO_UNEXPECTED", "the lookup of a hold answered another transfer");
        }
        found.set(t.id, t);
      }
    }
    return holdOf(this.def, this.tenant, kind, ids, found, this.#tids.sinks);
  }

  /**
   * post posts a hold named by its key's values in key order. amounts are
   * the kind's post amounts in declaration order, or null for the whole hold.
   */
  async post<R extends string>(kind: number, keyVals: readonly Value[], amounts: readonly bigint[] | null): Promise<ResultOf<R>> {
    checkSize(`${kindOf(this.def, kind).name}.post`, this.tenant, keyVals);
    const t = kindOf(this.def, kind);
    const key = keyVals.map(text);
    const h = await this.#held(kind, key);
    if (h === null) {
      return refused("no_such_hold" as R);
    }
    if (h === "other") {
      return refused("key_conflict" as R);
    }
    const held = h.amounts;
    let want = held;
    if (amounts !== null) {
      const byParam = new Map<number, bigint>(t.postAmounts.map((p, i) => [p, amounts[i]!]));
      want = t.moves.map((m, i) => (m.amount < 0 ? held[i]! : byParam.get(m.amount)!));
    }
    if (want.some((w, i) => w > held[i]!)) {
      // TigerBeetle checks the amount before the hold's state, the
      // reference interpreter the state first: answer from the state.
      return overHold<R>(await this.#status(kind, key));
    }
    return this.#finish<R>(kind, "post", key, want, h.hold);
  }

  /** void voids a hold named by its key's values in key order. */
  async void<R extends string>(kind: number, keyVals: readonly Value[]): Promise<ResultOf<R>> {
    checkSize(`${kindOf(this.def, kind).name}.void`, this.tenant, keyVals);
    const key = keyVals.map(text);
    const h = await this.#held(kind, key);
    if (h === null) {
      return refused("no_such_hold" as R);
    }
    if (h === "other") {
      return refused("key_conflict" as R);
    }
    return this.#finish<R>(kind, "void", key, [], h.hold);
  }

  /** finish sends a post or void and reads its answer, as an earlier version sent it when one made it. */
  async #finish<R extends string>(kind: number, op: "post" | "void", key: readonly string[], amounts: readonly bigint[],
    hold: readonly HoldEvent[]): Promise<ResultOf<R>> {
    const chain = finishOf(this.def, this.tenant, kind, op, key, amounts, hold);
    const st = await this.#sendChain(chain);
    if (madeByLegacy(kindOf(this.def, kind), st)) {
      const again = finishOf(asLegacy(this.def), this.tenant, kind, op, key, amounts, hold);
      return read<R>(again, await this.#sendChain(again));
    }
    return read<R>(chain, st);
  }

  /** status reads where a hold stands, null when there is none, writing nothing. */
  async status(kind: number, keyVals: readonly Value[]): Promise<HoldState | null> {
    checkSize(`${kindOf(this.def, kind).name}.status`, this.tenant, keyVals);
    return this.#status(kind, keyVals.map(text));
  }

  async #status(kind: number, key: readonly string[]): Promise<HoldState | null> {
    const chain = statusChain(this.def, this.tenant, kind, key, randomId(), randomId());
    return readStatus(await this.#sendChain(chain));
  }

  /**
   * bulk sends many calls in as few requests as they fit: the accounts and
   * openings they need (each once), one lookup for the holds their posts
   * and voids read, then every chain, packed in order into requests of at
   * most requestEvents events, a chain never split. Each call is answered as
   * it would be alone, in order. A call reads nothing another of the same
   * bulk writes: a post, void or status of a hold held in it finds none.
   */
  async bulk<R extends string>(calls: readonly TbCall[]): Promise<TbAnswer<R>[]> {
    const s: BulkRun<R> = {
      calls, out: calls.map((c) => c.error ?? null), chains: new Map(), reads: new Map(), layouts: new Map(), plans: [], finishing: [],
    };
    calls.forEach((c, i) => {
      if (c.error === undefined) {
        this.#planCall(s, i);
      }
    });
    await this.#ensureAll(s);
    await this.#finishAll(s);
    const { again, relaid } = await this.#sendAll(s);
    again.push(...(await this.#judgeRelaid(s, relaid)));
    // The calls an earlier version made, sent again as it sent them: few,
    // one request each.
    for (const i of again) {
      try {
        const chain = s.layouts.get(i)!(asLegacy(this.def));
        s.out[i] = read<R>(chain, await this.#createTransfers(chain.map((e) => e.transfer)));
      } catch (err) {
        s.out[i] = asError(err);
      }
    }
    return s.out;
  }

  /**
   * planCall checks call i of a bulk and lays out what it sends: the plan
   * and chain of a do or hold, the status chain of a status; a post or void
   * waits for the lookup of its hold (finishing). A call whose answer is
   * known already (an error, same_account) gets it and sends nothing.
   */
  #planCall<R extends string>(s: BulkRun<R>, i: number): void {
    const c = s.calls[i]!;
    try {
      const t = kindOf(this.def, c.kind);
      const where = `${t.name}.${c.op}`;
      if (c.op === "post" && c.amounts !== null) {
        if (c.amounts.length !== t.postAmounts.length) {
          throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: a post takes ${t.postAmounts.length} amounts, got ${c.amounts.length}`);
        }
        t.postAmounts.forEach((p, n) => checkAmount(where, t.params[p]!.name, c.amounts![n]));
      }
      checkSize(where, this.tenant, c.values);
      if (c.op === "do" || c.op === "hold") {
        const p = plan(this.def, this.tenant, c.kind, c.op, c.values, this.#tids);
        if (p.sameAccount) {
          s.out[i] = refused("same_account" as R);
        } else if (p.chain.length > this.#events) {
          throw new ChoboError("CHOBO_UNEXPECTED", `a chain of ${p.chain.length} events does not fit one request of ${this.#events}`);
        } else {
          s.plans.push([i, p]);
          s.chains.set(i, p.chain);
          s.reads.set(i, "result");
          const op = c.op;
          s.layouts.set(i, (d) => plan(d, this.tenant, c.kind, op, c.values, this.#tids).chain);
        }
      } else if (c.op === "status") {
        s.chains.set(i, statusChain(this.def, this.tenant, c.kind, c.values.map(text), randomId(), randomId()));
        s.reads.set(i, "state");
      } else {
        const key = c.values.map(text);
        s.finishing.push({ i, key, ids: lookups(this.def, this.tenant, c.kind, key) });
      }
    } catch (err) {
      s.out[i] = asError(err);
    }
  }

  /** ensureAll makes the accounts and openings of every plan, each once; when that fails, each do and hold fails with it. */
  async #ensureAll<R extends string>(s: BulkRun<R>): Promise<void> {
    if (s.plans.length === 0) {
      return;
    }
    const whole: Plan = { accounts: [], openings: [], chain: [], sameAccount: false };
    const seen = new Set<bigint>();
    for (const [, p] of s.plans) {
      for (const a of p.accounts) {
        if (!seen.has(a.id)) {
          seen.add(a.id);
          whole.accounts.push(a);
        }
      }
      for (const o of p.openings) {
        if (!seen.has(o.id)) {
          seen.add(o.id);
          whole.openings.push(o);
        }
      }
    }
    try {
      await this.#ensure(whole);
    } catch (err) {
      for (const [i] of s.plans) {
        s.out[i] = asError(err);
        s.chains.delete(i);
      }
    }
  }

  /**
   * finishAll looks up the holds of every post and void, each id once,
   * MAX_EVENTS to a request, then lays out what each sends. A lookup that
   * fails, or answers a transfer it was not asked for, fails them all.
   */
  async #finishAll<R extends string>(s: BulkRun<R>): Promise<void> {
    const found = new Map<bigint, TigerBeetleTransfer>();
    const ids = [...new Set(s.finishing.flatMap((f) => f.ids))];
    try {
      for (let k = 0; k < ids.length; k += MAX_EVENTS) {
        const batch = ids.slice(k, k + MAX_EVENTS);
        for (const t of await withTimeout(this.#client.lookupTransfers(batch), this.#timeoutMs, "TigerBeetle lookup_transfers")) {
          if (!batch.includes(t.id)) {
            throw new ChoboError("CHOBO_UNEXPECTED", "the lookup of a hold answered another transfer");
          }
          found.set(t.id, t);
        }
      }
    } catch (err) {
      for (const f of s.finishing) {
        s.out[f.i] = asError(err);
      }
      return;
    }
    for (const f of s.finishing) {
      try {
        this.#finishCall(s, f, found);
      } catch (err) {
        s.out[f.i] = asError(err);
      }
    }
  }

  /**
   * finishCall lays out the chain of a post or void from the records its
   * lookup found, as post and void do, or answers it when the hold alone
   * gives the answer. A post over its hold sends a status chain, answered
   * from the hold's state (overHold).
   */
  #finishCall<R extends string>(s: BulkRun<R>, f: Finishing, found: ReadonlyMap<bigint, TigerBeetleTransfer>): void {
    const c = s.calls[f.i]!;
    const t = kindOf(this.def, c.kind);
    const h = holdOf(this.def, this.tenant, c.kind, f.ids, found, this.#tids.sinks);
    if (h === "other") {
      s.out[f.i] = refused("key_conflict" as R);
      return;
    }
    if (h === null) {
      s.out[f.i] = refused("no_such_hold" as R);
      return;
    }
    const held = h.amounts;
    const hold = h.hold;
    if (c.op === "void") {
      s.chains.set(f.i, finishOf(this.def, this.tenant, c.kind, "void", f.key, [], hold));
      s.reads.set(f.i, "result");
      s.layouts.set(f.i, (d) => finishOf(d, this.tenant, c.kind, "void", f.key, [], hold));
      return;
    }
    let want = held;
    if (c.amounts !== null) {
      const byParam = new Map<number, bigint>(t.postAmounts.map((p, n) => [p, c.amounts![n]!]));
      want = t.moves.map((m, n) => (m.amount < 0 ? held[n]! : byParam.get(m.amount)!));
    }
    if (want.some((w, n) => w > held[n]!)) {
      s.chains.set(f.i, statusChain(this.def, this.tenant, c.kind, f.key, randomId(), randomId()));
      s.reads.set(f.i, "over_hold");
      return;
    }
    s.chains.set(f.i, finishOf(this.def, this.tenant, c.kind, "post", f.key, want, hold));
    s.reads.set(f.i, "result");
    s.layouts.set(f.i, (d) => finishOf(d, this.tenant, c.kind, "post", f.key, want, hold));
  }

  /**
   * sendAll sends every chain, in the order of the calls, packed into
   * requests of at most requestEvents events, a chain never split, and reads
   * each chain's statuses. A request that fails fails the calls it
   * carried. It returns the calls to send again as an earlier version laid
   * them out, and those whose first event exists with other flags.
   */
  async #sendAll<R extends string>(s: BulkRun<R>): Promise<{ again: number[]; relaid: Map<number, number[]> }> {
    const again: number[] = [];
    const relaid = new Map<number, number[]>();
    const order = s.calls.flatMap((_, i) => (s.chains.has(i) ? [i] : []));
    for (let k = 0; k < order.length; ) {
      const batch = [order[k]!];
      let n = s.chains.get(order[k]!)!.length;
      k++;
      while (k < order.length && n + s.chains.get(order[k]!)!.length <= this.#events) {
        n += s.chains.get(order[k]!)!.length;
        batch.push(order[k]!);
        k++;
      }
      let statuses: number[];
      try {
        statuses = await this.#createTransfers(batch.flatMap((i) => s.chains.get(i)!.map((e) => e.transfer)));
      } catch (err) {
        for (const i of batch) {
          s.out[i] = asError(err);
        }
        continue;
      }
      let at = 0;
      for (const i of batch) {
        const length = s.chains.get(i)!.length;
        this.#readChain(s, i, statuses.slice(at, at + length), again, relaid);
        at += length;
      }
    }
    return { again, relaid };
  }

  /** readChain makes the statuses of call i's chain its answer, or sets the call aside (again, relaid). */
  #readChain<R extends string>(s: BulkRun<R>, i: number, mine: number[], again: number[], relaid: Map<number, number[]>): void {
    const chain = s.chains.get(i)!;
    try {
      const how = s.reads.get(i);
      if (how === "result" && laidOutOtherwise(chain, mine)) {
        relaid.set(i, mine);
        return;
      }
      if (how === "result" && madeByLegacy(kindOf(this.def, s.calls[i]!.kind), mine)) {
        again.push(i);
        return;
      }
      s.out[i] = how === "result" ? read<R>(chain, mine) : how === "state" ? readStatus(mine) : overHold<R>(readStatus(mine));
    } catch (err) {
      s.out[i] = asError(err);
    }
  }

  /**
   * judgeRelaid answers the calls whose first event exists with other flags
   * by what they mean (laidOutOtherwise): few, their first events looked up
   * in one request. It returns those an earlier version made, to send again.
   */
  async #judgeRelaid<R extends string>(s: BulkRun<R>, relaid: Map<number, number[]>): Promise<number[]> {
    const again: number[] = [];
    if (relaid.size === 0) {
      return again;
    }
    const which = [...relaid.keys()];
    try {
      const same = await this.#sameCalls(which.map((i) => s.chains.get(i)!));
      which.forEach((i, n) => {
        const mine = relaid.get(i)!;
        if (same[n]) {
          s.out[i] = { result: "done_before" } as ResultOf<R>;
        } else if (madeByLegacy(kindOf(this.def, s.calls[i]!.kind), mine)) {
          again.push(i);
        } else {
          try {
            s.out[i] = read<R>(s.chains.get(i)!, mine);
          } catch (err) {
            s.out[i] = asError(err);
          }
        }
      });
    } catch (err) {
      for (const i of which) {
        s.out[i] = asError(err);
      }
    }
    return again;
  }

  /** balance reads an account of a kind, named by its arguments. */
  async balance(account: number, args: readonly string[]): Promise<Balance> {
    checkSize(`balance of ${this.def.accounts[account]?.name ?? account}`, this.tenant, args);
    const a = this.def.accounts[account];
    if (a === undefined) {
      throw new ChoboError("CHOBO_UNEXPECTED", `the book ${this.def.book} has no account kind ${account}`);
    }
    const id = accountId(this.def.book, this.tenant, a.name, args);
    const found = await withTimeout(this.#client.lookupAccounts([id]), this.#timeoutMs, "TigerBeetle lookup_accounts");
    if (found.length === 0) {
      return { posted: 0n, held_in: 0n, held_out: 0n };
    }
    return balanceOf(a.name, found[0]!);
  }

  // The reads of the history. TigerBeetle keeps no entries: they are
  // worked out from the records of get_account_transfers, as the Go
  // runtime does (runtime/go/chobotb/history.go), and answer the same.

  /** history is the client's two reads of the history, or the error of a client without them. */
  #history(where: string): HistoryReads {
    const c = this.#client;
    if (typeof c.getAccountTransfers !== "function" || typeof c.queryTransfers !== "function") {
      throw new ChoboError("CHOBO_UNSUPPORTED", `${where}: the TigerBeetle client does not read an account's transfers (getAccountTransfers, queryTransfers)`);
    }
    const ms = this.#timeoutMs;
    return {
      accountTransfers: (f) => withTimeout(c.getAccountTransfers!(f), ms, "TigerBeetle get_account_transfers"),
      query: (f) => withTimeout(c.queryTransfers!(f), ms, "TigerBeetle query_transfers"),
      lookupAccounts: (ids) => withTimeout(c.lookupAccounts(ids), ms, "TigerBeetle lookup_accounts"),
    };
  }

  /** accountOf checks an account kind and its values and names the account. */
  #accountOf(where: string, account: number, args: readonly string[]): bigint {
    const a = this.def.accounts[account];
    if (a === undefined) {
      throw new ChoboError("CHOBO_UNEXPECTED", `the book ${this.def.book} has no account kind ${account}`);
    }
    if (args.length !== a.params) {
      throw new ChoboError("CHOBO_UNEXPECTED", `${where}: the account ${a.name} takes ${a.params} values, got ${args.length}`);
    }
    checkSize(where, this.tenant, args);
    return accountId(this.def.book, this.tenant, a.name, args);
  }

  /**
   * statement reads one page of the entries of an account of a kind, named
   * by its values, as the checked query asks: a record for each move of a
   * do or hold that names the account and for each post or void of such a
   * hold, less the records that keep a lower bound (those naming the
   * tenant's sink); and an expiry for each move of a hold TigerBeetle finds
   * expired, dated at the hold's deadline (TigerBeetle writes nothing when
   * a hold times out). Entries have neither key nor args, which TigerBeetle
   * keeps only as hashes; id names the record. Balances are summed from the
   * account's first record, so each page reads the account's history whole.
   */
  async statement(account: number, args: readonly string[], q: CheckedQuery): Promise<Statement> {
    const where = `statement.${this.def.accounts[account]?.name ?? account}`;
    const kinds = new Set<number>();
    for (const name of q.transfers) {
      const k = this.def.transfers.findIndex((t) => t.name === name);
      if (k < 0) {
        throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: the book ${this.def.book} has no transfer ${JSON.stringify(name)}`);
      }
      kinds.add(k);
    }
    const past = q.after === "" ? null : parseCursor(where, q.after);
    const limit = q.limit;
    const h = this.#history(where);
    const id = this.#accountOf(where, account, args);
    const all = await this.#accountEntries(h, account, id);
    const from = q.from === null ? null : nanos(q.from);
    const to = q.to === null ? null : nanos(q.to);
    const page: Statement = { entries: [], next: q.after, more: false };
    for (let n = 0; n < all.length; n++) {
      const e = q.newest ? all[all.length - 1 - n]! : all[n]!;
      if (past !== null && ((!q.newest && !before(past, e)) || (q.newest && !before(e, past)))) {
        continue;
      }
      if ((from !== null && e.ts < from) || (to !== null && e.ts >= to)) {
        continue;
      }
      if (kinds.size > 0 && !kinds.has(e.kind)) {
        continue;
      }
      if (page.entries.length === limit) {
        page.more = true;
        break;
      }
      page.entries.push(this.#named(e, [...args], true));
      page.next = cursorOf(e);
    }
    return page;
  }

  /** named is an entry as the caller reads it; args are its account's values, null when not known. */
  #named(e: HistEntry, args: string[] | null, after: boolean): Entry {
    return {
      transfer: this.def.transfers[e.kind]!.name, op: e.op, key: null, args: null, id: hex(e.id), move: e.move, out: e.out,
      account: this.def.accounts[e.account]!.name, accountArgs: args, posted: e.posted, heldIn: e.heldIn, heldOut: e.heldOut,
      after: after ? { ...e.after } : null, at: dateOf(e.ts), cursor: cursorOf(e),
    };
  }

  /**
   * balanceAt is what an account of a kind held at a time: after every
   * entry of its statement at that time or before, summed from the first.
   * A time TigerBeetle has not reached yet answers as the account stands.
   */
  async balanceAt(account: number, args: readonly string[], at: Date): Promise<Balance> {
    const where = `balanceAt.${this.def.accounts[account]?.name ?? account}`;
    const h = this.#history(where);
    const id = this.#accountOf(where, account, args);
    const all = await this.#accountEntries(h, account, id);
    const t = nanos(at) + 999_999n; // every nanosecond of the millisecond a Date names
    let bal: Balance = { posted: 0n, held_in: 0n, held_out: 0n };
    for (const e of all) {
      if (e.ts > t) {
        break;
      }
      bal = e.after;
    }
    return { ...bal };
  }

  /** accountEntries reads every entry of the account id of a kind, in the order they happened, each with the balance it left. */
  async #accountEntries(h: HistoryReads, account: number, id: bigint): Promise<HistEntry[]> {
    const records = await readAll(h, id);
    const sink = this.#tids.sinks[this.def.accounts[account]!.unit]!;
    const dec = new Decoder(this.def, this.#tids, h);
    await dec.lookup(records, id, sink);
    const { out, open, ended } = await recordEntries(records, id, account, sink, dec);
    await this.#addExpiries(out, records, open, ended);
    sortEntries(out);
    addBalances(out);
    return out;
  }

  /**
   * addExpiries adds to out the expiries of the account's records: a move
   * of a hold of open no record ended that TigerBeetle finds expired. A
   * deadline at or before the account's last record has passed on
   * TigerBeetle's clock; a later one is asked of it, with a status chain
   * that writes nothing.
   */
  async #addExpiries(out: HistEntry[], records: readonly TigerBeetleTransfer[], open: readonly HistEntry[], ended: ReadonlySet<bigint>): Promise<void> {
    const last = records.length > 0 ? records[records.length - 1]!.timestamp : 0n;
    const ask: HistEntry[] = [];
    for (const held of open) {
      if (ended.has(held.id)) {
        continue;
      }
      if (deadlineOf(held) <= last) {
        out.push(expiry(held));
      } else {
        ask.push(held);
      }
    }
    const states = await this.#holdStates(ask);
    ask.forEach((held, i) => {
      if (states[i] === "expired") {
        out.push(expiry(held));
      }
    });
  }

  /**
   * holdStates asks TigerBeetle where each of the hold moves stands: for
   * each, a void of it linked to a transfer TigerBeetle always refuses,
   * many to a request. Nothing is written.
   */
  async #holdStates(moves: readonly { id: bigint; kind: number; account: number }[]): Promise<(HoldState | null)[]> {
    const out: (HoldState | null)[] = [];
    const pairs = Math.floor(MAX_EVENTS / 2);
    const fixed = fixedOf(this.def);
    for (let start = 0; start < moves.length; start += pairs) {
      const batch = moves.slice(start, start + pairs);
      const req: TigerBeetleTransfer[] = [];
      for (const m of batch) {
        const unit = this.def.accounts[m.account]!.unit;
        const chain: ChainEvent[] = [
          { role: "status_void", move: 0, reason: "", transfer: transfer({ id: randomId(), pending_id: m.id, flags: TRANSFER_VOID_PENDING }) },
          {
            role: "status_fail", move: 0, reason: "",
            transfer: transfer({ id: randomId(), debit_account_id: m.id, credit_account_id: m.id, amount: 1n, ledger: fixed.ledgers[unit]!, code: fixed.transferCodes[m.kind]! }),
          },
        ];
        link(chain);
        req.push(chain[0]!.transfer, chain[1]!.transfer);
      }
      const st = await this.#createTransfers(req);
      for (let i = 0; i < batch.length; i++) {
        out.push(readStatus(st.slice(2 * i, 2 * i + 2)));
      }
    }
    return out;
  }

  /**
   * callEntries reads every entry the call of a kind with the key wrote,
   * oldest first: a do's, or a hold's and then those of its post, void or
   * expiry, both sides of every move. Each id the call can have written is
   * known from the key, so one lookup finds them; a hold none of whose
   * moves a post or void ended is asked whether it expired. The entries
   * carry the key but not the other arguments; an entry's account values
   * are there when the key holds them; and after is null (a statement of
   * the account has it).
   */
  async callEntries(kind: number, key: readonly string[]): Promise<Entry[]> {
    const t = kindOf(this.def, kind);
    const where = `${t.name}.entries`;
    if (key.length !== t.key.length) {
      throw new ChoboError("CHOBO_UNEXPECTED", `${where}: the key has ${t.key.length} values, got ${key.length}`);
    }
    checkSize(where, this.tenant, key);
    const ops = (t.pending ? ["hold", "post", "void"] : ["do"]) as EntryOp[];
    const places = this.#callPlaces(t, ops, key);
    const byId = await this.#lookupAll(ops.flatMap((op) => places.get(op)!));
    const want = this.#callRecords(t, kind, ops, places, byId);
    const { moves, holds, ends } = callMoves(kind, want, byId);
    if (t.pending && t.timeout > 0 && holds > 0 && ends === 0) {
      await this.#addCallExpiries(t, moves);
    }
    sortEntries(moves);
    return this.#callSides(t, key, moves);
  }

  /**
   * callPlaces is every id the call of the kind t with the key can have
   * written, by op, whatever layout the version that wrote it had: a do's
   * or hold's every place (REACH a move), a post's or void's every event
   * (one fewer a move: no probe's void). The records found tell the moves.
   */
  #callPlaces(t: TransferKind, ops: readonly EntryOp[], key: readonly string[]): Map<EntryOp, bigint[]> {
    const places = new Map<EntryOp, bigint[]>();
    for (const op of ops) {
      const n = (op === "post" || op === "void" ? REACH - 1 : REACH) * t.moves.length;
      const list: bigint[] = [];
      for (let pos = 0; pos < n; pos++) {
        list.push(transferId(this.def.book, this.tenant, t.name, op, key, pos));
      }
      places.set(op, list);
    }
    return places;
  }

  /** lookupAll looks the ids up, as many to a request as one holds, and gives the records found, by id. */
  async #lookupAll(ids: readonly bigint[]): Promise<Map<bigint, TigerBeetleTransfer>> {
    const byId = new Map<bigint, TigerBeetleTransfer>();
    for (let start = 0; start < ids.length; start += MAX_EVENTS) {
      const batch = ids.slice(start, start + MAX_EVENTS);
      const found = await withTimeout(this.#client.lookupTransfers(batch), this.#timeoutMs, "TigerBeetle lookup_transfers");
      for (const r of found) {
        byId.set(r.id, r);
      }
    }
    return byId;
  }

  /**
   * callRecords picks the call's records out of those found at its places:
   * the first op's that are moves, numbered in order (no more than the
   * kind has), then each record of a later op that ends one of them.
   */
  #callRecords(t: TransferKind, kind: number, ops: readonly EntryOp[], places: ReadonlyMap<EntryOp, bigint[]>,
    byId: ReadonlyMap<bigint, TigerBeetleTransfer>): CallRecord[] {
    const sinks = new Set(this.#tids.sinks);
    const code = fixedOf(this.def).transferCodes[kind]!;
    const want: CallRecord[] = [];
    const moveOf = new Map<bigint, number>(); // the do's or hold's moves, by id
    for (const id of places.get(ops[0]!)!) {
      const r = byId.get(id);
      // A move names no sink (see holdOf); a netting has the sink's code,
      // a probe's void ends the probe.
      if (r === undefined || r.code !== code || (r.flags & (TRANSFER_POST_PENDING | TRANSFER_VOID_PENDING)) !== 0 ||
        sinks.has(r.debit_account_id) || sinks.has(r.credit_account_id) || moveOf.size === t.moves.length) {
        continue;
      }
      moveOf.set(id, moveOf.size + 1);
      want.push({ op: ops[0]!, move: moveOf.get(id)!, id });
    }
    for (const op of ops.slice(1)) {
      for (const id of places.get(op)!) {
        const r = byId.get(id);
        const move = r === undefined ? undefined : moveOf.get(r.pending_id);
        if (move !== undefined) {
          want.push({ op, move, id });
        }
      }
    }
    return want;
  }

  /**
   * addCallExpiries adds to moves, the out sides of a hold's moves none of
   * which a post or void ended, an expiry of each when TigerBeetle finds
   * the hold expired.
   */
  async #addCallExpiries(t: TransferKind, moves: HistEntry[]): Promise<void> {
    const hs = moves.map((e) => ({ ...e, account: t.moves[e.move - 1]!.from.account }));
    const [state] = await this.#holdStates(hs.slice(0, 1));
    if (state === "expired") {
      for (const h of hs) {
        // Released as a void releases it, at the deadline.
        moves.push({ ...h, hold: h.ts, ts: deadlineOf(h), expire: true, op: "expire" });
      }
    }
  }

  /** callSides are the entries of both sides of each of the call's moves, the out side first, named for the caller. */
  #callSides(t: TransferKind, key: readonly string[], moves: readonly HistEntry[]): Entry[] {
    const out: Entry[] = [];
    for (const m of moves) {
      const mv = t.moves[m.move - 1]!;
      // The out side: a do posts away, a hold holds out, an end releases
      // what was held and posts away what it posts.
      const o: HistEntry = { ...m, out: true, account: mv.from.account };
      const inn: HistEntry = { ...m, out: false, account: mv.to.account };
      if (m.op === "do") {
        o.posted = -m.posted;
      } else if (m.op === "hold") {
        inn.heldOut = 0n;
        inn.heldIn = m.heldOut;
      } else {
        o.posted = -m.posted;
        o.heldOut = -m.heldOut;
        inn.heldOut = 0n;
        inn.heldIn = -m.heldOut;
      }
      for (const e of [o, inn]) {
        const ne = this.#named(e, sideArgs(t, e.out ? mv.from : mv.to, key), false);
        ne.key = [...key];
        out.push(ne);
      }
    }
    return out;
  }

  /**
   * openHolds lists the holds still held that move from or to the account
   * of the kind account named by args (any account when account is -1) and
   * are of the transfer kind kind (any when -1), oldest first. Read by
   * account, from the account's records; by kind alone, from every record
   * of the kind's code, kept to the tenant by the accounts they name. A
   * hold's moves are those of its chain, found by its content hash; key is
   * null, and id the id of the hold's first move.
   */
  async openHolds(account: number, args: readonly string[] | null, kind: number): Promise<OpenHold[]> {
    const d = this.def;
    const where = account === -1 ? `${d.transfers[kind]?.name ?? kind}.openHolds` : `openHolds.${d.accounts[account]?.name ?? account}`;
    if (kind < -1 || kind >= d.transfers.length) {
      throw new ChoboError("CHOBO_UNEXPECTED", `the book ${d.book} has no transfer kind ${kind}`);
    }
    const h = this.#history(where);
    const id = account === -1 ? 0n : this.#accountOf(where, account, args ?? []);
    const records = await this.#holdRecords(h, account, id, kind);
    const dec = new Decoder(d, this.#tids, h);
    const firsts = heldCalls(d, dec, records, kind);
    // A hold whose deadline is at or before the last record read has
    // expired on TigerBeetle's clock: nothing more is asked of it.
    let last = 0n;
    for (const r of records) {
      if (r.timestamp > last) {
        last = r.timestamp;
      }
    }
    const valuesOf = (acc: bigint, a: number): string[] | null => {
      if (account !== -1 && acc === id) {
        return [...(args ?? [])];
      }
      return d.accounts[a]!.params === 0 ? [] : null;
    };
    const found: OpenHold[] = [];
    const heads: HoldHead[] = [];
    for (const [c, r] of firsts) {
      const got = await this.#chainHold(h, dec, c, r, last, valuesOf);
      if (got !== null) {
        found.push(got.hold);
        heads.push(got.head);
      }
    }
    const states = await this.#holdStates(heads);
    const open = found.filter((_, i) => states[i] === "held");
    // Stable: holds created together keep the order they were found in.
    open.sort((a, b) => a.created.getTime() - b.created.getTime() || cmp(a.transfer, b.transfer) || cmp(a.id, b.id));
    return open;
  }

  /**
   * holdRecords reads the records openHolds looks through: the account's
   * when account is not -1; else every record of the code of kind, or of
   * every kind when it is -1, of the kinds that hold.
   */
  async #holdRecords(h: HistoryReads, account: number, id: bigint, kind: number): Promise<TigerBeetleTransfer[]> {
    const d = this.def;
    const codes = fixedOf(d).transferCodes;
    let records: TigerBeetleTransfer[] = [];
    if (account !== -1) {
      records = await readAll(h, id);
    } else {
      for (let k = 0; k < d.transfers.length; k++) {
        if ((kind === -1 || k === kind) && d.transfers[k]!.pending) {
          records.push(...(await queryAll(h, codes[k]!)));
        }
      }
    }
    return records;
  }

  /**
   * chainHold is the hold the call with the content hash c made, r its
   * first hold record read, from the call's chain, with its head for
   * holdStates; null when its deadline is at or before last, or the chain
   * is not a hold's or is another tenant's.
   */
  async #chainHold(h: HistoryReads, dec: Decoder, c: bigint, r: TigerBeetleTransfer, last: bigint,
    valuesOf: (acc: bigint, a: number) => string[] | null): Promise<{ hold: OpenHold; head: HoldHead } | null> {
    const k = dec.byCode.get(r.code)!;
    const t = this.def.transfers[k]!;
    if (t.timeout > 0 && r.timestamp + BigInt(t.timeout) * NS <= last) {
      return null;
    }
    const chain = await h.query(queryFilter({ user_data_128: c, code: r.code, limit: MAX_EVENTS + 1 }));
    if (chain.length === 0 || (chain[0]!.flags & TRANSFER_PENDING) === 0 || chain.length > REACH * t.moves.length) {
      return null; // not a hold's chain: the voids of a kind share one hash
    }
    const from = await dec.accountKind(chain[0]!.debit_account_id);
    if (from < 0) {
      return null; // another tenant's
    }
    const hold: OpenHold = {
      transfer: t.name, key: null, id: hex(chain[0]!.id), moves: this.#holdMoves(t, chain, valuesOf), created: dateOf(chain[0]!.timestamp),
      deadline: chain[0]!.timeout > 0 ? dateOf(chain[0]!.timestamp + BigInt(chain[0]!.timeout) * NS) : null, // the timeout it was sent with
    };
    return { hold, head: { id: chain[0]!.id, kind: k, account: from } };
  }

  /**
   * holdMoves are the moves of a hold of the kind t: the chain's pending
   * records that name no sink, in order, whatever layout the version that
   * made the hold had (see holdOf): a probe and the floor and room events
   * name the sink.
   */
  #holdMoves(t: TransferKind, chain: readonly TigerBeetleTransfer[], valuesOf: (acc: bigint, a: number) => string[] | null): HoldMove[] {
    const d = this.def;
    const sinks = new Set(this.#tids.sinks);
    const moves: HoldMove[] = [];
    for (const rec of chain) {
      if ((rec.flags & TRANSFER_PENDING) === 0 || sinks.has(rec.debit_account_id) || sinks.has(rec.credit_account_id) || moves.length === t.moves.length) {
        continue;
      }
      const mv = t.moves[moves.length]!;
      moves.push({
        move: moves.length + 1, from: d.accounts[mv.from.account]!.name, fromArgs: valuesOf(rec.debit_account_id, mv.from.account),
        to: d.accounts[mv.to.account]!.name, toArgs: valuesOf(rec.credit_account_id, mv.to.account), amount: fit(rec.amount),
      });
    }
    return moves;
  }
}

// ---- the history's machinery, shared by the reads above ----

/** Nanoseconds in a second, as TigerBeetle counts timestamps and chobo timeouts. */
const NS = 1_000_000_000n;

/** historyPage is how many records one read asks for: what a reply of a --development replica holds comfortably, far below its 8,189. */
const HISTORY_PAGE = 4096;

/** The client's reads of the history, each bounded by the book's timeout. */
interface HistoryReads {
  accountTransfers(f: TigerBeetleAccountFilter): Promise<TigerBeetleTransfer[]>;
  query(f: TigerBeetleQueryFilter): Promise<TigerBeetleTransfer[]>;
  lookupAccounts(ids: bigint[]): Promise<TigerBeetleAccount[]>;
}

/**
 * One side of one move of a call that took effect, as the records tell
 * it, before it is named for the caller. ts is the record's timestamp; an
 * expiry's is its hold's deadline, and hold the timestamp of the hold's
 * record, which orders expiries of one deadline.
 */
interface HistEntry {
  ts: bigint;
  hold: bigint;
  expire: boolean;
  id: bigint; // the record's; for an expiry, the hold's move
  kind: number;
  op: EntryOp;
  move: number;
  out: boolean;
  account: number;
  timeout: number; // a hold's, in seconds
  posted: bigint;
  heldOut: bigint;
  heldIn: bigint;
  after: Balance;
}

function blank(ts: bigint, id: bigint, out: boolean, account: number): HistEntry {
  return {
    ts, hold: 0n, expire: false, id, kind: 0, op: "do", move: 0, out, account, timeout: 0,
    posted: 0n, heldOut: 0n, heldIn: 0n, after: { posted: 0n, held_in: 0n, held_out: 0n },
  };
}

/**
 * recordEntries is an entry for each record of the account id of the kind
 * account, less those naming its unit's sink, as the records tell them:
 * with the holds among them that have a timeout (open) and the ids of the
 * holds a post or void of them ended.
 */
async function recordEntries(records: readonly TigerBeetleTransfer[], id: bigint, account: number, sink: bigint, dec: Decoder):
  Promise<{ out: HistEntry[]; open: HistEntry[]; ended: Set<bigint> }> {
  const out: HistEntry[] = [];
  const holds = new Map<bigint, HistEntry>();
  const ended = new Set<bigint>();
  const open: HistEntry[] = [];
  for (const r of records) {
    if (r.debit_account_id === sink || r.credit_account_id === sink) {
      continue; // a lower bound's probe and its void: machinery
    }
    const e = blank(r.timestamp, r.id, r.debit_account_id === id, account);
    const amount = fit(r.amount);
    if ((r.flags & (TRANSFER_POST_PENDING | TRANSFER_VOID_PENDING)) !== 0) {
      const held = holds.get(r.pending_id);
      if (held === undefined) {
        throw new ChoboError("CHOBO_UNEXPECTED", `record ${hex(r.id)} ends a hold ${hex(r.pending_id)} the account does not show`);
      }
      ended.add(r.pending_id);
      out.push(endOfHold(e, (r.flags & TRANSFER_POST_PENDING) !== 0, held, amount));
      continue;
    }
    [e.kind, e.move] = await dec.move(r, e.out, account);
    if ((r.flags & TRANSFER_PENDING) !== 0) {
      e.op = "hold";
      e.timeout = r.timeout;
      if (e.out) {
        e.heldOut = amount;
      } else {
        e.heldIn = amount;
      }
      out.push(e);
      holds.set(r.id, e);
      if (r.timeout > 0) {
        open.push(e);
      }
    } else {
      e.op = "do";
      e.posted = e.out ? -amount : amount;
      out.push(e);
    }
  }
  return { out, open, ended };
}

/**
 * endOfHold fills in e, the entry of a record that posts (post) or voids
 * the hold held, on the account's side: it releases what was held and,
 * for a post, moves the amount posted.
 */
function endOfHold(e: HistEntry, post: boolean, held: HistEntry, amount: bigint): HistEntry {
  e.kind = held.kind;
  e.move = held.move;
  e.op = "void";
  if (post) {
    e.op = "post";
    e.posted = amount;
  }
  const was = held.heldOut + held.heldIn;
  if (e.out) {
    e.posted = -e.posted;
    e.heldOut = -was;
  } else {
    e.heldIn = -was;
  }
  return e;
}

/** addBalances sets each entry's after to the balance summed from the first entry through it. */
function addBalances(es: readonly HistEntry[]): void {
  const bal: Balance = { posted: 0n, held_in: 0n, held_out: 0n };
  for (const e of es) {
    bal.posted += e.posted;
    bal.held_out += e.heldOut;
    bal.held_in += e.heldIn;
    e.after = { ...bal };
  }
}

/** One record of a call, as callEntries picks it: its op, the move it is of, and its id. */
interface CallRecord {
  op: EntryOp;
  move: number;
  id: bigint;
}

/**
 * callMoves is an entry for each of the call's records that was found, on
 * the out side of its move (the in side follows from it), with how many
 * moves were held and how many of those a post or void ended.
 */
function callMoves(kind: number, want: readonly CallRecord[], byId: ReadonlyMap<bigint, TigerBeetleTransfer>): { moves: HistEntry[]; holds: number; ends: number } {
  const held = new Map<number, TigerBeetleTransfer>(); // the hold's record, by move
  const ended = new Set<number>();
  const moves: HistEntry[] = []; // one per record: the out side; the in side follows
  for (const w of want) {
    const r = byId.get(w.id);
    if (r === undefined) {
      continue;
    }
    const amount = fit(r.amount);
    const e = blank(r.timestamp, r.id, false, 0);
    e.kind = kind;
    e.op = w.op;
    e.move = w.move;
    e.timeout = r.timeout;
    if (w.op === "do") {
      e.posted = amount;
    } else if (w.op === "hold") {
      e.heldOut = amount;
      held.set(w.move, r);
    } else {
      const h = held.get(w.move);
      if (h === undefined) {
        throw new ChoboError("CHOBO_UNEXPECTED", `record ${hex(r.id)} ends a hold that is not there`);
      }
      ended.add(w.move);
      e.heldOut = fit(h.amount);
      if (w.op === "post") {
        e.posted = amount;
      }
    }
    moves.push(e);
  }
  return { moves, holds: held.size, ends: ended.size };
}

/** The first move of a hold, as holdStates asks after it. */
interface HoldHead {
  id: bigint;
  kind: number;
  account: number;
}

/**
 * heldCalls is the first hold record, by the call's content hash, of each
 * call among the records that made a hold of kind (any kind that holds
 * when -1) that none of the records posts or voids, in the order the
 * calls come first.
 */
function heldCalls(d: Def, dec: Decoder, records: readonly TigerBeetleTransfer[], kind: number): Map<bigint, TigerBeetleTransfer> {
  const ended = new Set<bigint>();
  for (const r of records) {
    if ((r.flags & (TRANSFER_POST_PENDING | TRANSFER_VOID_PENDING)) !== 0) {
      ended.add(r.pending_id);
    }
  }
  const firsts = new Map<bigint, TigerBeetleTransfer>();
  for (const r of records) {
    if ((r.flags & TRANSFER_PENDING) === 0 || ended.has(r.id)) {
      continue;
    }
    const k = dec.byCode.get(r.code);
    if (k === undefined || (kind !== -1 && k !== kind) || !d.transfers[k]!.pending) {
      continue;
    }
    const f = firsts.get(r.user_data_128);
    // Set again, a call keeps its first place among the keys.
    if (f === undefined || r.timestamp < f.timestamp) {
      firsts.set(r.user_data_128, r);
    }
  }
  return firsts;
}

/**
 * before orders entries as they happened: by timestamp, an expiry before
 * a record of its deadline's timestamp (TigerBeetle finds a hold expired
 * at its exact deadline), expiries of one deadline in their holds' order.
 */
function before(e: Pick<HistEntry, "ts" | "expire" | "hold">, o: Pick<HistEntry, "ts" | "expire" | "hold">): boolean {
  if (e.ts !== o.ts) {
    return e.ts < o.ts;
  }
  if (e.expire !== o.expire) {
    return e.expire;
  }
  return e.hold < o.hold;
}

/** sortEntries sorts entries as they happened, keeping the order of those before neither. */
function sortEntries(es: HistEntry[]): void {
  es.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
}

/** cursorOf writes an entry's place: its timestamp, and for an expiry its hold's timestamp after an x. */
function cursorOf(e: Pick<HistEntry, "ts" | "expire" | "hold">): string {
  return e.expire ? `${e.ts}x${e.hold}` : String(e.ts);
}

const U64_MAX = (1n << 64n) - 1n;

/** parseCursor reads a cursor back as the place it names, or throws before anything is sent. */
function parseCursor(where: string, c: string): Pick<HistEntry, "ts" | "expire" | "hold"> {
  const m = /^(\d+)(?:x(\d+))?$/.exec(c);
  if (m !== null) {
    const p = { ts: BigInt(m[1]!), expire: m[2] !== undefined, hold: m[2] === undefined ? 0n : BigInt(m[2]) };
    if (p.ts <= U64_MAX && p.hold <= U64_MAX && cursorOf(p) === c) {
      return p;
    }
  }
  throw new ChoboError("CHOBO_BAD_ARGUMENT", `${where}: ${describe(c)} is not a cursor of this book's statements; give the cursor or next a statement answered`);
}

/** dateOf is a TigerBeetle timestamp as a Date, which holds milliseconds: the rest is cut off. */
function dateOf(ts: bigint): Date {
  return new Date(Number(ts / 1_000_000n));
}

/** nanos is a Date as a TigerBeetle timestamp. */
function nanos(d: Date): bigint {
  return BigInt(d.getTime()) * 1_000_000n;
}

function deadlineOf(h: HistEntry): bigint {
  return h.ts + BigInt(h.timeout) * NS;
}

/** expiry is the entry of a hold's move given back at its deadline. */
function expiry(h: HistEntry): HistEntry {
  return { ...h, hold: h.ts, ts: deadlineOf(h), expire: true, op: "expire", posted: 0n, heldOut: -h.heldOut, heldIn: -h.heldIn };
}

/** fit reads an amount of a record, which fits 63 bits as chobo's amounts do. */
function fit(v: bigint): bigint {
  if (v < 0n || v >= 1n << 63n) {
    throw new ChoboError("CHOBO_UNEXPECTED", `an amount of ${v} in a record is outside 64 bits`);
  }
  return v;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function queryFilter(f: Partial<TigerBeetleQueryFilter>): TigerBeetleQueryFilter {
  return { user_data_128: 0n, user_data_64: 0n, user_data_32: 0, ledger: 0, code: 0, timestamp_min: 0n, timestamp_max: 0n, limit: 0, flags: 0, ...f };
}

/** readAll reads every record of an account, both sides, page by page, oldest first. */
async function readAll(h: HistoryReads, account: bigint): Promise<TigerBeetleTransfer[]> {
  const out: TigerBeetleTransfer[] = [];
  const f: TigerBeetleAccountFilter = {
    account_id: account, user_data_128: 0n, user_data_64: 0n, user_data_32: 0, code: 0,
    timestamp_min: 0n, timestamp_max: 0n, limit: HISTORY_PAGE, flags: FILTER_DEBITS | FILTER_CREDITS,
  };
  for (;;) {
    const page = await h.accountTransfers({ ...f });
    out.push(...page);
    if (page.length < HISTORY_PAGE) {
      return out;
    }
    f.timestamp_min = page[page.length - 1]!.timestamp + 1n;
  }
}

/** queryAll reads every record of a transfer code, page by page, oldest first. */
async function queryAll(h: HistoryReads, code: number): Promise<TigerBeetleTransfer[]> {
  const out: TigerBeetleTransfer[] = [];
  const f = queryFilter({ code, limit: HISTORY_PAGE });
  for (;;) {
    const page = await h.query({ ...f });
    out.push(...page);
    if (page.length < HISTORY_PAGE) {
      return out;
    }
    f.timestamp_min = page[page.length - 1]!.timestamp + 1n;
  }
}

/**
 * sideArgs are the values of the account at one side of a move, as far
 * as the key tells them: every value when the account's parameters are
 * all key parameters (none for an account without parameters), null when
 * one is not, TigerBeetle keeping the others only as hashes.
 */
function sideArgs(t: TransferKind, s: Side, key: readonly string[]): string[] | null {
  const out: string[] = [];
  for (const p of s.args) {
    const i = t.key.indexOf(p);
    if (i < 0) {
      return null;
    }
    out.push(key[i]!);
  }
  return out;
}

/** Decoder tells the transfer kind and the move of a do's or a hold's record. */
class Decoder {
  readonly byCode = new Map<number, number>();
  /** The account kind of an account, by id, as looked up. */
  readonly #kindOf = new Map<bigint, number>();
  /** The records of a call's chain, by its content hash, oldest first, as queried. */
  readonly #chains = new Map<bigint, TigerBeetleTransfer[]>();
  readonly #d: Def;
  readonly #tids: TenantIds;
  readonly #h: HistoryReads;

  constructor(d: Def, tids: TenantIds, h: HistoryReads) {
    this.#d = d;
    this.#tids = tids;
    this.#h = h;
    fixedOf(d).transferCodes.forEach((c, k) => this.byCode.set(c, k));
  }

  /**
   * move tells the kind and the move of r, a do's or a hold's record on an
   * account of the kind account, on the side out says. The kinds of the two
   * accounts most often tell the move alone; when two moves of the kind
   * join the same kinds the same way, the record's place in its chain (every
   * record with the call's content hash and the kind's code) tells it.
   */
  async move(r: TigerBeetleTransfer, out: boolean, account: number): Promise<[number, number]> {
    const k = this.byCode.get(r.code);
    if (k === undefined) {
      throw new ChoboError("CHOBO_UNEXPECTED", `record ${hex(r.id)} has code ${r.code}, of no transfer kind of the book`);
    }
    const other = out ? r.credit_account_id : r.debit_account_id;
    const otherKind = await this.accountKind(other);
    if (otherKind < 0) {
      throw new ChoboError("CHOBO_UNEXPECTED", `record ${hex(r.id)} names an account ${hex(other)} of no account kind of the book`);
    }
    const t = this.#d.transfers[k]!;
    const cands: number[] = [];
    t.moves.forEach((m, i) => {
      const [from, to] = [m.from.account, m.to.account];
      if ((out && from === account && to === otherKind) || (!out && to === account && from === otherKind)) {
        cands.push(i + 1);
      }
    });
    if (cands.length === 0) {
      throw new ChoboError("CHOBO_UNEXPECTED", `record ${hex(r.id)} is of no move of ${t.name}`);
    }
    if (cands.length === 1) {
      return [k, cands[0]!];
    }
    let chain = this.#chains.get(r.user_data_128);
    if (chain === undefined) {
      chain = await this.#h.query(queryFilter({ user_data_128: r.user_data_128, code: r.code, limit: MAX_EVENTS + 1 }));
      this.#chains.set(r.user_data_128, chain);
    }
    const lay = layout(this.#d, t);
    const pos = chain.findIndex((c) => c.id === r.id);
    const slot = pos < 0 ? undefined : lay[pos];
    if (slot === undefined || slot.role !== "move" || !cands.includes(slot.move)) {
      throw new ChoboError("CHOBO_UNEXPECTED", `record ${hex(r.id)} is not where a move of ${t.name} is in its chain`);
    }
    return [k, slot.move];
  }

  /** lookup finds the kinds of the accounts on the other side of the records of the account id, in as few lookups as they fit. */
  async lookup(records: readonly TigerBeetleTransfer[], id: bigint, sink: bigint): Promise<void> {
    const others: bigint[] = [];
    const seen = new Set<bigint>();
    for (const r of records) {
      const o = r.debit_account_id === id ? r.credit_account_id : r.debit_account_id;
      if (o !== sink && r.pending_id === 0n && !seen.has(o)) {
        seen.add(o);
        others.push(o);
      }
    }
    for (let start = 0; start < others.length; start += MAX_EVENTS) {
      for (const a of await this.#h.lookupAccounts(others.slice(start, start + MAX_EVENTS))) {
        this.#learn(a);
      }
    }
  }

  /** learn keeps the kind of an account when it is one of the book's for the tenant: the kind's code, and its id in user_data_128. */
  #learn(a: TigerBeetleAccount): void {
    fixedOf(this.#d).accountCodes.forEach((c, k) => {
      if (c === a.code && a.user_data_128 === this.#tids.kinds[k]) {
        this.#kindOf.set(a.id, k);
      }
    });
  }

  /** accountKind is the kind of a book's account of the tenant, -1 for an account that is none. */
  async accountKind(id: bigint): Promise<number> {
    let k = this.#kindOf.get(id);
    if (k === undefined) {
      for (const a of await this.#h.lookupAccounts([id])) {
        this.#learn(a);
      }
      k = this.#kindOf.get(id);
    }
    return k ?? -1;
  }
}

