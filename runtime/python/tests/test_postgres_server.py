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
from collections.abc import Sequence
from typing import Any

import vectors  # noqa: F401  first: it puts the sources on the path

from chobo.chobo import DONE, DONE_BEFORE, Balance, ChoboError, refused
from chobo.postgres import AsyncPostgresBook, PgCall, PostgresBook, pipelined

DSN = os.environ.get("CHOBO_PG_DSN", "")
SQL = (Path(__file__).resolve().parents[3] / "tests" / "testdata" / "stock_reservation" / "expected" / "postgres"
       / "stock_reservation.sql")

S = '"stock_reservation"'
RESTOCK = f"select result, reason from {S}.\"restock_do\"(%s, %s, %s, %s)"
HOLD = f"select result, reason from {S}.\"reserve_stock_hold\"(%s, %s, %s, %s)"
POST = f"select result, reason from {S}.\"reserve_stock_post\"(%s, %s, %s, %s)"
VOID = f"select result, reason from {S}.\"reserve_stock_void\"(%s, %s, %s)"
STATUS = f"select {S}.\"reserve_stock_status\"(%s, %s, %s)"
SHELF = f"select posted, held_in, held_out from {S}.\"balance_shelf\"(%s, %s)"
SHOPPERS = f"select posted, held_in, held_out from {S}.\"balance_shoppers\"(%s)"
EXPIRE = f"select {S}.expire(%s)"

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
