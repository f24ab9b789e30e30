"""TigerBeetleBook and AsyncTigerBeetleBook over scripted clients: each
create answers the statuses a case names, each lookup the records it
names. Every case runs against both books, which share one implementation
and must send and answer alike."""

from __future__ import annotations

import asyncio
import threading
import time
import unittest
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from typing import Any, Literal, Protocol, TypeVar

import vectors  # noqa: F401  first: it puts the sources on the path

try:
    import tigerbeetle as tbc
except ModuleNotFoundError as e:  # the Go tests may run an interpreter without it
    raise unittest.SkipTest(f"SKIP: lang/python/runtime: the tigerbeetle package is not installed ({e})") from e

from tbbooks import BANK, CELL, CELLS, FUND, LONG, RESERVE, RESTOCK, SHELF, SHIFT, STOCK

from chobo import ids
from chobo.ids import transfer_id
from chobo.chobo import DONE, DONE_BEFORE, Balance, ChoboCancelledError, ChoboError, HoldState, Result, refused
from chobo.tbclient import AsyncTigerBeetleBook, Request, TbCall, TigerBeetleBook
from chobo.tigerbeetle import (
    DEFAULT_TIMEOUT_MS,
    MAX_EVENTS,
    MAX_REQUEST_EVENTS,
    TRANSFER_LINKED,
    TRANSFER_POST_PENDING,
    TRANSFER_VOID_PENDING,
    UNBOUNDED,
    Def,
    Value,
    _layout,
    definition_tag,
    lookups,
    plan,
)

_T = TypeVar("_T")

Statuses = Callable[[int], list[str]]
"""The statuses, by name, a create of n records answers."""


def every(name: str) -> Statuses:
    return lambda n: [name] * n


def first(name: str) -> Statuses:
    return lambda n: [name] + ["created"] * (n - 1)


def exactly(*names: str) -> Statuses:
    return lambda n: list(names)


class TbScript:
    """What the replica answers, request by request, and what it got."""

    def __init__(self) -> None:
        self.account_statuses: list[Statuses] = []
        self.transfer_statuses: list[Statuses] = []
        self.found_accounts: list[list[tbc.Account]] = []
        self.found_transfers: list[list[tbc.Transfer]] = []
        self.raises: Exception | None = None
        self.got: list[tuple[str, list[Any]]] = []

    def answer(self, op: str, items: list[Any]) -> None:
        self.got.append((op, items))
        if self.raises is not None:
            raise self.raises

    def create_accounts(self, accounts: list[tbc.Account]) -> list[tbc.CreateAccountResult]:
        self.answer("create_accounts", accounts)
        names = (self.account_statuses.pop(0) if self.account_statuses else every("created"))(len(accounts))
        return [tbc.CreateAccountResult(timestamp=1, status=tbc.CreateAccountStatus[n.upper()]) for n in names]

    def create_transfers(self, transfers: list[tbc.Transfer]) -> list[tbc.CreateTransferResult]:
        """The scripted statuses are those of the events other than key
        guards; a guard gets what a replica answers it after its chain,
        from the status of the event whose id it carries."""
        self.answer("create_transfers", transfers)
        guards = [i for i, t in enumerate(transfers) if t.pending_id == ids.never_id() and t.flags & TRANSFER_VOID_PENDING]
        script = self.transfer_statuses.pop(0) if self.transfer_statuses else every("created")
        names = script(len(transfers) - len(guards))
        for i in guards:
            first = next((names[j] for j in range(min(i, len(names))) if transfers[j].id == transfers[i].id), "")
            if first in ("created", "exists") or first.startswith("exists_with_different_"):
                guard = "exists_with_different_flags"
            elif first == "id_already_failed":
                guard = "id_already_failed"
            else:
                guard = "pending_transfer_not_found"
            names.insert(i, guard)
        return [tbc.CreateTransferResult(timestamp=1, status=tbc.CreateTransferStatus[n.upper()]) for n in names]

    def lookup_accounts(self, ids_: list[int]) -> list[tbc.Account]:
        self.answer("lookup_accounts", ids_)
        return self.found_accounts.pop(0) if self.found_accounts else []

    def lookup_transfers(self, ids_: list[int]) -> list[tbc.Transfer]:
        self.answer("lookup_transfers", ids_)
        return self.found_transfers.pop(0) if self.found_transfers else []


class FakeSync:
    """ClientSync's methods, answered from a script; gate, when set, holds
    every request until it is opened."""

    def __init__(self, s: TbScript) -> None:
        self.s = s
        self.gate: threading.Event | None = None

    def wait(self) -> None:
        if self.gate is not None:
            self.gate.wait(10)

    def create_accounts(self, accounts: list[tbc.Account]) -> list[tbc.CreateAccountResult]:
        self.wait()
        return self.s.create_accounts(accounts)

    def create_transfers(self, transfers: list[tbc.Transfer]) -> list[tbc.CreateTransferResult]:
        self.wait()
        return self.s.create_transfers(transfers)

    def lookup_accounts(self, accounts: list[int]) -> list[tbc.Account]:
        self.wait()
        return self.s.lookup_accounts(accounts)

    def lookup_transfers(self, transfers: list[int]) -> list[tbc.Transfer]:
        self.wait()
        return self.s.lookup_transfers(transfers)


