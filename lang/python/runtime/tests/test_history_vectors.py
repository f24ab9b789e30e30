"""The history reads of TigerBeetleBook and AsyncTigerBeetleBook replayed
against runtime/testdata/history_vectors.json: what the Go runtime's reads
answer on its model of a replica, with the records they read. A scripted
client answers from those records, as a replica would; every read must
answer what Go's did, field by field, times at a datetime's microseconds
(the cursor keeps the nanoseconds)."""

from __future__ import annotations

import asyncio
import json
import re
import unittest
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import vectors  # noqa: F401  first: it puts the sources on the path

try:
    import tigerbeetle as tbc
except ModuleNotFoundError as e:  # the Go tests may run an interpreter without it
    raise unittest.SkipTest(f"SKIP: lang/python/runtime: the tigerbeetle package is not installed ({e})") from e

from vectors import def_of

from chobo import tbclient
from chobo.chobo import Balance, ChoboError, Entry, OpenHold, Statement, StatementQuery
from chobo.tbclient import AsyncTigerBeetleBook, TigerBeetleBook
from chobo.tigerbeetle import MAX_EVENTS, TRANSFER_VOID_PENDING, Def

Json = Any

_FILE = Path(__file__).resolve().parents[4] / "runtime" / "testdata" / "history_vectors.json"


def _load() -> Json:
    with open(_FILE, encoding="utf-8") as f:
        return json.load(f)


HISTORY: Json = _load()

_RFC3339 = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.([0-9]{1,9}))?Z")


def _micros(s: str) -> int:
    """A time of the file, RFC 3339 in UTC, as microseconds since the epoch, cut as a datetime cuts it."""
    m = _RFC3339.fullmatch(s)
    assert m is not None, s
    whole = datetime.fromisoformat(m.group(1) + "+00:00")
    return int(whole.timestamp()) * 1_000_000 + int((m.group(2) or "").ljust(9, "0")[:6])


def _time(s: str) -> datetime:
    return datetime.fromtimestamp(_micros(s) / 1_000_000, tz=timezone.utc)


def _us(t: datetime) -> int:
    d = t - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds


def _hex(s: str) -> int:
    return int(s, 16)


class Replica:
    """A replica that holds a case's records and answers from them: lookups
    by id, the two reads of transfers by their filters, and status chains
    as the file says. It writes nothing: the reads never do."""

    def __init__(self, case: Json) -> None:
        self.accounts = {_hex(a["id"]): a for a in case["accounts"]}
        self.transfers = [self._transfer(t) for t in case["transfers"]]
        self.by_id = {t.id: t for t in self.transfers}
        self.chains = {_hex(c["pending_id"]): c["statuses"] for c in case["status_chains"]}
        self.got: list[str] = []
        self.from_: list[int] = []  # the timestamp_min of every read of transfers

    @staticmethod
    def _transfer(t: Json) -> tbc.Transfer:
        return tbc.Transfer(
            id=_hex(t["id"]), debit_account_id=_hex(t["debit_account_id"]),
            credit_account_id=_hex(t["credit_account_id"]), amount=int(t["amount"]), pending_id=_hex(t["pending_id"]),
            user_data_128=_hex(t["user_data_128"]), user_data_64=int(t["user_data_64"]), user_data_32=0,
            timeout=t["timeout"], ledger=t["ledger"], code=t["code"], flags=tbc.TransferFlags(t["flags"]),
            timestamp=int(t["timestamp"]),
        )

    def create_accounts(self, accounts: list[tbc.Account]) -> list[tbc.CreateAccountResult]:
        raise AssertionError("a read created accounts")

    def create_transfers(self, transfers: list[tbc.Transfer]) -> list[tbc.CreateTransferResult]:
        self.got.append("create_transfers")
        assert len(transfers) % 2 == 0, "a read sent something else than status chains"
        out: list[str] = []
        for void, fail in zip(transfers[::2], transfers[1::2]):
            assert int(void.flags) & TRANSFER_VOID_PENDING and fail.debit_account_id == fail.credit_account_id
            assert fail.debit_account_id == void.pending_id, "a status chain on two ids"
            out += self.chains.get(void.pending_id, ["pending_transfer_not_found", "linked_event_failed"])
        return [tbc.CreateTransferResult(timestamp=0, status=tbc.CreateTransferStatus[s.upper()]) for s in out]

    def lookup_accounts(self, ids: list[int]) -> list[tbc.Account]:
        self.got.append("lookup_accounts")
        out = []
        for i in ids:
            a = self.accounts.get(i)
            if a is not None:
                out.append(tbc.Account(
                    id=i, debits_pending=int(a["debits_pending"]), debits_posted=int(a["debits_posted"]),
                    credits_pending=int(a["credits_pending"]), credits_posted=int(a["credits_posted"]),
                    user_data_128=_hex(a["user_data_128"]), user_data_64=0, user_data_32=0, ledger=a["ledger"],
                    code=a["code"], flags=tbc.AccountFlags(a["flags"]), timestamp=int(a["timestamp"]),
                ))
        return out

    def lookup_transfers(self, ids: list[int]) -> list[tbc.Transfer]:
        self.got.append("lookup_transfers")
        return [self.by_id[i] for i in ids if i in self.by_id]

    def _window(self, found: list[tbc.Transfer], lo: int, hi: int, limit: int, rev: bool) -> list[tbc.Transfer]:
        self.from_.append(lo)
        found = [t for t in found if t.timestamp >= lo and (hi == 0 or t.timestamp <= hi)]
        if rev:
            found.reverse()
        return found[:limit]

    def get_account_transfers(self, f: tbc.AccountFilter) -> list[tbc.Transfer]:
        self.got.append("get_account_transfers")
        debits = bool(f.flags & tbc.AccountFilterFlags.DEBITS)
        credits = bool(f.flags & tbc.AccountFilterFlags.CREDITS)
        found = [t for t in self.transfers if (debits and t.debit_account_id == f.account_id)
                 or (credits and t.credit_account_id == f.account_id)]
        found = [t for t in found if f.code == 0 or t.code == f.code]
        return self._window(found, f.timestamp_min, f.timestamp_max, f.limit,
                            bool(f.flags & tbc.AccountFilterFlags.REVERSED))

    def query_transfers(self, f: tbc.QueryFilter) -> list[tbc.Transfer]:
        self.got.append("query_transfers")
        found = [t for t in self.transfers
                 if (f.user_data_128 == 0 or t.user_data_128 == f.user_data_128)
                 and (f.user_data_64 == 0 or t.user_data_64 == f.user_data_64)
                 and (f.ledger == 0 or t.ledger == f.ledger) and (f.code == 0 or t.code == f.code)]
        return self._window(found, f.timestamp_min, f.timestamp_max, f.limit,
                            bool(f.flags & tbc.QueryFilterFlags.REVERSED))


