"""The shared connection vectors (runtime/testdata/connection_vectors.json)
replayed against scripted psycopg objects: a pool, a connection in
autocommit mode (whose bulks go in pipelines), and a connection inside the
caller's transaction, answering the book's statements (an operation, a
status, expire, a balance, a call's entries) from a model of a book's
functions and failing each sending as the vector says. Every case
runs through PostgresBook and AsyncPostgresBook."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import unittest
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast
from unittest import mock

import vectors  # noqa: F401  first: it puts the sources on the path

from chobo import postgres
from chobo.chobo import Balance, ChoboCancelledError, ChoboError, Result
from chobo.postgres import AsyncPostgresBook, PgCall, PgCallNames, PgHistory, PostgresBook, sqlstate_of


def _path() -> Path:
    named = os.environ.get("CHOBO_CONNECTION_VECTORS", "")
    if named:
        return Path(named)
    return Path(__file__).resolve().parents[4] / "runtime" / "testdata" / "connection_vectors.json"


with open(_path(), encoding="utf-8") as _f:
    FILE: Any = json.load(_f)

OP = "select result, reason from op(%s, %s, %s::uuid)"
STATUS = "select st(%s, %s)"
EXPIRE = "select expire(%s, %s::uuid)"
BALANCE = "select posted, held_in, held_out from bal(%s, %s)"
ENTRIES = "select * from hist(%s, %s, %s)"
# The book of the reads of a call's entries: one transfer kind, which
# names nothing but its key.
HISTORY = PgHistory("", ENTRIES, "", "", {"pay": PgCallNames(("k",), ("k",), ())})
OTHER_ID = "00000000-0000-4000-8000-000000000000"


class OperationalError(Exception):
    """As psycopg names what a broken connection raises."""


class ServerError(Exception):
    """An error of the server's, with its SQLSTATE as psycopg 3 keeps it."""

    def __init__(self, sqlstate: str, message: str = "") -> None:
        super().__init__(message or f"scripted {sqlstate}")
        self.sqlstate = sqlstate


class CallerGaveUp(Exception):
    """Raised in place of a sending the caller cancels while it is out."""


