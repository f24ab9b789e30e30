"""The history reads of PostgresBook and AsyncPostgresBook over scripted
connections: what each read sends, how its rows become entries, open holds
and balances, and the queries refused before anything is sent. The reads of
a TigerBeetle book raise CHOBO_UNSUPPORTED."""

from __future__ import annotations

import asyncio
import unittest
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any, cast

import vectors  # noqa: F401  first: it puts the sources on the path
from test_postgres import FakeAsyncConn, FakeConn, Script

from chobo.chobo import Balance, ChoboError, Entry, HoldMove, OpenHold, Statement, StatementQuery
from chobo.postgres import AsyncPostgresBook, PgCallNames, PgHistory, PostgresBook

H = PgHistory(
    statement="STATEMENT",
    call="CALL",
    open_holds="HOLDS",
    balance_at="AT",
    transfers={
        "top_up": PgCallNames(args=("top_up_id", "card", "amount"), key=("top_up_id",), amounts=("amount",)),
        "payment": PgCallNames(args=("payment_id", "card", "price", "fee"), key=("payment_id",), amounts=("price", "fee")),
    },
)

T0 = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)
# psycopg hands a timestamptz over in the session's zone.
T0_TOKYO = T0.astimezone(timezone(timedelta(hours=9)))


def row(cursor: int, kind: str, op: str, key: list[str], args: list[str], move: int = 1, out: bool = True,
        account: str = "wallet", account_args: list[str] | None = None, amounts: tuple[int, int, int] = (0, 0, 0),
        after: tuple[int, int, int] | None = (0, 0, 0), at: datetime = T0_TOKYO) -> tuple[object, ...]:
    a = (None, None, None) if after is None else after
    return (cursor, kind, op, key, args, move, out, account, ["c-1"] if account_args is None else account_args,
            *amounts, *a, at)


class Both:
    """Runs a read on the sync book and on the async one, each over its own
    copy of a script, and checks both answer and send alike."""

    def __init__(self, test: unittest.TestCase, *answers: object) -> None:
        self.test = test
        self.answers = answers
        self.scripts: list[Script] = []

    def run(self, read: Callable[[Any], Any]) -> Any:
        s1, s2 = Script(*self.answers), Script(*self.answers)
        self.scripts = [s1, s2]
        got = read(PostgresBook(FakeConn(s1), "acme"))
        got_async = asyncio.run(read(AsyncPostgresBook(FakeAsyncConn(s2), "acme")))
        self.test.assertEqual(got, got_async)
        self.test.assertEqual(s1.sent, s2.sent)
        return got

    def fails(self, read: Callable[[Any], Any]) -> ChoboError:
        """Both books raise CHOBO_BAD_ARGUMENT and send nothing."""
        errs = []
        for b, is_async in ((PostgresBook(FakeConn(Script()), "acme"), False),
                            (AsyncPostgresBook(FakeAsyncConn(Script()), "acme"), True)):
            with self.test.assertRaises(ChoboError) as cm:
                r = read(b)
                if is_async:
                    asyncio.run(r)
            self.test.assertEqual(cm.exception.code, "CHOBO_BAD_ARGUMENT", str(cm.exception))
            errs.append(cm.exception)
        return errs[0]

    @property
    def sent(self) -> list[tuple[str, tuple[object, ...]]]:
        return self.scripts[0].sent


