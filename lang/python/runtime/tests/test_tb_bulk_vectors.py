"""The bulk call of TigerBeetleBook and AsyncTigerBeetleBook replayed
against runtime/testdata/tb_bulk_vectors.json: scripted sessions of the Go
runtime's bulk on TigerBeetle. A client answers every request as the file
does; the book must send the requests the file holds, in order, and
answer each call as the file does."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import threading
import unittest
from pathlib import Path
from typing import Any

import vectors  # noqa: F401  first: it puts the sources on the path

try:
    import tigerbeetle as tbc
except ModuleNotFoundError as e:  # the Go tests may run an interpreter without it
    raise unittest.SkipTest(f"SKIP: lang/python/runtime: the tigerbeetle package is not installed ({e})") from e

from vectors import def_of, value

from chobo.chobo import ChoboError, Result
from chobo.tbclient import AsyncTigerBeetleBook, TbAnswer, TbCall, TigerBeetleBook
from chobo.tigerbeetle import TRANSFER_VOID_PENDING, Def

Json = Any


def _path() -> Path:
    named = os.environ.get("CHOBO_TB_BULK_VECTORS", "")
    if named:
        return Path(named)
    return Path(__file__).resolve().parents[4] / "runtime" / "testdata" / "tb_bulk_vectors.json"


with open(_path(), encoding="utf-8") as _f:
    BULK: Json = json.load(_f)

TIMEOUT_MS = 20
"""How long the book waits for a request the file says times out."""

_SCRIPTED = re.compile(r"scripted: request [0-9]+ fails")


def _hex(s: str) -> int:
    return int(s, 16)


def _id(n: int) -> str:
    return f"{n:032x}"


def _vec_transfer(t: tbc.Transfer) -> Json:
    return {
        "id": _id(t.id), "debit_account_id": _id(t.debit_account_id), "credit_account_id": _id(t.credit_account_id),
        "amount": str(t.amount), "pending_id": _id(t.pending_id), "user_data_128": _id(t.user_data_128),
        "user_data_64": str(t.user_data_64), "timeout": t.timeout, "ledger": t.ledger, "code": t.code,
        "flags": int(t.flags),
    }


def _record(t: Json) -> tbc.Transfer:
    return tbc.Transfer(
        id=_hex(t["id"]), debit_account_id=_hex(t["debit_account_id"]), credit_account_id=_hex(t["credit_account_id"]),
        amount=int(t["amount"]), pending_id=_hex(t["pending_id"]), user_data_128=_hex(t["user_data_128"]),
        user_data_64=int(t["user_data_64"]), user_data_32=0, timeout=t["timeout"], ledger=t["ledger"], code=t["code"],
        flags=tbc.TransferFlags(t["flags"]), timestamp=0,
    )


def _account_results(r: Json) -> list[tbc.CreateAccountResult]:
    return [tbc.CreateAccountResult(timestamp=0, status=tbc.CreateAccountStatus[s.upper()]) for s in r["statuses"]]


def _transfer_results(r: Json) -> list[tbc.CreateTransferResult]:
    return [tbc.CreateTransferResult(timestamp=0, status=tbc.CreateTransferStatus[s.upper()]) for s in r["statuses"]]


def _accounts(r: Json) -> list[tbc.Account]:
    return [tbc.Account(
        id=_hex(a["id"]), debits_pending=int(a["debits_pending"]), debits_posted=int(a["debits_posted"]),
        credits_pending=int(a["credits_pending"]), credits_posted=int(a["credits_posted"]),
        user_data_128=_hex(a["user_data_128"]), user_data_64=0, user_data_32=0, ledger=a["ledger"], code=a["code"],
        flags=tbc.AccountFlags(a["flags"]), timestamp=0,
    ) for a in r.get("accounts", [])]


def _transfers(r: Json) -> list[tbc.Transfer]:
    return [_record(t) for t in r.get("transfers", [])]


def _create_accounts(accounts: list[tbc.Account]) -> Json:
    return {"op": "create_accounts", "accounts": [
        {"id": _id(a.id), "user_data_128": _id(a.user_data_128), "ledger": a.ledger, "code": a.code,
         "flags": int(a.flags)} for a in accounts]}


def _create_transfers(transfers: list[tbc.Transfer]) -> Json:
    return {"op": "create_transfers", "transfers": [_vec_transfer(t) for t in transfers]}


def _lookup(op: str, ids: list[int]) -> Json:
    return {"op": op, "ids": [_id(i) for i in ids]}


class Scripted:
    """A ClientSync that records each request and answers it as the
    case's request of the same place was answered; one that timed out
    is not answered while the book waits."""

    def __init__(self, case: Json) -> None:
        self.case = case
        self.sent: list[Json] = []
        self.released = threading.Event()

    def _next(self, req: Json) -> Json:
        n = len(self.sent)
        self.sent.append(req)
        if n >= len(self.case["requests"]):
            raise AssertionError(f"request {n + 1} ({req['op']}) is not in the file")
        r: Json = self.case["requests"][n]["answer"]
        return r

    def _answer(self, req: Json) -> Json:
        r = self._next(req)
        if r.get("timeout"):
            self.released.wait(5)
            raise AssertionError("a request that timed out was read")
        if r.get("error"):
            raise RuntimeError(r["error"])
        return r

    def create_accounts(self, accounts: list[tbc.Account]) -> list[tbc.CreateAccountResult]:
        return _account_results(self._answer(_create_accounts(accounts)))

    def create_transfers(self, transfers: list[tbc.Transfer]) -> list[tbc.CreateTransferResult]:
        return _transfer_results(self._answer(_create_transfers(transfers)))

    def lookup_accounts(self, ids: list[int]) -> list[tbc.Account]:
        return _accounts(self._answer(_lookup("lookup_accounts", ids)))

    def lookup_transfers(self, ids: list[int]) -> list[tbc.Transfer]:
        return _transfers(self._answer(_lookup("lookup_transfers", ids)))


class AsyncScripted(Scripted):
    """The same client as ClientAsync."""

    async def _answer_async(self, req: Json) -> Json:
        r = self._next(req)
        if r.get("timeout"):
            await asyncio.sleep(5)
            raise AssertionError("a request that timed out was read")
        if r.get("error"):
            raise RuntimeError(r["error"])
        return r

    async def create_accounts(self, accounts: list[tbc.Account]) -> list[tbc.CreateAccountResult]:  # type: ignore[override]
        return _account_results(await self._answer_async(_create_accounts(accounts)))

    async def create_transfers(self, transfers: list[tbc.Transfer]) -> list[tbc.CreateTransferResult]:  # type: ignore[override]
        return _transfer_results(await self._answer_async(_create_transfers(transfers)))

    async def lookup_accounts(self, ids: list[int]) -> list[tbc.Account]:  # type: ignore[override]
        return _accounts(await self._answer_async(_lookup("lookup_accounts", ids)))

    async def lookup_transfers(self, ids: list[int]) -> list[tbc.Transfer]:  # type: ignore[override]
        return _transfers(await self._answer_async(_lookup("lookup_transfers", ids)))


def _normalise(reqs: list[Json]) -> None:
    """Names the random ids of the status chains sent, random:1, random:2,
    … in the order they were first sent."""
    names: dict[str, str] = {}

    def name(x: str) -> str:
        return names.setdefault(x, f"random:{len(names) + 1}")

    for r in reqs:
        ts = r.get("transfers", [])
        for v, f in zip(ts, ts[1:]):
            if v["flags"] & TRANSFER_VOID_PENDING and f["debit_account_id"] == f["credit_account_id"] == v["pending_id"]:
                v["id"], f["id"] = name(v["id"]), name(f["id"])


def _answer_of(op: str, a: TbAnswer) -> Json:
    """A call's answer as the file writes it."""
    if isinstance(a, Exception):
        if isinstance(a, ChoboError) and a.code == "CHOBO_TIMEOUT":
            return {"error": "timeout"}
        m = _SCRIPTED.search(str(a))
        return {"error": m.group(0) if m else "call"}
    if op == "status":
        return {"state": a}
    assert isinstance(a, Result), a
    return {"result": a.result, "reason": a.reason} if a.reason else {"result": a.result}


