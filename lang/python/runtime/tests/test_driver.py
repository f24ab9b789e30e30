"""The driver's history requests, on their own: how it reads and writes
the protocol's times, and how it answers a holds request that names an
account, a transfer kind, both or neither from the client's reads. The
driver is a script, not a module of the runtime; it is loaded by path."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import unittest
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import vectors  # noqa: F401  first: it puts the sources on the path

from chobo.chobo import HoldMove, OpenHold

DRIVER = Path(__file__).resolve().parents[2] / "driver" / "driver.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("chobo_driver_under_test", DRIVER)
    assert spec is not None and spec.loader is not None
    m = importlib.util.module_from_spec(spec)
    # Registered first, as an import would: its dataclasses look it up.
    sys.modules[spec.name] = m
    spec.loader.exec_module(m)
    return m


drv = load()
T0 = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)


def hold(kind: str, key: str, created: datetime) -> OpenHold:
    return OpenHold(kind, (key,), "", (HoldMove(1, "wallet", "shop", ("c-1",), (), 5),), created, None)


class Book:
    """A client's book as far as holds go: the readers answer what they are given."""

    def __init__(self, by_account: list[OpenHold], by_kind: dict[str, list[OpenHold]]) -> None:
        class Readers:
            def wallet(self, **kw: Any) -> list[OpenHold]:
                assert kw == {"card": "c-1"}, kw
                return by_account

        class Kind:
            def __init__(self, hs: list[OpenHold]) -> None:
                self.hs = hs

            def open_holds(self) -> list[OpenHold]:
                return self.hs

        self.open_holds = Readers()
        for k, hs in by_kind.items():
            setattr(self, k, Kind(hs))


NAMES = {
    "open_holds": "open_holds",
    "accounts": [{"account": "wallet", "member": "wallet", "args": [{"param": "card", "keyword": "card", "type": "str"}]}],
    "transfers": [
        {"transfer": "top_up", "member": "top_up", "reads": ["entries"], "key": []},
        {"transfer": "payment", "member": "payment", "reads": ["entries", "open_holds"], "key": []},
        {"transfer": "refund", "member": "refund", "reads": ["entries", "open_holds"], "key": []},
    ],
}


def driver(book: Book) -> Any:
    d = drv.Driver(ModuleType("client"), "sync")
    d.names = NAMES

    async def read(req: dict[str, Any], is_async: bool, use: Callable[[Any], Any]) -> Any:
        return use(book)

    d._read = read
    return d


class TimeTest(unittest.TestCase):
    def test_read(self) -> None:
        for text, want in (
            ("2026-01-02T03:04:05.123456789Z", T0),
            ("2026-01-02T03:04:05.1234567Z", T0),
            ("2026-01-02T03:04:05.123456Z", T0),
            ("2026-01-02T12:04:05.123456+09:00", T0),
            ("2026-01-02T03:04:05Z", T0.replace(microsecond=0)),
            ("2026-01-02T03:04:05.5Z", T0.replace(microsecond=500000)),
        ):
            got = drv._time(text)
            self.assertEqual(got, want, text)
            self.assertIsNotNone(got.tzinfo)
        for bad in ("2026-01-02T03:04:05", "2026-01-02", "yesterday", ""):
            with self.assertRaises(ValueError):
                drv._time(bad)

    def test_write(self) -> None:
        self.assertEqual(drv._time_text(T0.astimezone(timezone(timedelta(hours=9)))), "2026-01-02T03:04:05.123456Z")
        self.assertEqual(drv._time_text(T0.replace(microsecond=0)), "2026-01-02T03:04:05.000000Z")


class HoldsTest(unittest.TestCase):
    def ask(self, book: Book, **req: Any) -> list[str]:
        r = asyncio.run(driver(book)._holds(req, False))
        return [f"{h['transfer']}({','.join(h['key'])})" for h in r["holds"]]

    def test_by_account_and_kind(self) -> None:
        b = Book([hold("payment", "p-1", T0), hold("refund", "r-1", T0)], {})
        self.assertEqual(self.ask(b, account="wallet", args={"card": "c-1"}), ["payment(p-1)", "refund(r-1)"])
        self.assertEqual(self.ask(b, account="wallet", args={"card": "c-1"}, transfer="refund"), ["refund(r-1)"])

    def test_by_kind_and_of_every_kind(self) -> None:
        later = T0 + timedelta(seconds=1)
        b = Book([], {"top_up": [], "payment": [hold("payment", "p-2", later), hold("payment", "p-1", T0)],
                      "refund": [hold("refund", "r-1", T0)]})
        self.assertEqual(self.ask(b, transfer="refund"), ["refund(r-1)"])
        self.assertEqual(self.ask(b, transfer="top_up"), [], "a kind that never holds has none")
        # Every kind's, in the order one read of them all gives: by when
        # they were made, then kind and key.
        self.assertEqual(self.ask(b), ["payment(p-1)", "refund(r-1)", "payment(p-2)"])

    def test_hold_as_the_protocol_writes_it(self) -> None:
        h = OpenHold("payment", ("p-1",), "", (HoldMove(2, "wallet", "fees", ("c-1",), (), 7),), T0, None)
        self.assertEqual(drv._hold(h), {
            "transfer": "payment", "key": ["p-1"],
            "moves": [{"move": 2, "from": "wallet", "from_args": ["c-1"], "to": "fees", "to_args": [], "amount": "7"}],
            "created": "2026-01-02T03:04:05.123456Z", "deadline": "",
        })


if __name__ == "__main__":
    unittest.main()


class PoolTest(unittest.TestCase):
    """The driver's own connections, made as calls need them."""

    def test_a_connection_not_made_is_a_call_not_sent(self) -> None:
        tries: list[int] = []

        async def make() -> object:
            tries.append(1)
            if len(tries) <= 2:
                raise OSError("Connection refused")
            return object()

        async def run() -> None:
            pool = drv._Pool(make)
            with self.assertRaisesRegex(ConnectionError, "^the call was not sent: the driver reached no server: Connection refused$"):
                await pool.take()
            self.assertEqual(pool.made, [])
            # A place freed by a closed connection is kept when the next
            # connection cannot be made either.
            for _ in range(drv.MAX_CONNS):
                pool.made.append(object())
            pool.free.put_nowait(None)
            with self.assertRaises(ConnectionError):
                await pool.take()
            self.assertEqual(pool.free.qsize(), 1)
            c = await pool.take()
            self.assertIn(c, pool.made)

        asyncio.run(run())