class StatementTest(unittest.TestCase):
    def test_rows_become_entries(self) -> None:
        rows = [
            row(1, "top_up", "do", ["t-1"], ["t-1", "c-1", "500"], move=1, out=False, amounts=(500, 0, 0),
                after=(500, 0, 0)),
            row(2, "payment", "hold", ["p-1"], ["p-1", "c-1", "120", "5"], move=1, amounts=(0, 0, 120),
                after=(500, 0, 120)),
            row(3, "payment", "post", ["p-1"], ["p-1", "100", "5"], move=1, amounts=(-100, 0, -120),
                after=(400, 0, 0)),
            row(4, "payment", "post", ["p-2"], ["p-2"], move=2, amounts=(-5, 0, -5), after=(395, 0, 0)),
            row(5, "payment", "expire", ["p-3"], ["p-3"], move=1, amounts=(0, 0, -7), after=None),
        ]
        b = Both(self, rows)
        st = b.run(lambda book: book.statement("statement.wallet", H, "wallet", ["c-1"], None))
        self.assertIsInstance(st, Statement)
        self.assertEqual(len(st.entries), 5)
        self.assertFalse(st.more)
        self.assertEqual(st.next, "5", "the last entry's cursor")
        e: Entry = st.entries[0]
        self.assertEqual((e.transfer, e.op, e.key, e.move, e.out, e.account, e.account_args, e.id),
                         ("top_up", "do", ("t-1",), 1, False, "wallet", ("c-1",), ""))
        self.assertEqual(dict(e.args or {}), {"top_up_id": "t-1", "card": "c-1", "amount": "500"})
        self.assertEqual((e.posted, e.held_in, e.held_out, e.after), (500, 0, 0, Balance(500, 0, 0)))
        self.assertEqual(e.at, T0)
        self.assertEqual(e.at.utcoffset(), timedelta(0), "times are in UTC")
        self.assertEqual(len({hash(x) for x in st.entries}), 5, "entries are hashable, as every answer is")
        with self.assertRaises(TypeError):
            e.args["amount"] = "1"  # type: ignore[index]
        self.assertEqual(e.cursor, "1")
        self.assertEqual(dict(st.entries[1].args or {}), {"payment_id": "p-1", "card": "c-1", "price": "120", "fee": "5"})
        self.assertEqual(dict(st.entries[2].args or {}), {"payment_id": "p-1", "price": "100", "fee": "5"},
                         "a post in part: the key and the amounts")
        self.assertEqual(dict(st.entries[3].args or {}), {"payment_id": "p-2"}, "a post in full: the key alone")
        self.assertEqual(st.entries[3].posted, -5)
        self.assertEqual(dict(st.entries[4].args or {}), {"payment_id": "p-3"})
        self.assertIsNone(st.entries[4].after, "no balance after an entry of an account without bounds")
        # What went: tenant, account, values, from, to, kinds, newest,
        # limit + 1, after.
        self.assertEqual(b.sent, [("STATEMENT", ("acme", "wallet", ["c-1"], None, None, None, False, 101, None))])

    def test_query(self) -> None:
        frm = datetime(2026, 1, 1, 9, 0, tzinfo=timezone(timedelta(hours=9)))
        to = datetime(2026, 1, 2, tzinfo=timezone.utc)
        q = StatementQuery(newest=True, from_=frm, to=to, transfers=("payment",), limit=2, after="41")
        rows = [row(40, "payment", "void", ["p-1"], ["p-1"]), row(39, "payment", "void", ["p-2"], ["p-2"]),
                row(38, "payment", "void", ["p-3"], ["p-3"])]
        b = Both(self, rows)
        st = b.run(lambda book: book.statement("statement.wallet", H, "wallet", ["c-1"], q))
        self.assertEqual([e.cursor for e in st.entries], ["40", "39"], "the row past the page is dropped")
        self.assertTrue(st.more)
        self.assertEqual(st.next, "39")
        params = b.sent[0][1]
        # times go as text in UTC, cast by the statement to pg_catalog's
        # timestamptz, so that no driver writes an unqualified cast
        self.assertEqual(params[3], "2026-01-01T00:00:00+00:00")
        self.assertEqual(params[3:], (frm.astimezone(timezone.utc).isoformat(), to.isoformat(), ["payment"], True, 3, 41))

    def test_a_full_page_has_no_more(self) -> None:
        rows = [row(1, "payment", "void", ["p-1"], ["p-1"]), row(2, "payment", "void", ["p-2"], ["p-2"])]
        b = Both(self, rows)
        st = b.run(lambda book: book.statement("s", H, "wallet", ["c-1"], StatementQuery(limit=2)))
        self.assertEqual(([e.cursor for e in st.entries], st.next, st.more), (["1", "2"], "2", False))

    def test_empty_page_keeps_after(self) -> None:
        b = Both(self, [])
        st = b.run(lambda book: book.statement("statement.bank", H, "bank", [], StatementQuery(after="7")))
        self.assertEqual(st, Statement((), "7", False))
        b = Both(self, [])
        st = b.run(lambda book: book.statement("statement.bank", H, "bank", [], StatementQuery()))
        self.assertEqual(st, Statement((), "", False))

    def test_limits(self) -> None:
        for limit, sent in ((0, 101), (1, 2), (1000, 1001)):
            b = Both(self, [])
            b.run(lambda book: book.statement("s", H, "bank", [], StatementQuery(limit=limit)))
            self.assertEqual(b.sent[0][1][7], sent, limit)

    def test_refused_before_sending(self) -> None:
        b = Both(self)
        naive = datetime(2026, 1, 1)
        for q, says in (
            (StatementQuery(limit=1001), "limit is 1001"),
            (StatementQuery(limit=-1), "limit is -1"),
            (StatementQuery(limit=True), "limit must be an int"),
            (StatementQuery(after="x1"), "cursor 'x1'"),
            (StatementQuery(after="-1"), "cursor"),
            (StatementQuery(after="99999999999999999999"), "cursor"),
            (StatementQuery(from_=naive), "naive"),
            (StatementQuery(to=naive), "naive"),
            (StatementQuery(transfers=("refund",)), "no transfer kind 'refund'"),
            (StatementQuery(transfers="payment"), "tuple of transfer kinds"),  # type: ignore[arg-type]
            ("newest", "StatementQuery"),
        ):
            e = b.fails(lambda book: book.statement("statement.wallet", H, "wallet", ["c-1"], q))
            self.assertIn(says, str(e))
            self.assertIn("statement.wallet", str(e))

    def test_unexpected_rows(self) -> None:
        for bad in (row(1, "refund", "do", [], []), row(1, "top_up", "undo", ["t"], ["t"]),
                    row(1, "top_up", "do", ["t"], ["t", "c"])):
            for book in (PostgresBook(FakeConn(Script([bad])), "acme"),):
                with self.assertRaises(ChoboError) as cm:
                    book.statement("s", H, "wallet", ["c-1"], None)
                self.assertEqual(cm.exception.code, "CHOBO_UNEXPECTED")