class AsyncReplica(Replica):
    """The same replica as ClientAsync."""

    async def create_accounts(self, accounts: list[tbc.Account]) -> list[tbc.CreateAccountResult]:  # type: ignore[override]
        return Replica.create_accounts(self, accounts)

    async def create_transfers(self, transfers: list[tbc.Transfer]) -> list[tbc.CreateTransferResult]:  # type: ignore[override]
        return Replica.create_transfers(self, transfers)

    async def lookup_accounts(self, ids: list[int]) -> list[tbc.Account]:  # type: ignore[override]
        return Replica.lookup_accounts(self, ids)

    async def lookup_transfers(self, ids: list[int]) -> list[tbc.Transfer]:  # type: ignore[override]
        return Replica.lookup_transfers(self, ids)

    async def get_account_transfers(self, f: tbc.AccountFilter) -> list[tbc.Transfer]:  # type: ignore[override]
        return Replica.get_account_transfers(self, f)

    async def query_transfers(self, f: tbc.QueryFilter) -> list[tbc.Transfer]:  # type: ignore[override]
        return Replica.query_transfers(self, f)


def _balance(b: Balance | None) -> Json:
    return None if b is None else {"posted": str(b.posted), "held_in": str(b.held_in), "held_out": str(b.held_out)}


def _entry(e: Entry) -> Json:
    """An entry as the file writes one, its time in microseconds."""
    return {
        "transfer": e.transfer, "op": e.op, "key": None if e.key is None else list(e.key),
        "args": None if e.args is None else dict(e.args), "id": e.id, "move": e.move, "out": e.out,
        "account": e.account, "account_args": None if e.account_args is None else list(e.account_args),
        "posted": str(e.posted), "held_in": str(e.held_in), "held_out": str(e.held_out), "after": _balance(e.after),
        "at": _us(e.at), "cursor": e.cursor,
    }


def _hold(h: OpenHold) -> Json:
    return {
        "transfer": h.transfer, "key": None if h.key is None else list(h.key), "id": h.id,
        "moves": [{"move": m.move, "from": m.from_, "from_args": None if m.from_args is None else list(m.from_args),
                   "to": m.to, "to_args": None if m.to_args is None else list(m.to_args), "amount": str(m.amount)}
                  for m in h.moves],
        "created": _us(h.created), "deadline": None if h.deadline is None else _us(h.deadline),
    }


def _want_entries(es: Json) -> Json:
    return [dict(e, at=_micros(e["at"])) for e in es]


def _want_holds(hs: Json) -> Json:
    return [dict(h, created=_micros(h["created"]), deadline=_micros(h["deadline"]) if h["deadline"] else None)
            for h in hs]


def _index(names: list[str], name: str) -> int:
    return names.index(name)