class Model:
    """The book's side: its state, the faults due for each key, what each
    key's sendings carried, and the scripted clock."""

    def __init__(self, case: Any) -> None:
        self.state: dict[str, tuple[str, str, str | None]] = {}
        self.applies: dict[str, str] = {}
        self.faults: dict[str, list[tuple[str, int]]] = {}
        self.sent: dict[str, int] = {}
        self.ids: dict[str, list[str]] = {}
        self.clock = 0.0
        self.current = ""
        self.not_lent = case.get("not_lent", 0)  # how many more times the pool lends no connection
        self.explicit = case["over"] == "tx"
        self.failed = False
        self.due: int = case.get("due", 0)  # holds past their deadline when the case starts
        self.given: dict[str, int] = {}  # what each expire gave back, by "expire:" and its call id
        self.anonymous = 0  # expires sent with no call id
        for k in case.get("before", []):
            self.state[k] = (OTHER_ID, "done", None)
        for k in case.get("before_refused", []):
            self.state[k] = (OTHER_ID, "refused", "too_much")
        for c in case["calls"]:
            if c["op"] == "call" and not c.get("client_error"):
                self.applies[c["key"]] = c.get("applies", "done")
            if not c.get("client_error"):
                for f in c.get("faults", []):
                    self.faults.setdefault(c["key"], []).append((f, 0) if isinstance(f, str) else (f["fault"], f.get("ms", 0)))

    def head(self, key: str) -> str:
        f = self.faults.get(key)
        return f[0][0] if f else ""

    def pop(self, key: str) -> str:
        f = self.faults.get(key)
        if not f:
            return ""
        fault, ms = f.pop(0)
        self.clock += ms / 1000
        return fault

    def apply(self, key: str, id: str, pending: dict[str, tuple[str, str, str | None]]) -> tuple[tuple[str, str | None] | None, str]:
        applies = self.applies.get(key, "done")
        if applies.startswith("error:"):
            return None, applies[len("error:"):]
        r = pending.get(key) or self.state.get(key)
        if r is not None:
            if r[0] == id:
                return (r[1], r[2]), ""
            return (("refused", "already_refused") if r[1] == "refused" else ("done_before", None)), ""
        w = (id, "refused", applies[len("refused:"):]) if applies.startswith("refused:") else (id, "done", None)
        pending[key] = w
        return (w[1], w[2]), ""

    def due_left(self, given: dict[str, int]) -> int:
        """How many holds past their deadline are not given back."""
        return self.due - sum({**self.given, **given}.values())

    def expire(self, id: str, most: int, given: dict[str, int]) -> int:
        """Gives back up to most holds for the call id, its earlier
        sendings' included, and answers how many it gave back in all."""
        if id == "":
            self.anonymous += 1
            k = f"expire:#{self.anonymous}"
        else:
            k = f"expire:{id}"
        n = given.get(k, self.given.get(k, 0))
        given[k] = n + min(max(most - n, 0), self.due_left(given))
        return given[k]

    def answer(self, statement: str, params: tuple[object, ...], key: str, id: str,
               pending: dict[str, tuple[str, str, str | None]], given: dict[str, int]) -> object:
        """What a statement answers when nothing fails: its row (its rows,
        for a call's entries); a failure raises."""
        done = {**self.state, **pending}
        if statement == STATUS:
            r = done.get(key)
            return ("posted" if r is not None and r[1] == "done" else None,)
        if statement == EXPIRE:
            return (self.expire(id, int(str(params[0])), given),)
        if statement == BALANCE:
            posted = sum(1 for r in done.values() if r[1] == "done")
            return (posted, 0, self.due_left(given))
        if statement == ENTRIES:
            r = done.get(key)
            if r is None or r[1] != "done":
                return []
            at = datetime(2026, 1, 1, tzinfo=timezone.utc)
            return [
                (n + 1, "pay", "do", [key], [key], 1, n == 0, account, [], 1, 0, 0, None, None, None, at)
                for n, account in enumerate(("from", "to"))
            ]
        row, code = self.apply(key, id, pending)
        if code:
            self.failed = self.explicit
            raise ServerError(code)
        return row

    def run(self, conn: Conn, statements: Sequence[tuple[str, tuple[object, ...]]]) -> list[object]:
        """Runs statements as one transaction (one, or a pipeline's) and
        answers each one's row; a failure raises, as psycopg does."""
        pending: dict[str, tuple[str, str, str | None]] = {}
        given: dict[str, int] = {}
        rows: list[object] = []
        lost_after: Exception | None = None
        for statement, params in statements:
            # Every statement's key is its second value; expire's is
            # "expire" (its second value is its call id), and a read of a
            # call's entries has the key as a list of one.
            key, id = str(params[1]), ""
            if statement == OP:
                id = str(params[2])
            elif statement == EXPIRE:
                key, id = "expire", "" if params[1] is None else str(params[1])
            elif statement == ENTRIES:
                key = str(cast(list[object], params[2])[0])
            self.sent[key] = self.sent.get(key, 0) + 1
            if self.failed:
                raise ServerError("25P02")
            if statement in (OP, EXPIRE):
                self.ids.setdefault(key, []).append(id)
            fault = self.pop(key) if lost_after is None else ""
            if fault in ("serialization_failure", "deadlock_detected"):
                self.failed = self.explicit
                raise ServerError("40001" if fault == "serialization_failure" else "40P01")
            if fault in ("lost_before_commit", "lost_while_reading"):  # psycopg fetches an answer whole
                conn.closed = True
                raise OperationalError("server closed the connection unexpectedly")
            if fault in ("lost_after_commit", "shutdown_after_commit"):
                self.answer(statement, params, key, id, pending, given)
                conn.closed = True
                lost_after = (
                    OperationalError("server closed the connection unexpectedly")
                    if fault == "lost_after_commit"
                    else ServerError("57P01", "terminating connection due to administrator command")
                )
                rows.append(None)
                continue
            if fault in ("cancelled", "timeout"):
                raise CallerGaveUp(fault)
            if fault:
                raise AssertionError(f"a fault the scripted connection cannot make: {fault}")
            rows.append(self.answer(statement, params, key, id, pending, given))
        if not self.explicit or lost_after is not None:
            self.state.update(pending)
            self.given.update(given)
        if lost_after is not None:
            raise lost_after
        return rows


