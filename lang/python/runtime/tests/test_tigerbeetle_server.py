"""Both TigerBeetle books against a real replica, through the official
client: a throwaway single-replica cluster started from the binary
$CHOBO_TIGERBEETLE names, for the length of this module. Without it the
tests skip."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from typing import IO, Any, ClassVar

import vectors  # noqa: F401  first: it puts the sources on the path

try:
    import tigerbeetle as tbc
except ModuleNotFoundError as e:
    raise unittest.SkipTest(f"SKIP: lang/python/runtime: the tigerbeetle package is not installed ({e})") from e

from tbbooks import RESERVE, RESTOCK, SHELF, SHOPPERS, STOCK, VENDORS

from chobo.chobo import DONE, DONE_BEFORE, Balance, ChoboError, refused
from chobo.tbclient import AsyncTigerBeetleBook, Request, TigerBeetleBook

TB_BIN = os.environ.get("CHOBO_TIGERBEETLE", "")
_LISTENING = re.compile(r"listening on .*\.port = (\d+)")


@unittest.skipUnless(TB_BIN, "SKIP: real TigerBeetle: CHOBO_TIGERBEETLE does not name a tigerbeetle binary")
class RealTigerBeetleTest(unittest.TestCase):
    dir: ClassVar[str]
    log: ClassVar[IO[bytes]]
    proc: ClassVar[subprocess.Popen[bytes]]
    address: ClassVar[str]

    @classmethod
    def setUpClass(cls) -> None:
        if not (os.path.isfile(TB_BIN) and os.access(TB_BIN, os.X_OK)):
            raise AssertionError(f"CHOBO_TIGERBEETLE={TB_BIN!r} is not an executable file")
        cls.dir = tempfile.mkdtemp(prefix="chobo-tb-")
        data = os.path.join(cls.dir, "0_0.tigerbeetle")
        subprocess.run([TB_BIN, "format", "--cluster=0", "--replica=0", "--replica-count=1", "--development", data],
                       check=True, capture_output=True, timeout=120)
        log_path = os.path.join(cls.dir, "log")
        cls.log = open(log_path, "wb")
        # Port 0: the replica picks a free one and logs it.
        cls.proc = subprocess.Popen([TB_BIN, "start", "--addresses=127.0.0.1:0", "--development", data],
                                    stdout=cls.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while True:
            with open(log_path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            m = _LISTENING.search(text)
            if m:
                cls.address = m.group(1)
                return
            if cls.proc.poll() is not None or time.monotonic() > deadline:
                cls.tearDownClass()
                raise AssertionError(f"the replica does not listen:\n{text}")
            time.sleep(0.05)

    @classmethod
    def tearDownClass(cls) -> None:
        if cls.proc.poll() is None:
            os.kill(cls.proc.pid, 15)
            try:
                cls.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.kill(cls.proc.pid, 9)
                cls.proc.wait()
        cls.log.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def made_twice(self, requests: list[Request]) -> None:
        made = [r for r in requests if r.op == "create_accounts"]
        self.assertEqual(len(made), 2, "restock's accounts, then the shoppers' account; never again")

    def test_sync(self) -> None:
        requests: list[Request] = []
        with tbc.ClientSync(cluster_id=0, replica_addresses=self.address) as client:
            b = TigerBeetleBook(client, STOCK, "sync", on_request=requests.append)
            for i, (name, args, want) in enumerate(STORY):
                self.assertEqual(getattr(b, name)(*args), want, f"step {i}: {name}{args}")
        self.made_twice(requests)

    def test_async(self) -> None:
        requests: list[Request] = []

        async def run() -> None:
            async with tbc.ClientAsync(cluster_id=0, replica_addresses=self.address) as client:
                b = AsyncTigerBeetleBook(client, STOCK, "async", on_request=requests.append)
                for i, (name, args, want) in enumerate(STORY):
                    self.assertEqual(await getattr(b, name)(*args), want, f"step {i}: {name}{args}")

        asyncio.run(run())
        self.made_twice(requests)

    def test_timeouts(self) -> None:
        """A replica that does not answer: each book raises CHOBO_TIMEOUT,
        and once the replica answers again, the request given up on ends,
        and the client still closes cleanly."""
        sync = tbc.ClientSync(cluster_id=0, replica_addresses=self.address)
        b = TigerBeetleBook(sync, STOCK, "timeouts")
        self.assertEqual(b.balance(SHELF, ["A"]), Balance(0, 0, 0))  # connected before the pause

        async def run() -> None:
            async with tbc.ClientAsync(cluster_id=0, replica_addresses=self.address) as client:
                ab = AsyncTigerBeetleBook(client, STOCK, "timeouts")
                self.assertEqual(await ab.balance(SHELF, ["A"]), Balance(0, 0, 0))
                # A client's first request registers it, which takes longer.
                ab.timeout_ms = b.timeout_ms = 300
                os.kill(self.proc.pid, signal.SIGSTOP)
                try:
                    with self.assertRaises(ChoboError) as cm:
                        await ab.call(RESTOCK, "do", ["t1", "A", 1])
                    self.assertEqual(cm.exception.code, "CHOBO_TIMEOUT")
                    with self.assertRaises(ChoboError) as cm:
                        b.call(RESTOCK, "do", ["t2", "A", 1])
                    self.assertEqual(cm.exception.code, "CHOBO_TIMEOUT")
                finally:
                    os.kill(self.proc.pid, signal.SIGCONT)
                # The requests given up on went through after all: sent
                # again, the calls are answered by what they did.
                ab.timeout_ms = b.timeout_ms = 30_000
                self.assertIn(await ab.call(RESTOCK, "do", ["t1", "A", 1]), (DONE, DONE_BEFORE))
                self.assertIn(b.call(RESTOCK, "do", ["t2", "A", 1]), (DONE, DONE_BEFORE))
                self.assertEqual(await ab.balance(SHELF, ["A"]), Balance(2, 0, 0))

        try:
            asyncio.run(run())
        finally:
            sync.close()


# What each book calls, in order, and what it must answer: the same for
# both, each under a tenant of its own.
STORY: list[tuple[str, tuple[Any, ...], object]] = [
    ("call", (RESTOCK, "do", ["d1", "A", 10]), DONE),
    ("call", (RESTOCK, "do", ["d1", "A", 10]), DONE_BEFORE),
    ("call", (RESTOCK, "do", ["d1", "A", 11]), refused("key_conflict")),
    ("call", (RESERVE, "hold", ["o1", "A", 4]), DONE),
    ("status", (RESERVE, ["o1", "A"]), "held"),
    ("balance", (SHELF, ["A"]), Balance(10, 0, 4)),
    ("call", (RESERVE, "hold", ["o9", "A", 100]), refused("sold_out")),
    ("post", (RESERVE, ["o1", "A"], [3]), DONE),
    ("post", (RESERVE, ["o1", "A"], [3]), DONE_BEFORE),
    ("status", (RESERVE, ["o1", "A"]), "posted"),
    ("post", (RESERVE, ["o1", "A"], [99]), refused("key_conflict")),
    ("call", (RESERVE, "hold", ["o2", "A", 2]), DONE),
    ("void", (RESERVE, ["o2", "A"]), DONE),
    ("status", (RESERVE, ["o2", "A"]), "voided"),
    ("post", (RESERVE, ["o2", "A"], None), refused("already_voided")),
    ("void", (RESERVE, ["o3", "A"]), refused("no_such_hold")),
    ("status", (RESERVE, ["o3", "A"]), None),
    ("call", (RESERVE, "hold", ["o4", "A", 7]), DONE),
    ("post", (RESERVE, ["o4", "A"], None), DONE),
    ("balance", (SHELF, ["A"]), Balance(0, 0, 0)),
    ("balance", (SHOPPERS, []), Balance(10, 0, 0)),
    ("balance", (VENDORS, []), Balance(-10, 0, 0)),
    ("balance", (SHELF, ["B"]), Balance(0, 0, 0)),
]


if __name__ == "__main__":
    unittest.main()