def _def(case: Json) -> Def:
    d: Def = def_of(case["def"])
    legacy = case.get("legacy") or {}
    return dataclasses.replace(d, transfers=tuple(
        dataclasses.replace(t, legacy=legacy[t.name]) if t.name in legacy else t for t in d.transfers))


def _calls(d: Def, case: Json) -> list[TbCall]:
    names = [t.name for t in d.transfers]
    out = []
    for c in case["calls"]:
        kind = names.index(c["transfer"])
        if c.get("client_error"):
            out.append(TbCall(kind, c["op"], error=ValueError("the client refused the arguments")))
            continue
        amounts = tuple(int(a) for a in c["amounts"]) if c.get("amounts") else None
        out.append(TbCall(kind, c["op"], tuple(value(v) for v in c["values"]), amounts))
    return out


class BulkVectorsTest(unittest.TestCase):
    def replay(self, is_async: bool) -> None:
        self.assertGreaterEqual(len(BULK["cases"]), 8)
        for case in BULK["cases"]:
            with self.subTest(case=case["name"], is_async=is_async):
                d = _def(case)
                client: Scripted
                if is_async:
                    client = AsyncScripted(case)
                    got = asyncio.run(AsyncTigerBeetleBook(client, d, case["tenant"], TIMEOUT_MS).bulk(_calls(d, case)))
                else:
                    client = Scripted(case)
                    got = TigerBeetleBook(client, d, case["tenant"], TIMEOUT_MS).bulk(_calls(d, case))
                client.released.set()
                _normalise(client.sent)
                want = [{k: v for k, v in r.items() if k != "answer"} for r in case["requests"]]
                self.assertEqual(len(client.sent), len(want), "requests sent")
                for i, (g, w) in enumerate(zip(client.sent, want)):
                    self.assertEqual(g, w, f"request {i + 1}")
                self.assertEqual([_answer_of(c["op"], a) for c, a in zip(case["calls"], got)], case["answers"])

    def test_vectors_blocking(self) -> None:
        self.replay(False)

    def test_vectors_asyncio(self) -> None:
        self.replay(True)


if __name__ == "__main__":
    unittest.main()