class Cursor:
    def __init__(self, conn: Conn) -> None:
        self.conn = conn
        self.row: object = None

    def execute(self, query: str, params: Sequence[object], /, prepare: bool | None = None) -> Cursor:
        if self.conn.closed:
            raise OperationalError("the connection is closed")
        if self.conn.piped is not None:
            self.conn.piped.append((self, query, tuple(params)))
        else:
            self.row = self.conn.model.run(self.conn, [(query, tuple(params))])[0]
        return self

    def fetchone(self) -> object:
        return self.row

    def fetchall(self) -> Sequence[object]:
        return cast(Sequence[object], self.row)

    def close(self) -> None:
        pass


class Conn:
    """psycopg 3's Connection: in autocommit mode (a bulk goes in a
    pipeline, run as one transaction at its end), or inside the caller's
    transaction."""

    prepare_threshold = 5

    def __init__(self, model: Model, in_tx: bool) -> None:
        self.model = model
        self.closed = False
        self.autocommit = not in_tx
        self.piped: list[tuple[Cursor, str, tuple[object, ...]]] | None = None
        conn = self

        class Info:
            @property
            def transaction_status(self) -> int:
                return 0 if not in_tx else 3 if conn.model.failed else 2

        self.info = Info()

    def cursor(self) -> Cursor:
        return Cursor(self)

    @contextlib.contextmanager
    def pipeline(self) -> Iterator[None]:
        self.piped = []
        try:
            yield
            piped, self.piped = self.piped, None
            rows = self.model.run(self, [(q, p) for _, q, p in piped])
            for (cur, _, _), row in zip(piped, rows):
                cur.row = row
        finally:
            self.piped = None


class AsyncCursor:
    def __init__(self, conn: AsyncConn) -> None:
        self.sync = Cursor(conn.sync)
        self.conn = conn

    async def execute(self, query: str, params: Sequence[object], /, prepare: bool | None = None) -> AsyncCursor:
        await asyncio.sleep(0)
        try:
            self.sync.execute(query, params)
        except CallerGaveUp as e:
            # The caller gives up while the call is out: the scripted
            # server never answers.
            self.conn.give_up(str(e))
            await asyncio.Event().wait()
        return self

    async def fetchone(self) -> object:
        return self.sync.row

    async def fetchall(self) -> Sequence[object]:
        return self.sync.fetchall()

    async def close(self) -> None:
        pass


class AsyncConn:
    """Conn, as psycopg 3's AsyncConnection."""

    prepare_threshold = 5

    def __init__(self, sync: Conn, give_up: Any) -> None:
        self.sync = sync
        self.give_up = give_up
        self.autocommit = sync.autocommit
        self.info = sync.info

    @property
    def closed(self) -> bool:
        return self.sync.closed

    def cursor(self) -> AsyncCursor:
        return AsyncCursor(self)

    @contextlib.asynccontextmanager
    async def pipeline(self) -> Any:
        with self.sync.pipeline():
            yield


class Pool:
    """psycopg_pool's pools: each lending a connection of its own, none
    while the single call under way has a not_connected fault due."""

    def __init__(self, model: Model, give_up: Any) -> None:
        self.model = model
        self.give_up = give_up

    def _lend(self) -> Conn:
        if self.model.not_lent > 0:
            self.model.not_lent -= 1
            raise OperationalError("couldn't get a connection after 30.00 sec")
        if self.model.head(self.model.current) == "not_connected":
            self.model.pop(self.model.current)
            raise OperationalError("couldn't get a connection after 30.00 sec")
        return Conn(self.model, False)

    def connection(self) -> Any:
        pool = self

        class Lending:
            def __enter__(self) -> Conn:
                return pool._lend()

            def __exit__(self, *_: Any) -> None:
                pass

            async def __aenter__(self) -> AsyncConn:
                return AsyncConn(pool._lend(), pool.give_up)

            async def __aexit__(self, *_: Any) -> None:
                pass

        return Lending()


CLIENT_ERROR = ChoboError("CHOBO_BAD_ARGUMENT", "refused by the client")


def kind_of(e: BaseException) -> str:
    if e is CLIENT_ERROR:
        return "client"
    if isinstance(e, TimeoutError) and isinstance(e.__cause__, ChoboCancelledError):
        return "outcome_unknown"
    if isinstance(e, ChoboError):
        return {
            "CHOBO_OUTCOME_UNKNOWN": "outcome_unknown",
            "CHOBO_NOT_SENT": "not_sent",
            "CHOBO_BAD_CALL": "bad_call",
            "CHOBO_BOUNDS_CHANGED": "bounds_changed",
        }.get(e.code, "other")
    if isinstance(e, asyncio.CancelledError):
        return "not_sent"  # a plain cancellation: nothing went
    return "server" if sqlstate_of(e) else "other"


