"""Both PostgreSQL books against a real server, through psycopg 3 (blocking
and async) and psycopg2: the book of tests/testdata/stock_reservation,
loaded into the database $CHOBO_PG_DSN names (its SQL is safe to load
again), each run under a tenant of its own. Without the variable the tests
skip."""

from __future__ import annotations

import asyncio
import os
import time
import unittest
import uuid
from pathlib import Path
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import vectors  # noqa: F401  first: it puts the sources on the path

from chobo.chobo import DONE, DONE_BEFORE, Balance, ChoboError, refused
from chobo.postgres import AsyncPostgresBook, PgCall, PostgresBook, pipelined

DSN = os.environ.get("CHOBO_PG_DSN", "")
SQL = (Path(__file__).resolve().parents[4] / "tests" / "testdata" / "stock_reservation" / "expected" / "postgres"
       / "stock_reservation.sql")

S = '"stock_reservation"'
# An operation's last placeholder, and expire's second, take the call id
# the book adds.
RESTOCK = f"select result, reason from {S}.\"restock_do\"(%s, %s, %s, %s, %s::pg_catalog.uuid)"
HOLD = f"select result, reason from {S}.\"reserve_stock_hold\"(%s, %s, %s, %s, %s::pg_catalog.uuid)"
POST = f"select result, reason from {S}.\"reserve_stock_post\"(%s, %s, %s, %s, %s::pg_catalog.uuid)"
VOID = f"select result, reason from {S}.\"reserve_stock_void\"(%s, %s, %s, %s::pg_catalog.uuid)"
STATUS = f"select {S}.\"reserve_stock_status\"(%s, %s, %s)"
SHELF = f"select posted, held_in, held_out from {S}.\"balance_shelf\"(%s, %s)"
SHOPPERS = f"select posted, held_in, held_out from {S}.\"balance_shoppers\"(%s)"
EXPIRE = f"select {S}.expire(%s::integer, %s::pg_catalog.uuid)"

# Each step: the method, its arguments, what it must answer.
STORY: list[tuple[str, tuple[Any, ...], object]] = [
    ("call", ("restock.do", RESTOCK, ["d1", "A", 10]), DONE),
    ("call", ("restock.do", RESTOCK, ["d1", "A", 10]), DONE_BEFORE),
    ("call", ("reserve_stock.hold", HOLD, ["o1", "A", 4]), DONE),
    ("status", ("reserve_stock.status", STATUS, ["o1", "A"]), "held"),
    ("balance", ("balance.shelf", SHELF, ["A"]), Balance(10, 0, 4)),
    ("call", ("reserve_stock.hold", HOLD, ["o9", "A", 100]), refused("sold_out")),
    ("call", ("reserve_stock.post", POST, ["o1", "A", 3]), DONE),
    ("status", ("reserve_stock.status", STATUS, ["o1", "A"]), "posted"),
    ("call", ("reserve_stock.hold", HOLD, ["o2", "A", 2]), DONE),
    ("call", ("reserve_stock.void", VOID, ["o2", "A"]), DONE),
    ("status", ("reserve_stock.status", STATUS, ["o2", "A"]), "voided"),
    ("call", ("reserve_stock.void", VOID, ["o3", "A"]), refused("no_such_hold")),
    ("status", ("reserve_stock.status", STATUS, ["o3", "A"]), None),
    ("call", ("reserve_stock.hold", HOLD, ["o4", "A", 7]), DONE),
    ("call", ("reserve_stock.post", POST, ["o4", "A", None]), DONE),
    ("balance", ("balance.shelf", SHELF, ["A"]), Balance(0, 0, 0)),
    ("balance", ("balance.shoppers", SHOPPERS, []), Balance(10, 0, 0)),
]


_T = TypeVar("_T")


def tenant() -> str:
    return "py-" + uuid.uuid4().hex


