// The file every runtime replays without a server, written by chobo's Go
// tests from the Go implementation (runtime/testdata/vectors.json). The
// compiled tests run from dist/test, the sources from test/; a test run
// laid out elsewhere names the file in CHOBO_VECTORS.

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Def } from "../src/tigerbeetle.ts";

/** A call's value: a string, or an amount in decimal. */
export type VectorValue = string | { amount: string };

export interface VectorBound {
  value: string;
  reason: string;
}

export interface VectorDef {
  book: string;
  units: { name: string; scale: number }[];
  accounts: { name: string; unit: number; params: number; outside: boolean; lower: VectorBound | null; upper: VectorBound | null }[];
  transfers: {
    name: string;
    definition: string;
    params: { name: string; amount: boolean }[];
    key: number[];
    pending: boolean;
    timeout: number;
    moves: { amount: number; literal: string; from: { account: number; args: number[] }; to: { account: number; args: number[] } }[];
    post_amounts: number[];
  }[];
}

export interface VectorAccount {
  id: string;
  user_data_128: string;
  ledger: number;
  code: number;
  flags: number;
}

export interface VectorTransfer {
  id: string;
  debit_account_id: string;
  credit_account_id: string;
  amount: string;
  pending_id: string;
  user_data_128: string;
  user_data_64: string;
  timeout: number;
  ledger: number;
  code: number;
  flags: number;
}

export interface VectorEvent {
  role: string;
  move: number;
  reason: string;
  transfer: VectorTransfer;
}

export interface VectorCall {
  tenant: string;
  kind: number;
  op: "do" | "hold" | "post" | "void" | "status" | "lookups";
  values?: VectorValue[];
  key?: string[];
  amounts?: string[];
  void_id?: string;
  fail_id?: string;
  plan?: { same_account: boolean; accounts: VectorAccount[]; openings: VectorTransfer[]; chain: VectorEvent[] };
  chain?: VectorEvent[];
  ids?: string[];
  // On a post or void of a hold laid out by another version: the records
  // the lookup of its ids found.
  found?: VectorTransfer[];
  error?: boolean;
}

export interface VectorReadError {
  kind: "unexpected" | "count";
  event?: number;
  status?: string;
}

export interface Vectors {
  ids: { role: string; parts: string[]; hex: string }[];
  ledgers: { unit: string; scale: number; ledger: number }[];
  codes: { book: string; category: "account" | "transfer" | "sink"; name: string; code: number }[];
  contents: { values: VectorValue[]; json: string }[];
  limits: { max_tenant: number; max_texts: number; text_overhead: number };
  postgres: { max_attempts: number; backoff_ms: number[]; sqlstates: Record<string, string>; retryable: string[] };
  tigerbeetle: {
    max_events: number;
    default_timeout_ms: number;
    account_flags: Record<string, number>;
    transfer_flags: Record<string, number>;
    never_id: string;
    unbounded: string;
  };
  books: { case: string; def: VectorDef; calls: VectorCall[] }[];
  reads: { chain: { role: string; reason: string }[]; statuses: string[]; outcome?: string; reason?: string; error?: VectorReadError }[];
  read_statuses: { statuses: string[]; state: string | null; error?: VectorReadError }[];
}

/** path finds a file of runtime/testdata, or the one named in the environment variable env. */
export function path(env = "CHOBO_VECTORS", file = "vectors.json"): string {
  const named = process.env[env];
  if (named !== undefined && named !== "") {
    return named;
  }
  for (const rel of [`../../../../../../runtime/testdata/${file}`, `../../../../runtime/testdata/${file}`]) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(p)) {
      return p;
    }
  }
  throw new Error(`runtime/testdata/${file} is not beside the runtime; name it in ${env}`);
}

export const vectors: Vectors = JSON.parse(readFileSync(path(), "utf8"));

/** value reads a call's value as a runtime takes it. */
export function value(v: VectorValue): string | bigint {
  return typeof v === "string" ? v : BigInt(v.amount);
}

/** defOf reads the file's definition of a book as a generated client carries it. */
export function defOf(v: VectorDef): Def {
  const bound = (b: { value: string; reason: string } | null) => (b === null ? null : { value: BigInt(b.value), reason: b.reason });
  return {
    book: v.book,
    units: v.units,
    accounts: v.accounts.map((a) => ({ ...a, lower: bound(a.lower), upper: bound(a.upper) })),
    transfers: v.transfers.map((t) => ({
      name: t.name, definition: t.definition, params: t.params, key: t.key, pending: t.pending, timeout: t.timeout,
      moves: t.moves.map((m) => ({ amount: m.amount, literal: BigInt(m.literal), from: m.from, to: m.to })),
      postAmounts: t.post_amounts,
    })),
  };
}