def is_call_id(s: str) -> bool:
    """Whether s is a call id as the statements take it: a version 4 UUID
    in its lowercase text form."""
    try:
        u = uuid.UUID(s)
    except ValueError:
        return False
    return str(u) == s and u.version == 4


def check(want: Any, a: object) -> str | None:
    if want is None or isinstance(want, str):
        return None if a == want else f"state {a!r}, want {want!r}"
    if "one_of" in want:
        misses = [check(o, a) for o in want["one_of"]]
        return None if None in misses else "; ".join(m for m in misses if m)
    if "error" in want:
        if not isinstance(a, BaseException):
            return f"answered {a!r}, want the error {want['error']}"
        code = sqlstate_of(a) or sqlstate_of(a.__cause__)
        if kind_of(a) != want["error"] or ("sqlstate" in want and code != want["sqlstate"]):
            return f"error {kind_of(a)} ({a!r}, SQLSTATE {code!r}), want {want['error']} {want.get('sqlstate', '')}"
        return None
    if "count" in want:
        return None if a == want["count"] else f"expire answered {a!r}, want {want['count']}"
    if "balance" in want:
        return None if a == Balance(*want["balance"]) else f"balance {a!r}, want {want['balance']}"
    if "entries" in want:
        return None if isinstance(a, list) and len(a) == want["entries"] else f"entries {a!r}, want {want['entries']}"
    if not isinstance(a, Result):
        return f"answered {a!r}, want {want}"
    if a.result != want["result"] or (a.reason or "") != want.get("reason", "") or ("resent" in want and a.resent != want["resent"]):
        return f"answered {a!r} resent {a.resent}, want {want}"
    return None


def cannot(case: Any, asynchronous: bool) -> str | None:
    faults = [f if isinstance(f, str) else f["fault"] for c in case["calls"] for f in c.get("faults", [])]
    if not asynchronous and (case.get("cancelled_before") or "cancelled" in faults or "timeout" in faults):
        return "PostgresBook has no way to cancel a call or give it a deadline: AsyncPostgresBook replays this case"
    return None


class ConnectionVectorsTest(unittest.TestCase):
    def test_constants(self) -> None:
        c = FILE["constants"]
        self.assertEqual(c["max_attempts"], postgres.MAX_ATTEMPTS)
        self.assertEqual(c["resend_for_ms"], postgres.DEFAULT_RESEND_FOR * 1000)
        self.assertGreaterEqual(len(c["backoff_ms"]), 8)
        self.assertEqual([postgres.backoff(n) for n in range(len(c["backoff_ms"]))], c["backoff_ms"])

    def test_vectors(self) -> None:
        for case in FILE["cases"]:
            for asynchronous in (False, True):
                with self.subTest(case=case["name"], book="async" if asynchronous else "sync"):
                    why = cannot(case, asynchronous)
                    if why is not None:
                        print(f"SKIP: {case['name']} (sync): {why}")
                        continue
                    self.assertEqual(replay(case, asynchronous), [])


