// The PostgreSQL runtime against a real server: the book of
// tests/testdata/stock_reservation, whose SQL CHOBO_PG_SQL names, loaded
// into the database CHOBO_PG_DSN names (a libpq-style string), each test
// under a tenant of its own. Without the two the tests skip.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import net from "node:net";
import { after, before, test } from "node:test";
import pg from "pg";
import { ChoboError } from "../src/chobo.ts";
import { type Queryable, balance, bulk, call, configure, expire, makeCall, queryRow } from "../src/postgres.ts";

const DSN = process.env["CHOBO_PG_DSN"] ?? "";
const SQL = process.env["CHOBO_PG_SQL"] ?? "";
const skip = DSN === "" || SQL === "" ? "SKIP: real PostgreSQL: CHOBO_PG_DSN and CHOBO_PG_SQL are not set" : false;
if (skip) {
  console.log(skip);
}

const S = '"stock_reservation"';
const RESTOCK = `select result, reason from ${S}."restock_do"($1, $2, $3, $4, $5::pg_catalog.uuid)`;
const HOLD = `select result, reason from ${S}."reserve_stock_hold"($1, $2, $3, $4, $5::pg_catalog.uuid)`;
const EXPIRE = `select ${S}.expire($1::integer, $2::pg_catalog.uuid)`;
const SHELF = `select posted, held_in, held_out from ${S}."balance_shelf"($1, $2)`;

/** config reads a libpq-style connection string (key=value, values maybe in single quotes) into pg's settings. */
function config(dsn: string): pg.ClientConfig {
  const kv = new Map<string, string>();
  for (const m of dsn.matchAll(/(\w+)\s*=\s*('((?:[^'\\]|\\.)*)'|\S+)/g)) {
    kv.set(m[1]!, m[3] !== undefined ? m[3].replace(/\\(.)/g, "$1") : m[2]!);
  }
  const port = kv.get("port");
  return {
    ...(kv.has("host") ? { host: kv.get("host")! } : {}),
    ...(port !== undefined ? { port: Number(port) } : {}),
    ...(kv.has("user") ? { user: kv.get("user")! } : {}),
    ...(kv.has("dbname") ? { database: kv.get("dbname")! } : {}),
  };
}

const tenant = () => "ts-" + randomUUID();

/** Every connection a test opens, ended after the tests. */
const opened: { end(): Promise<void> }[] = [];

async function client(extra: pg.ClientConfig = {}): Promise<pg.Client> {
  const c = new pg.Client({ ...config(DSN), ...extra });
  // A connection the server ends while it is idle is reported as an
  // error event, which would end the process unheard.
  c.on("error", () => {});
  await c.connect();
  opened.push(c);
  return c;
}

function pool(): pg.Pool {
  const p = new pg.Pool({ ...config(DSN), max: 4 });
  p.on("error", () => {});
  opened.push(p);
  return p;
}

before(async () => {
  if (skip) {
    return;
  }
  const admin = await client();
  await admin.query(readFileSync(SQL, "utf8"));
});

after(async () => {
  for (const c of opened.splice(0).reverse()) {
    await c.end().catch(() => {});
  }
});

/**
 * holdKey takes the key of a restock in a transaction it leaves open, so
 * that the same call from elsewhere waits for it on the server; it answers
 * the transaction's connection, to commit or roll back.
 */
async function holdKey(t: string, delivery: string): Promise<pg.Client> {
  const holder = await client();
  await holder.query("begin");
  await holder.query(RESTOCK, [t, delivery, "A", 5n, null]);
  return holder;
}

