import assert from "node:assert/strict";
import { test } from "node:test";
import { ChoboError } from "../src/chobo.ts";
import { hex, neverId } from "../src/ids.ts";
import {
  BOUNDS_CHANGED, DEADLOCK_DETECTED, IN_FAILED_TRANSACTION, MAX_ATTEMPTS, SERIALIZATION_FAILURE, backoff, retryable,
} from "../src/postgres.ts";
import {
  ACCOUNT_DEBITS_MUST_NOT_EXCEED_CREDITS, type ChainEvent, DEFAULT_TIMEOUT_MS, MAX_EVENTS, TRANSFER_LINKED, UNBOUNDED,
  TRANSFER_PENDING, TRANSFER_POST_PENDING, TRANSFER_VOID_PENDING, type TigerBeetleAccount, type TigerBeetleTransfer,
  finish, finishOf, holdOf, lookups, plan, read, readStatus, statusChain, transferStatus,
} from "../src/tigerbeetle.ts";
import { type VectorAccount, type VectorEvent, type VectorTransfer, defOf, value, vectors } from "./vectors.ts";

// Each test replays a part of vectors.json, which the Go tests write from
// the Go implementation: what this runtime sends and answers must be the
// same, field for field, with no TigerBeetle or PostgreSQL to ask.

test("the constants are the Go implementation's", () => {
  const tb = vectors.tigerbeetle;
  assert.equal(MAX_EVENTS, tb.max_events);
  assert.equal(DEFAULT_TIMEOUT_MS, tb.default_timeout_ms);
  assert.equal(ACCOUNT_DEBITS_MUST_NOT_EXCEED_CREDITS, tb.account_flags["debits_must_not_exceed_credits"]);
  assert.deepEqual(
    { linked: TRANSFER_LINKED, pending: TRANSFER_PENDING, post_pending: TRANSFER_POST_PENDING, void_pending: TRANSFER_VOID_PENDING },
    tb.transfer_flags,
  );
  assert.equal(hex(neverId()), tb.never_id);
  assert.equal(UNBOUNDED, BigInt(tb.unbounded));
  const pg = vectors.postgres;
  assert.equal(MAX_ATTEMPTS, pg.max_attempts);
  assert.ok(pg.backoff_ms.length >= 8);
  assert.deepEqual(pg.backoff_ms.map((_, n) => backoff(n)), pg.backoff_ms);
  assert.deepEqual(
    { serialization_failure: SERIALIZATION_FAILURE, deadlock_detected: DEADLOCK_DETECTED, in_failed_transaction: IN_FAILED_TRANSACTION, bounds_changed: BOUNDS_CHANGED },
    pg.sqlstates,
  );
  assert.deepEqual(Object.values(pg.sqlstates).filter(retryable).sort(), [...pg.retryable].sort());
});

// What the file holds of a record: every field chobo sets. The fields it
// leaves out are zero in every record a chain sends.
function transferOf(t: TigerBeetleTransfer): VectorTransfer {
  assert.equal(t.user_data_32, 0);
  assert.equal(t.timestamp, 0n);
  return {
    id: hex(t.id), debit_account_id: hex(t.debit_account_id), credit_account_id: hex(t.credit_account_id),
    amount: t.amount.toString(), pending_id: hex(t.pending_id), user_data_128: hex(t.user_data_128),
    user_data_64: t.user_data_64.toString(), timeout: t.timeout, ledger: t.ledger, code: t.code, flags: t.flags,
  };
}

// recordOf reads a record the file writes, as a lookup answers it.
function recordOf(v: VectorTransfer): TigerBeetleTransfer {
  return {
    id: BigInt("0x" + v.id), debit_account_id: BigInt("0x" + v.debit_account_id), credit_account_id: BigInt("0x" + v.credit_account_id),
    amount: BigInt(v.amount), pending_id: BigInt("0x" + v.pending_id), user_data_128: BigInt("0x" + v.user_data_128),
    user_data_64: BigInt(v.user_data_64), user_data_32: 0, timeout: v.timeout, ledger: v.ledger, code: v.code, flags: v.flags, timestamp: 0n,
  };
}

function accountOf(a: TigerBeetleAccount): VectorAccount {
  assert.deepEqual([a.debits_pending, a.debits_posted, a.credits_pending, a.credits_posted, a.user_data_64, a.timestamp], [0n, 0n, 0n, 0n, 0n, 0n]);
  assert.deepEqual([a.user_data_32, a.reserved], [0, 0]);
  return { id: hex(a.id), user_data_128: hex(a.user_data_128), ledger: a.ledger, code: a.code, flags: a.flags };
}

