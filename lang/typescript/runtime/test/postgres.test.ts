import assert from "node:assert/strict";
import { test } from "node:test";
import pg from "pg";
import { ChoboError } from "../src/chobo.ts";
import { type Queryable, backoff, balance, bulk, bulkStatements, call, configure, expire, makeCall, queryRow, retriesOf, status } from "../src/postgres.ts";

// What pg gives a book must be a Queryable: the check is the compiler's.
export const clients: Queryable[] = [new pg.Client(), new pg.Pool()];
export async function poolClient(p: pg.Pool): Promise<Queryable> {
  return p.connect();
}

const DO = `select result, reason from "b"."t_do"($1, $2, $3, $4::pg_catalog.uuid)`;
const STATUS = `select "b"."t_status"($1, $2)`;

function pgError(code: string, message = "failed"): Error {
  return Object.assign(new Error(message), { code });
}

/** scripted answers each query with the next of its steps: rows, or an error to throw. */
function scripted(...steps: (unknown[] | Error)[]): Queryable & { sent: { text: string; values: unknown[] }[] } {
  const sent: { text: string; values: unknown[] }[] = [];
  return {
    sent,
    async query(text: string, values: unknown[] = []) {
      sent.push({ text, values });
      const step = steps.shift();
      if (step === undefined) {
        throw new Error("no more steps");
      }
      if (step instanceof Error) {
        throw step;
      }
      return { rows: step };
    },
  };
}

test("the backoff doubles from 1 ms up to 128 ms", () => {
  assert.deepEqual([0, 1, 2, 6, 7, 20].map(backoff), [1, 2, 4, 64, 128, 128]);
});

test("a serialization failure or a deadlock is sent again, and counted", async () => {
  const before = retriesOf("40001") + retriesOf("40P01");
  const db = scripted(pgError("40001"), pgError("40P01"), [{ result: "done", reason: null }]);
  assert.deepEqual(await call(db, "t.do", "select 1", ["", "a"]), { result: "done" });
  assert.equal(db.sent.length, 3);
  assert.deepEqual(db.sent[2], { text: "select 1", values: ["", "a", db.sent[0]!.values[2]] });
  assert.equal(retriesOf("40001") + retriesOf("40P01"), before + 2);
});

test("inside a failed transaction the first error is the one thrown", async () => {
  const first = pgError("40001", "could not serialize");
  const db = scripted(first, pgError("25P02", "current transaction is aborted"));
  await assert.rejects(call(db, "t.do", "select 1", []), (e: unknown) => e === first);
});