def replay(case: Any, asynchronous: bool) -> list[str]:
    m = Model(case)
    waits: list[float] = []
    problems: list[str] = []
    task: list[asyncio.Task[Any]] = []
    deadline: list[asyncio.Timeout] = []

    def give_up(fault: str) -> None:
        if fault == "timeout":
            deadline[0].reschedule(asyncio.get_running_loop().time())
        else:
            task[0].cancel()

    if case["over"] in ("pool", "pool_of_one"):
        conn: Any = Pool(m, give_up)
    else:
        sync = Conn(m, case["over"] == "tx")
        sync.closed = bool(case.get("closed"))
        conn = AsyncConn(sync, give_up) if asynchronous else sync
    resend_for = case["resend_for_ms"] / 1000 if "resend_for_ms" in case else None
    book: Any = (AsyncPostgresBook if asynchronous else PostgresBook)(conn, FILE["tenant"], resend_for)

    def pause(seconds: float) -> None:
        waits.append(seconds)
        m.clock += seconds

    async def pause_async(seconds: float) -> None:
        pause(seconds)

    def as_call(c: Any) -> PgCall:
        if c.get("client_error"):
            return PgCall("vector", OP, (), False, CLIENT_ERROR)
        status = c["op"] == "status"
        made: PgCall = book.make_call("vector", STATUS if status else OP, lambda: [c["key"]], status)
        return made

    async def run_async(coro: Any) -> Any:
        t = asyncio.ensure_future(coro)
        task[:] = [t]
        if case.get("cancelled_before"):
            t.cancel()
        async with asyncio.timeout(None) as d:
            deadline[:] = [d]
            return await t

    def outcome(f: Any) -> object:
        try:
            return asyncio.run(run_async(f())) if asynchronous else f()
        except (Exception, asyncio.CancelledError) as e:
            return e

    # The scripted clock: a sending moves it on by its fault's ms, a wait
    # between sendings by the longest it may be drawn (each is drawn at
    # its longest, and held to the backoff table); it takes no time.
    with (
        mock.patch.object(postgres, "_pg_now", lambda: m.clock),
        mock.patch.object(postgres, "_pg_pause", pause),
        mock.patch.object(postgres, "_pg_pause_async", pause_async),
        mock.patch.object(random, "random", lambda: 1.0),
    ):
        if case.get("bulk"):
            calls = [as_call(c) for c in case["calls"]]
            got: Any = outcome(lambda: book.bulk(calls))
            if isinstance(got, BaseException):
                return [f"the bulk raised {got!r}"]
            for i, c in enumerate(case["calls"]):
                p = check(c["want"], got[i])
                if p is not None:
                    problems.append(f"call {i} ({c['key']}): {p}")
            for k, ids in m.ids.items():
                if any(i != ids[0] for i in ids):
                    problems.append(f"{k} was sent with the ids {ids}")
        else:
            for i, c in enumerate(case["calls"]):
                m.current = c["key"]
                sent_before, ids_before, waits_before = m.sent.get(c["key"], 0), len(m.ids.get(c["key"], [])), len(waits)
                if c["op"] == "status":
                    a = outcome(lambda: book.status("vector", STATUS, [c["key"]]))
                elif c["op"] == "expire":
                    a = outcome(lambda: book.expire(EXPIRE, c["max"]))
                elif c["op"] == "balance":
                    a = outcome(lambda: book.balance("vector", BALANCE, [c["key"]]))
                elif c["op"] == "entries":
                    a = outcome(lambda: book.entries("vector", HISTORY, "pay", [c["key"]]))
                    for e in a if isinstance(a, list) else []:
                        if e.transfer != "pay" or list(e.key) != [c["key"]] or dict(e.args) != {"k": c["key"]}:
                            problems.append(f"call {i} ({c['key']}): an entry {e!r}")
                else:
                    a = outcome(lambda: book.call("vector", OP, [c["key"]]))
                p = check(c["want"], a)
                if p is not None:
                    problems.append(f"call {i} ({c['key']}): {p}")
                sent = m.sent.get(c["key"], 0) - sent_before
                if "sent" in c and sent != c["sent"]:
                    problems.append(f"call {i} ({c['key']}) reached the server {sent} times, want {c['sent']}")
                # Every try after the first waits first.
                tried = len(waits) - waits_before + (1 if c.get("attempts", 1) > 0 else 0)
                if "attempts" in c and tried != c["attempts"]:
                    problems.append(f"call {i} ({c['key']}) was tried {tried} times, want {c['attempts']}")
                every = m.ids.get(c["key"], [])
                ids = every[ids_before:]
                if any(i != ids[0] for i in ids) or (ids_before and ids and ids[0] == every[0]):
                    problems.append(f"call {i} ({c['key']}) was sent with the ids {ids}, after {every[:ids_before]}")
                if not all(is_call_id(i) for i in ids):
                    problems.append(f"call {i} ({c['key']}): ids {ids} are not version 4 UUIDs")
    for k, f in m.faults.items():
        if f:
            problems.append(f"{k}: faults never met: {f}")
    table = {ms / 1000 for ms in FILE["constants"]["backoff_ms"]}
    for w in waits:
        if w not in table:
            problems.append(f"a wait of up to {w} s, which the backoff table does not have")
    return problems


if __name__ == "__main__":
    unittest.main()