class HistoryVectorsTest(unittest.TestCase):
    def replay(self, is_async: bool) -> list[Replica]:
        """Replays every read of the file; answers the replicas the reads went to."""
        replicas: list[Replica] = []
        reads = 0
        for case in HISTORY["cases"]:
            d: Def = def_of(case["def"])
            accounts = [a.name for a in d.accounts]
            transfers = [t.name for t in d.transfers]
            for n, r in enumerate(case["reads"]):
                with self.subTest(case=case["name"], read=n + 1, what=r["read"], is_async=is_async):
                    replica: Replica
                    book: Any
                    if is_async:
                        ar = AsyncReplica(case)
                        replica, book = ar, AsyncTigerBeetleBook(ar, d, case["tenant"])
                    else:
                        replica = Replica(case)
                        book = TigerBeetleBook(replica, d, case["tenant"])
                    replicas.append(replica)

                    def call(read: Any) -> Any:
                        got = read()
                        return asyncio.run(got) if is_async else got

                    where = f"{r['read']}.x"
                    if r["read"] == "statement":
                        q = r["query"]
                        query = StatementQuery(
                            newest=q["newest"], from_=_time(q["from"]) if q["from"] else None,
                            to=_time(q["to"]) if q["to"] else None, transfers=tuple(q["transfers"]),
                            limit=q["limit"], after=q["after"],
                        )
                        read: Any = lambda: book.statement(where, _index(accounts, r["account"]), r["args"], query)
                    elif r["read"] == "entries":
                        read = lambda: book.entries(where, _index(transfers, r["transfer"]), r["key"])
                    elif r["read"] == "holds":
                        account = None if r.get("account") is None else _index(accounts, r["account"])
                        kind = None if r.get("transfer") is None else _index(transfers, r["transfer"])
                        args = None if account is None else r["args"]
                        read = lambda: book.open_holds(where, account, args, kind)
                    else:
                        self.assertEqual(r["read"], "balance_at")
                        read = lambda: book.balance_at(where, _index(accounts, r["account"]), r["args"], _time(r["at"]))
                    if r.get("error"):
                        with self.assertRaises(ChoboError) as cm:
                            call(read)
                        self.assertEqual(cm.exception.code, "CHOBO_BAD_ARGUMENT")
                        self.assertEqual(replica.got, [], "a read that fails sent something")
                        continue
                    got = call(read)
                    if r["read"] == "statement":
                        assert isinstance(got, Statement)
                        want = r["statement"]
                        self.assertEqual([_entry(e) for e in got.entries], _want_entries(want["entries"]))
                        self.assertEqual((got.next, got.more), (want["next"], want["more"]))
                    elif r["read"] == "entries":
                        self.assertEqual([_entry(e) for e in got], _want_entries(r["entries"]))
                    elif r["read"] == "holds":
                        self.assertEqual([_hold(h) for h in got], _want_holds(r["holds"]))
                    else:
                        self.assertEqual(_balance(got), r["balance"])
                    reads += 1
        self.assertGreater(reads, 100)
        return replicas

    def test_blocking(self) -> None:
        self.replay(False)

    def test_asyncio(self) -> None:
        self.replay(True)

    def test_pages_of_records(self) -> None:
        """A history longer than a page of records is read page by page,
        each from past the last record of the one before, to the same
        answers."""
        page = tbclient.HISTORY_PAGE
        tbclient.HISTORY_PAGE = 2
        try:
            replicas = self.replay(False)
        finally:
            tbclient.HISTORY_PAGE = page
        self.assertTrue(any(lo > 0 for r in replicas for lo in r.from_), "no read went on past a page")


class HoldStatesTest(unittest.TestCase):
    def test_many_holds_in_requests_of_whole_chains(self) -> None:
        """Where many hold moves stand is asked in status chains packed two
        events each into requests of at most MAX_EVENTS, every move's chain
        on its own id, and each pair's answer read alone."""
        from tbbooks import RESERVE, SHELF, STOCK

        from chobo.tbclient import _TbEntry

        sent: list[list[tbc.Transfer]] = []
        held = ["linked_event_failed", "accounts_must_be_different"]
        expired = ["pending_transfer_expired", "linked_event_failed"]

        class Client(Replica):
            def __init__(self) -> None:
                pass

            def create_transfers(self, transfers: list[tbc.Transfer]) -> list[tbc.CreateTransferResult]:
                sent.append(transfers)
                names: list[str] = []
                for void in transfers[::2]:
                    names += expired if void.pending_id % 3 == 0 else held
                return [tbc.CreateTransferResult(timestamp=0, status=tbc.CreateTransferStatus[n.upper()]) for n in names]

        book = TigerBeetleBook(Client(), STOCK, "acme")
        moves = [_TbEntry(id=i + 1, kind=RESERVE, account=SHELF) for i in range(130)]
        states = book._run(book._hold_states_flow(moves))
        self.assertEqual([len(r) for r in sent], [MAX_EVENTS - 1, 8])
        self.assertEqual(states, ["expired" if (i + 1) % 3 == 0 else "held" for i in range(130)])
        pairs = [t for r in sent for t in r]
        self.assertEqual([v.pending_id for v in pairs[::2]], [m.id for m in moves])
        self.assertEqual([f.debit_account_id for f in pairs[1::2]], [m.id for m in moves])


if __name__ == "__main__":
    unittest.main()