@unittest.skipUnless(DSN, "SKIP: real PostgreSQL: CHOBO_PG_DSN is not set")
class RealPostgresTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        import psycopg

        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(SQL.read_text(encoding="utf-8"))

    def bad_call(self, b: PostgresBook) -> None:
        with self.assertRaises(ChoboError) as cm:
            b.call("restock.do", RESTOCK, ["d2", "A", None])
        self.assertEqual(cm.exception.code, "CHOBO_BAD_CALL")
        self.assertIsNotNone(cm.exception.__cause__)

    def test_psycopg(self) -> None:
        import psycopg

        with psycopg.connect(DSN, autocommit=True) as conn:
            b = PostgresBook(conn, tenant())
            for i, (name, args, want) in enumerate(STORY):
                self.assertEqual(getattr(b, name)(*args), want, f"step {i}: {name}{args}")
            self.bad_call(b)
            self.assertGreaterEqual(b.expire(EXPIRE, 10), 0)
            # The largest max the function's integer takes goes; one more
            # is refused before it is sent, not by the server.
            self.assertGreaterEqual(b.expire(EXPIRE, 2**31 - 1), 0)
            with self.assertRaises(ChoboError) as cm:
                b.expire(EXPIRE, 2**31)
            self.assertEqual(cm.exception.code, "CHOBO_BAD_ARGUMENT")

    def test_psycopg_in_the_callers_transaction(self) -> None:
        import psycopg

        t = tenant()
        with psycopg.connect(DSN) as conn:
            b = PostgresBook(conn, t)
            self.assertEqual(b.call("restock.do", RESTOCK, ["d1", "A", 10]), DONE)
            conn.rollback()  # the caller's to end: the book left it open
            self.assertEqual(b.balance("balance.shelf", SHELF, ["A"]), Balance(0, 0, 0))
            self.assertEqual(b.call("restock.do", RESTOCK, ["d1", "A", 10]), DONE)
            self.bad_call(b)
            # The transaction failed: what comes next is refused with 25P02,
            # and the book raises the first error, which it cannot know here,
            # so the 25P02 itself goes out as psycopg raised it.
            with self.assertRaises(psycopg.errors.InFailedSqlTransaction):
                b.balance("balance.shelf", SHELF, ["A"])
            conn.rollback()
            self.assertEqual(b.balance("balance.shelf", SHELF, ["A"]), Balance(0, 0, 0))
            conn.commit()

    def test_psycopg_async(self) -> None:
        import psycopg

        async def run() -> None:
            async with await psycopg.AsyncConnection.connect(DSN, autocommit=True) as conn:
                b = AsyncPostgresBook(conn, tenant())
                for i, (name, args, want) in enumerate(STORY):
                    self.assertEqual(await getattr(b, name)(*args), want, f"step {i}: {name}{args}")
                with self.assertRaises(ChoboError) as cm:
                    await b.call("restock.do", RESTOCK, ["d2", "A", None])
                self.assertEqual(cm.exception.code, "CHOBO_BAD_CALL")
                self.assertGreaterEqual(await b.expire(EXPIRE, 10), 0)

        asyncio.run(run())

    def test_psycopg_pool(self) -> None:
        """Over psycopg_pool's ConnectionPool each call is one transaction of
        a lent connection, committed when the pool takes it back; a bulk
        goes one by one."""
        from psycopg_pool import ConnectionPool

        with ConnectionPool(DSN, min_size=1, max_size=2, open=True) as pool:
            b = PostgresBook(pool, tenant())
            for i, (name, args, want) in enumerate(STORY):
                self.assertEqual(getattr(b, name)(*args), want, f"step {i}: {name}{args}")
            self.bad_call(b)
            t = b.tenant
            answers = b.bulk([
                b.make_call("restock.do", RESTOCK, lambda: ["d2", "A", 5]),
                b.make_call("reserve_stock.hold", HOLD, lambda: ["o5", "A", 2]),
                b.make_call("reserve_stock.status", STATUS, lambda: ["o5", "A"], status=True),
            ])
            self.assertEqual(answers, [DONE, DONE, "held"])
            self.assertEqual(PostgresBook(pool, t).balance("balance.shelf", SHELF, ["A"]), Balance(5, 0, 2))

    def test_psycopg_async_pool(self) -> None:
        from psycopg_pool import AsyncConnectionPool

        async def run() -> None:
            async with AsyncConnectionPool(DSN, min_size=1, max_size=2, open=False) as pool:
                b = AsyncPostgresBook(pool, tenant())
                for i, (name, args, want) in enumerate(STORY):
                    self.assertEqual(await getattr(b, name)(*args), want, f"step {i}: {name}{args}")
                answers = await b.bulk([
                    b.make_call("restock.do", RESTOCK, lambda: ["d2", "A", 5]),
                    b.make_call("reserve_stock.hold", HOLD, lambda: ["o5", "A", 2]),
                ])
                self.assertEqual(answers, [DONE, DONE])
                self.assertEqual(await b.balance("balance.shelf", SHELF, ["A"]), Balance(5, 0, 2))

        asyncio.run(run())

    def test_psycopg2(self) -> None:
        try:
            import psycopg2  # type: ignore[import-untyped]
        except ModuleNotFoundError:
            self.skipTest("SKIP: psycopg2 is not installed")
        conn = psycopg2.connect(DSN)
        try:
            conn.autocommit = True
            b = PostgresBook(conn, tenant())
            for i, (name, args, want) in enumerate(STORY):
                self.assertEqual(getattr(b, name)(*args), want, f"step {i}: {name}{args}")
            self.bad_call(b)
        finally:
            conn.close()

    # The calls and statuses of the story, with a call the function rejects
    # in the middle, as one bulk: each answered as it was alone.
    def bulk_story(self, b: PostgresBook | AsyncPostgresBook, bad: bool = True) -> tuple[list[PgCall], list[object]]:
        calls, want = [], []
        for name, (where, statement, values), answer in STORY:
            if name == "balance":
                continue
            calls.append(b.make_call(where, statement, lambda v=values: v, name == "status"))  # type: ignore[misc]
            want.append(answer)
            if bad and len(calls) == 5:
                calls.append(b.make_call("restock.do", RESTOCK, lambda: ["d2", "A", None]))
                want.append("CHOBO_BAD_CALL")
        return calls, want

    def check_bulk(self, got: Sequence[object], want: Sequence[object]) -> None:
        self.assertEqual(len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            if w == "CHOBO_BAD_CALL":
                self.assertIsInstance(g, ChoboError, f"call {i}")
                self.assertEqual(getattr(g, "code", ""), w, f"call {i}")
            else:
                self.assertEqual(g, w, f"call {i}")

    def test_bulk_psycopg(self) -> None:
        import psycopg

        # Without a failure the pipeline answers every call; with one, the
        # server undoes them all and they go again one by one.
        for bad in (False, True):
            with psycopg.connect(DSN, autocommit=True) as conn:
                b = PostgresBook(conn, tenant())
                calls, want = self.bulk_story(b, bad)
                before = pipelined()
                self.check_bulk(b.bulk(calls), want)
                self.assertEqual(pipelined() - before, len(calls), "the calls did not go in a pipeline")

    def test_bulk_psycopg_async(self) -> None:
        import psycopg

        async def run() -> None:
            for bad in (False, True):
                async with await psycopg.AsyncConnection.connect(DSN, autocommit=True) as conn:
                    b = AsyncPostgresBook(conn, tenant())
                    calls, want = self.bulk_story(b, bad)
                    before = pipelined()
                    self.check_bulk(await b.bulk(calls), want)
                    self.assertEqual(pipelined() - before, len(calls), "the calls did not go in a pipeline")

        asyncio.run(run())

    def test_bulk_whose_connection_is_lost(self) -> None:
        """The pipeline waits on a locked shelf when its session is ended:
        each call is of unknown outcome, named by its own operation; a bulk
        on the closed connection afterwards sends nothing."""
        import threading

        import psycopg

        t = tenant()
        with psycopg.connect(DSN, autocommit=True) as admin, psycopg.connect(DSN) as locker:
            self.assertEqual(PostgresBook(admin, t).call("restock.do", RESTOCK, ["d1", "A", 10]), DONE)
            locker.execute(f"select 1 from {S}.accounts where tenant = %s and kind = 'shelf' for update", (t,))
            with psycopg.connect(DSN, autocommit=True) as victim:
                b = PostgresBook(victim, t)
                calls = [
                    b.make_call("reserve_stock.hold", HOLD, lambda: ["o1", "A", 3]),
                    b.make_call("reserve_stock.status", STATUS, lambda: ["o1", "A"], status=True),
                ]
                got: list[object] = []
                run = threading.Thread(target=lambda: got.extend(b.bulk(calls)))
                run.start()
                pid = victim.info.backend_pid
                for _ in range(2000):
                    row = admin.execute("select wait_event_type from pg_stat_activity where pid = %s", (pid,)).fetchone()
                    if row is not None and row[0] == "Lock":
                        break
                    time.sleep(0.005)
                else:
                    self.fail("the pipeline never waited for the shelf")
                admin.execute("select pg_terminate_backend(%s)", (pid,))
                run.join(10)
                self.assertFalse(run.is_alive(), "the bulk did not come back")
                for g, where in zip(got, ["reserve_stock.hold", "reserve_stock.status"]):
                    self.assertIsInstance(g, ChoboError)
                    self.assertEqual(getattr(g, "code", ""), "CHOBO_OUTCOME_UNKNOWN")
                    self.assertTrue(str(g).startswith(f"chobo: {where}: "), str(g))
                for g in b.bulk(calls):
                    self.assertEqual(getattr(g, "code", ""), "CHOBO_NOT_SENT", str(g))
            locker.rollback()
            self.assertEqual(PostgresBook(admin, t).call("reserve_stock.hold", HOLD, ["o1", "A", 3]), DONE)

    def test_bulk_in_the_callers_transaction(self) -> None:
        import psycopg

        with psycopg.connect(DSN) as conn:
            b = PostgresBook(conn, tenant())
            calls, want = self.bulk_story(b)
            before = pipelined()
            got = b.bulk(calls[:5])
            self.assertEqual(pipelined(), before, "a bulk in the caller's transaction went in a pipeline")
            self.check_bulk(got, want[:5])
            conn.rollback()
            self.assertEqual(b.balance("balance.shelf", SHELF, ["A"]), Balance(0, 0, 0))

    def test_bulk_psycopg2(self) -> None:
        try:
            import psycopg2
        except ModuleNotFoundError:
            self.skipTest("SKIP: psycopg2 is not installed")
        conn = psycopg2.connect(DSN)
        try:
            conn.autocommit = True
            b = PostgresBook(conn, tenant())
            calls, want = self.bulk_story(b)
            before = pipelined()
            self.check_bulk(b.bulk(calls), want)
            self.assertEqual(pipelined(), before, "psycopg2 has no pipeline")
        finally:
            conn.close()


if __name__ == "__main__":
    unittest.main()


class _HoldingProxy:
    """A TCP proxy in front of the server that can hold back what the
    server says to the first connection made through it (the book's), so
    that a test can cancel a call the server has already committed before
    its answer arrives, or cut that connection so that the answer never
    arrives at all. Later connections (psycopg's cancel request, a pool's
    new connection) pass freely."""

    def __init__(self, dsn: str) -> None:
        import socket
        import threading

        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        info = conninfo_to_dict(dsn)
        host, port = str(info.get("host", "")), str(info.get("port", "5432"))
        self._upstream: tuple[int, object] = (
            (socket.AF_UNIX, f"{host}/.s.PGSQL.{port}") if host.startswith("/") else (socket.AF_INET, (host, int(port)))
        )
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.dsn = make_conninfo(dsn, host="127.0.0.1", port=self._listener.getsockname()[1])
        self._flowing = threading.Event()
        self._flowing.set()
        self._socks: list[socket.socket] = []
        self._first: list[socket.socket] = []
        self._dropped = False
        self._accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def hold(self) -> None:
        self._flowing.clear()

    def release(self) -> None:
        self._flowing.set()

    def drop(self) -> None:
        """Cuts the first connection: what the server said and was held
        back is thrown away, and its client sees the connection end."""
        import socket

        self._dropped = True
        for s in self._first:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._flowing.set()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            family, addr = self._upstream
            server = socket.socket(family, socket.SOCK_STREAM)
            server.connect(addr)  # type: ignore[arg-type]
            self._socks += [client, server]
            gated = self._accepted == 0
            if gated:
                self._first = [client, server]
            self._accepted += 1
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, gated), daemon=True).start()

    def _pump(self, src: Any, dst: Any, gated: bool) -> None:
        import socket

        try:
            while data := src.recv(65536):
                if gated:
                    self._flowing.wait()
                    if self._dropped:
                        return
                dst.sendall(data)
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self) -> None:
        self._flowing.set()
        self._listener.close()
        for s in self._socks:
            s.close()


