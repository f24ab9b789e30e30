"""PostgresBook and AsyncPostgresBook over scripted connections: each
statement is answered with a row, or with an error carrying a SQLSTATE as
psycopg 3 (sqlstate) or psycopg2 (pgcode) would raise it. Every case runs
against both books, which share one implementation and must answer alike."""

from __future__ import annotations

import asyncio
import contextlib
import unittest
import uuid
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Protocol, TypeVar
from unittest import mock

import vectors  # noqa: F401  first: it puts the sources on the path

from chobo import postgres
from chobo.chobo import DONE, DONE_BEFORE, Balance, ChoboError, HoldState, Result, refused
from chobo.postgres import AsyncPostgresBook, PgCall, PostgresBook, retries_of

_T = TypeVar("_T")


class Pg3Error(Exception):
    """An error as psycopg 3 raises it: the SQLSTATE in sqlstate."""

    def __init__(self, sqlstate: str | None, message: str = "server error") -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


class Pg2Error(Exception):
    """An error as psycopg2 raises it: the SQLSTATE in pgcode."""

    def __init__(self, pgcode: str | None, message: str = "server error") -> None:
        super().__init__(message)
        self.pgcode = pgcode


class Script:
    """What the server answers, statement by statement: a row (a tuple, a
    dict, None for no row) or an exception to raise; and what was sent."""

    def __init__(self, *answers: object) -> None:
        self.answers = list(answers)
        self.sent: list[tuple[str, tuple[object, ...]]] = []
        self.opened = 0
        self.closed = 0
        self.ended: list[str] = []  # commit or rollback, which a book must never call

    def answer(self, statement: str, params: Sequence[object]) -> object:
        self.sent.append((statement, tuple(params)))
        if not self.answers:
            raise AssertionError(f"no answer scripted for {statement!r}")
        a = self.answers.pop(0)
        if isinstance(a, BaseException):
            raise a
        return a


class FakeCursor:
    def __init__(self, s: Script) -> None:
        self.s = s
        self.row: object = None
        s.opened += 1

    def execute(self, query: str, params: Sequence[object], /) -> FakeCursor:
        self.row = self.s.answer(query, params)
        return self

    def fetchone(self) -> object:
        return self.row

    def fetchall(self) -> Sequence[object]:
        # A read of many rows is scripted as the list of them.
        assert isinstance(self.row, list), f"a list of rows, not {self.row!r}"
        return self.row

    def close(self) -> None:
        self.s.closed += 1


class FakeConn:
    def __init__(self, s: Script) -> None:
        self.s = s
        self.closed: bool | int = False

    def cursor(self) -> FakeCursor:
        return FakeCursor(self.s)

    def commit(self) -> None:
        self.s.ended.append("commit")
        raise AssertionError("the book committed the caller's connection")

    def rollback(self) -> None:
        self.s.ended.append("rollback")
        raise AssertionError("the book rolled the caller's connection back")


class FakeAsyncCursor:
    def __init__(self, s: Script) -> None:
        self.s = s
        self.row: object = None
        s.opened += 1

    async def execute(self, query: str, params: Sequence[object], /) -> FakeAsyncCursor:
        await asyncio.sleep(0)
        self.row = self.s.answer(query, params)
        return self

    async def fetchone(self) -> object:
        return self.row

    async def fetchall(self) -> Sequence[object]:
        assert isinstance(self.row, list), f"a list of rows, not {self.row!r}"
        return self.row

    async def close(self) -> None:
        self.s.closed += 1


class FakeAsyncConn:
    def __init__(self, s: Script) -> None:
        self.s = s
        self.closed: bool | int = False

    def cursor(self) -> FakeAsyncCursor:
        return FakeAsyncCursor(self.s)

    async def commit(self) -> None:
        self.s.ended.append("commit")
        raise AssertionError("the book committed the caller's connection")

    async def rollback(self) -> None:
        self.s.ended.append("rollback")
        raise AssertionError("the book rolled the caller's connection back")


