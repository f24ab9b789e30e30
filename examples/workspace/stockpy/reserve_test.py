"""A test of reserve.py with no database: a stand-in DB-API connection
answers each statement as the book's SQL function would, and keeps what
was sent."""

from __future__ import annotations

import unittest
from typing import Any

import reserve
import stock


class Cursor:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def execute(self, query: str, params: Any = None) -> None:
        self.conn.sent.append((query, tuple(params or ())))

    def fetchone(self) -> Any:
        return self.conn.rows.pop(0)

    def close(self) -> None:
        pass


class Connection:
    def __init__(self, *rows: tuple[Any, ...]) -> None:
        self.rows = list(rows)
        self.sent: list[tuple[str, tuple[Any, ...]]] = []

    def cursor(self) -> Cursor:
        return Cursor(self)


class ReserveTest(unittest.TestCase):
    def test_done(self) -> None:
        conn = Connection(("done", None))
        self.assertEqual(reserve.reserve(conn, "o-1", "north", "bolt", 3), "o-1: done")
        # One statement, for the tenant, with the order's key and amount.
        self.assertEqual(len(conn.sent), 1)
        self.assertEqual(conn.sent[0][1][0], reserve.TENANT)
        self.assertIn(3, conn.sent[0][1])

    def test_refused(self) -> None:
        conn = Connection(("refused", "out_of_stock"))
        self.assertEqual(reserve.reserve(conn, "o-2", "north", "bolt", 3), "o-2: refused (out_of_stock)")

    def test_bad_amount_is_never_sent(self) -> None:
        conn = Connection()
        with self.assertRaises(stock.ChoboError):
            reserve.reserve(conn, "o-3", "north", "bolt", -1)
        self.assertEqual(conn.sent, [])


if __name__ == "__main__":
    unittest.main()