test("other failures are not sent again; chobo's own SQLSTATEs become ChoboErrors", async () => {
  await assert.rejects(call(scripted(pgError("23505")), "t.do", "x", []), (e: unknown) => !(e instanceof ChoboError) && (e as { code: string }).code === "23505");
  await assert.rejects(call(scripted(pgError("CB001", "bounds")), "t.do", "x", []), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_BOUNDS_CHANGED" && e.cause instanceof Error);
  await assert.rejects(call(scripted(pgError("22023", "negative")), "t.do", "x", []), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_BAD_CALL" && e.message.includes("negative"));
});

test("a call that keeps failing stops after MAX_ATTEMPTS", async () => {
  const steps = Array.from({ length: 30 }, () => pgError("40001"));
  const db = scripted(...steps);
  await assert.rejects(queryRow(db, "t.do", "x", []), (e: unknown) => (e as { code: string }).code === "40001");
  assert.equal(db.sent.length, 30);
});

test("answers are read by position, bigint columns from pg's strings", async () => {
  assert.deepEqual(await call(scripted([{ result: "refused", reason: "out_of_stock" }]), "t.do", "x", []), { result: "refused", reason: "out_of_stock" });
  assert.deepEqual(await call(scripted([{ result: "done_before", reason: null }]), "t.do", "x", []), { result: "done_before" });
  assert.equal(await status(scripted([{ t_status: null }]), "t.status", "x", []), null);
  assert.equal(await status(scripted([{ t_status: "held" }]), "t.status", "x", []), "held");
  assert.deepEqual(await balance(scripted([{ posted: "-9223372036854775808", held_in: "0", held_out: "5" }]), "balance.a", "x", [""]),
    { posted: -9223372036854775808n, held_in: 0n, held_out: 5n });
  assert.equal(await expire(scripted([{ expire: 3 }]), "select expire($1)", 10), 3);
  await assert.rejects(call(scripted([]), "t.do", "x", []), (e: unknown) => e instanceof ChoboError && e.message.includes("no row"));
  await assert.rejects(call(scripted([{ result: "maybe", reason: null }]), "t.do", "x", []), ChoboError);
  await assert.rejects(expire(scripted(), "x", -1), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_BAD_ARGUMENT");
});

test("expire gives back 1000 holds when given no max, and takes a max PostgreSQL's integer holds", async () => {
  const db = scripted([{ expire: 0 }], [{ expire: 0 }], [{ expire: 0 }]);
  await expire(db, "select expire($1)");
  await expire(db, "select expire($1)", 0);
  await expire(db, "select expire($1)", 2147483647);
  assert.deepEqual(db.sent.map((q) => q.values[0]), [1000, 0, 2147483647]);
  for (const max of [2147483648, -1, 1.5, Number.NaN, 2n]) {
    await assert.rejects(expire(db, "x", max as number), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_BAD_ARGUMENT" && e.message.includes("2147483647"), String(max));
  }
  assert.equal(db.sent.length, 3);
});

/**
 * pool makes db look like pg's Pool, which lends a connection per
 * statement: the only kind of db a lost call is sent again over.
 */
function pool<T extends Queryable>(db: T): T {
  return Object.assign(db, { connect: async () => db, totalCount: 1, idleCount: 1 });
}

function sysError(code: string, message = "socket"): Error {
  return Object.assign(new Error(message), { code });
}

test("a call whose connection was lost is sent again, and its answer says so", async () => {
  const db = pool(scripted(new Error("Connection terminated unexpectedly"), sysError("ECONNREFUSED"), [{ result: "done_before", reason: null }]));
  assert.deepEqual(await call(configure(db, {}), "t.do", "select 1", ["", "a"]), { result: "done_before", resent: true });
  assert.equal(db.sent.length, 3);
});

test("a call that was never sent is sent again without saying so", async () => {
  const db = pool(scripted(sysError("ECONNREFUSED"), [{ result: "done", reason: null }]));
  assert.deepEqual(await call(db, "t.do", "select 1", []), { result: "done" });
});

test("over one connection, a pg Client or a PoolClient, a lost call is answered at once", async () => {
  const kinds: [Error, string][] = [
    [new Error("Connection terminated unexpectedly"), "CHOBO_OUTCOME_UNKNOWN"],
    [new Error("Client was closed and is not queryable"), "CHOBO_NOT_SENT"],
  ];
  for (const [err, kind] of kinds) {
    const client = Object.assign(scripted(err, [{ result: "done", reason: null }]), { connect: async () => {}, getTransactionStatus: () => "I" });
    const lent = Object.assign(scripted(err, [{ result: "done", reason: null }]), { release: () => {} });
    for (const db of [client, lent]) {
      await assert.rejects(call(configure(db, { resendMs: 600_000 }), "t.do", "x", []), (e: unknown) => e instanceof ChoboError && e.code === kind && e.cause === err, kind);
      assert.equal(db.sent.length, 1);
    }
  }
  // A bulk's statement, too: each call is of unknown outcome, none goes again.
  const gone = scripted(new Error("Connection terminated unexpectedly"), [{ result: "done", reason: null }]);
  const answers = await bulk(configure(gone, { resendMs: 600_000 }), [makeCall("t.do", DO, false, () => ["", "k1", 5n]), makeCall("t.do", DO, false, () => ["", "k2", 9n])]);
  assert.deepEqual(answers.map((a) => a instanceof ChoboError && a.code), ["CHOBO_OUTCOME_UNKNOWN", "CHOBO_OUTCOME_UNKNOWN"]);
  assert.equal(gone.sent.length, 1);
});

test("a call pg's query_timeout gave up on is of unknown outcome, and is not sent again", async () => {
  const late = new Error("Query read timeout");
  const db = pool(scripted(late, [{ result: "done", reason: null }]));
  await assert.rejects(call(configure(db, {}), "t.do", "x", []), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_OUTCOME_UNKNOWN" && e.cause === late && e.message.includes("query_timeout"));
  assert.equal(db.sent.length, 1);
  const bulkDb = pool(scripted(late, [{ result: "done", reason: null }], [{ result: "done", reason: null }]));
  const answers = await bulk(configure(bulkDb, {}), [makeCall("t.do", DO, false, () => ["", "k1", 5n]), makeCall("t.do", DO, false, () => ["", "k2", 9n])]);
  assert.deepEqual(answers.map((a) => a instanceof ChoboError && a.code), ["CHOBO_OUTCOME_UNKNOWN", "CHOBO_OUTCOME_UNKNOWN"]);
  assert.equal(bulkDb.sent.length, 1);
});

test("with resendMs 0 a lost call is a CHOBO_OUTCOME_UNKNOWN, a call not sent a CHOBO_NOT_SENT", async () => {
  const kinds: [Error, string][] = [
    [new Error("Connection terminated unexpectedly"), "CHOBO_OUTCOME_UNKNOWN"],
    [pgError("57P01", "terminating connection due to administrator command"), "CHOBO_OUTCOME_UNKNOWN"],
    [sysError("ECONNRESET"), "CHOBO_OUTCOME_UNKNOWN"],
    [sysError("EPIPE"), "CHOBO_OUTCOME_UNKNOWN"],
    [sysError("ECONNREFUSED"), "CHOBO_NOT_SENT"],
    [pgError("57P03", "the database system is starting up"), "CHOBO_NOT_SENT"],
    // PgBouncer's own errors: a statement held for a server it never got, or one out when the server went away.
    [pgError("08P01", "pgbouncer cannot connect to server"), "CHOBO_NOT_SENT"],
    [pgError("08P01", "server login has been failing, try again later (server_login_retry)"), "CHOBO_NOT_SENT"],
    [pgError("08P01", "query_wait_timeout"), "CHOBO_NOT_SENT"],
    [pgError("08P01", "server conn crashed?"), "CHOBO_OUTCOME_UNKNOWN"],
  ];
  for (const [err, kind] of kinds) {
    const db = scripted(err, [{ result: "done", reason: null }]);
    await assert.rejects(call(configure(db, { resendMs: 0 }), "t.do", "x", []), (e: unknown) => e instanceof ChoboError && e.code === kind && e.cause === err, kind);
    assert.equal(db.sent.length, 1);
  }
  // A statement the server cancelled is its answer: not sent again.
  await assert.rejects(call(scripted(pgError("57014", "canceling statement")), "t.do", "x", []), (e: unknown) => (e as { code: string }).code === "57014");
});

test("a lost call is never sent again inside the caller's transaction", async () => {
  const db = Object.assign(scripted(new Error("Connection terminated unexpectedly"), [{ result: "done", reason: null }]), { getTransactionStatus: () => "T" });
  await assert.rejects(call(db, "t.do", "x", []), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_OUTCOME_UNKNOWN");
  assert.equal(db.sent.length, 1);
});

test("resending stops at resendMs", async () => {
  const db = pool(scripted(...Array.from({ length: 500 }, () => sysError("ECONNRESET"))));
  const t0 = Date.now();
  await assert.rejects(call(configure(db, { resendMs: 40 }), "t.do", "x", []), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_OUTCOME_UNKNOWN");
  assert.ok(db.sent.length > 1 && Date.now() - t0 < 5000);
});

test("resendMs must be a number from 0", () => {
  for (const v of [-1, Number.NaN, "1"]) {
    assert.throws(() => configure(scripted(), { resendMs: v as number }), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_BAD_ARGUMENT");
  }
});


test("a bulk goes as one statement, its placeholders renumbered, and is answered in order", async () => {
  const db = scripted([
    { chobo_i: 1, a: "refused", b: "short" },
    { chobo_i: 0, a: "done", b: null },
    { chobo_i: 2, a: "held", b: null },
  ]);
  const calls = [
    makeCall("t.do", DO, false, () => ["", "k1", 5n]),
    makeCall("t.do", DO, false, () => ["", "k2", 9n]),
    makeCall("t.status", STATUS, true, () => ["", "k1"]),
    makeCall("t.do", DO, false, () => {
      throw new ChoboError("CHOBO_BAD_ARGUMENT", "refused by the client");
    }),
  ];
  const before = bulkStatements();
  const got = await bulk(db, calls);
  assert.deepEqual(got.slice(0, 3), [{ result: "done" }, { result: "refused", reason: "short" }, "held"]);
  assert.ok(got[3] instanceof ChoboError);
  assert.equal(bulkStatements() - before, 3);
  assert.equal(db.sent.length, 1);
  assert.match(db.sent[0]!.text, /"t_do"\(\$5, \$6, \$7, \$8::pg_catalog\.uuid\)/);
  assert.match(db.sent[0]!.text, /"t_status"\(\$9, \$10\)/);
  const [id1, id2] = [db.sent[0]!.values[3], db.sent[0]!.values[7]];
  assert.match(String(id1), UUID4);
  assert.match(String(id2), UUID4);
  assert.notEqual(id1, id2);
  assert.deepEqual(db.sent[0]!.values, ["", "k1", 5n, id1, "", "k2", 9n, id2, "", "k1"]);
});

test("a bulk whose connection was lost while it was out", async () => {
  const two = () => [makeCall("t.do", DO, false, () => ["", "k1", 5n]), makeCall("t.do", DO, false, () => ["", "k2", 9n])];
  // With resendMs 0 nothing goes again: every call is of unknown outcome.
  const gone = scripted(new Error("Connection terminated unexpectedly"));
  for (const a of await bulk(configure(gone, { resendMs: 0 }), two())) {
    assert.ok(a instanceof ChoboError && a.code === "CHOBO_OUTCOME_UNKNOWN" && a.message.startsWith("chobo: t.do: "), String(a));
  }
  assert.equal(gone.sent.length, 1);
  // Otherwise each goes again alone, and its answer says so.
  const back = pool(scripted(new Error("Connection terminated unexpectedly"), [{ result: "done_before", reason: null }], [{ result: "done", reason: null }]));
  assert.deepEqual(await bulk(back, two()), [
    { result: "done_before", resent: true },
    { result: "done", resent: true },
  ]);
  assert.equal(back.sent.length, 3);
});

test("a bulk whose statement fails goes again one by one, each with a single call's retries", async () => {
  const db = scripted(pgError("22003"), [{ result: "done", reason: null }], pgError("40001"), [{ result: "done_before", reason: null }]);
  const got = await bulk(db, [makeCall("t.do", DO, false, () => ["", "k1", 5n]), makeCall("t.do", DO, false, () => ["", "k2", 9n])]);
  assert.deepEqual(got, [{ result: "done" }, { result: "done_before" }]);
  assert.equal(db.sent.length, 4);
  assert.equal(db.sent[1]!.text, DO);
});

test("inside the caller's failed transaction a bulk's calls are answered with the statement's error, not sent again", async () => {
  const db = scripted(pgError("40001", "could not serialize"), pgError("25P02"));
  const got = await bulk(db, [makeCall("t.do", DO, false, () => ["", "k1", 5n]), makeCall("t.do", DO, false, () => ["", "k2", 9n])]);
  assert.equal(db.sent.length, 2);
  for (const a of got) {
    assert.ok(a instanceof Error && a.message === "could not serialize", String(a));
  }
});

/** A call's id as the runtime sends it: a version 4 UUID in lowercase. */
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function lastOf(q: { values: unknown[] }): unknown {
  return q.values[q.values.length - 1];
}

test("a call sends its id last, the same with every resend and retry, and a new call a new one", async () => {
  const db = pool(
    scripted(
      new Error("Connection terminated unexpectedly"),
      pgError("40001"),
      sysError("ECONNREFUSED"),
      pgError("40P01"),
      [{ result: "done", reason: null }],
      [{ result: "done_before", reason: null }],
    ),
  );
  const book = configure(db, {});
  assert.deepEqual(await call(book, "t.do", DO, ["", "k1", 5n]), { result: "done", resent: true });
  assert.equal(db.sent.length, 5);
  const id = lastOf(db.sent[0]!);
  assert.match(String(id), UUID4);
  for (const q of db.sent) {
    assert.deepEqual(q.values, ["", "k1", 5n, id]);
  }
  // The same arguments again are another call, which the server must not take for a resend.
  assert.deepEqual(await call(book, "t.do", DO, ["", "k1", 5n]), { result: "done_before" });
  assert.match(String(lastOf(db.sent[5]!)), UUID4);
  assert.notEqual(lastOf(db.sent[5]!), id);
});

test("expire sends its id after max, the same when sent again, another for the next expire", async () => {
  const db = pool(scripted(sysError("ECONNRESET"), pgError("40001"), [{ expire: 2 }], [{ expire: 0 }]));
  const book = configure(db, {});
  assert.equal(await expire(book, "select expire($1::integer, $2::pg_catalog.uuid)", 5), 2);
  assert.equal(await expire(book, "select expire($1::integer, $2::pg_catalog.uuid)", 5), 0);
  const [a, b, c, d] = db.sent.map((q) => q.values);
  assert.match(String(a![1]), UUID4);
  assert.deepEqual([b, c], [a, a]);
  assert.equal(d![0], 5);
  assert.match(String(d![1]), UUID4);
  assert.notEqual(d![1], a![1]);
});

test("status and balance send no id", async () => {
  const db = scripted([{ t_status: "held" }], [{ posted: "0", held_in: "0", held_out: "0" }], [{ chobo_i: 0, a: "held", b: null }, { chobo_i: 1, a: null, b: null }]);
  await status(db, "t.status", STATUS, ["", "k1"]);
  await balance(db, "balance.a", "x", ["", "a"]);
  await bulk(db, [makeCall("t.status", STATUS, true, () => ["", "k1"]), makeCall("t.status", STATUS, true, () => ["", "k2"])]);
  assert.deepEqual(db.sent.map((q) => q.values), [["", "k1"], ["", "a"], ["", "k1", "", "k2"]]);
});

test("each call of a bulk gets its own id as the bulk takes it, kept when the call goes again alone", async () => {
  const calls = [makeCall("t.do", DO, false, () => ["", "k1", 5n]), makeCall("t.do", DO, false, () => ["", "k1", 5n])];
  // Lost while out, then each alone: the first once more after a retry.
  const lost = pool(
    scripted(
      new Error("Connection terminated unexpectedly"),
      pgError("40001"),
      [{ result: "done", reason: null }],
      [{ result: "done", reason: null }],
    ),
  );
  assert.deepEqual(await bulk(configure(lost, {}), calls), [
    { result: "done", resent: true },
    { result: "done", resent: true },
  ]);
  const [id1, id2] = [lost.sent[0]!.values[3], lost.sent[0]!.values[7]];
  assert.match(String(id1), UUID4);
  assert.match(String(id2), UUID4);
  assert.notEqual(id1, id2);
  assert.deepEqual(lost.sent[0]!.values, ["", "k1", 5n, id1, "", "k1", 5n, id2]);
  assert.deepEqual(lost.sent.slice(1).map(lastOf), [id1, id1, id2]);
  // The same calls in another bulk are new calls, with new ids; a statement
  // that failed sends them alone with the ids they had in it.
  const failed = scripted(pgError("22003"), [{ result: "done", reason: null }], [{ result: "refused", reason: "short" }]);
  await bulk(failed, calls);
  const [id3, id4] = [failed.sent[0]!.values[3], failed.sent[0]!.values[7]];
  assert.ok(![id1, id2].includes(id3) && ![id1, id2].includes(id4) && id3 !== id4);
  assert.deepEqual(failed.sent.map(lastOf), [id4, id3, id4]);
});