class EntriesTest(unittest.TestCase):
    def test_entries_of_a_key(self) -> None:
        rows = [row(3, "payment", "hold", ["p-1"], ["p-1", "c-1", "120", "5"], move=1),
                row(9, "payment", "hold", ["p-1"], ["p-1", "c-1", "120", "5"], move=1, out=False, account="merchants",
                    account_args=[], after=None)]
        b = Both(self, rows)
        got = b.run(lambda book: book.entries("payment.entries", H, "payment", ["p-1"]))
        self.assertEqual(b.sent, [("CALL", ("acme", "payment", ["p-1"]))])
        self.assertEqual([(e.account, e.out, e.cursor) for e in got], [("wallet", True, "3"), ("merchants", False, "9")])
        self.assertEqual(got[1].account_args, ())


class OpenHoldsTest(unittest.TestCase):
    def test_moves_of_a_hold_together(self) -> None:
        later = T0 + timedelta(minutes=30)
        rows: list[tuple[object, ...]] = [
            ("payment", ["p-1"], 1, "wallet", ["c-1"], "merchants", [], 120, T0_TOKYO, later),
            ("payment", ["p-1"], 2, "wallet", ["c-1"], "fees", [], 5, T0_TOKYO, later),
            ("payment", ["p-2"], 1, "wallet", ["c-1"], "merchants", [], 7, T0_TOKYO, None),
        ]
        b = Both(self, rows)
        got = b.run(lambda book: book.open_holds("open_holds.wallet", H, "wallet", ["c-1"], None))
        self.assertEqual(b.sent, [("HOLDS", ("acme", "wallet", ["c-1"], None))])
        self.assertEqual(got, [
            OpenHold("payment", ("p-1",), "", (HoldMove(1, "wallet", "merchants", ("c-1",), (), 120),
                                               HoldMove(2, "wallet", "fees", ("c-1",), (), 5)), T0, later),
            OpenHold("payment", ("p-2",), "", (HoldMove(1, "wallet", "merchants", ("c-1",), (), 7),), T0, None),
        ])

    def test_of_a_kind(self) -> None:
        b = Both(self, [])
        self.assertEqual(b.run(lambda book: book.open_holds("payment.open_holds", H, None, None, "payment")), [])
        self.assertEqual(b.sent, [("HOLDS", ("acme", None, None, "payment"))])