@unittest.skipUnless(DSN, "SKIP: real PostgreSQL: CHOBO_PG_DSN is not set")
class OneConnectionTest(unittest.TestCase):
    """Many threads, or many asyncio tasks, calling books over ONE
    connection, and asyncio calls cancelled before and after they went."""

    @classmethod
    def setUpClass(cls) -> None:
        import psycopg

        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(SQL.read_text(encoding="utf-8"))

    WORKERS = 8
    ROUNDS = 15

    def work(self, b: PostgresBook, w: int) -> list[object]:
        """A worker's calls and bulks: ROUNDS single calls and ROUNDS bulks
        of three, each a restock of 1 under a key of its own, and a status."""
        got: list[object] = []
        for r in range(self.ROUNDS):
            got.append(b.call("restock.do", RESTOCK, [f"w{w}-c{r}", "A", 1]))
            got += b.bulk([b.make_call("restock.do", RESTOCK, self.values(f"w{w}-b{r}-{k}")) for k in range(3)])
            got.append(b.status("reserve_stock.status", STATUS, [f"none-{w}", "A"]))
        return got

    def want(self) -> list[object]:
        return [DONE, DONE, DONE, DONE, None] * self.ROUNDS

    @staticmethod
    def values(key: str) -> Callable[[], Sequence[object]]:
        """The values of a restock of 1 under key, as make_call takes them."""
        return lambda: [key, "A", 1]

    def threads(self, conn: Any) -> None:
        import threading

        t = tenant()
        results: dict[int, list[object]] = {}
        failures: list[BaseException] = []

        def run(w: int) -> None:
            try:
                results[w] = self.work(PostgresBook(conn, t), w)  # a book of its own, the connection shared
            except BaseException as e:
                failures.append(e)

        workers = [threading.Thread(target=run, args=(w,)) for w in range(self.WORKERS)]
        for th in workers:
            th.start()
        for th in workers:
            th.join(60)
        self.assertEqual(failures, [])
        for w in range(self.WORKERS):
            self.assertEqual(results.get(w), self.want(), f"worker {w}")
        b = PostgresBook(conn, t)
        self.assertEqual(b.balance("balance.shelf", SHELF, ["A"]), Balance(self.WORKERS * self.ROUNDS * 4, 0, 0))

    def test_threads_share_a_psycopg_connection(self) -> None:
        """psycopg 3's connection is thread-safe statement by statement, not
        across a bulk's pipeline: without the books taking turns, a call
        sent during another thread's pipeline breaks it."""
        import psycopg

        with psycopg.connect(DSN, autocommit=True) as conn:
            self.threads(conn)

    def test_threads_share_a_psycopg2_connection(self) -> None:
        try:
            import psycopg2
        except ModuleNotFoundError:
            self.skipTest("SKIP: psycopg2 is not installed")
        conn = psycopg2.connect(DSN)
        try:
            conn.autocommit = True
            self.threads(conn)
        finally:
            conn.close()

    def test_tasks_share_an_async_connection(self) -> None:
        import psycopg

        async def work(b: AsyncPostgresBook, w: int) -> list[object]:
            got: list[object] = []
            for r in range(self.ROUNDS):
                got.append(await b.call("restock.do", RESTOCK, [f"w{w}-c{r}", "A", 1]))
                got += await b.bulk(
                    [b.make_call("restock.do", RESTOCK, self.values(f"w{w}-b{r}-{k}")) for k in range(3)]
                )
                got.append(await b.status("reserve_stock.status", STATUS, [f"none-{w}", "A"]))
            return got

        async def run() -> None:
            t = tenant()
            async with await psycopg.AsyncConnection.connect(DSN, autocommit=True) as conn:
                results = await asyncio.gather(*(work(AsyncPostgresBook(conn, t), w) for w in range(self.WORKERS)))
                for w, got in enumerate(results):
                    self.assertEqual(got, self.want(), f"task {w}")
                b = AsyncPostgresBook(conn, t)
                self.assertEqual(
                    await b.balance("balance.shelf", SHELF, ["A"]), Balance(self.WORKERS * self.ROUNDS * 4, 0, 0)
                )

        asyncio.run(run())

    def wait_for_lock(self, admin: Any, pid: int) -> None:
        """Until the backend pid waits for a lock another transaction holds."""
        for _ in range(2000):
            row = admin.execute("select wait_event_type from pg_stat_activity where pid = %s", (pid,)).fetchone()
            if row is not None and row[0] == "Lock":
                return
            time.sleep(0.005)
        self.fail("the call never waited for the shelf")

    def test_cancelled_before_the_server_committed(self) -> None:
        """A call waits on a locked shelf and is cancelled: its outcome is
        unknown to the caller (ChoboCancelledError), though the server
        undid it. A second call on the same connection, waiting for the
        book's turn, is cancelled before it went: plain CancelledError.
        Sent again once the shelf is free, the first applies exactly once."""
        import psycopg

        from chobo.chobo import ChoboCancelledError

        async def run() -> None:
            t = tenant()
            with psycopg.connect(DSN, autocommit=True) as admin, psycopg.connect(DSN) as locker:
                self.assertEqual(PostgresBook(admin, t).call("restock.do", RESTOCK, ["d0", "A", 10]), DONE)
                locker.execute(f"select 1 from {S}.accounts where tenant = %s and kind = 'shelf' for update", (t,))
                async with await psycopg.AsyncConnection.connect(DSN, autocommit=True) as conn:
                    b = AsyncPostgresBook(conn, t)
                    out = asyncio.create_task(b.call("reserve_stock.hold", HOLD, ["o1", "A", 3]))
                    await asyncio.sleep(0)
                    waiting = asyncio.create_task(AsyncPostgresBook(conn, t).call("reserve_stock.hold", HOLD, ["o2", "A", 4]))
                    await asyncio.to_thread(self.wait_for_lock, admin, conn.info.backend_pid)
                    self.assertFalse(waiting.done())
                    waiting.cancel()
                    with self.assertRaises(asyncio.CancelledError) as plain:
                        await waiting
                    self.assertNotIsInstance(plain.exception, ChoboError, "nothing was sent")
                    out.cancel()
                    with self.assertRaises(ChoboCancelledError) as cm:
                        await out
                    self.assertEqual(cm.exception.code, "CHOBO_OUTCOME_UNKNOWN")
                    self.assertIsInstance(cm.exception, asyncio.CancelledError)
                    self.assertIn("reserve_stock.hold: the call was cancelled after it was sent", str(cm.exception))
                    locker.rollback()
                    # The connection is not left broken: the call goes again on it.
                    self.assertEqual(await b.call("reserve_stock.hold", HOLD, ["o1", "A", 3]), DONE)
                    self.assertEqual(await b.call("reserve_stock.hold", HOLD, ["o1", "A", 3]), DONE_BEFORE)
                    self.assertEqual(await b.status("reserve_stock.status", STATUS, ["o2", "A"]), None)
                    self.assertEqual(await b.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 3))

        asyncio.run(run())

    def test_bulk_cancelled_while_its_pipeline_is_out(self) -> None:
        """A bulk whose pipeline waits on a locked shelf is cancelled: the
        bulk raises ChoboCancelledError, and the connection, out of its
        pipeline, takes the same bulk again, which applies it once."""
        import psycopg

        from chobo.chobo import ChoboCancelledError

        async def run() -> None:
            t = tenant()
            with psycopg.connect(DSN, autocommit=True) as admin, psycopg.connect(DSN) as locker:
                self.assertEqual(PostgresBook(admin, t).call("restock.do", RESTOCK, ["d0", "A", 10]), DONE)
                locker.execute(f"select 1 from {S}.accounts where tenant = %s and kind = 'shelf' for update", (t,))
                async with await psycopg.AsyncConnection.connect(DSN, autocommit=True) as conn:
                    b = AsyncPostgresBook(conn, t)
                    calls = [
                        b.make_call("reserve_stock.hold", HOLD, lambda: ["o1", "A", 3]),
                        b.make_call("reserve_stock.hold", HOLD, lambda: ["o2", "A", 1]),
                    ]
                    out = asyncio.create_task(b.bulk(calls))
                    await asyncio.to_thread(self.wait_for_lock, admin, conn.info.backend_pid)
                    out.cancel()
                    with self.assertRaises(ChoboCancelledError) as cm:
                        await out
                    self.assertEqual(cm.exception.code, "CHOBO_OUTCOME_UNKNOWN")
                    locker.rollback()
                    self.assertEqual(await b.bulk(calls), [DONE, DONE])
                    self.assertEqual(await b.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 4))

        asyncio.run(run())

    def test_cancelled_by_a_timeout_over_a_pool(self) -> None:
        """asyncio.timeout() runs out while the call is out, over a pool:
        the call is not sent again (the pool's book resends only a call
        whose connection was lost), and its outcome is unknown, which
        timeout() passes on as ChoboCancelledError or, from Python 3.12,
        as a TimeoutError whose cause it is."""
        import psycopg
        from psycopg_pool import AsyncConnectionPool

        from chobo.chobo import ChoboCancelledError
        from chobo.postgres import resent_of

        async def run() -> None:
            t = tenant()
            with psycopg.connect(DSN, autocommit=True) as admin, psycopg.connect(DSN) as locker:
                self.assertEqual(PostgresBook(admin, t).call("restock.do", RESTOCK, ["d0", "A", 10]), DONE)
                locker.execute(f"select 1 from {S}.accounts where tenant = %s and kind = 'shelf' for update", (t,))
                async with AsyncConnectionPool(DSN, min_size=1, max_size=1, open=False,
                                               kwargs={"autocommit": True}) as pool:
                    b = AsyncPostgresBook(pool, t)
                    before = (resent_of("CHOBO_OUTCOME_UNKNOWN"), resent_of("CHOBO_NOT_SENT"))
                    timeouts: list[asyncio.Timeout] = []

                    async def call() -> object:
                        async with asyncio.timeout(None) as tm:
                            timeouts.append(tm)
                            return await b.call("reserve_stock.hold", HOLD, ["o1", "A", 3])

                    out = asyncio.create_task(call())
                    await asyncio.to_thread(self.wait_for_lock_of_query, admin)
                    timeouts[0].reschedule(asyncio.get_running_loop().time())  # runs out now
                    with self.assertRaises(BaseException) as cm:
                        await out
                    got = cm.exception if isinstance(cm.exception, ChoboCancelledError) else cm.exception.__cause__
                    self.assertIsInstance(got, ChoboCancelledError, repr(cm.exception))
                    self.assertEqual(getattr(got, "code", ""), "CHOBO_OUTCOME_UNKNOWN")
                    self.assertEqual((resent_of("CHOBO_OUTCOME_UNKNOWN"), resent_of("CHOBO_NOT_SENT")), before)
                    locker.rollback()
                    self.assertEqual(await b.status("reserve_stock.status", STATUS, ["o1", "A"]), None)
                    self.assertEqual(await b.call("reserve_stock.hold", HOLD, ["o1", "A", 3]), DONE)
                    self.assertEqual(await b.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 3))

        asyncio.run(run())

    def wait_for_lock_of_query(self, admin: Any) -> None:
        """Until some backend waits for a lock in a hold of the book."""
        for _ in range(2000):
            row = admin.execute(
                "select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like %s", ("%reserve_stock_hold%",)
            ).fetchone()
            if row is not None:
                return
            time.sleep(0.005)
        self.fail("the call never waited for the shelf")

    def test_cancelled_and_its_answer_never_comes(self) -> None:
        """The server commits the call and its answer never reaches the
        client; the call is cancelled. psycopg waits 5 s for the statement
        to end, then closes the connection: the call raises
        ChoboCancelledError, the next on that connection sends nothing
        (CHOBO_NOT_SENT), and sent again on another it answers done_before."""
        import logging

        import psycopg

        from chobo.chobo import ChoboCancelledError

        async def run() -> None:
            t = tenant()
            proxy = _HoldingProxy(DSN)
            try:
                with psycopg.connect(DSN, autocommit=True) as admin:
                    watcher = PostgresBook(admin, t)
                    self.assertEqual(watcher.call("restock.do", RESTOCK, ["d0", "A", 10]), DONE)
                    async with await psycopg.AsyncConnection.connect(proxy.dsn, autocommit=True) as conn:
                        b = AsyncPostgresBook(conn, t)
                        proxy.hold()
                        out = asyncio.create_task(b.call("reserve_stock.hold", HOLD, ["o1", "A", 3]))
                        await asyncio.to_thread(self.held, watcher, "o1")
                        out.cancel()
                        # psycopg warns that it closes the connection: the case under test.
                        log = logging.getLogger("psycopg")
                        level = log.level
                        log.setLevel(logging.ERROR)
                        try:
                            with self.assertRaises(ChoboCancelledError):
                                await out
                        finally:
                            log.setLevel(level)
                        self.assertTrue(conn.closed)
                        with self.assertRaises(ChoboError) as cm:
                            await b.call("reserve_stock.hold", HOLD, ["o1", "A", 3])
                        self.assertEqual(cm.exception.code, "CHOBO_NOT_SENT")
                    self.assertEqual(watcher.call("reserve_stock.hold", HOLD, ["o1", "A", 3]), DONE_BEFORE)
                    self.assertEqual(watcher.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 3))
            finally:
                proxy.close()

        asyncio.run(run())

    def held(self, watcher: PostgresBook, order: str) -> None:
        """Until the hold of order is committed, seen from watcher's connection."""
        for _ in range(2000):
            if watcher.status("reserve_stock.status", STATUS, [order, "A"]) == "held":
                return
            time.sleep(0.005)
        self.fail("the hold never committed")

    def test_cancelled_after_the_server_committed(self) -> None:
        """The server commits the call, and its answer is held back on the
        way; the call is cancelled: ChoboCancelledError. Sent again, it
        answers done_before: one move."""
        import psycopg

        from chobo.chobo import ChoboCancelledError

        async def run() -> None:
            t = tenant()
            proxy = _HoldingProxy(DSN)
            try:
                with psycopg.connect(DSN, autocommit=True) as admin:
                    watcher = PostgresBook(admin, t)
                    self.assertEqual(watcher.call("restock.do", RESTOCK, ["d0", "A", 10]), DONE)
                    async with await psycopg.AsyncConnection.connect(proxy.dsn, autocommit=True) as conn:
                        b = AsyncPostgresBook(conn, t)
                        self.assertEqual(await b.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 0))
                        proxy.hold()
                        out = asyncio.create_task(b.call("reserve_stock.hold", HOLD, ["o1", "A", 3]))
                        await asyncio.to_thread(self.held, watcher, "o1")
                        out.cancel()
                        proxy.release()
                        with self.assertRaises(ChoboCancelledError) as cm:
                            await out
                        self.assertEqual(cm.exception.code, "CHOBO_OUTCOME_UNKNOWN")
                        # psycopg read the answer after its cancel request
                        # found nothing to cancel: the connection goes on.
                        self.assertEqual(await b.call("reserve_stock.hold", HOLD, ["o1", "A", 3]), DONE_BEFORE)
                    self.assertEqual(watcher.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 3))
            finally:
                proxy.close()

        asyncio.run(run())