class Book(Protocol):
    """Either book, called as if it blocked."""

    def call(self, where: str, statement: str, values: Sequence[object]) -> Result: ...

    def status(self, where: str, statement: str, values: Sequence[object]) -> HoldState | None: ...

    def balance(self, where: str, statement: str, values: Sequence[object]) -> Balance: ...

    def expire(self, statement: str, max: Any) -> int: ...


class Awaited:
    """AsyncPostgresBook with each call run to its end in a loop of its own."""

    def __init__(self, b: AsyncPostgresBook) -> None:
        self.b = b

    @staticmethod
    def run(c: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run(c)

    def call(self, where: str, statement: str, values: Sequence[object]) -> Result:
        return self.run(self.b.call(where, statement, values))

    def status(self, where: str, statement: str, values: Sequence[object]) -> HoldState | None:
        return self.run(self.b.status(where, statement, values))

    def balance(self, where: str, statement: str, values: Sequence[object]) -> Balance:
        return self.run(self.b.balance(where, statement, values))

    def expire(self, statement: str, max: Any) -> int:
        return self.run(self.b.expire(statement, max))


CALL = "select result, reason from b.t_do(%s, %s, %s, %s::pg_catalog.uuid)"


def call_id(test: unittest.TestCase, params: Sequence[object]) -> str:
    """The call id a statement went with, its last value: a version 4
    UUID in its lowercase text form."""
    v = params[-1]
    test.assertIsInstance(v, str)
    assert isinstance(v, str)
    u = uuid.UUID(v)
    test.assertEqual((str(u), u.version), (v, 4))
    return v


class _Cases:
    """Holds the cases out of the module's namespace, so that only the sync
    and async classes below run them."""

    class PostgresCases(unittest.TestCase):
        is_async = False

        def book(self, s: Script, tenant: str = "acme") -> Book:
            raise NotImplementedError

        def setUp(self) -> None:
            self.pauses: list[float] = []

            def pause(seconds: float) -> None:
                self.pauses.append(seconds)

            async def pause_async(seconds: float) -> None:
                self.pauses.append(seconds)

            for p in (mock.patch.object(postgres, "_pg_pause", pause),
                      mock.patch.object(postgres, "_pg_pause_async", pause_async)):
                p.start()
                self.addCleanup(p.stop)

        def ran(self, s: Script, n: int) -> None:
            """n statements went out, each through a cursor closed after it,
            and the caller's transaction was left to the caller."""
            self.assertEqual(len(s.sent), n)
            self.assertEqual((s.opened, s.closed), (n, n))
            self.assertEqual(s.ended, [])

        def fails(self, f: Callable[[], object], code: str) -> ChoboError:
            with self.assertRaises(ChoboError) as cm:
                f()
            self.assertEqual(cm.exception.code, code, str(cm.exception))
            return cm.exception

        def test_answers(self) -> None:
            s = Script(("done", None), ("done_before", None), ("refused", "sold_out"), {"result": "done", "reason": None})
            b = self.book(s)
            self.assertEqual(b.call("t.do", CALL, ["k1", 5]), DONE)
            self.assertEqual(b.call("t.do", CALL, ["k1", 5]), DONE_BEFORE)
            self.assertEqual(b.call("t.do", CALL, ["k2", 500]), refused("sold_out"))
            self.assertEqual(b.call("t.do", CALL, ["k3", 1]), DONE, "a dict row is read in column order")
            self.assertEqual(s.sent[0][0], CALL)
            self.assertEqual(s.sent[0][1][:-1], ("acme", "k1", 5), "the tenant goes first, then the values")
            # and the call id last, a new one for every call, the same
            # arguments or not
            ids = [call_id(self, p) for _, p in s.sent]
            self.assertEqual(len(set(ids)), 4, ids)
            self.ran(s, 4)

        def test_unexpected_answers(self) -> None:
            s = Script(None, ("refused", None), ("maybe", None), ())
            b = self.book(s)
            self.assertIn("answered no row", str(self.fails(lambda: b.call("t.do", CALL, ["k", 1]), "CHOBO_UNEXPECTED")))
            self.assertIn("without a reason", str(self.fails(lambda: b.call("t.do", CALL, ["k", 1]), "CHOBO_UNEXPECTED")))
            self.fails(lambda: b.call("t.do", CALL, ["k", 1]), "CHOBO_UNEXPECTED")
            self.fails(lambda: b.call("t.do", CALL, ["k", 1]), "CHOBO_UNEXPECTED")
            self.ran(s, 4)

        def test_status(self) -> None:
            s = Script(("held",), (None,), ("expired",), ("lost",))
            b = self.book(s)
            st = "select b.t_status(%s, %s)"
            self.assertEqual(b.status("t.status", st, ["k"]), "held")
            self.assertIsNone(b.status("t.status", st, ["k"]))
            self.assertEqual(b.status("t.status", st, ["k"]), "expired")
            self.fails(lambda: b.status("t.status", st, ["k"]), "CHOBO_UNEXPECTED")
            self.assertEqual(s.sent[0], (st, ("acme", "k")))
            self.ran(s, 4)

        def test_balance(self) -> None:
            s = Script((7, 2, 3), (-5, "0", 0), (1, 2.5, 3))
            b = self.book(s, tenant="")
            st = "select posted, held_in, held_out from b.balance_shelf(%s, %s)"
            self.assertEqual(b.balance("balance.shelf", st, ["sku"]), Balance(7, 2, 3))
            self.assertEqual(b.balance("balance.shelf", st, ["sku"]), Balance(-5, 0, 0))
            self.fails(lambda: b.balance("balance.shelf", st, ["sku"]), "CHOBO_UNEXPECTED")
            self.assertEqual(s.sent[0], (st, ("", "sku")))
            self.ran(s, 3)

        def test_expire(self) -> None:
            s = Script((3,), (0,), (5,))
            b = self.book(s)
            st = "select b.expire(%s::integer, %s::pg_catalog.uuid)"
            self.assertEqual(b.expire(st, 100), 3)
            self.assertEqual(b.expire(st, 0), 0)
            self.assertEqual(b.expire(st, 2**31 - 1), 5)
            self.assertEqual([(q, p[:-1]) for q, p in s.sent], [(st, (100,)), (st, (0,)), (st, (2**31 - 1,))],
                             "expire takes max and its call id, no tenant")
            self.assertEqual(len({call_id(self, p) for _, p in s.sent}), 3)
            # max is an integer of PostgreSQL's, 32 bits: a larger one
            # would find no function to call.
            for bad in (-1, 2**31, 2**63, True, "3", 2.0, None):
                with self.subTest(max=bad):
                    self.fails(lambda: b.expire(st, bad), "CHOBO_BAD_ARGUMENT")
            self.ran(s, 3)

        def test_retry_then_success(self) -> None:
            before = (retries_of("40001"), retries_of("40P01"))
            s = Script(Pg3Error("40001"), Pg2Error("40P01"), Pg3Error("40001"), ("done", None))
            b = self.book(s)
            self.assertEqual(b.call("t.do", CALL, ["k", 1]), DONE)
            self.ran(s, 4)
            self.assertEqual(len(set(s.sent)), 1, "every attempt sends the same statement, with the same call id")
            self.assertEqual((retries_of("40001"), retries_of("40P01")), (before[0] + 2, before[1] + 1))
            self.assertEqual(len(self.pauses), 3)
            for n, p in enumerate(self.pauses):
                self.assertTrue(0 <= p <= postgres.backoff(n) / 1000, (n, p))
            self.assertEqual(retries_of("23505"), 0)

        def test_call_ids(self) -> None:
            """Every attempt of a call goes with the call's id, expire's
            too; every call has an id of its own; status and balance take
            none."""
            st_expire = "select b.expire(%s::integer, %s::pg_catalog.uuid)"
            st_status = "select b.t_status(%s, %s)"
            st_balance = "select posted, held_in, held_out from b.balance_a(%s, %s)"
            s = Script(Pg3Error("40001"), Pg2Error("40P01"), ("done", None), ("done_before", None),
                       Pg3Error("40001"), (2,), (0,), ("held",), (1, 0, 0))
            b = self.book(s)
            self.assertEqual(b.call("t.do", CALL, ["k", 1]), DONE)
            self.assertEqual(b.call("t.do", CALL, ["k", 1]), DONE_BEFORE)
            self.assertEqual(b.expire(st_expire, 10), 2)
            self.assertEqual(b.expire(st_expire, 10), 0)
            self.assertEqual(b.status("t.status", st_status, ["k"]), "held")
            self.assertEqual(b.balance("balance.a", st_balance, ["x"]), Balance(1, 0, 0))
            ids = [call_id(self, p) for _, p in s.sent[:7]]
            self.assertEqual(ids[0], ids[1])
            self.assertEqual(ids[1], ids[2])
            self.assertEqual(ids[4], ids[5])
            self.assertEqual(len({ids[0], ids[3], ids[4], ids[6]}), 4, ids)
            self.assertEqual(s.sent[7:], [(st_status, ("acme", "k")), (st_balance, ("acme", "x"))])
            self.ran(s, 9)

        def test_attempts_run_out(self) -> None:
            errs = [Pg3Error("40001", f"attempt {i}") for i in range(postgres.MAX_ATTEMPTS)]
            s = Script(*errs)
            b = self.book(s)
            with self.assertRaises(Pg3Error) as cm:
                b.call("t.do", CALL, ["k", 1])
            self.assertIs(cm.exception, errs[-1], "the last error goes out as the driver raised it")
            self.ran(s, postgres.MAX_ATTEMPTS)
            self.assertEqual(len(self.pauses), postgres.MAX_ATTEMPTS - 1)

        def test_failed_transaction_raises_the_first_error(self) -> None:
            first = Pg3Error("40001", "could not serialize access")
            s = Script(first, Pg3Error("25P02", "current transaction is aborted"))
            b = self.book(s)
            with self.assertRaises(Pg3Error) as cm:
                b.call("t.do", CALL, ["k", 1])
            self.assertIs(cm.exception, first)
            self.ran(s, 2)

        def test_failed_transaction_classifies_the_first_error(self) -> None:
            first = Pg2Error("40P01")
            s = Script(first, Pg2Error("25P02"))
            with self.assertRaises(Pg2Error) as cm:
                self.book(s).call("t.do", CALL, ["k", 1])
            self.assertIs(cm.exception, first)
            # A caller's transaction that failed before the book's statement
            # raises the 25P02 itself, the only error there is.
            only = Pg3Error("25P02")
            s = Script(only)
            with self.assertRaises(Pg3Error) as cm3:
                self.book(s).call("t.do", CALL, ["k", 1])
            self.assertIs(cm3.exception, only)
            self.ran(s, 1)

        def test_classified(self) -> None:
            cases: list[tuple[Exception, str]] = [
                (Pg3Error("CB001", "bounds"), "CHOBO_BOUNDS_CHANGED"),
                (Pg2Error("CB001", "bounds"), "CHOBO_BOUNDS_CHANGED"),
                (Pg3Error("22023", "invalid parameter"), "CHOBO_BAD_CALL"),
                (Pg2Error("22P02", "invalid text"), "CHOBO_BAD_CALL"),
                (Pg3Error("22004", "null value"), "CHOBO_BAD_CALL"),
            ]
            for err, code in cases:
                with self.subTest(err=repr(err)):
                    s = Script(err)
                    e = self.fails(lambda: self.book(s).call("t.do", CALL, ["k", 1]), code)
                    self.assertIs(e.__cause__, err)
                    self.assertTrue(str(e).startswith("chobo: t.do: "), str(e))
                    self.assertIn(str(err), str(e))
                    self.ran(s, 1)
            # A class 22 error after a retry is classified too.
            s = Script(Pg3Error("40001"), Pg3Error("22003"))
            self.fails(lambda: self.book(s).call("t.do", CALL, ["k", 1]), "CHOBO_BAD_CALL")
            # CB001 as the first error of a failed transaction.
            s = Script(Pg3Error("CB001"), Pg3Error("25P02"))
            self.fails(lambda: self.book(s).call("t.do", CALL, ["k", 1]), "CHOBO_BOUNDS_CHANGED")

        def test_other_errors_unchanged(self) -> None:
            cases: list[Exception] = [
                Pg3Error("23505", "unique violation"), Pg2Error("42883", "no such function"),
                Pg3Error(None, "connection lost"), Pg3Error("22", "too short for a SQLSTATE"),
                Pg2Error("cb001", "lower case is no SQLSTATE"), OSError("socket closed"),
            ]
            for err in cases:
                with self.subTest(err=repr(err)):
                    s = Script(err)
                    with self.assertRaises(type(err)) as cm:
                        self.book(s).call("t.do", CALL, ["k", 1])
                    self.assertIs(cm.exception, err)
                    self.ran(s, 1)
            self.assertEqual(self.pauses, [])

        def test_connection_lost(self) -> None:
            class OperationalError(Exception):
                """As psycopg and psycopg2 name what a broken connection raises."""

            class InternalError(Exception):
                """As psycopg names answers that do not match what was sent."""

            cases: list[Exception] = [
                OperationalError("server closed the connection unexpectedly"),
                Pg3Error("57P01", "terminating connection due to administrator command"),
                Pg2Error("08006", "connection failure"),
                # PgBouncer, when the server went away while the statement was out.
                Pg3Error("08P01", "server conn crashed?"),
                # psycopg, when a server behind PgBouncer ended the session
                # before the pool's COMMIT was answered.
                InternalError("received 2 results from command 'COMMIT'"),
            ]
            for err in cases:
                with self.subTest(err=repr(err)):
                    s = Script(err, ("done", None))
                    e = self.fails(lambda: self.book(s).call("t.do", CALL, ["k", 1]), "CHOBO_OUTCOME_UNKNOWN")
                    self.assertIs(e.__cause__, err)
                    self.assertIn("may or may not have been applied", str(e))
                    self.ran(s, 1)
            # A statement the server cancelled is its answer, not a lost connection.
            s = Script(Pg3Error("57014", "canceling statement due to statement timeout"))
            with self.assertRaises(Pg3Error):
                self.book(s).call("t.do", CALL, ["k", 1])
            self.assertEqual(self.pauses, [])

        def test_pooler_reached_no_server(self) -> None:
            # PgBouncer's errors (08P01) for a statement it held while no
            # server connection could be had: it never reached a server.
            cases: list[Exception] = [
                Pg3Error("08P01", "pgbouncer cannot connect to server"),
                Pg3Error("08P01", "server login has been failing, try again later (server_login_retry)"),
                Pg2Error("08P01", "FATAL:  query_wait_timeout\n"),
            ]
            for err in cases:
                with self.subTest(err=repr(err)):
                    s = Script(err, ("done", None))
                    e = self.fails(lambda: self.book(s).call("t.do", CALL, ["k", 1]), "CHOBO_NOT_SENT")
                    self.assertIs(e.__cause__, err)
                    self.ran(s, 1)

        def test_closed_connection_sends_nothing(self) -> None:
            for closed in (True, 2):
                with self.subTest(closed=closed):
                    s = Script(("done", None))
                    b: Book
                    if self.is_async:
                        ac = FakeAsyncConn(s)
                        ac.closed = closed
                        b = Awaited(AsyncPostgresBook(ac))
                    else:
                        c = FakeConn(s)
                        c.closed = closed
                        b = PostgresBook(c)
                    self.fails(lambda: b.call("t.do", CALL, ["k", 1]), "CHOBO_NOT_SENT")
                    self.ran(s, 0)

        def test_checks_before_sending(self) -> None:
            s = Script()
            b = self.book(s)
            self.fails(lambda: b.call("t.do", CALL, ["x" * 3000, 1]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: b.status("t.status", CALL, ["x" * 3000]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: b.balance("balance.a", CALL, ["x" * 3000]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: self.book(s, tenant="t" * 257).call("t.do", CALL, ["k", 1]), "CHOBO_BAD_ARGUMENT")
            self.ran(s, 0)

        def test_constructor_checks(self) -> None:
            s = Script()
            self.fails(lambda: self.book(s, tenant="a\x00b"), "CHOBO_BAD_ARGUMENT")
            cls = AsyncPostgresBook if self.is_async else PostgresBook
            for conn in (None, "dsn=...", object()):
                with self.subTest(conn=repr(conn)):
                    self.fails(lambda: cls(conn, ""), "CHOBO_BAD_ARGUMENT")  # type: ignore[arg-type]
            self.fails(lambda: cls(FakeConn(s), 7), "CHOBO_BAD_ARGUMENT")  # type: ignore[arg-type]


class PostgresBookTest(_Cases.PostgresCases):
    def book(self, s: Script, tenant: str = "acme") -> Book:
        return PostgresBook(FakeConn(s), tenant)

    def test_async_connection_refused(self) -> None:
        s = Script(("done", None))
        b = PostgresBook(FakeAsyncConn(s), "")  # type: ignore[arg-type]
        self.fails(lambda: b.call("t.do", CALL, ["k", 1]), "CHOBO_BAD_ARGUMENT")
        self.assertEqual(s.sent, [], "nothing was sent")


class AsyncPostgresBookTest(_Cases.PostgresCases):
    is_async = True

    def book(self, s: Script, tenant: str = "acme") -> Book:
        return Awaited(AsyncPostgresBook(FakeAsyncConn(s), tenant))

    def test_sync_connection_refused(self) -> None:
        s = Script(("done", None))
        b = Awaited(AsyncPostgresBook(FakeConn(s), ""))  # type: ignore[arg-type]
        self.fails(lambda: b.call("t.do", CALL, ["k", 1]), "CHOBO_BAD_ARGUMENT")
        self.assertEqual(s.sent, [], "nothing was sent")

    def test_concurrent_calls(self) -> None:
        """Calls awaited together each run their own statements and retries."""
        s = Script(Pg3Error("40001"), ("done", None), ("refused", "r"), ("done_before", None))
        b = AsyncPostgresBook(FakeAsyncConn(s), "t")

        async def both() -> list[Result]:
            return list(await asyncio.gather(b.call("a", CALL, ["1"]), b.call("b", CALL, ["2"]),
                                             b.call("c", CALL, ["3"])))

        got = asyncio.run(both())
        self.assertEqual(len(s.sent), 4)
        self.assertEqual(sorted(r.result for r in got), ["done", "done_before", "refused"])


if __name__ == "__main__":
    unittest.main()


class OperationalError(Exception):
    """As psycopg and psycopg2 name what a broken connection raises."""


class FakePool:
    """A pool that lends FakeConn over one script, committing at the end of
    a lending and rolling back on an error, as psycopg_pool's does; each
    entry of refusals, while any is left, fails a lending instead."""

    def __init__(self, s: Script, refusals: int = 0) -> None:
        self.s, self.refusals, self.ends = s, refusals, []  # type: ignore[var-annotated]

    def connection(self) -> Any:
        pool = self

        class Lending:
            def __enter__(self) -> FakeConn:
                if pool.refusals > 0:
                    pool.refusals -= 1
                    raise OperationalError("connection refused")
                return FakeConn(pool.s)

            def __exit__(self, t: Any, e: Any, tb: Any) -> None:
                pool.ends.append("rollback" if e is not None else "commit")

            async def __aenter__(self) -> FakeAsyncConn:
                if pool.refusals > 0:
                    pool.refusals -= 1
                    raise OperationalError("connection refused")
                return FakeAsyncConn(pool.s)

            async def __aexit__(self, t: Any, e: Any, tb: Any) -> None:
                self.__exit__(t, e, tb)

        return Lending()


class PoolTest(unittest.TestCase):
    def setUp(self) -> None:
        for p in (mock.patch.object(postgres, "_pg_pause", lambda s: None),
                  mock.patch.object(postgres, "_pg_pause_async", mock.AsyncMock())):
            p.start()
            self.addCleanup(p.stop)

    def both(self, pool: FakePool, resend_for: float = 30.0) -> list[Callable[[], Result]]:
        sync = PostgresBook(pool, "acme", resend_for)
        asy = AsyncPostgresBook(pool, "acme", resend_for)
        return [lambda: sync.call("t.do", CALL, ["k", 1]), lambda: asyncio.run(asy.call("t.do", CALL, ["k", 1]))]

    def test_lost_call_goes_again_on_another_connection(self) -> None:
        for i in range(2):
            with self.subTest(book=["sync", "async"][i]):
                pool = FakePool(Script(OperationalError("server closed the connection unexpectedly"), ("done_before", None)))
                r = self.both(pool)[i]()
                self.assertEqual((r.result, r.resent), ("done_before", True))
                self.assertEqual(pool.ends, ["rollback", "commit"])
                self.assertEqual(len(pool.s.sent), 2)

    def test_a_lending_refused_is_not_sent_and_goes_again(self) -> None:
        for i in range(2):
            with self.subTest(book=["sync", "async"][i]):
                pool = FakePool(Script(("done", None)), refusals=2)
                r = self.both(pool)[i]()
                self.assertEqual((r, r.resent), (DONE, False))
                self.assertEqual(len(pool.s.sent), 1)

    def test_resend_for_zero_raises_at_once(self) -> None:
        for i in range(2):
            with self.subTest(book=["sync", "async"][i]):
                pool = FakePool(Script(OperationalError("gone"), ("done", None)))
                with self.assertRaises(ChoboError) as cm:
                    self.both(pool, 0)[i]()
                self.assertEqual(cm.exception.code, "CHOBO_OUTCOME_UNKNOWN")
                pool = FakePool(Script(("done", None)), refusals=1)
                with self.assertRaises(ChoboError) as cm:
                    self.both(pool, 0)[i]()
                self.assertEqual(cm.exception.code, "CHOBO_NOT_SENT")

    def test_resend_for_is_checked(self) -> None:
        for bad in (-1, float("nan"), "1", True):
            with self.assertRaises(ChoboError):
                PostgresBook(FakePool(Script()), "", bad)  # type: ignore[arg-type]


class FakePipeCursor(FakeCursor):
    def execute(self, query: str, params: Sequence[object], /, prepare: bool | None = None) -> FakePipeCursor:
        self.row = self.s.answer(query, params)
        return self


class FakePipeConn(FakeConn):
    """psycopg 3's connection in autocommit mode, outside a transaction:
    a bulk over it goes in a pipeline, whose statements the script answers
    as they are sent (an error there ends the pipeline)."""

    autocommit = True
    prepare_threshold = 5

    class info:
        transaction_status = 0

    def cursor(self) -> FakePipeCursor:
        return FakePipeCursor(self.s)

    @contextlib.contextmanager
    def pipeline(self) -> Any:
        self.s.ended.append("pipeline")
        yield


class FakeAsyncPipeCursor(FakeAsyncCursor):
    async def execute(self, query: str, params: Sequence[object], /, prepare: bool | None = None) -> FakeAsyncPipeCursor:
        await asyncio.sleep(0)
        self.row = self.s.answer(query, params)
        return self


class FakeAsyncPipeConn(FakeAsyncConn):
    """FakePipeConn, async."""

    autocommit = True
    prepare_threshold = 5

    class info:
        transaction_status = 0

    def cursor(self) -> FakeAsyncPipeCursor:
        return FakeAsyncPipeCursor(self.s)

    @contextlib.asynccontextmanager
    async def pipeline(self) -> Any:
        self.s.ended.append("pipeline")
        yield


class CallIdTest(unittest.TestCase):
    """The call id each call of a bulk, and each call over a pool, goes
    with: the same for every sending of one call, another for each call."""

    def setUp(self) -> None:
        for p in (mock.patch.object(postgres, "_pg_pause", lambda s: None),
                  mock.patch.object(postgres, "_pg_pause_async", mock.AsyncMock())):
            p.start()
            self.addCleanup(p.stop)

    def ids(self, s: Script) -> list[str]:
        return [call_id(self, p) for _, p in s.sent]

    def test_bulk_call_sent_again_alone_keeps_its_id(self) -> None:
        """The pipeline fails, the server undid it whole, and its calls go
        again alone, each with the id it had in the pipeline."""
        for is_async in (False, True):
            with self.subTest(book=["sync", "async"][is_async]):
                s = Script(("done", None), Pg3Error("40001"), ("done", None), ("done", None))
                if is_async:
                    ab = AsyncPostgresBook(FakeAsyncPipeConn(s), "acme")
                    calls = [ab.make_call("t.do", CALL, lambda: ["k1", 1]), ab.make_call("t.do", CALL, lambda: ["k2", 1])]
                    got = asyncio.run(ab.bulk(calls))
                else:
                    b = PostgresBook(FakePipeConn(s), "acme")
                    calls = [b.make_call("t.do", CALL, lambda: ["k1", 1]), b.make_call("t.do", CALL, lambda: ["k2", 1])]
                    got = b.bulk(calls)
                self.assertEqual(got, [DONE, DONE])
                self.assertEqual(s.ended, ["pipeline"], "the calls went in a pipeline first")
                self.assertEqual([p[1] for _, p in s.sent], ["k1", "k2", "k1", "k2"])
                ids = self.ids(s)
                self.assertEqual((ids[2], ids[3]), (ids[0], ids[1]))
                self.assertNotEqual(ids[0], ids[1])

    def test_a_call_taken_twice_is_two_calls(self) -> None:
        """One PgCall in two bulks, or twice in one, goes with a new id
        each time; a status and a call the client refused take none."""
        s = Script(("done", None), ("done_before", None), ("held",), ("done_before", None))
        b = PostgresBook(FakePipeConn(s), "acme")
        c = b.make_call("t.do", CALL, lambda: ["k", 1])
        st = b.make_call("t.status", "select b.t_status(%s, %s)", lambda: ["k"], True)
        bad = b.make_call("t.do", CALL, lambda: ["x" * 3000, 1])
        self.assertEqual(b.bulk([c, c, st, bad])[:3], [DONE, DONE_BEFORE, "held"])
        self.assertEqual(b.bulk([c])[0], DONE_BEFORE)
        self.assertEqual(s.sent[2], ("select b.t_status(%s, %s)", ("acme", "k")))
        ids = [call_id(self, s.sent[i][1]) for i in (0, 1, 3)]
        self.assertEqual(len(set(ids)), 3, ids)
        self.assertEqual(c.params, ("acme", "k", 1), "the PgCall keeps no id")

    def test_lost_call_goes_again_with_its_id(self) -> None:
        """Over a pool, a call, expire and a bulk's call whose connection
        was lost go again on another with the ids they went with."""
        expire = "select b.expire(%s::integer, %s::pg_catalog.uuid)"
        for is_async in (False, True):
            with self.subTest(book=["sync", "async"][is_async]):
                lost = OperationalError("server closed the connection unexpectedly")
                pool = FakePool(Script(lost, ("done", None), ("done", None), lost, (2,), (0,),
                                       lost, ("done", None), ("done", None)))
                calls: list[PgCall]
                if is_async:
                    ab = AsyncPostgresBook(pool, "acme")
                    r1 = asyncio.run(ab.call("t.do", CALL, ["k", 1]))
                    r2 = asyncio.run(ab.call("t.do", CALL, ["k", 1]))
                    n1 = asyncio.run(ab.expire(expire, 5))
                    n2 = asyncio.run(ab.expire(expire, 5))
                    calls = [ab.make_call("t.do", CALL, lambda: ["k1", 1]), ab.make_call("t.do", CALL, lambda: ["k2", 1])]
                    got = asyncio.run(ab.bulk(calls))
                else:
                    b = PostgresBook(pool, "acme")
                    r1 = b.call("t.do", CALL, ["k", 1])
                    r2 = b.call("t.do", CALL, ["k", 1])
                    n1, n2 = b.expire(expire, 5), b.expire(expire, 5)
                    calls = [b.make_call("t.do", CALL, lambda: ["k1", 1]), b.make_call("t.do", CALL, lambda: ["k2", 1])]
                    got = b.bulk(calls)
                self.assertEqual(((r1.result, r1.resent), (r2.result, r2.resent)), (("done", True), ("done", False)))
                self.assertEqual((n1, n2), (2, 0))
                self.assertEqual([(getattr(r, "result", r), getattr(r, "resent", r)) for r in got],
                                 [("done", True), ("done", False)])
                ids = self.ids(pool.s)
                self.assertEqual(ids[0], ids[1], "the call went again with its id")
                self.assertEqual(ids[3], ids[4], "expire went again with its id")
                self.assertEqual(ids[6], ids[7], "the bulk's call went again with its id")
                self.assertEqual(len({ids[0], ids[2], ids[3], ids[5], ids[6], ids[8]}), 6, ids)