class BalanceAtTest(unittest.TestCase):
    def test_balance_at(self) -> None:
        b = Both(self, (400, 0, 5))
        got = b.run(lambda book: book.balance_at("balance_at.wallet", H, "wallet", ["c-1"], T0_TOKYO))
        self.assertEqual(got, Balance(400, 0, 5))
        self.assertEqual(b.sent, [("AT", ("acme", "wallet", ["c-1"], "2026-01-02T03:04:05.123456+00:00"))])

    def test_time_is_checked(self) -> None:
        b = Both(self)
        for at, says in ((datetime(2026, 1, 1), "naive"), ("2026-01-01", "must be a datetime")):
            e = b.fails(lambda book: book.balance_at("balance_at.wallet", H, "wallet", ["c-1"], at))
            self.assertIn(says, str(e))


class TigerBeetleTest(unittest.TestCase):
    def test_a_client_that_cannot_read_transfers(self) -> None:
        """A client without get_account_transfers and query_transfers makes
        a book whose reads that need them raise CHOBO_UNSUPPORTED before
        anything is sent."""
        from chobo.tbclient import AsyncTigerBeetleBook, TigerBeetleBook
        from tbbooks import STOCK

        sent: list[str] = []

        class Calls:
            def create_accounts(self, a: list[Any]) -> list[Any]:
                sent.append("create_accounts")
                return []

            def create_transfers(self, t: list[Any]) -> list[Any]:
                sent.append("create_transfers")
                return []

            def lookup_accounts(self, i: list[int]) -> list[Any]:
                sent.append("lookup_accounts")
                return []

            def lookup_transfers(self, i: list[int]) -> list[Any]:
                sent.append("lookup_transfers")
                return []

        class AsyncCalls:
            async def create_accounts(self, a: list[Any]) -> list[Any]:
                return Calls.create_accounts(cast(Calls, self), a)

            async def create_transfers(self, t: list[Any]) -> list[Any]:
                return Calls.create_transfers(cast(Calls, self), t)

            async def lookup_accounts(self, i: list[int]) -> list[Any]:
                return Calls.lookup_accounts(cast(Calls, self), i)

            async def lookup_transfers(self, i: list[int]) -> list[Any]:
                return Calls.lookup_transfers(cast(Calls, self), i)

        sync: Any = TigerBeetleBook(Calls(), STOCK, "acme")
        asyn: Any = AsyncTigerBeetleBook(AsyncCalls(), STOCK, "acme")
        reads: list[tuple[str, Callable[[Any], Any]]] = [
            ("statement.shelf", lambda b: b.statement("statement.shelf", 0, ["A"], None)),
            ("open_holds.shelf", lambda b: b.open_holds("open_holds.shelf", 0, ["A"], None)),
            ("reserve_stock.open_holds", lambda b: b.open_holds("reserve_stock.open_holds", None, None, 1)),
            ("balance_at.shelf", lambda b: b.balance_at("balance_at.shelf", 0, ["A"], T0)),
        ]
        for where, read in reads:
            for book, is_async in ((sync, False), (asyn, True)):
                with self.assertRaises(ChoboError) as cm:
                    r = read(book)
                    if is_async:
                        asyncio.run(r)
                self.assertEqual(cm.exception.code, "CHOBO_UNSUPPORTED")
                self.assertIn(where, str(cm.exception))
                self.assertIn("get_account_transfers", str(cm.exception))
        self.assertEqual(sent, [])
        # The entries of a call are read by their ids, which such a client can look up.
        self.assertEqual(sync.entries("reserve_stock.entries", 1, ["o-1", "A"]), [])
        self.assertEqual(sent, ["lookup_transfers"])


if __name__ == "__main__":
    unittest.main()