function chainOf(chain: ChainEvent[]): VectorEvent[] {
  return chain.map((e) => ({ role: e.role, move: e.move, reason: e.reason, transfer: transferOf(e.transfer) }));
}

test("every call of every test book sends what the Go implementation sends", () => {
  assert.ok(vectors.books.length >= 20);
  let calls = 0;
  for (const b of vectors.books) {
    const d = defOf(b.def);
    b.calls.forEach((c, i) => {
      calls++;
      const where = `${b.case}, call ${i} (${c.op} of ${d.transfers[c.kind]!.name}, tenant ${JSON.stringify(c.tenant)})`;
      switch (c.op) {
        case "do":
        case "hold": {
          const vals = (c.values ?? []).map(value);
          if (c.error === true) {
            assert.throws(() => plan(d, c.tenant, c.kind, c.op as "do" | "hold", vals), ChoboError, where);
            return;
          }
          const p = plan(d, c.tenant, c.kind, c.op, vals);
          assert.deepEqual(
            { same_account: p.sameAccount, accounts: p.accounts.map(accountOf), openings: p.openings.map(transferOf), chain: chainOf(p.chain) },
            c.plan, where,
          );
          return;
        }
        case "post":
        case "void": {
          const amounts = (c.amounts ?? []).map(BigInt);
          if (c.found === undefined) {
            assert.deepEqual(chainOf(finish(d, c.tenant, c.kind, c.op, c.key ?? [], amounts)), c.chain, where);
            return;
          }
          // A hold laid out by another version: ended as its records say.
          const found = new Map(c.found.map((r) => [BigInt("0x" + r.id), recordOf(r)] as const));
          const h = holdOf(d, c.tenant, c.kind, lookups(d, c.tenant, c.kind, c.key ?? []), found);
          assert.ok(h !== null && h !== "other", where);
          assert.deepEqual(chainOf(finishOf(d, c.tenant, c.kind, c.op, c.key ?? [], amounts, h.hold)), c.chain, where);
          return;
        }
        case "status":
          assert.deepEqual(chainOf(statusChain(d, c.tenant, c.kind, c.key ?? [], BigInt("0x" + c.void_id), BigInt("0x" + c.fail_id))), c.chain, where);
          return;
        case "lookups":
          assert.deepEqual(lookups(d, c.tenant, c.kind, c.key ?? []).map(hex), c.ids ?? [], where);
          return;
      }
      assert.fail(`${where}: no such operation`);
    });
  }
  assert.ok(calls > 500);
});

// The status numbers of create_transfers, by name, from this runtime's own table.
const statusNumber = new Map<string, number>();
for (const n of [0xffffffff, ...Array.from({ length: 256 }, (_, i) => i)]) {
  statusNumber.set(transferStatus(n), n);
}
function numbers(names: string[]): number[] {
  return names.map((s) => {
    const n = statusNumber.get(s);
    assert.ok(n !== undefined, `no status ${s}`);
    return n;
  });
}

test("the readers answer what the Go implementation answers", () => {
  assert.ok(vectors.reads.length >= 100 && vectors.read_statuses.length >= 50);
  vectors.reads.forEach((r, i) => {
    const chain = r.chain.map((e) => ({ role: e.role, reason: e.reason, move: 0, transfer: {} })) as ChainEvent[];
    const where = `read ${i}: ${r.statuses.join(", ")}`;
    const statuses = numbers(r.statuses);
    if (r.error !== undefined) {
      const { kind, event, status } = r.error;
      assert.throws(() => read(chain, statuses), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_UNEXPECTED" &&
        (kind === "count" ? e.message.includes("statuses for a chain") : e.message.includes(`answered ${status} for event ${event} `)), where);
      return;
    }
    assert.deepEqual(read(chain, statuses), r.outcome === "refused" ? { result: "refused", reason: r.reason } : { result: r.outcome }, where);
  });
  vectors.read_statuses.forEach((r, i) => {
    const where = `status read ${i}: ${r.statuses.join(", ")}`;
    if (r.error !== undefined) {
      assert.throws(() => readStatus(numbers(r.statuses)), ChoboError, where);
      return;
    }
    assert.equal(readStatus(numbers(r.statuses)), r.state, where);
  });
});