class FakeAsync:
    """ClientAsync's methods, answered from a script."""

    def __init__(self, s: TbScript) -> None:
        self.s = s
        self.gate: asyncio.Event | None = None

    async def wait(self) -> None:
        await asyncio.sleep(0)
        if self.gate is not None:
            await self.gate.wait()

    async def create_accounts(self, accounts: list[tbc.Account]) -> list[tbc.CreateAccountResult]:
        await self.wait()
        return self.s.create_accounts(accounts)

    async def create_transfers(self, transfers: list[tbc.Transfer]) -> list[tbc.CreateTransferResult]:
        await self.wait()
        return self.s.create_transfers(transfers)

    async def lookup_accounts(self, accounts: list[int]) -> list[tbc.Account]:
        await self.wait()
        return self.s.lookup_accounts(accounts)

    async def lookup_transfers(self, transfers: list[int]) -> list[tbc.Transfer]:
        await self.wait()
        return self.s.lookup_transfers(transfers)


class Book(Protocol):
    """Either book, called as if it blocked."""

    def call(self, kind: int, op: Literal["do", "hold"], vals: Sequence[Value]) -> Result: ...

    def post(self, kind: int, key_vals: Sequence[Value], amounts: Sequence[int] | None) -> Result: ...

    def void(self, kind: int, key_vals: Sequence[Value]) -> Result: ...

    def status(self, kind: int, key_vals: Sequence[Value]) -> HoldState | None: ...

    def balance(self, account: int, args: Sequence[str]) -> Balance: ...