/** waitingFor answers the backend that waits, for a lock, behind the holder's transaction: a call that is out. */
async function waitingFor(holder: pg.Client): Promise<number> {
  const holderPid = (holder as unknown as { processID: number }).processID;
  const admin = await client();
  for (;;) {
    const res = await admin.query(
      "select pid from pg_stat_activity where wait_event_type = 'Lock' and $1 = any(pg_blocking_pids(pid))",
      [holderPid],
    );
    if (res.rows.length > 0) {
      return (res.rows[0] as { pid: number }).pid;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function terminate(pid: number): Promise<void> {
  const admin = await client();
  await admin.query("select pg_terminate_backend($1)", [pid]);
}

function code(a: unknown): string {
  return a instanceof ChoboError ? a.code : JSON.stringify(a);
}

// A resendMs far beyond each test's timeout: an answer within the timeout
// is one that did not wait to send the call again.
const LONG = 60_000;
const BOUND = { timeout: 20_000 };

for (const kind of ["Client", "PoolClient"] as const) {
  const connect = async (): Promise<pg.Client> => {
    if (kind === "Client") {
      return client();
    }
    const c = await pool().connect();
    c.on("error", () => {});
    // The pool ends only when what it lent is back, even if a test failed.
    opened.push({ end: async () => c.release(true) });
    return c;
  };

  test(`over a ${kind}, a call whose connection is lost while it is out is answered at once, of unknown outcome`, { skip, ...BOUND }, async () => {
    const t = tenant();
    const db = await connect();
    const ended = new Promise((resolve) => db.once("end", resolve));
    const holder = await holdKey(t, "d1");
    const answer = call(configure(db, { resendMs: LONG }), "restock.do", RESTOCK, [t, "d1", "A", 5n]).then(code, code);
    await terminate(await waitingFor(holder));
    assert.equal(await answer, "CHOBO_OUTCOME_UNKNOWN");
    await holder.query("rollback");
    // Once pg has seen the connection close, nothing more is sent on it.
    await ended;
    const next = await call(configure(db, { resendMs: LONG }), "restock.do", RESTOCK, [t, "d1", "A", 5n]).then(code, code);
    assert.equal(next, "CHOBO_NOT_SENT");
  });

  test(`over a ${kind}, a bulk whose connection is lost while it is out answers every call at once, of unknown outcome`, { skip, ...BOUND }, async () => {
    const t = tenant();
    const db = await connect();
    const ended = new Promise((resolve) => db.once("end", resolve));
    const holder = await holdKey(t, "d1");
    const calls = ["d1", "d2", "d3"].map((d) => makeCall("restock.do", RESTOCK, false, () => [t, d, "A", 5n]));
    const answers = bulk(configure(db, { resendMs: LONG }), calls);
    await terminate(await waitingFor(holder));
    assert.deepEqual((await answers).map(code), ["CHOBO_OUTCOME_UNKNOWN", "CHOBO_OUTCOME_UNKNOWN", "CHOBO_OUTCOME_UNKNOWN"]);
    await holder.query("rollback");
    await ended;
    const again = await bulk(configure(db, { resendMs: LONG }), calls);
    assert.deepEqual(again.map(code), ["CHOBO_NOT_SENT", "CHOBO_NOT_SENT", "CHOBO_NOT_SENT"]);
  });
}

test("over a Pool, a call whose connection is lost goes again on another, and its answer says so", { skip, ...BOUND }, async () => {
  const t = tenant();
  const db = configure(pool(), { resendMs: LONG });
  const holder = await holdKey(t, "d1");
  const answer = call(db, "restock.do", RESTOCK, [t, "d1", "A", 5n]);
  await terminate(await waitingFor(holder));
  // The call went again on another connection, where it waits as before.
  await waitingFor(holder);
  await holder.query("rollback");
  assert.deepEqual(await answer, { result: "done", resent: true });
  assert.deepEqual(await balance(db, "balance.shelf", SHELF, [t, "A"]), { posted: 5n, held_in: 0n, held_out: 0n });
});

test("one Client carries concurrent calls and bulks, the book giving pg one statement at a time", { skip, ...BOUND }, async () => {
  const t = tenant();
  // pg queues what a busy Client is given, but warns that it will stop:
  // the book must never have two statements out on one connection.
  const c = await client();
  let out = 0;
  let most = 0;
  const counted: Queryable = {
    async query(text: string, values?: unknown[]) {
      most = Math.max(most, ++out);
      try {
        return await c.query(text, values);
      } finally {
        out--;
      }
    },
  };
  const db = configure(counted, {});
  assert.deepEqual(await call(db, "restock.do", RESTOCK, [t, "d1", "A", 100n]), { result: "done" });
  const holds = Array.from({ length: 20 }, (_, i) => call(db, "reserve_stock.hold", HOLD, [t, `o${i}`, "A", 1n]));
  const bulks = [0, 1].map((b) =>
    bulk(db, Array.from({ length: 5 }, (_, i) => makeCall("reserve_stock.hold", HOLD, false, () => [t, `b${b}-${i}`, "A", 2n]))),
  );
  const again = call(db, "reserve_stock.hold", HOLD, [t, "o0", "A", 1n]);
  const [single, many, repeated] = await Promise.all([Promise.all(holds), Promise.all(bulks), again]);
  assert.deepEqual(single, Array.from({ length: 20 }, () => ({ result: "done" })));
  assert.deepEqual(many.flat(), Array.from({ length: 10 }, () => ({ result: "done" })));
  assert.deepEqual(repeated, { result: "done_before" });
  assert.deepEqual(await balance(db, "balance.shelf", SHELF, [t, "A"]), { posted: 100n, held_in: 0n, held_out: 40n });
  assert.equal(most, 1);
});

test("pg's query_timeout before the server commits: of unknown outcome, the call goes on and commits, and the book still works", { skip, ...BOUND }, async () => {
  const t = tenant();
  const c = await client({ query_timeout: 500 });
  const db = configure(c, { resendMs: LONG });
  const holder = await holdKey(t, "d1");
  await assert.rejects(call(db, "restock.do", RESTOCK, [t, "d1", "A", 5n]), (e: unknown) => {
    assert.ok(e instanceof ChoboError && e.code === "CHOBO_OUTCOME_UNKNOWN", String(e));
    assert.match(e.message, /query_timeout/);
    return true;
  });
  // pg told the server nothing: the statement still waits on it.
  await waitingFor(holder);
  await holder.query("rollback");
  // It went on and was applied; the same call again says so, on the same connection.
  assert.deepEqual(await call(db, "restock.do", RESTOCK, [t, "d1", "A", 5n]), { result: "done_before" });
  assert.deepEqual(await balance(db, "balance.shelf", SHELF, [t, "A"]), { posted: 5n, held_in: 0n, held_out: 0n });
});

/** ReadyForQuery outside a transaction: the server has ended (committed) the statement before it and waits for the next. */
const IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

/**
 * A proxy between pg and the server that, while held, keeps what the
 * server answers from reaching the client: an answer delayed on the way.
 * committed() waits until a held answer ends with the server idle, and
 * cut() then breaks every connection and drops what it held: an answer
 * lost after the commit.
 */
async function proxy(): Promise<{ port: number; hold(on: boolean): void; committed(): Promise<void>; cut(): void; close(): void }> {
  const target = config(DSN);
  let held = false;
  const waiting: (() => void)[] = [];
  const sockets: net.Socket[] = [];
  let tail = Buffer.alloc(0);
  const idle: (() => void)[] = [];
  const server = net.createServer((down) => {
    const up = target.host?.startsWith("/")
      ? net.connect(`${target.host}/.s.PGSQL.${target.port ?? 5432}`)
      : net.connect(target.port ?? 5432, target.host ?? "localhost");
    sockets.push(up, down);
    down.pipe(up);
    up.on("data", (chunk: Buffer) => {
      if (held) {
        waiting.push(() => down.write(chunk));
        tail = Buffer.concat([tail, chunk]).subarray(-IDLE.length);
        if (tail.equals(IDLE)) {
          for (const f of idle.splice(0)) {
            f();
          }
        }
      } else {
        down.write(chunk);
      }
    });
    up.on("close", () => down.destroy());
    down.on("close", () => up.destroy());
    up.on("error", () => {});
    down.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    hold(on: boolean) {
      held = on;
      tail = Buffer.alloc(0);
      if (!on) {
        for (const w of waiting.splice(0)) {
          w();
        }
      }
    },
    committed() {
      return new Promise<void>((resolve) => idle.push(resolve));
    },
    cut() {
      held = false;
      waiting.splice(0);
      for (const s of sockets.splice(0)) {
        s.destroy();
      }
    },
    close() {
      server.close();
      for (const s of sockets) {
        s.destroy();
      }
    },
  };
}

test("pg's query_timeout after the server committed: of unknown outcome, and the same call again answers done_before", { skip, ...BOUND }, async () => {
  const t = tenant();
  const p = await proxy();
  try {
    const c = new pg.Client({ ...config(DSN), host: "127.0.0.1", port: p.port, query_timeout: 500 });
    c.on("error", () => {});
    await c.connect();
    opened.push(c);
    const db = configure(c, { resendMs: LONG });
    p.hold(true);
    await assert.rejects(call(db, "restock.do", RESTOCK, [t, "d1", "A", 5n]), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_OUTCOME_UNKNOWN");
    // The server commits it (its answer is what is late): wait until
    // another connection sees that, then let the answer through.
    const admin = await client();
    while (String((await queryRow(admin, "balance.shelf", SHELF, [t, "A"]))[0]) !== "5") {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    p.hold(false);
    assert.deepEqual(await call(db, "restock.do", RESTOCK, [t, "d1", "A", 5n]), { result: "done_before" });
  } finally {
    p.close();
  }
});

/**
 * A Pool whose connections go through a proxy, and the book over it: the
 * one kind of db the book sends a lost call again over.
 */
async function proxiedPool(): Promise<{ p: Awaited<ReturnType<typeof proxy>>; db: Queryable }> {
  const p = await proxy();
  const pl = new pg.Pool({ ...config(DSN), host: "127.0.0.1", port: p.port, max: 4 });
  pl.on("error", () => {});
  opened.push(pl);
  // One connection open before anything is held: a statement held later
  // goes on it, not on a connection whose opening is held.
  await pl.query("select 1");
  return { p, db: configure(pl, { resendMs: LONG }) };
}

/** lostAfterCommit sends one statement with the answer held, and breaks the connection once the server has committed it. */
async function lostAfterCommit<T>(p: Awaited<ReturnType<typeof proxy>>, send: () => Promise<T>): Promise<T> {
  p.hold(true);
  const committed = p.committed();
  const answer = send();
  await committed;
  p.cut();
  return answer;
}

test("over a Pool, a call refused by a bound whose answer was lost after the commit is answered, sent again, with the bound's reason", { skip, ...BOUND }, async () => {
  const t = tenant();
  const { p, db } = await proxiedPool();
  try {
    const answer = await lostAfterCommit(p, () => call(db, "reserve_stock.hold", HOLD, [t, "o1", "A", 3n]));
    assert.deepEqual(answer, { result: "refused", reason: "sold_out", resent: true });
    // A second call of the caller's, not the book's resend, is told it was refused before.
    assert.deepEqual(await call(db, "reserve_stock.hold", HOLD, [t, "o1", "A", 3n]), { result: "refused", reason: "already_refused" });
  } finally {
    p.close();
  }
});

test("over a Pool, a committed call whose answer was lost is answered done when sent again, and a second call done_before", { skip, ...BOUND }, async () => {
  const t = tenant();
  const { p, db } = await proxiedPool();
  try {
    const answer = await lostAfterCommit(p, () => call(db, "restock.do", RESTOCK, [t, "d1", "A", 5n]));
    assert.deepEqual(answer, { result: "done", resent: true });
    assert.deepEqual(await call(db, "restock.do", RESTOCK, [t, "d1", "A", 5n]), { result: "done_before" });
    assert.deepEqual(await balance(db, "balance.shelf", SHELF, [t, "A"]), { posted: 5n, held_in: 0n, held_out: 0n });
  } finally {
    p.close();
  }
});

test("over a Pool, an expire whose answer was lost answers, sent again, the number its first sending gave back", { skip, ...BOUND }, async () => {
  const t = tenant();
  const { p, db } = await proxiedPool();
  try {
    assert.deepEqual(await call(db, "restock.do", RESTOCK, [t, "d1", "A", 10n]), { result: "done" });
    for (const o of ["o1", "o2", "o3"]) {
      assert.deepEqual(await call(db, "reserve_stock.hold", HOLD, [t, o, "A", 1n]), { result: "done" });
    }
    const admin = await client();
    await admin.query(`update ${S}.keys set deadline = now() - interval '1 minute' where tenant = $1 and state = 'held'`, [t]);
    assert.equal(await lostAfterCommit(p, () => expire(db, EXPIRE, 5)), 3);
    assert.deepEqual(await balance(db, "balance.shelf", SHELF, [t, "A"]), { posted: 10n, held_in: 0n, held_out: 0n });
    // Another expire has nothing left to give back.
    assert.equal(await expire(db, EXPIRE, 5), 0);
  } finally {
    p.close();
  }
});

test("over a Pool, the calls of a bulk whose answer was lost after the commit go again alone, each with its id", { skip, ...BOUND }, async () => {
  const t = tenant();
  const { p, db } = await proxiedPool();
  try {
    const calls = [
      makeCall("restock.do", RESTOCK, false, () => [t, "d1", "A", 5n]),
      makeCall("reserve_stock.hold", HOLD, false, () => [t, "o1", "B", 1n]),
    ];
    const answers = await lostAfterCommit(p, () => bulk(db, calls));
    assert.deepEqual(answers, [
      { result: "done", resent: true },
      { result: "refused", reason: "sold_out", resent: true },
    ]);
    // The same arguments in a new bulk are new calls.
    const again = await bulk(db, [
      makeCall("restock.do", RESTOCK, false, () => [t, "d1", "A", 5n]),
      makeCall("reserve_stock.hold", HOLD, false, () => [t, "o1", "B", 1n]),
    ]);
    assert.deepEqual(again, [{ result: "done_before" }, { result: "refused", reason: "already_refused" }]);
  } finally {
    p.close();
  }
});