@unittest.skipUnless(DSN, "SKIP: real PostgreSQL: CHOBO_PG_DSN is not set")
class CallIdTest(unittest.TestCase):
    """A book over a pool whose call is committed and whose answer is then
    lost sends the call again with its call id: the server answers what
    it answered the first sending, not what a second call of the same
    key would get."""

    @classmethod
    def setUpClass(cls) -> None:
        import psycopg

        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(SQL.read_text(encoding="utf-8"))

    def lost_after_commit(self, fn: str, send: Callable[[PostgresBook], _T], t: str) -> _T:
        """Runs send on a book over a pool whose one connection goes
        through a proxy: the answer of its first statement, one of the
        function fn, is held back until the server has committed it, and
        then the connection is cut. The book sends it again on a new
        connection, whose answer send returns."""
        from psycopg_pool import ConnectionPool

        def run(proxy: _HoldingProxy, app: str) -> _T:
            with ConnectionPool(proxy.dsn, min_size=1, max_size=1, open=True,
                                kwargs={"autocommit": True, "application_name": app}) as pool:
                pool.wait()
                proxy.hold()
                return send(PostgresBook(pool, t))

        return self.cut_after_commit(fn, run)

    def lost_after_commit_async(self, fn: str, send: Callable[[AsyncPostgresBook], Awaitable[_T]], t: str) -> _T:
        """lost_after_commit over psycopg_pool's AsyncConnectionPool."""
        from psycopg_pool import AsyncConnectionPool

        async def main(proxy: _HoldingProxy, app: str) -> _T:
            async with AsyncConnectionPool(proxy.dsn, min_size=1, max_size=1, open=False,
                                           kwargs={"autocommit": True, "application_name": app}) as pool:
                await pool.wait()
                proxy.hold()
                return await send(AsyncPostgresBook(pool, t))

        return self.cut_after_commit(fn, lambda proxy, app: asyncio.run(main(proxy, app)))

    def cut_after_commit(self, fn: str, run: Callable[[_HoldingProxy, str], _T]) -> _T:
        """Runs run, given a proxy and the application name its pool's
        connections take, in a thread of its own; once the statement of
        the function fn has committed, cuts the connection that carried
        it, and answers what run returned."""
        import threading

        import psycopg

        app = "chobo-" + uuid.uuid4().hex[:12]
        proxy = _HoldingProxy(DSN)
        try:
            got: list[_T] = []
            failed: list[BaseException] = []

            def work() -> None:
                try:
                    got.append(run(proxy, app))
                except BaseException as e:
                    failed.append(e)

            th = threading.Thread(target=work)
            th.start()
            with psycopg.connect(DSN, autocommit=True) as admin:
                # The statement is done, and committed (autocommit), when
                # its backend is idle again after running it.
                for _ in range(4000):
                    row = admin.execute(
                        "select 1 from pg_stat_activity where application_name = %s and state = 'idle' and query like %s",
                        (app, f"%{fn}%"),
                    ).fetchone()
                    if row is not None:
                        break
                    time.sleep(0.005)
                else:
                    proxy.close()
                    th.join(30)
                    self.fail(f"{fn} never committed")
            proxy.drop()
            th.join(30)
            self.assertFalse(th.is_alive(), "the call did not come back")
            self.assertEqual(failed, [])
            return got[0]
        finally:
            proxy.close()

    def setUp(self) -> None:
        import psycopg

        self.t = tenant()
        self.admin = psycopg.connect(DSN, autocommit=True)
        self.addCleanup(self.admin.close)
        self.book = PostgresBook(self.admin, self.t)
        self.assertEqual(self.book.call("restock.do", RESTOCK, ["d0", "A", 10]), DONE)

    def test_refused_call_sent_again(self) -> None:
        """A hold the shelf's bound refuses: sent again, refused for
        sold_out as at first, not already_refused."""
        r = self.lost_after_commit("reserve_stock_hold", lambda b: b.call("reserve_stock.hold", HOLD, ["o1", "A", 11]), self.t)
        self.assertEqual((r.result, r.reason, r.resent), ("refused", "sold_out", True))
        # A call of its own with the same arguments is a second call.
        self.assertEqual(self.book.call("reserve_stock.hold", HOLD, ["o1", "A", 11]), refused("already_refused"))

    def test_done_call_sent_again(self) -> None:
        r = self.lost_after_commit("reserve_stock_hold", lambda b: b.call("reserve_stock.hold", HOLD, ["o1", "A", 3]), self.t)
        self.assertEqual((r.result, r.reason, r.resent), ("done", None, True))
        self.assertEqual(self.book.call("reserve_stock.hold", HOLD, ["o1", "A", 3]), DONE_BEFORE)
        self.assertEqual(self.book.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 3))

    def test_async_calls_sent_again(self) -> None:
        """AsyncPostgresBook over AsyncConnectionPool: a refused call, a
        done one and a bulk's, each whose answer is lost, answer as at
        first."""
        r = self.lost_after_commit_async(
            "reserve_stock_hold", lambda b: b.call("reserve_stock.hold", HOLD, ["o1", "A", 11]), self.t
        )
        self.assertEqual((r.result, r.reason, r.resent), ("refused", "sold_out", True))
        r = self.lost_after_commit_async(
            "reserve_stock_hold", lambda b: b.call("reserve_stock.hold", HOLD, ["o2", "A", 3]), self.t
        )
        self.assertEqual((r.result, r.reason, r.resent), ("done", None, True))

        async def bulk(b: AsyncPostgresBook) -> list[object]:
            return list(await b.bulk([b.make_call("reserve_stock.hold", HOLD, lambda: ["o3", "A", 2])]))

        got = self.lost_after_commit_async("reserve_stock_hold", bulk, self.t)
        self.assertEqual([(getattr(g, "result", g), getattr(g, "resent", None)) for g in got], [("done", True)])
        self.assertEqual(self.book.call("reserve_stock.hold", HOLD, ["o1", "A", 11]), refused("already_refused"))
        self.assertEqual(self.book.call("reserve_stock.hold", HOLD, ["o2", "A", 3]), DONE_BEFORE)
        self.assertEqual(self.book.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 5))

    def test_bulk_call_sent_again_alone(self) -> None:
        """Over a pool a bulk's calls go one by one; the one whose answer
        is lost goes again with the id the bulk gave it."""
        def send(b: PostgresBook) -> list[object]:
            return list(b.bulk([
                b.make_call("reserve_stock.hold", HOLD, lambda: ["o1", "A", 3]),
                b.make_call("reserve_stock.hold", HOLD, lambda: ["o2", "A", 2]),
            ]))

        got = self.lost_after_commit("reserve_stock_hold", send, self.t)
        self.assertEqual([(getattr(r, "result", r), getattr(r, "resent", None)) for r in got],
                         [("done", True), ("done", False)])
        self.assertEqual(self.book.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 5))

    def test_expire_sent_again(self) -> None:
        """An expire whose answer is lost, sent again, answers how many
        holds its first sending gave back, and gives back no more than its
        max in all."""
        for order in ("o1", "o2", "o3"):
            self.assertEqual(self.book.call("reserve_stock.hold", HOLD, [order, "A", 2]), DONE)
        # Every hold already past its deadline, any tenant's, is given back
        # first, so that the expire under test finds only these three.
        self.book.expire(EXPIRE, 2**31 - 1)
        self.admin.execute(
            f"update {S}.keys set deadline = clock_timestamp() - interval '1 second' where tenant = %s and op = 'hold'",
            (self.t,),
        )
        n = self.lost_after_commit("expire", lambda b: b.expire(EXPIRE, 2), self.t)
        self.assertEqual(n, 2)
        self.assertEqual(self.book.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 2), "one hold is left")
        # A call of its own goes on where the first stopped.
        self.assertEqual(self.book.expire(EXPIRE, 2), 1)
        self.assertEqual(self.book.balance("balance.shelf", SHELF, ["A"]), Balance(10, 0, 0))