class Awaited:
    """AsyncTigerBeetleBook with each call run to its end in a loop of its own."""

    def __init__(self, b: AsyncTigerBeetleBook) -> None:
        self.b = b

    @staticmethod
    def run(c: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run(c)

    def call(self, kind: int, op: Literal["do", "hold"], vals: Sequence[Value]) -> Result:
        return self.run(self.b.call(kind, op, vals))

    def post(self, kind: int, key_vals: Sequence[Value], amounts: Sequence[int] | None) -> Result:
        return self.run(self.b.post(kind, key_vals, amounts))

    def void(self, kind: int, key_vals: Sequence[Value]) -> Result:
        return self.run(self.b.void(kind, key_vals))

    def status(self, kind: int, key_vals: Sequence[Value]) -> HoldState | None:
        return self.run(self.b.status(kind, key_vals))

    def balance(self, account: int, args: Sequence[str]) -> Balance:
        return self.run(self.b.balance(account, args))


TENANT = "acme"
TAG = definition_tag(STOCK.transfers[RESERVE].definition)
HELD: tuple[str, str] = ("linked_event_failed", "accounts_must_be_different")


def hold_of(amount: int, tag: int = TAG, key: Sequence[str] = ("o1", "A")) -> list[tbc.Transfer]:
    """What the lookup of a hold of reserve_stock finds: its moves, where the
    book lays them out."""
    t = STOCK.transfers[RESERVE]
    return [tbc.Transfer(id=transfer_id(STOCK.book, TENANT, t.name, "hold", list(key), pos), amount=amount,
                         user_data_64=tag, flags=tbc.TransferFlags.PENDING)
            for pos, s in enumerate(_layout(STOCK, t)) if s.role == "move"]


class _Cases:
    """Holds the cases out of the module's namespace, so that only the sync
    and async classes below run them."""

    class TigerBeetleCases(unittest.TestCase):
        is_async = False

        def make(self, d: Def, s: TbScript, tenant: str = TENANT, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Book:
            raise NotImplementedError

        def setUp(self) -> None:
            self.requests: list[Request] = []
            self.s = TbScript()

        def book(self, d: Def = STOCK, tenant: str = TENANT) -> Book:
            return self.make(d, self.s, tenant)

        def ops(self) -> list[str]:
            """What was sent since the last look, request by request, as the book recorded it."""
            got: list[str] = [r.op for r in self.requests]
            self.assertEqual(got, [op for op, _ in self.s.got], "the book records every request it sends")
            self.requests.clear()
            self.s.got.clear()
            return got

        def fails(self, f: Callable[[], object], code: str) -> ChoboError:
            with self.assertRaises(ChoboError) as cm:
                f()
            self.assertEqual(cm.exception.code, code, str(cm.exception))
            return cm.exception

        def test_accounts_and_openings_made_once(self) -> None:
            b = self.book(CELLS)
            self.assertEqual(b.call(FUND, "do", ["f1", "alice", 500]), DONE)
            p = plan(CELLS, TENANT, FUND, "do", ["f1", "alice", 500])
            sent = list(self.requests)
            self.assertEqual(self.ops(), ["create_accounts", "create_transfers", "create_transfers"])
            self.assertEqual(sent[0].accounts, tuple(p.accounts))
            self.assertEqual(sent[1].transfers, tuple(p.openings))
            self.assertEqual(len(p.openings), 2, "a room and a floor")
            self.assertEqual(sent[2].transfers, tuple(e.transfer for e in p.chain))
            self.assertEqual(b.call(FUND, "do", ["f2", "alice", 5]), DONE)
            self.assertEqual(self.ops(), ["create_transfers"], "only the chain: everything else is made")
            # Bob's cell, its room, the room's shortfall and its floor are new;
            # the bank and the sink are not.
            self.assertEqual(b.call(FUND, "do", ["f3", "bob", 5]), DONE)
            sent = list(self.requests)
            self.assertEqual(self.ops(), ["create_accounts", "create_transfers", "create_transfers"])
            self.assertEqual(len(sent[0].accounts), 4)
            self.assertEqual(len(sent[1].transfers), 2)
            # Another book remembers nothing of this one's.
            self.assertEqual(self.book(CELLS).call(FUND, "do", ["f4", "alice", 5]), DONE)
            self.assertEqual(self.ops(), ["create_accounts", "create_transfers", "create_transfers"])

        def test_records_sent_field_for_field(self) -> None:
            b = self.book(CELLS)
            b.call(FUND, "do", ["f1", "alice", 500])
            p = plan(CELLS, TENANT, FUND, "do", ["f1", "alice", 500])
            (_, accounts), (_, openings), (_, chain) = self.s.got
            for mine, theirs in zip(p.accounts, accounts, strict=True):
                self.assertIsInstance(theirs, tbc.Account)
                self.assertIsInstance(theirs.flags, tbc.AccountFlags)
                self.assertEqual((theirs.id, theirs.user_data_128, theirs.ledger, theirs.code, int(theirs.flags)),
                                 (mine.id, mine.user_data_128, mine.ledger, mine.code, mine.flags))
            for mine_t, theirs_t in zip([*p.openings, *(e.transfer for e in p.chain)], [*openings, *chain],
                                        strict=True):
                self.assertIsInstance(theirs_t, tbc.Transfer)
                self.assertIsInstance(theirs_t.flags, tbc.TransferFlags)
                for f in ("id", "debit_account_id", "credit_account_id", "amount", "pending_id", "user_data_128",
                          "user_data_64", "user_data_32", "timeout", "ledger", "code", "flags", "timestamp"):
                    self.assertEqual(getattr(theirs_t, f), getattr(mine_t, f), f)
            self.assertEqual(int(chain[0].flags) & TRANSFER_LINKED, TRANSFER_LINKED)

        def test_accounts_that_exist(self) -> None:
            self.s.account_statuses.append(every("exists"))
            self.s.transfer_statuses.append(every("exists"))
            b = self.book(CELLS)
            self.assertEqual(b.call(FUND, "do", ["f1", "alice", 1]), DONE)
            self.ops()
            self.assertEqual(b.call(FUND, "do", ["f2", "alice", 1]), DONE)
            self.assertEqual(self.ops(), ["create_transfers"])

        def test_account_changed(self) -> None:
            for status in ("exists_with_different_flags", "exists_with_different_ledger",
                           "exists_with_different_user_data_128", "exists_with_different_code"):
                with self.subTest(status=status):
                    self.s.account_statuses.append(first(status))
                    e = self.fails(lambda: self.book(CELLS).call(FUND, "do", ["f1", "alice", 1]),
                                   "CHOBO_ACCOUNT_CHANGED")
                    self.assertIn(status, str(e))
                    self.assertEqual(self.ops(), ["create_accounts"], "no chain after a changed account")

        def test_opening_of_another_amount(self) -> None:
            b = self.book(CELLS)
            self.s.transfer_statuses.append(first("exists_with_different_amount"))
            self.assertEqual(b.call(FUND, "do", ["f1", "alice", 1]), DONE)
            self.assertEqual(self.ops(), ["create_accounts", "create_transfers", "create_transfers"],
                             "made by this call: no lookup")
            self.assertEqual(b.call(FUND, "do", ["f2", "alice", 1]), DONE)
            self.assertEqual(self.ops(), ["create_transfers"])

        def test_account_made_before_its_floor_or_room(self) -> None:
            self.s.account_statuses.append(every("exists"))
            b = self.book(CELLS)
            p = plan(CELLS, TENANT, FUND, "do", ["f1", "alice", 1])
            owners = {a.user_data_128 for a in p.accounts if a.id in {o.credit_account_id for o in p.openings}}
            self.s.found_accounts.append([tbc.Account(id=o, credits_posted=3) for o in owners])
            self.assertEqual(b.call(FUND, "do", ["f1", "alice", 1]), DONE)
            openings = [t for op, items in self.s.got if op == "create_transfers" for t in items][: len(p.openings)]
            self.assertEqual(self.ops(), ["create_accounts", "lookup_accounts", "create_transfers", "create_transfers"])
            self.assertTrue(openings and all(t.amount == UNBOUNDED for t in openings), openings)

        def test_making_fails_otherwise(self) -> None:
            self.s.account_statuses.append(first("ledger_must_not_be_zero"))
            e = self.fails(lambda: self.book(CELLS).call(FUND, "do", ["f1", "alice", 1]), "CHOBO_UNEXPECTED")
            self.assertIn("creating account", str(e))
            self.s.account_statuses.append(exactly("created"))
            e = self.fails(lambda: self.book(CELLS).call(FUND, "do", ["f1", "alice", 1]), "CHOBO_UNEXPECTED")
            self.assertIn("statuses for", str(e))
            self.s.transfer_statuses.append(exactly("created"))
            e = self.fails(lambda: self.book(CELLS).call(FUND, "do", ["f1", "alice", 1]), "CHOBO_UNEXPECTED")
            self.assertIn("1 statuses for 2 transfers", str(e))

        def test_chain_statuses(self) -> None:
            b = self.book(CELLS)
            b.call(FUND, "do", ["f0", "alice", 1])
            self.ops()
            # fund's chain: the move, the room_net, the room_take, the floor_give.
            self.s.transfer_statuses.append(
                exactly("linked_event_failed", "linked_event_failed", "exceeds_credits", "linked_event_failed"))
            self.assertEqual(b.call(FUND, "do", ["f1", "alice", 2000]), refused("full"))
            self.s.transfer_statuses.append(
                exactly("exists", "linked_event_failed", "linked_event_failed", "linked_event_failed"))
            self.assertEqual(b.call(FUND, "do", ["f0", "alice", 1]), DONE_BEFORE)
            self.s.transfer_statuses.append(exactly("created", "created"))
            self.fails(lambda: b.call(FUND, "do", ["f2", "alice", 1]), "CHOBO_UNEXPECTED")
            self.assertEqual(self.ops(), ["create_transfers"] * 3)

        def test_retry_laid_out_otherwise(self) -> None:
            # A call made before a deploy that laid fund's chain out
            # otherwise: its move exists with other flags, and the record
            # of it tells whether the retry is the same call.
            b = self.book(CELLS)
            b.call(FUND, "do", ["f0", "alice", 1])
            self.ops()
            first = plan(CELLS, TENANT, FUND, "do", ["f1", "alice", 2]).chain[0].transfer
            same = tbc.Transfer(id=first.id, amount=2, user_data_128=first.user_data_128, user_data_64=first.user_data_64)
            other = replace(same, user_data_128=first.user_data_128 + 1)
            for found, want in ((same, DONE_BEFORE), (other, refused("key_conflict"))):
                self.s.transfer_statuses.append(lambda n: ["exists_with_different_flags"] + ["linked_event_failed"] * (n - 1))
                self.s.found_transfers.append([found])
                self.assertEqual(b.call(FUND, "do", ["f1", "alice", 2]), want)
                self.assertEqual(self.s.got[-1], ("lookup_transfers", [first.id]))
                self.assertEqual(self.ops(), ["create_transfers", "lookup_transfers"])

        def test_chain_over_max_events(self) -> None:
            self.assertGreater(len(plan(LONG, TENANT, 0, "do", ["r"]).chain), MAX_EVENTS)
            e = self.fails(lambda: self.book(LONG).call(0, "do", ["r"]), "CHOBO_UNEXPECTED")
            self.assertIn(f"does not fit one request of {MAX_EVENTS}", str(e))
            self.assertEqual(self.ops(), [], "refused before anything is sent")

        def test_same_account(self) -> None:
            self.assertEqual(self.book(CELLS).call(SHIFT, "do", ["s1", "alice", "alice", 5]), refused("same_account"))
            self.assertEqual(self.ops(), [])

        def test_bad_calls(self) -> None:
            b = self.book()
            self.fails(lambda: b.call(9, "do", ["a"]), "CHOBO_UNEXPECTED")
            self.fails(lambda: b.call(RESERVE, "do", ["o", "A", 1]), "CHOBO_UNEXPECTED")
            self.fails(lambda: b.call(RESTOCK, "do", ["d", "A"]), "CHOBO_UNEXPECTED")
            self.fails(lambda: b.call(RESTOCK, "do", ["d", "x" * 3000, 1]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: self.book(tenant="t" * 300).call(RESTOCK, "do", ["d", "A", 1]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: b.post(RESERVE, ["o", "A"], [1, 2]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: b.post(RESERVE, ["o", "A"], [-1]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: b.post(RESERVE, ["o", "A"], [True]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: b.void(RESERVE, ["o", "x" * 3000]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: b.status(RESERVE, ["o", "x" * 3000]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: b.status(RESTOCK, ["d", "A"]), "CHOBO_UNEXPECTED")
            self.fails(lambda: b.balance(SHELF, ["x" * 3000]), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: b.balance(7, []), "CHOBO_UNEXPECTED")
            self.fails(lambda: b.balance(-1, []), "CHOBO_UNEXPECTED")
            self.assertEqual(self.ops(), [])

        def test_hold_then_post_in_full(self) -> None:
            b = self.book()
            self.assertEqual(b.call(RESERVE, "hold", ["o1", "A", 30]), DONE)
            self.ops()
            self.s.found_transfers.append(hold_of(30))
            self.assertEqual(b.post(RESERVE, ["o1", "A"], None), DONE)
            sent = list(self.requests)
            self.assertEqual(self.ops(), ["lookup_transfers", "create_transfers"])
            self.assertEqual(sent[0].ids, tuple(lookups(STOCK, TENANT, RESERVE, ["o1", "A"])))
            (post,) = sent[1].transfers
            self.assertEqual((post.amount, post.flags, post.pending_id), (30, TRANSFER_POST_PENDING, sent[0].ids[0]))

        def test_post_in_part(self) -> None:
            self.s.found_transfers.append(hold_of(30))
            self.assertEqual(self.book().post(RESERVE, ["o1", "A"], [12]), DONE)
            sent = list(self.requests)
            self.assertEqual(self.ops(), ["lookup_transfers", "create_transfers"])
            self.assertEqual(sent[1].transfers[0].amount, 12)

        def test_post_over_the_hold(self) -> None:
            """More than the hold holds is answered from the hold's state, read by a status chain."""
            answers: list[tuple[tuple[str, str], Result]] = [
                (HELD, refused("over_hold")),
                (("pending_transfer_already_posted", "linked_event_failed"), refused("key_conflict")),
                (("pending_transfer_already_voided", "linked_event_failed"), refused("already_voided")),
                (("pending_transfer_expired", "linked_event_failed"), refused("expired")),
                (("pending_transfer_not_found", "linked_event_failed"), refused("no_such_hold")),
            ]
            b = self.book()
            for statuses, want in answers:
                with self.subTest(statuses=statuses):
                    self.s.found_transfers.append(hold_of(30))
                    self.s.transfer_statuses.append(exactly(*statuses))
                    self.assertEqual(b.post(RESERVE, ["o1", "A"], [31]), want)
                    sent = list(self.requests)
                    self.assertEqual(self.ops(), ["lookup_transfers", "create_transfers"], "no post is sent")
                    void, fail = sent[1].transfers
                    self.assertEqual(void.flags & TRANSFER_VOID_PENDING, TRANSFER_VOID_PENDING)
                    self.assertEqual(fail.debit_account_id, fail.credit_account_id)

        def test_no_such_hold(self) -> None:
            b = self.book()
            self.assertEqual(b.post(RESERVE, ["o1", "A"], None), refused("no_such_hold"))
            self.assertEqual(b.post(RESERVE, ["o1", "A"], [5]), refused("no_such_hold"))
            self.assertEqual(b.void(RESERVE, ["o1", "A"]), refused("no_such_hold"))
            self.assertEqual(self.ops(), ["lookup_transfers"] * 3, "no chain when the lookups find nothing")

        def test_hold_of_another_definition(self) -> None:
            b = self.book()
            self.s.found_transfers += [hold_of(30, tag=TAG + 1), hold_of(30, tag=TAG + 1)]
            self.assertEqual(b.post(RESERVE, ["o1", "A"], None), refused("key_conflict"))
            self.assertEqual(b.void(RESERVE, ["o1", "A"]), refused("key_conflict"))
            self.assertEqual(self.ops(), ["lookup_transfers"] * 2)
            # An untagged hold was made by a client that tagged none: it is taken as it is.
            self.s.found_transfers.append(hold_of(30, tag=0))
            self.assertEqual(b.void(RESERVE, ["o1", "A"]), DONE)

        def test_legacy_definition(self) -> None:
            """A hold tagged, or a call hashed, with the kind's legacy hash (an
            earlier chobo's, with the bounds in it) is this kind's."""
            legacy = "00000000000000aa"
            d = replace(STOCK, transfers=tuple(replace(t, legacy=legacy) for t in STOCK.transfers))
            old = replace(STOCK, transfers=tuple(replace(t, definition=legacy) for t in STOCK.transfers))
            b, before = self.book(d), self.book(STOCK)
            self.s.found_transfers.append(hold_of(30, tag=definition_tag(legacy)))
            self.assertEqual(b.post(RESERVE, ["o1", "A"], None), DONE)
            self.s.found_transfers.append(hold_of(30, tag=definition_tag(legacy)))
            self.assertEqual(before.void(RESERVE, ["o1", "A"]), refused("key_conflict"), "a book without the legacy hash")
            # The accounts and openings, made once.
            self.assertEqual(b.call(RESERVE, "hold", ["o9", "A", 1]), DONE)
            self.assertEqual(b.call(RESTOCK, "do", ["r9", "A", 1]), DONE)
            self.ops()
            # A retry meets the first event with another content: sent again
            # as the earlier chobo sent it, which is there.
            cases: list[tuple[str, Callable[[Book], Result], list[str]]] = [
                ("hold", lambda bk: bk.call(RESERVE, "hold", ["o1", "A", 30]), ["create_transfers"] * 2),
                ("do", lambda bk: bk.call(RESTOCK, "do", ["r1", "A", 30]), ["create_transfers"] * 2),
                ("void", lambda bk: bk.void(RESERVE, ["o1", "A"]), ["lookup_transfers"] + ["create_transfers"] * 2),
            ]
            for name, call, want_ops in cases:
                with self.subTest(call=name):
                    if name == "void":
                        self.s.found_transfers.append(hold_of(30, tag=definition_tag(legacy)))
                    self.s.transfer_statuses += [first("exists_with_different_user_data_128"), first("exists")]
                    self.assertEqual(call(b), DONE_BEFORE)
                    sent = list(self.requests)
                    self.assertEqual(self.ops(), want_ops)
                    again = sent[-1].transfers
                    if name == "hold":
                        self.assertEqual(again, tuple(e.transfer for e in plan(old, TENANT, RESERVE, "hold", ["o1", "A", 30]).chain))
            self.s.transfer_statuses.append(first("exists_with_different_user_data_128"))
            self.assertEqual(before.call(RESTOCK, "do", ["r1", "A", 30]), refused("key_conflict"))
            self.assertEqual(self.ops(), ["create_accounts", "create_transfers"], "the chain once: nothing sent again without a legacy hash")

        def test_lookup_answers_another_transfer(self) -> None:
            self.s.found_transfers.append([tbc.Transfer(id=12345, amount=1)])
            self.fails(lambda: self.book().void(RESERVE, ["o1", "A"]), "CHOBO_UNEXPECTED")

        def test_void(self) -> None:
            self.s.found_transfers.append(hold_of(30))
            self.s.transfer_statuses.append(exactly("pending_transfer_already_posted"))
            self.assertEqual(self.book().void(RESERVE, ["o1", "A"]), refused("already_posted"))
            sent = list(self.requests)
            self.assertEqual(self.ops(), ["lookup_transfers", "create_transfers"])
            self.assertEqual(sent[1].transfers[0].flags, TRANSFER_VOID_PENDING)

        def test_status(self) -> None:
            b = self.book()
            self.s.transfer_statuses += [exactly(*HELD), exactly("pending_transfer_not_found", "linked_event_failed"),
                                         exactly("created", "created")]
            self.assertEqual(b.status(RESERVE, ["o1", "A"]), "held")
            self.assertIsNone(b.status(RESERVE, ["o1", "A"]))
            self.fails(lambda: b.status(RESERVE, ["o1", "A"]), "CHOBO_UNEXPECTED")
            sent = list(self.requests)
            self.assertEqual(self.ops(), ["create_transfers"] * 3, "a status is one chain, nothing else")
            fresh = {t.id for r in sent for t in r.transfers}
            self.assertEqual(len(fresh), 6, "every status chain has fresh ids")
            self.assertNotIn(0, fresh)

        def test_balance(self) -> None:
            b = self.book()
            self.assertEqual(b.balance(SHELF, ["B"]), Balance(0, 0, 0), "an account never written holds nothing")
            sent = list(self.requests)
            self.assertEqual(self.ops(), ["lookup_accounts"])
            self.assertEqual(sent[0].ids, (ids.account_id(STOCK.book, TENANT, "shelf", ["B"]),))
            self.s.found_accounts.append([tbc.Account(id=1, debits_posted=20, credits_posted=50, credits_pending=5,
                                                      debits_pending=7)])
            self.assertEqual(b.balance(SHELF, ["A"]), Balance(30, 5, 7))
            self.s.found_accounts.append([tbc.Account(id=1, credits_posted=1 << 64)])
            self.fails(lambda: b.balance(SHELF, ["A"]), "CHOBO_BALANCE_OVERFLOW")
            self.s.found_accounts.append([tbc.Account(id=1, debits_posted=10)])
            self.assertEqual(self.book(CELLS).balance(BANK, []), Balance(-10, 0, 0))
            self.assertEqual(self.book(CELLS).balance(CELL, ["z"]), Balance(0, 0, 0))

        def test_client_errors_go_through(self) -> None:
            err = tbc.ClientEvictedError()
            self.s.raises = err
            with self.assertRaises(tbc.ClientEvictedError) as cm:
                self.book().call(RESTOCK, "do", ["d", "A", 1])
            self.assertIs(cm.exception, err)

        def test_constructor_checks(self) -> None:
            cls: Any = AsyncTigerBeetleBook if self.is_async else TigerBeetleBook
            other = FakeSync(self.s) if self.is_async else FakeAsync(self.s)
            for client in (None, object(), "3000", other):
                with self.subTest(client=repr(client)):
                    self.fails(lambda: cls(client, STOCK), "CHOBO_BAD_ARGUMENT")
            right = FakeAsync(self.s) if self.is_async else FakeSync(self.s)
            self.fails(lambda: cls(right, STOCK, "a\x00"), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: cls(right, STOCK, 5), "CHOBO_BAD_ARGUMENT")
            self.fails(lambda: cls(right, "stock"), "CHOBO_BAD_ARGUMENT")
            for ms in (-1, 1.5, True, None):
                with self.subTest(timeout_ms=ms):
                    self.fails(lambda: cls(right, STOCK, "", ms), "CHOBO_BAD_ARGUMENT")
            self.assertEqual(cls(right, STOCK).timeout_ms, DEFAULT_TIMEOUT_MS)


class TigerBeetleBookTest(_Cases.TigerBeetleCases):
    def make(self, d: Def, s: TbScript, tenant: str = TENANT, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Book:
        return TigerBeetleBook(FakeSync(s), d, tenant, timeout_ms, on_request=self.requests.append)

    def test_timeout(self) -> None:
        client = FakeSync(self.s)
        client.gate = threading.Event()
        b = TigerBeetleBook(client, STOCK, TENANT, timeout_ms=50)
        t0 = time.monotonic()
        e = self.fails(lambda: b.balance(SHELF, ["A"]), "CHOBO_TIMEOUT")
        self.assertLess(time.monotonic() - t0, 5)
        self.assertIn("TigerBeetle lookup_accounts: no answer within 50 ms", str(e))
        client.gate.set()
        # The request given up on still ends, on its own thread.
        for _ in range(100):
            if self.s.got:
                break
            time.sleep(0.01)
        self.assertEqual([op for op, _ in self.s.got], ["lookup_accounts"])

    def test_no_timeout_runs_on_the_callers_thread(self) -> None:
        seen: list[threading.Thread] = []

        class Here(FakeSync):
            def lookup_accounts(self, accounts: list[int]) -> list[tbc.Account]:
                seen.append(threading.current_thread())
                return []

        self.assertEqual(TigerBeetleBook(Here(self.s), STOCK, timeout_ms=0).balance(SHELF, ["A"]), Balance(0, 0, 0))
        self.assertEqual(seen, [threading.current_thread()])
        TigerBeetleBook(Here(self.s), STOCK).balance(SHELF, ["A"])
        self.assertIsNot(seen[1], threading.current_thread())

    def test_request_events(self) -> None:
        bad: tuple[Any, ...] = (0, -1, 2.5, True, MAX_REQUEST_EVENTS + 1, "20")
        for n in bad:
            with self.subTest(request_events=n):
                self.fails(lambda: TigerBeetleBook(FakeSync(self.s), STOCK, request_events=n), "CHOBO_BAD_ARGUMENT")
        calls = [TbCall(RESTOCK, "do", (f"r{i}", f"S{i}", 1)) for i in range(30)]
        sizes: dict[int, list[tuple[str, int]]] = {}
        for n in (MAX_EVENTS, 7):
            self.s.got.clear()
            b = TigerBeetleBook(FakeSync(self.s), STOCK, f"events{n}", request_events=n)
            self.assertEqual(b.bulk(calls), [DONE] * 30)
            sizes[n] = [(op, len(items)) for op, items in self.s.got]
        creates = {n: [k for op, k in got if op.startswith("create_")] for n, got in sizes.items()}
        self.assertTrue(all(k <= 7 for k in creates[7]), creates[7])
        self.assertEqual(sum(creates[7]), sum(creates[MAX_EVENTS]), "the same events, in more requests")
        self.assertGreater(len(creates[7]), len(creates[MAX_EVENTS]))
        # A chain of 254 events fits a request of 254, not the default 253.
        self.fails(lambda: TigerBeetleBook(FakeSync(self.s), LONG).call(0, "do", ["m"]), "CHOBO_UNEXPECTED")
        self.assertEqual(TigerBeetleBook(FakeSync(self.s), LONG, request_events=254).call(0, "do", ["m"]), DONE)

    def test_worker_threads_are_kept_but_not_one_given_up_on(self) -> None:
        seen: list[threading.Thread] = []
        gate: list[threading.Event] = []

        class Here(FakeSync):
            def lookup_accounts(self, accounts: list[int]) -> list[tbc.Account]:
                seen.append(threading.current_thread())
                if gate:
                    gate[0].wait()
                self.s.answer("lookup_accounts", accounts)
                return []

        b = TigerBeetleBook(Here(self.s), STOCK, timeout_ms=50)
        for _ in range(3):
            self.assertEqual(b.balance(SHELF, ["A"]), Balance(0, 0, 0))
        self.assertEqual(len(set(seen)), 1, "one worker answers calls made one after another")
        self.assertIsNot(seen[0], threading.current_thread())
        gate.append(threading.Event())
        self.fails(lambda: b.balance(SHELF, ["A"]), "CHOBO_TIMEOUT")
        stuck = seen[-1]
        gate[0].set()
        stuck.join(5)
        self.assertFalse(stuck.is_alive(), "the worker given up on ends with its request")
        gate.clear()
        self.assertEqual(b.balance(SHELF, ["A"]), Balance(0, 0, 0))
        self.assertIsNot(seen[-1], stuck)
        # An error of the request reaches the caller, and the worker stays.
        self.s.raises = ConnectionError("gone")
        with self.assertRaises(ConnectionError):
            b.balance(SHELF, ["A"])
        self.s.raises = None
        self.assertEqual(b.balance(SHELF, ["A"]), Balance(0, 0, 0))
        self.assertIs(seen[-1], seen[-2])
        # a timeout longer than a lock can wait is taken as for ever
        self.assertEqual(TigerBeetleBook(Here(self.s), STOCK, timeout_ms=10**18).balance(SHELF, ["A"]), Balance(0, 0, 0))

    def test_bulk_of_legacy_calls(self) -> None:
        """In a bulk, a call an earlier chobo made with the kind's legacy hash
        is sent again alone, as it sent it; the others are answered as ever."""
        legacy = "00000000000000aa"
        d = replace(STOCK, transfers=tuple(replace(t, legacy=legacy) for t in STOCK.transfers))
        old = replace(STOCK, transfers=tuple(replace(t, definition=legacy) for t in STOCK.transfers))
        b = TigerBeetleBook(FakeSync(self.s), d, TENANT, on_request=self.requests.append)
        self.assertEqual(b.call(RESTOCK, "do", ["r9", "A", 1]), DONE)  # the accounts, made once
        self.s.found_transfers.append(hold_of(30, tag=definition_tag(legacy)))
        self.ops()
        one = len(plan(d, TENANT, RESTOCK, "do", ["r1", "A", 30]).chain)
        # The first chain's first event exists with another content; the
        # post is created.
        self.s.transfer_statuses += [
            lambda n: ["exists_with_different_user_data_128"] + ["linked_event_failed"] * (one - 1) + ["created"] * (n - one),
            first("exists"),
        ]
        answers = b.bulk([TbCall(RESTOCK, "do", ("r1", "A", 30)), TbCall(RESERVE, "post", ("o1", "A"))])
        self.assertEqual(answers, [DONE_BEFORE, DONE])
        sent = list(self.requests)
        self.assertEqual(self.ops(), ["lookup_transfers", "create_transfers", "create_transfers"])
        self.assertEqual(sent[-1].transfers, tuple(e.transfer for e in plan(old, TENANT, RESTOCK, "do", ["r1", "A", 30]).chain))

    def test_bulk_retry_laid_out_otherwise(self) -> None:
        # As test_retry_laid_out_otherwise, through a bulk: the first
        # events of such retries are looked up after the chains are sent.
        b = TigerBeetleBook(FakeSync(self.s), CELLS, TENANT)
        b.call(FUND, "do", ["f0", "alice", 1])
        first = plan(CELLS, TENANT, FUND, "do", ["f1", "alice", 2]).chain[0].transfer
        same = tbc.Transfer(id=first.id, amount=2, user_data_128=first.user_data_128, user_data_64=first.user_data_64)
        other = replace(same, user_data_128=first.user_data_128 + 1)
        for found, want in ((same, DONE_BEFORE), (other, refused("key_conflict"))):
            self.s.transfer_statuses.append(lambda n: ["exists_with_different_flags"] + ["linked_event_failed"] * (n - 1))
            self.s.found_transfers.append([found])
            self.s.got.clear()
            self.assertEqual(b.bulk([TbCall(FUND, "do", ("f1", "alice", 2))]), [want])
            self.assertEqual([op for op, _ in self.s.got], ["create_transfers", "lookup_transfers"])

    def test_threads_share_a_book(self) -> None:
        b = TigerBeetleBook(FakeSync(self.s), STOCK, TENANT)
        out: list[Result] = []
        threads = [threading.Thread(target=lambda i=i: out.append(b.call(RESTOCK, "do", [f"d{i}", "A", 1])))
                   for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(out, [DONE] * 8)


class AsyncTigerBeetleBookTest(_Cases.TigerBeetleCases):
    is_async = True

    def make(self, d: Def, s: TbScript, tenant: str = TENANT, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Book:
        return Awaited(AsyncTigerBeetleBook(FakeAsync(s), d, tenant, timeout_ms, on_request=self.requests.append))

    def test_timeout(self) -> None:
        client = FakeAsync(self.s)
        b = AsyncTigerBeetleBook(client, STOCK, TENANT, timeout_ms=50)

        async def late() -> None:
            client.gate = asyncio.Event()
            with self.assertRaises(ChoboError) as cm:
                await b.call(RESTOCK, "do", ["d", "A", 1])
            self.assertEqual(cm.exception.code, "CHOBO_TIMEOUT")
            self.assertIn("TigerBeetle create_accounts: no answer within 50 ms", str(cm.exception))
            self.assertEqual(self.s.got, [], "the request is still waiting")
            # It was left to finish rather than cancelled, as the official
            # client needs to forget it; opening the gate lets it end.
            client.gate.set()
            for _ in range(100):
                if self.s.got:
                    break
                await asyncio.sleep(0.01)
            self.assertEqual([op for op, _ in self.s.got], ["create_accounts"])

        asyncio.run(late())

    def test_cancelled(self) -> None:
        """A call cancelled while its accounts are being made sent nothing
        of its own: the plain CancelledError. Cancelled once its chain is
        out, it may have been applied: ChoboCancelledError. A status is a
        read: plain, wherever it was."""

        class ChainsHeld(FakeAsync):
            """Holds every create_transfers until chains opens; the rest goes."""

            chains = asyncio.Event()

            async def create_transfers(self, transfers: list[tbc.Transfer]) -> list[tbc.CreateTransferResult]:
                await self.chains.wait()
                return self.s.create_transfers(transfers)

        async def until_sent(op: str) -> None:
            for _ in range(1000):
                if self.requests and self.requests[-1].op == op:
                    return
                await asyncio.sleep(0)
            self.fail(f"no {op} went")

        async def run() -> None:
            slow = FakeAsync(self.s)
            slow.gate = asyncio.Event()
            b = AsyncTigerBeetleBook(slow, STOCK, TENANT, on_request=self.requests.append)
            t = asyncio.create_task(b.call(RESTOCK, "do", ["d1", "A", 1]))
            await until_sent("create_accounts")
            t.cancel()
            with self.assertRaises(asyncio.CancelledError) as plain:
                await t
            self.assertNotIsInstance(plain.exception, ChoboError)
            slow.gate.set()

            held = ChainsHeld(self.s)
            held.chains = asyncio.Event()
            b = AsyncTigerBeetleBook(held, STOCK, TENANT, on_request=self.requests.append)
            writes: list[tuple[str, int, Literal["do", "hold"], list[Value]]] = [
                ("restock.do", RESTOCK, "do", ["d2", "A", 1]),
                ("reserve_stock.hold", RESERVE, "hold", ["o1", "A", 1]),
            ]
            for op, kind, verb, vals in writes:
                sent = asyncio.create_task(b.call(kind, verb, vals))
                await until_sent("create_transfers")
                sent.cancel()
                with self.assertRaises(ChoboCancelledError) as cm:
                    await sent
                self.assertEqual(cm.exception.code, "CHOBO_OUTCOME_UNKNOWN")
                self.assertIn(f"{op}: the call was cancelled after it was sent", str(cm.exception))
                self.requests.clear()
            read = asyncio.create_task(b.status(RESERVE, ["o1", "A"]))
            await until_sent("create_transfers")
            read.cancel()
            with self.assertRaises(asyncio.CancelledError) as plain:
                await read
            self.assertNotIsInstance(plain.exception, ChoboError)
            held.chains.set()

        asyncio.run(run())

    def test_concurrent_calls(self) -> None:
        b = AsyncTigerBeetleBook(FakeAsync(self.s), STOCK, TENANT)

        async def many() -> list[Result]:
            return list(await asyncio.gather(*(b.call(RESTOCK, "do", [f"d{i}", "A", 1]) for i in range(8))))

        self.assertEqual(asyncio.run(many()), [DONE] * 8)


if __name__ == "__main__":
    unittest.main()
