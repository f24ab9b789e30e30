"""How a Python client sends the chains of a chobo book to TigerBeetle
through the official client (the tigerbeetle package, 0.17.9): it makes the
accounts and openings a call needs once per book, sends the chain, and
reads the statuses into chobo's answer. It is the TypeScript runtime's
TigerBeetleBook (and the Go runtime's chobotb.Book) written again.

Each operation is written once, as a generator that yields the requests it
needs and is handed their answers; TigerBeetleBook runs those generators
over ClientSync, AsyncTigerBeetleBook over ClientAsync, so that the two
cannot answer differently."""

from __future__ import annotations

import asyncio
import inspect
import re
import secrets
import threading
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any, Literal, Protocol, TypeAlias, TypeVar, cast

import tigerbeetle as tb

from .chobo import (
    DONE_BEFORE,
    Balance,
    ChoboCancelledError,
    ChoboError,
    Entry,
    EntryOp,
    HoldMove,
    HoldState,
    OpenHold,
    Result,
    Statement,
    check_amount,
    check_query,
    check_size,
    check_text,
    check_time,
    describe,
    page_limit,
    refused,
)
from .ids import account_id, hex_id, transfer_id
from .tigerbeetle import (
    AMOUNT_MAX_128,
    DEFAULT_TIMEOUT_MS,
    MAX_EVENTS,
    MAX_REQUEST_EVENTS,
    TRANSFER_PENDING,
    TRANSFER_POST_PENDING,
    TRANSFER_VOID_PENDING,
    UNBOUNDED,
    Account,
    ChainEvent,
    Def,
    HoldEvent,
    Plan,
    Side,
    Transfer,
    TransferKind,
    Value,
    _as_legacy,
    _fixed_of,
    _kind_of,
    _REACH,
    _layout,
    _link,
    _laid_out_otherwise,
    _made_by_legacy,
    _text,
    account_status,
    balance_of,
    finish_of,
    hold_of,
    lookups,
    plan,
    read,
    read_status,
    status_chain,
    tenant_ids_of,
    transfer_status,
)

RequestOp: TypeAlias = Literal[
    "create_accounts", "create_transfers", "lookup_accounts", "lookup_transfers", "get_account_transfers",
    "query_transfers",
]


@dataclass(frozen=True)
class AccountFilter:
    """TigerBeetle's filter of get_account_transfers, in the runtime's own
    record: the transfers that name account_id on the sides asked for
    (debits, credits; neither is nothing), with timestamps from
    timestamp_min to timestamp_max (both inclusive, 0 for no bound), of
    code when not 0, at most limit of them, oldest first or, with
    reversed, newest first."""

    account_id: int
    code: int = 0
    timestamp_min: int = 0
    timestamp_max: int = 0
    limit: int = 0
    debits: bool = False
    credits: bool = False
    reversed: bool = False


@dataclass(frozen=True)
class QueryFilter:
    """TigerBeetle's filter of query_transfers: the transfers whose fields
    equal every one of user_data_128, user_data_64, ledger and code that
    is not 0 (chobo writes no user_data_32), with timestamps from
    timestamp_min to timestamp_max (both inclusive, 0 for no bound), at
    most limit of them, oldest first or, with reversed, newest first."""

    user_data_128: int = 0
    user_data_64: int = 0
    ledger: int = 0
    code: int = 0
    timestamp_min: int = 0
    timestamp_max: int = 0
    limit: int = 0
    reversed: bool = False


@dataclass(frozen=True)
class Request:
    """A request as a book sends it, in the runtime's own records, for a
    caller that records them (on_request): accounts for create_accounts,
    transfers for create_transfers, ids for the lookups, the filter of
    get_account_transfers and of query_transfers."""

    op: RequestOp
    accounts: tuple[Account, ...] = ()
    transfers: tuple[Transfer, ...] = ()
    ids: tuple[int, ...] = ()
    filter: AccountFilter | QueryFilter | None = None


class TigerBeetleClient(Protocol):
    """What TigerBeetleBook uses of tigerbeetle.ClientSync."""

    def create_accounts(self, accounts: list[tb.Account], /) -> list[tb.CreateAccountResult]: ...

    def create_transfers(self, transfers: list[tb.Transfer], /) -> list[tb.CreateTransferResult]: ...

    def lookup_accounts(self, accounts: list[int], /) -> list[tb.Account]: ...

    def lookup_transfers(self, transfers: list[int], /) -> list[tb.Transfer]: ...


class TigerBeetleHistoryClient(TigerBeetleClient, Protocol):
    """What TigerBeetleBook's history reads use of tigerbeetle.ClientSync
    besides: a client without these cannot read history, and a book over
    it raises CHOBO_UNSUPPORTED for a read."""

    def get_account_transfers(self, filter: tb.AccountFilter, /) -> list[tb.Transfer]: ...

    def query_transfers(self, query_filter: tb.QueryFilter, /) -> list[tb.Transfer]: ...


class AsyncTigerBeetleClient(Protocol):
    """What AsyncTigerBeetleBook uses of tigerbeetle.ClientAsync."""

    async def create_accounts(self, accounts: list[tb.Account], /) -> list[tb.CreateAccountResult]: ...

    async def create_transfers(self, transfers: list[tb.Transfer], /) -> list[tb.CreateTransferResult]: ...

    async def lookup_accounts(self, accounts: list[int], /) -> list[tb.Account]: ...

    async def lookup_transfers(self, transfers: list[int], /) -> list[tb.Transfer]: ...


class AsyncTigerBeetleHistoryClient(AsyncTigerBeetleClient, Protocol):
    """TigerBeetleHistoryClient over tigerbeetle.ClientAsync."""

    async def get_account_transfers(self, filter: tb.AccountFilter, /) -> list[tb.Transfer]: ...

    async def query_transfers(self, query_filter: tb.QueryFilter, /) -> list[tb.Transfer]: ...


@dataclass
class _TbAnswer:
    """What came of a request: the statuses of a create, the records a lookup found."""

    statuses: list[int] = field(default_factory=list)
    accounts: list[Account] = field(default_factory=list)
    transfers: list[Transfer] = field(default_factory=list)


_TbT = TypeVar("_TbT")
_TbFlow: TypeAlias = Generator[Request, _TbAnswer, _TbT]
"""An operation as the drivers run it: it yields requests, is sent their
answers or has the driver's error thrown in, and returns chobo's answer."""


def _tb_random_id() -> int:
    """A fresh random id, kept off the two values TigerBeetle refuses."""
    v = int.from_bytes(secrets.token_bytes(16), "big")
    if v == 0:
        return 1
    return AMOUNT_MAX_128 - 1 if v == AMOUNT_MAX_128 else v


def _tb_statuses(ans: _TbAnswer, n: int, what: str) -> list[int]:
    if len(ans.statuses) != n:
        raise ChoboError("CHOBO_UNEXPECTED", f"{len(ans.statuses)} statuses for {n} {what}")
    return ans.statuses


_HeldOf: TypeAlias = "tuple[list[HoldEvent], list[int]] | None | Literal['other']"

TbAnswer: TypeAlias = "Result | HoldState | None | Exception"
"""What one call of a bulk got: a Result (do, hold, post, void), a hold
state or None (status), or the error the call alone would have raised."""


@dataclass(frozen=True)
class TbCall:
    """One call of a bulk, made by a transfer's *_call method and sent by
    the book's bulk: the operation of a transfer kind and what it is given
    (for do and hold the values in declaration order; for post, void and
    status the key's values, and a post's amounts or None), or the error
    that kept the client from making it."""

    kind: int
    op: Literal["do", "hold", "post", "void", "status"]
    values: tuple[Value, ...] = ()
    amounts: tuple[int, ...] | None = None
    error: Exception | None = None


def tb_call(kind: int, op: Literal["do", "hold", "post", "void", "status"], values: Callable[[], Sequence[Value]],
            amounts: Callable[[], Sequence[int] | None] = lambda: None) -> TbCall:
    """A call of a bulk whose values are checked here: an error of theirs
    is the call's answer, never raised."""
    try:
        a = amounts()
        return TbCall(kind, op, tuple(values()), None if a is None else tuple(a))
    except Exception as e:
        return TbCall(kind, op, error=e)


@dataclass
class _Bulk:
    """What a bulk call knows as it goes: each call's answer so far
    (out), its chain and how its statuses are read (result, state, or
    over_hold: a post over its hold, sent as a status chain), the plans
    whose accounts it makes, the posts and voids waiting for their
    lookup (each with its key and the ids it looks up), the calls sent
    again as an earlier version sent them, and those whose first event
    exists with other flags (with their statuses)."""

    calls: Sequence[TbCall]
    out: list[TbAnswer]
    chains: dict[int, list[ChainEvent]] = field(default_factory=dict)
    reads: dict[int, str] = field(default_factory=dict)
    plans: list[tuple[int, Plan]] = field(default_factory=list)
    finishing: list[tuple[int, list[str], list[int]]] = field(default_factory=list)
    again: list[int] = field(default_factory=list)
    relaid: dict[int, list[int]] = field(default_factory=dict)


class _TbFlows:
    """The operations of a book over TigerBeetle, written once for both
    drivers, and what a book remembers between calls."""

    d: Def
    tenant: str
    timeout_ms: int
    request_events: int

    def __init__(self, d: Def, tenant: str, timeout_ms: int, on_request: Callable[[Request], None] | None,
                 request_events: int = MAX_EVENTS) -> None:
        if not isinstance(d, Def):
            raise ChoboError("CHOBO_BAD_ARGUMENT", f"tigerbeetle: the definition must be a Def, got {describe(d)}")
        if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms < 0:
            raise ChoboError(
                "CHOBO_BAD_ARGUMENT", f"tigerbeetle: timeout_ms must be a whole number from 0, got {describe(timeout_ms)}"
            )
        if (isinstance(request_events, bool) or not isinstance(request_events, int)
                or not 1 <= request_events <= MAX_REQUEST_EVENTS):
            raise ChoboError(
                "CHOBO_BAD_ARGUMENT",
                f"tigerbeetle: request_events must be a whole number from 1 to {MAX_REQUEST_EVENTS}, got {describe(request_events)}",
            )
        self.d = d
        self.tenant = check_text("tigerbeetle", "the tenant", tenant)
        self.timeout_ms = timeout_ms
        self.request_events = request_events
        self._on_request = on_request
        self._tids = tenant_ids_of(d, self.tenant)
        # The accounts and openings this book has made. A set's add is one
        # step under the interpreter's lock, and making one twice is
        # harmless (it exists), so threads share it without a lock of ours.
        self._made: set[int] = set()

    def _ensure_flow(self, p: Plan) -> _TbFlow[None]:
        """Makes the accounts, then the openings, of a plan that this book
        has not made yet, in requests of at most request_events apart from the chain.

        An opening puts into a floor or room the distance from zero to its
        bound, right only for an account with nothing on it: one that existed
        before its floor or room (a bound added to its kind since) is opened
        with UNBOUNDED, so that it answers by the bound it had, none, until
        `chobo migrate` moves it. An opening that exists with another amount
        is fine: the floor or room keeps its bound until the migration
        reaches it."""
        accounts = [a for a in p.accounts if a.id not in self._made]
        created: set[int] = set()
        most = self.request_events
        for i in range(0, len(accounts), most):
            batch = accounts[i : i + most]
            ans = yield Request("create_accounts", accounts=tuple(batch))
            statuses = [account_status(s) for s in _tb_statuses(ans, len(batch), "accounts")]
            created.update(a.id for a, s in zip(batch, statuses) if s == "created")
            self._made_once(
                statuses, [a.id for a in batch],
                "CHOBO_ACCOUNT_CHANGED",
                "an account exists in TigerBeetle with another definition: the book's account kinds changed", "account",
            )
        owner = {a.id: a.user_data_128 for a in p.accounts}
        openings = [t for t in p.openings if t.id not in self._made]
        ask = list(dict.fromkeys(owner[t.credit_account_id] for t in openings if owner[t.credit_account_id] not in created))
        used: set[int] = set()
        for i in range(0, len(ask), MAX_EVENTS):
            ans = yield Request("lookup_accounts", ids=tuple(ask[i : i + MAX_EVENTS]))
            used.update(a.id for a in ans.accounts
                        if a.debits_posted or a.credits_posted or a.debits_pending or a.credits_pending)
        openings = [replace(t, amount=UNBOUNDED) if owner[t.credit_account_id] in used else t for t in openings]
        for i in range(0, len(openings), most):
            batch_t = openings[i : i + most]
            ans = yield Request("create_transfers", transfers=tuple(batch_t))
            self._made_once(
                [transfer_status(s) for s in _tb_statuses(ans, len(batch_t), "transfers")], [t.id for t in batch_t],
                None, "", "opening",
            )

    def _made_once(self, statuses: list[str], made: list[int],
                   code: Literal["CHOBO_ACCOUNT_CHANGED"] | None, changed: str, what: str) -> None:
        """Remembers a batch as made when every record was created or was
        there already. One there with other fields means the book changed;
        for an opening (code None), another amount is its bound, kept."""
        for s, rid in zip(statuses, made):
            if s in ("created", "exists") or (code is None and s == "exists_with_different_amount"):
                continue
            if code is not None and s.startswith("exists_with_different_"):
                raise ChoboError(code, f"{changed} ({what} {hex_id(rid)}: {s})")
            raise ChoboError("CHOBO_UNEXPECTED", f"creating {what} {hex_id(rid)}: TigerBeetle answered {s}")
        self._made.update(made)

    def _send_chain_flow(self, chain: Sequence[ChainEvent]) -> _TbFlow[list[int]]:
        ans = yield Request("create_transfers", transfers=tuple(e.transfer for e in chain))
        return _tb_statuses(ans, len(chain), "transfers")

    def _call_flow(self, kind: int, op: Literal["do", "hold"], vals: Sequence[Value]) -> _TbFlow[Result]:
        check_size(f"{_kind_of(self.d, kind).name}.{op}", self.tenant, vals)
        p = plan(self.d, self.tenant, kind, op, vals, self._tids)
        if p.same_account:
            return refused("same_account")
        if len(p.chain) > self.request_events:
            raise ChoboError(
                "CHOBO_UNEXPECTED", f"a chain of {len(p.chain)} events does not fit one request of {self.request_events}"
            )
        yield from self._ensure_flow(p)
        statuses = yield from self._send_chain_flow(p.chain)
        if _laid_out_otherwise(p.chain, statuses) and (yield from self._same_calls_flow([p.chain]))[0]:
            return DONE_BEFORE
        if _made_by_legacy(_kind_of(self.d, kind), statuses):
            again = plan(_as_legacy(self.d), self.tenant, kind, op, vals, self._tids).chain
            return read(again, (yield from self._send_chain_flow(again)))
        return read(p.chain, statuses)

    def _same_calls_flow(self, chains: Sequence[Sequence[ChainEvent]]) -> _TbFlow[list[bool]]:
        """For chains whose first event exists with other flags
        (_laid_out_otherwise), whether each first event's record is the
        same call: the same content and definition tag."""
        ids = [c[0].transfer.id for c in chains]
        found: dict[int, Transfer] = {}
        for i in range(0, len(ids), MAX_EVENTS):
            ans = yield Request("lookup_transfers", ids=tuple(ids[i : i + MAX_EVENTS]))
            for t in ans.transfers:
                found[t.id] = t
        out = []
        for c in chains:
            rec = found.get(c[0].transfer.id)
            first = c[0].transfer
            out.append(rec is not None and rec.user_data_128 == first.user_data_128 and rec.user_data_64 == first.user_data_64)
        return out

    def _held_flow(self, kind: int, key: Sequence[str]) -> _TbFlow[_HeldOf]:
        """A hold: the events a post or void ends and what each move holds
        (hold_of); None when there is no hold, "other" when it was made under
        another definition of its kind."""
        ids = lookups(self.d, self.tenant, kind, key)
        found: dict[int, Transfer] = {}
        for i in range(0, len(ids), MAX_EVENTS):
            batch = ids[i : i + MAX_EVENTS]
            ans = yield Request("lookup_transfers", ids=tuple(batch))
            for t in ans.transfers:
                if t.id not in batch:
                    raise ChoboError("CHOBO_UNEXPECTED", "the lookup of a hold answered another transfer")
                found[t.id] = t
        return hold_of(self.d, self.tenant, kind, ids, found, self._tids.sinks)

    def _post_flow(self, kind: int, key_vals: Sequence[Value], amounts: Sequence[int] | None) -> _TbFlow[Result]:
        t = _kind_of(self.d, kind)
        where = f"{t.name}.post"
        if amounts is not None:
            if len(amounts) != len(t.post_amounts):
                raise ChoboError(
                    "CHOBO_BAD_ARGUMENT", f"{where}: a post takes {len(t.post_amounts)} amounts, got {len(amounts)}"
                )
            for p, a in zip(t.post_amounts, amounts):
                check_amount(where, t.params[p].name, a)
        check_size(where, self.tenant, key_vals)
        key = [_text(v) for v in key_vals]
        h = yield from self._held_flow(kind, key)
        if h is None:
            return refused("no_such_hold")
        if h == "other":
            return refused("key_conflict")
        hold, held = h
        want = held
        if amounts is not None:
            by_param = dict(zip(t.post_amounts, amounts))
            # A move of a literal amount always posts whole.
            want = [held[i] if m.amount < 0 else by_param.get(m.amount, 0) for i, m in enumerate(t.moves)]
        if any(w > h for w, h in zip(want, held)):
            return _over_hold((yield from self._status_of_flow(kind, key)))
        return (yield from self._finish_flow(kind, "post", key, want, hold))

    def _void_flow(self, kind: int, key_vals: Sequence[Value]) -> _TbFlow[Result]:
        check_size(f"{_kind_of(self.d, kind).name}.void", self.tenant, key_vals)
        key = [_text(v) for v in key_vals]
        h = yield from self._held_flow(kind, key)
        if h is None:
            return refused("no_such_hold")
        if h == "other":
            return refused("key_conflict")
        return (yield from self._finish_flow(kind, "void", key, [], h[0]))

    def _finish_flow(self, kind: int, op: Literal["post", "void"], key: list[str], amounts: list[int],
                     hold: list[HoldEvent]) -> _TbFlow[Result]:
        """Sends a post or void of the hold's events and reads its answer, as
        an earlier version sent it when one made it (_made_by_legacy)."""
        chain = finish_of(self.d, self.tenant, kind, op, key, amounts, hold)
        statuses = yield from self._send_chain_flow(chain)
        if _made_by_legacy(_kind_of(self.d, kind), statuses):
            again = finish_of(_as_legacy(self.d), self.tenant, kind, op, key, amounts, hold)
            return read(again, (yield from self._send_chain_flow(again)))
        return read(chain, statuses)

    def _status_flow(self, kind: int, key_vals: Sequence[Value]) -> _TbFlow[HoldState | None]:
        check_size(f"{_kind_of(self.d, kind).name}.status", self.tenant, key_vals)
        return (yield from self._status_of_flow(kind, [_text(v) for v in key_vals]))

    def _status_of_flow(self, kind: int, key: Sequence[str]) -> _TbFlow[HoldState | None]:
        chain = status_chain(self.d, self.tenant, kind, key, _tb_random_id(), _tb_random_id())
        return read_status((yield from self._send_chain_flow(chain)))

    def _balance_flow(self, account: int, args: Sequence[str]) -> _TbFlow[Balance]:
        known = 0 <= account < len(self.d.accounts)
        check_size(f"balance of {self.d.accounts[account].name if known else account}", self.tenant, args)
        if not known:
            raise ChoboError("CHOBO_UNEXPECTED", f"the book {self.d.book} has no account kind {account}")
        name = self.d.accounts[account].name
        ans = yield Request("lookup_accounts", ids=(account_id(self.d.book, self.tenant, name, list(args)),))
        if not ans.accounts:
            return Balance(0, 0, 0)
        return balance_of(name, ans.accounts[0])

    def _bulk_flow(self, calls: Sequence[TbCall]) -> _TbFlow[list[TbAnswer]]:
        """Many calls in as few requests as they fit: the accounts and
        openings they need (each once), one lookup for the holds their
        posts and voids read, then every chain, packed in order into
        requests of at most request_events events, a chain never split. A call
        reads nothing another of the same bulk writes: a post, void or
        status of a hold held in it finds no hold."""
        b = _Bulk(calls, [c.error for c in calls])
        for i, c in enumerate(calls):
            if c.error is None:
                try:
                    self._bulk_plan(b, i, c)
                except Exception as e:
                    b.out[i] = e
        yield from self._bulk_ensure_flow(b)
        yield from self._bulk_lookup_flow(b)
        yield from self._bulk_send_flow(b)
        yield from self._bulk_relaid_flow(b)
        # The calls an earlier version made, sent again as it sent them:
        # few, one request each.
        for i in b.again:
            try:
                chain = self._legacy_chain(calls[i], b.chains[i])
                b.out[i] = read(chain, (yield from self._send_chain_flow(chain)))
            except Exception as e:
                b.out[i] = e
        return b.out

    def _bulk_plan(self, b: _Bulk, i: int, c: TbCall) -> None:
        """Checks call i of the bulk and lays out its chain, or notes the
        hold a post or void must look up first."""
        t = _kind_of(self.d, c.kind)
        where = f"{t.name}.{c.op}"
        if c.op == "post" and c.amounts is not None:
            if len(c.amounts) != len(t.post_amounts):
                raise ChoboError(
                    "CHOBO_BAD_ARGUMENT",
                    f"{where}: a post takes {len(t.post_amounts)} amounts, got {len(c.amounts)}",
                )
            for pa, amount in zip(t.post_amounts, c.amounts):
                check_amount(where, t.params[pa].name, amount)
        check_size(where, self.tenant, c.values)
        if c.op == "do" or c.op == "hold":
            p = plan(self.d, self.tenant, c.kind, c.op, c.values, self._tids)
            if p.same_account:
                b.out[i] = refused("same_account")
            elif len(p.chain) > self.request_events:
                raise ChoboError(
                    "CHOBO_UNEXPECTED", f"a chain of {len(p.chain)} events does not fit one request of {self.request_events}"
                )
            else:
                b.plans.append((i, p))
                b.chains[i], b.reads[i] = p.chain, "result"
            return
        key = [_text(v) for v in c.values]
        if c.op == "status":
            b.chains[i] = status_chain(self.d, self.tenant, c.kind, key, _tb_random_id(), _tb_random_id())
            b.reads[i] = "state"
        else:
            b.finishing.append((i, key, lookups(self.d, self.tenant, c.kind, key)))

    def _bulk_ensure_flow(self, b: _Bulk) -> _TbFlow[None]:
        """The accounts and openings of every plan, each once; when they
        cannot be made, the dos and holds fail and nothing else."""
        if not b.plans:
            return
        whole = Plan()
        seen: set[int] = set()
        for _, p in b.plans:
            for acc in p.accounts:
                if acc.id not in seen:
                    seen.add(acc.id)
                    whole.accounts.append(acc)
            for o in p.openings:
                if o.id not in seen:
                    seen.add(o.id)
                    whole.openings.append(o)
        try:
            yield from self._ensure_flow(whole)
        except Exception as e:
            for i, _ in b.plans:
                b.out[i] = e
                b.chains.pop(i, None)

    def _bulk_lookup_flow(self, b: _Bulk) -> _TbFlow[None]:
        """One lookup for the holds of every post and void, then their chains."""
        found: dict[int, Transfer] = {}
        ids = list(dict.fromkeys(x for _, _, ls in b.finishing for x in ls))
        try:
            for k in range(0, len(ids), MAX_EVENTS):
                batch = ids[k : k + MAX_EVENTS]
                ans = yield Request("lookup_transfers", ids=tuple(batch))
                for tr in ans.transfers:
                    if tr.id not in batch:
                        raise ChoboError("CHOBO_UNEXPECTED", "the lookup of a hold answered another transfer")
                    found[tr.id] = tr
        except Exception as e:
            for i, _, _ in b.finishing:
                b.out[i] = e
            return
        for i, key, ls in b.finishing:
            try:
                self._finish_of(b.calls[i], key, ls, found, b.out, b.chains, b.reads, i)
            except Exception as e:
                b.out[i] = e

    def _bulk_send_flow(self, b: _Bulk) -> _TbFlow[None]:
        """Every chain, in the order of the calls, packed into requests."""
        order = [i for i in range(len(b.calls)) if i in b.chains]
        k = 0
        while k < len(order):
            batch_i = [order[k]]
            n = len(b.chains[order[k]])
            k += 1
            while k < len(order) and n + len(b.chains[order[k]]) <= self.request_events:
                n += len(b.chains[order[k]])
                batch_i.append(order[k])
                k += 1
            events = [e for i in batch_i for e in b.chains[i]]
            try:
                ans = yield Request("create_transfers", transfers=tuple(e.transfer for e in events))
                statuses = _tb_statuses(ans, len(events), "transfers")
            except Exception as e:
                for i in batch_i:
                    b.out[i] = e
                continue
            at = 0
            for i in batch_i:
                mine = statuses[at : at + len(b.chains[i])]
                at += len(b.chains[i])
                try:
                    self._bulk_read(b, i, mine)
                except Exception as e:
                    b.out[i] = e

    def _bulk_read(self, b: _Bulk, i: int, mine: list[int]) -> None:
        """Answers call i from its chain's statuses, or puts it aside to be
        judged (relaid) or sent again (again)."""
        chain, how = b.chains[i], b.reads[i]
        if how == "result" and _laid_out_otherwise(chain, mine):
            b.relaid[i] = mine
        elif how == "result" and _made_by_legacy(_kind_of(self.d, b.calls[i].kind), mine):
            b.again.append(i)
        elif how == "result":
            b.out[i] = read(chain, mine)
        elif how == "state":
            b.out[i] = read_status(mine)
        else:
            b.out[i] = _over_hold(read_status(mine))

    def _bulk_relaid_flow(self, b: _Bulk) -> _TbFlow[None]:
        """The calls whose first event exists with other flags, judged by
        what they mean (_laid_out_otherwise): few, their first events
        looked up in one request."""
        if not b.relaid:
            return
        which = list(b.relaid)
        try:
            same = yield from self._same_calls_flow([b.chains[i] for i in which])
        except Exception as e:
            for i in which:
                b.out[i] = e
            return
        for i, same_call in zip(which, same):
            if same_call:
                b.out[i] = DONE_BEFORE
            elif _made_by_legacy(_kind_of(self.d, b.calls[i].kind), b.relaid[i]):
                b.again.append(i)
            else:
                try:
                    b.out[i] = read(b.chains[i], b.relaid[i])
                except Exception as e:
                    b.out[i] = e

    def _legacy_chain(self, c: TbCall, sent: list[ChainEvent]) -> list[ChainEvent]:
        """The chain of a call of a bulk as an earlier version laid it out;
        a post or void ends the events its chain ended, a post with the
        amounts its chain sent, one per move."""
        d = _as_legacy(self.d)
        if c.op == "do" or c.op == "hold":
            return plan(d, self.tenant, c.kind, c.op, c.values, self._tids).chain
        key = [_text(v) for v in c.values]
        hold = [HoldEvent(e.transfer.pending_id, e.move) for e in sent]
        if c.op == "void":
            return finish_of(d, self.tenant, c.kind, "void", key, [], hold)
        amounts = [0] * len(_kind_of(d, c.kind).moves)
        for e in sent:
            amounts[e.move - 1] = e.transfer.amount
        return finish_of(d, self.tenant, c.kind, "post", key, amounts, hold)

    def _finish_of(self, c: TbCall, key: list[str], ids: list[int], found: dict[int, Transfer], out: list[TbAnswer],
                   chains: dict[int, list[ChainEvent]], reads: dict[int, str], i: int) -> None:
        """The chain of a post or void of a bulk from the holds looked up,
        as _post_flow and _void_flow build it, or its answer when it needs none."""
        t = _kind_of(self.d, c.kind)
        h = hold_of(self.d, self.tenant, c.kind, ids, found, self._tids.sinks)
        if h == "other":
            out[i] = refused("key_conflict")
            return
        if h is None:
            out[i] = refused("no_such_hold")
            return
        hold, held = h
        if c.op == "void":
            chains[i], reads[i] = finish_of(self.d, self.tenant, c.kind, "void", key, [], hold), "result"
            return
        want = held
        if c.amounts is not None:
            by_param = dict(zip(t.post_amounts, c.amounts))
            want = [held[n] if m.amount < 0 else by_param.get(m.amount, 0) for n, m in enumerate(t.moves)]
        if any(w > h for w, h in zip(want, held)):
            chains[i] = status_chain(self.d, self.tenant, c.kind, key, _tb_random_id(), _tb_random_id())
            reads[i] = "over_hold"
            return
        chains[i], reads[i] = finish_of(self.d, self.tenant, c.kind, "post", key, want, hold), "result"

    def _recorded(self, req: Request) -> None:
        if self._on_request is not None:
            self._on_request(req)


HISTORY_PAGE = 4096
"""How many records one read of an account's transfers asks for: what a
reply of a --development replica holds comfortably, far below its 8,189."""

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _tb_at(ts: int) -> datetime:
    """A TigerBeetle timestamp (nanoseconds) as a datetime in UTC, cut to
    the microseconds a datetime holds."""
    return _EPOCH + timedelta(microseconds=ts // 1000)


def _tb_ns(t: datetime) -> int:
    """An aware datetime as nanoseconds on TigerBeetle's clock."""
    d = t - _EPOCH
    return ((d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds) * 1000


def _tb_fit(r: Transfer) -> int:
    """The amount of a record, which must fit 63 bits, as chobo's amounts do."""
    if r.amount >= 1 << 63:
        raise ChoboError("CHOBO_UNEXPECTED", f"an amount of {hex_id(r.id)} is outside 64 bits")
    return r.amount


@dataclass
class _TbEntry:
    """One side of one move of a call that took effect, as the records of
    TigerBeetle tell it, before it is named for the caller. ts is the
    record's timestamp; an expiry's is its hold's deadline, and hold the
    timestamp of the hold's record, which orders expiries of one deadline
    and tells them from a record. id is the record's, for an expiry the
    hold's move; account the kind of the entry's side; timeout a hold's,
    in seconds."""

    ts: int = 0
    hold: int = 0
    expire: bool = False
    id: int = 0
    kind: int = 0
    op: EntryOp = "do"
    move: int = 0
    out: bool = False
    account: int = 0
    timeout: int = 0
    posted: int = 0
    held_out: int = 0
    held_in: int = 0
    after: Balance = Balance(0, 0, 0)

    def order(self) -> tuple[int, bool, int]:
        """Where the entry comes as they happened: by timestamp, an expiry
        before a record of its deadline's timestamp (TigerBeetle finds a
        hold expired at its exact deadline), expiries of one deadline in
        their holds' order."""
        return (self.ts, not self.expire, self.hold)

    def cursor(self) -> str:
        """The entry's place: the timestamp, and for an expiry its hold's
        timestamp after an x."""
        return f"{self.ts}x{self.hold}" if self.expire else str(self.ts)


_TB_CURSOR = re.compile(r"(0|[1-9][0-9]*)(?:x(0|[1-9][0-9]*))?")


def _tb_cursor(where: str, c: str) -> tuple[int, bool, int] | None:
    """A cursor read back as the place of the entry it names (None for "",
    the start); any other text did not come from a TigerBeetle statement,
    and raises before anything is sent."""
    if c == "":
        return None
    m = _TB_CURSOR.fullmatch(c)
    if m is not None and int(m.group(1)) < 1 << 64 and (m.group(2) is None or int(m.group(2)) < 1 << 64):
        hold = m.group(2)
        return (int(m.group(1)), hold is None, 0 if hold is None else int(hold))
    raise ChoboError(
        "CHOBO_BAD_ARGUMENT",
        f"{where}: the cursor {c!r} is not one this ledger gives; pass the cursor or next of an earlier read",
    )


def _tb_expiry(h: _TbEntry) -> _TbEntry:
    """The entry of a hold's move given back at its deadline."""
    return replace(h, hold=h.ts, ts=h.ts + h.timeout * 1_000_000_000, expire=True, op="expire", posted=0,
                   held_out=-h.held_out, held_in=-h.held_in)


def _tb_side_args(t: TransferKind, s: Side, key: Sequence[str]) -> tuple[str, ...] | None:
    """The values of the account at one side of a move, as far as the key
    tells them: every value when the account's parameters are all key
    parameters (none for an account without parameters), None when one is
    not, TigerBeetle keeping the others only as hashes."""
    out: list[str] = []
    for p in s.args:
        if p not in t.key:
            return None
        out.append(key[t.key.index(p)])
    return tuple(out)


class _TbDecoder:
    """Tells the transfer kind and the move of a do's or a hold's record:
    the kinds of the accounts it looks up, and the chains of calls it
    queries, by their content hash."""

    def __init__(self, h: _TbHistory) -> None:
        self.h = h
        self.by_code = {c: k for k, c in enumerate(_fixed_of(h.d).transfer_codes)}
        self.kind_of: dict[int, int] = {}
        self.chains: dict[int, list[Transfer]] = {}

    def learn(self, a: Account) -> None:
        """Keeps the kind of an account when it is one of the book's for the
        tenant: its code is the kind's and user_data_128 the kind's id,
        which hashes the tenant."""
        for k, c in enumerate(_fixed_of(self.h.d).account_codes):
            if c == a.code and a.user_data_128 == self.h._tids.kinds[k]:
                self.kind_of[a.id] = k

    def lookup_flow(self, records: Sequence[Transfer], account: int, sink: int) -> _TbFlow[None]:
        """Finds the kinds of the accounts on the other side of the records
        of the account, in as few lookups as they fit."""
        others: list[int] = []
        seen: set[int] = set()
        for r in records:
            o = r.credit_account_id if r.debit_account_id == account else r.debit_account_id
            if o != sink and r.pending_id == 0 and o not in seen:
                seen.add(o)
                others.append(o)
        for i in range(0, len(others), MAX_EVENTS):
            ans = yield Request("lookup_accounts", ids=tuple(others[i : i + MAX_EVENTS]))
            for a in ans.accounts:
                self.learn(a)

    def account_kind_flow(self, account: int) -> _TbFlow[int]:
        """The kind of a book's account of the tenant, -1 for one that is none."""
        if account not in self.kind_of:
            ans = yield Request("lookup_accounts", ids=(account,))
            for a in ans.accounts:
                self.learn(a)
        return self.kind_of.get(account, -1)

    def move_flow(self, r: Transfer, out: bool, account: int) -> _TbFlow[tuple[int, int]]:
        """The kind and the move of r, a do's or a hold's record on an
        account of the kind account, on the side out says. The kinds of the
        two accounts most often tell the move alone. When two moves of the
        kind join the same kinds the same way, the record's place in its
        chain tells it: the chain is every record with the call's content
        hash in user_data_128 and the kind's code, and the book lays a
        chain out the same for every call of the kind."""
        d = self.h.d
        k = self.by_code.get(r.code)
        if k is None:
            raise ChoboError("CHOBO_UNEXPECTED", f"record {hex_id(r.id)} has code {r.code}, of no transfer kind of the book")
        other = r.credit_account_id if out else r.debit_account_id
        other_kind = yield from self.account_kind_flow(other)
        if other_kind < 0:
            raise ChoboError(
                "CHOBO_UNEXPECTED", f"record {hex_id(r.id)} names an account {hex_id(other)} of no account kind of the book"
            )
        t = d.transfers[k]
        cands = [
            i + 1
            for i, m in enumerate(t.moves)
            if (out and m.from_.account == account and m.to.account == other_kind)
            or (not out and m.to.account == account and m.from_.account == other_kind)
        ]
        if not cands:
            raise ChoboError("CHOBO_UNEXPECTED", f"record {hex_id(r.id)} is of no move of {t.name}")
        if len(cands) == 1:
            return k, cands[0]
        chain = self.chains.get(r.user_data_128)
        if chain is None:
            ans = yield Request("query_transfers",
                                filter=QueryFilter(user_data_128=r.user_data_128, code=r.code, limit=MAX_EVENTS + 1))
            chain = self.chains[r.user_data_128] = ans.transfers
        layout = _layout(d, t)
        pos = next((i for i, c in enumerate(chain) if c.id == r.id), -1)
        if pos < 0 or pos >= len(layout) or layout[pos].role != "move" or layout[pos].move not in cands:
            raise ChoboError("CHOBO_UNEXPECTED", f"record {hex_id(r.id)} is not where a move of {t.name} is in its chain")
        return k, layout[pos].move


class _TbHistory(_TbFlows):
    """The reads of a ledger's history on TigerBeetle, written once for both
    drivers as the operations are: the Go runtime's (chobotb) written again,
    held to the same vectors. TigerBeetle writes no record when a hold
    expires and keeps keys and arguments only as hashes, so an entry read
    from an account's records has neither key nor arguments but the
    record's id, and an expiry is dated at its hold's deadline."""

    def _account_of(self, where: str, account: int, values: Sequence[object]) -> tuple[int, tuple[str, ...]]:
        """The id of the account of the kind named by values, checked."""
        accounts = self.d.accounts
        if isinstance(account, bool) or not isinstance(account, int) or not 0 <= account < len(accounts):
            raise ChoboError("CHOBO_UNEXPECTED", f"{where}: the book {self.d.book} has no account kind {account!r}")
        a = accounts[account]
        if isinstance(values, str) or not isinstance(values, Sequence):
            raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: an account's values must be a list, got {describe(values)}")
        args = tuple(check_text(where, "an account's value", v) for v in values)
        if len(args) != a.params:
            raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: the account {a.name} takes {a.params} values, got {len(args)}")
        check_size(where, self.tenant, args)
        return account_id(self.d.book, self.tenant, a.name, list(args)), args

    def _read_all_flow(self, f: AccountFilter | QueryFilter) -> _TbFlow[list[Transfer]]:
        """Every record one filter answers, page by page, oldest first."""
        op: RequestOp = "get_account_transfers" if isinstance(f, AccountFilter) else "query_transfers"
        out: list[Transfer] = []
        f = replace(f, limit=HISTORY_PAGE)
        while True:
            ans = yield Request(op, filter=f)
            out += ans.transfers
            if len(ans.transfers) < HISTORY_PAGE:
                return out
            f = replace(f, timestamp_min=ans.transfers[-1].timestamp + 1)

    def _named(self, e: _TbEntry, args: tuple[str, ...] | None, after: bool, key: tuple[str, ...] | None = None) -> Entry:
        """An entry as the caller reads it; args are its account's values,
        None when they are not known, and after whether its balance after
        it is."""
        return Entry(
            transfer=self.d.transfers[e.kind].name, op=e.op, key=key, args=None, id=hex_id(e.id), move=e.move,
            out=e.out, account=self.d.accounts[e.account].name, account_args=args, posted=e.posted,
            held_in=e.held_in, held_out=e.held_out, after=e.after if after else None, at=_tb_at(e.ts),
            cursor=e.cursor(),
        )

    def _account_entries_flow(self, account: int, aid: int) -> _TbFlow[list[_TbEntry]]:
        """Every entry of the account aid of the kind, in the order they
        happened, each with the balance it left."""
        records = yield from self._read_all_flow(AccountFilter(aid, debits=True, credits=True))
        sink = self._tids.sinks[self.d.accounts[account].unit]
        dec = _TbDecoder(self)
        yield from dec.lookup_flow(records, aid, sink)
        out: list[_TbEntry] = []
        holds: dict[int, _TbEntry] = {}
        ended: set[int] = set()
        open_: list[_TbEntry] = []
        for r in records:
            if r.debit_account_id == sink or r.credit_account_id == sink:
                continue  # a lower bound's probe and its void: machinery
            e = _TbEntry(ts=r.timestamp, id=r.id, out=r.debit_account_id == aid, account=account)
            amount = _tb_fit(r)
            if r.flags & (TRANSFER_POST_PENDING | TRANSFER_VOID_PENDING):
                h = holds.get(r.pending_id)
                if h is None:
                    raise ChoboError("CHOBO_UNEXPECTED",
                                     f"record {hex_id(r.id)} ends a hold {hex_id(r.pending_id)} the account does not show")
                ended.add(r.pending_id)
                e.kind, e.move, e.op = h.kind, h.move, "void"
                if r.flags & TRANSFER_POST_PENDING:
                    e.op, e.posted = "post", amount
                held = h.held_out + h.held_in
                if e.out:
                    e.posted, e.held_out = -e.posted, -held
                else:
                    e.held_in = -held
                out.append(e)
                continue
            e.kind, e.move = yield from dec.move_flow(r, e.out, account)
            if r.flags & TRANSFER_PENDING:
                e.op, e.timeout = "hold", r.timeout
                if e.out:
                    e.held_out = amount
                else:
                    e.held_in = amount
                out.append(e)
                holds[r.id] = e
                if r.timeout > 0:
                    open_.append(e)
            else:
                e.op, e.posted = "do", -amount if e.out else amount
                out.append(e)
        # Expiries: a move of a hold that no record ended and that
        # TigerBeetle finds expired. A deadline at or before the account's
        # last record has passed on TigerBeetle's clock; a later one is
        # asked of it, with a status chain that writes nothing.
        last = records[-1].timestamp if records else 0
        ask: list[_TbEntry] = []
        for h in open_:
            if h.id in ended:
                continue
            if h.ts + h.timeout * 1_000_000_000 <= last:
                out.append(_tb_expiry(h))
            else:
                ask.append(h)
        states = yield from self._hold_states_flow(ask)
        out += [_tb_expiry(h) for h, s in zip(ask, states) if s == "expired"]
        out.sort(key=_TbEntry.order)
        bal = Balance(0, 0, 0)
        for e in out:
            bal = Balance(bal.posted + e.posted, bal.held_in + e.held_in, bal.held_out + e.held_out)
            e.after = bal
        return out

    def _hold_states_flow(self, moves: Sequence[_TbEntry]) -> _TbFlow[list[HoldState | None]]:
        """Where each of the hold moves stands: for each, a void of it linked
        to a transfer TigerBeetle always refuses (the status chain, on the
        move's own id), many to a request. Nothing is written; the void's
        answer is where the move stands."""
        out: list[HoldState | None] = []
        pairs = MAX_EVENTS // 2
        fixed = _fixed_of(self.d)
        for start in range(0, len(moves), pairs):
            req: list[Transfer] = []
            for m in moves[start : start + pairs]:
                unit = self.d.accounts[m.account].unit
                chain = [
                    ChainEvent(Transfer(_tb_random_id(), pending_id=m.id, flags=TRANSFER_VOID_PENDING), "status_void", 0, ""),
                    ChainEvent(
                        Transfer(_tb_random_id(), debit_account_id=m.id, credit_account_id=m.id, amount=1,
                                 ledger=fixed.ledgers[unit], code=fixed.transfer_codes[m.kind]),
                        "status_fail", 0, "",
                    ),
                ]
                _link(chain)
                req += [e.transfer for e in chain]
            ans = yield Request("create_transfers", transfers=tuple(req))
            st = _tb_statuses(ans, len(req), "transfers")
            out += [read_status(st[i : i + 2]) for i in range(0, len(st), 2)]
        return out

    def _statement_flow(self, where: str, account: int, values: Sequence[object], query: object) -> _TbFlow[Statement]:
        q = check_query(where, query)
        limit = page_limit(where, q.limit)
        kinds: set[int] = set()
        for name in q.transfers:
            k = next((i for i, t in enumerate(self.d.transfers) if t.name == name), -1)
            if k < 0:
                raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: the book has no transfer kind {name!r}")
            kinds.add(k)
        past = _tb_cursor(where, q.after)
        frm = None if q.from_ is None else _tb_ns(check_time(where, "from_", q.from_))
        to = None if q.to is None else _tb_ns(check_time(where, "to", q.to))
        aid, args = self._account_of(where, account, values)
        every = yield from self._account_entries_flow(account, aid)
        entries: list[Entry] = []
        nxt, more = q.after, False
        for e in reversed(every) if q.newest else every:
            if past is not None and (e.order() <= past if not q.newest else e.order() >= past):
                continue
            if (frm is not None and e.ts < frm) or (to is not None and e.ts >= to):
                continue
            if kinds and e.kind not in kinds:
                continue
            if len(entries) == limit:
                more = True
                break
            entries.append(self._named(e, args, True))
            nxt = e.cursor()
        return Statement(tuple(entries), nxt, more)

    def _balance_at_flow(self, where: str, account: int, values: Sequence[object], at: object) -> _TbFlow[Balance]:
        t = _tb_ns(check_time(where, "the time", at))
        aid, _ = self._account_of(where, account, values)
        every = yield from self._account_entries_flow(account, aid)
        bal = Balance(0, 0, 0)
        for e in every:
            if e.ts > t:
                break
            bal = e.after
        return bal

    def _entries_flow(self, where: str, kind: int, key: Sequence[object]) -> _TbFlow[list[Entry]]:
        t, kv = self._call_key(where, kind, key)
        found = yield from self._call_records_flow(t, kind, kv)
        moves, held, ended = self._call_moves(kind, found)
        if t.pending and t.timeout > 0 and held and not ended:
            hs = [replace(e, account=t.moves[e.move - 1].from_.account) for e in moves]
            states = yield from self._hold_states_flow(hs[:1])
            if states[0] == "expired":
                # Released as a void releases it, at the deadline.
                moves += [replace(h, hold=h.ts, ts=h.ts + h.timeout * 1_000_000_000, expire=True, op="expire") for h in hs]
        moves.sort(key=_TbEntry.order)
        out: list[Entry] = []
        for m in moves:
            mv = t.moves[m.move - 1]
            # The out side: a do posts away, a hold holds out, an end
            # releases what was held and posts away what it posts.
            o = replace(m, out=True, account=mv.from_.account)
            i_ = replace(m, out=False, account=mv.to.account)
            if m.op == "do":
                o.posted = -m.posted
            elif m.op == "hold":
                i_.held_out, i_.held_in = 0, m.held_out
            else:
                o.posted, o.held_out = -m.posted, -m.held_out
                i_.held_out, i_.held_in = 0, -m.held_out
            for e, side in ((o, mv.from_), (i_, mv.to)):
                out.append(self._named(e, _tb_side_args(t, side, kv), False, kv))
        return out

    def _call_key(self, where: str, kind: int, key: Sequence[object]) -> tuple[TransferKind, tuple[str, ...]]:
        """The transfer kind and the key, as text, of the call a read of a
        call's entries names; a kind or key the book cannot have fails."""
        d = self.d
        if isinstance(kind, bool) or not isinstance(kind, int) or not 0 <= kind < len(d.transfers):
            raise ChoboError("CHOBO_UNEXPECTED", f"{where}: the book {d.book} has no transfer kind {kind!r}")
        t = d.transfers[kind]
        if isinstance(key, str) or not isinstance(key, Sequence):
            raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: a key must be a list, got {describe(key)}")
        if len(key) != len(t.key):
            raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: {t.name} has a key of {len(t.key)} values, got {len(key)}")
        vals: list[Value] = []
        for p, v in zip(t.key, key):
            if t.params[p].amount:
                vals.append(check_amount(where, t.params[p].name, v))
            else:
                vals.append(check_text(where, t.params[p].name, v))
        check_size(where, self.tenant, vals)
        return t, tuple(_text(v) for v in vals)

    def _call_records_flow(self, t: TransferKind, kind: int,
                           kv: tuple[str, ...]) -> _TbFlow[list[tuple[EntryOp, int, Transfer]]]:
        """The records of the call's moves and of what ended them, each
        with its operation and move, in the order of their ids."""
        d = self.d
        # Every id the call can have written, whatever layout the version that
        # wrote it had: a do's or hold's every place (_REACH a move), a post's
        # or void's every event (one fewer a move: no probe's void). The
        # records found tell the moves.
        ops: tuple[EntryOp, ...] = ("hold", "post", "void") if t.pending else ("do",)
        places: dict[EntryOp, list[int]] = {}
        for op in ops:
            n = (_REACH - 1 if op in ("post", "void") else _REACH) * len(t.moves)
            places[op] = [transfer_id(d.book, self.tenant, t.name, op, kv, pos) for pos in range(n)]
        every = [x for op in ops for x in places[op]]
        by_id: dict[int, Transfer] = {}
        for i in range(0, len(every), MAX_EVENTS):
            ans = yield Request("lookup_transfers", ids=tuple(every[i : i + MAX_EVENTS]))
            for r in ans.transfers:
                by_id[r.id] = r
        sinks = set(self._tids.sinks)
        code = _fixed_of(d).transfer_codes[kind]
        found: list[tuple[EntryOp, int, Transfer]] = []
        move_of: dict[int, int] = {}  # the do's or hold's moves, by id
        for x in places[ops[0]]:
            f = by_id.get(x)
            # A move names no sink (see hold_of); a netting has the sink's
            # code, a probe's void ends the probe.
            if (f is None or f.code != code or f.flags & (TRANSFER_POST_PENDING | TRANSFER_VOID_PENDING)
                    or f.debit_account_id in sinks or f.credit_account_id in sinks or len(move_of) == len(t.moves)):
                continue
            move_of[x] = len(move_of) + 1
            found.append((ops[0], move_of[x], f))
        for op in ops[1:]:
            for x in places[op]:
                f = by_id.get(x)
                if f is not None and f.pending_id in move_of:
                    found.append((op, move_of[f.pending_id], f))
        return found

    def _call_moves(self, kind: int, found: list[tuple[EntryOp, int, Transfer]]
                    ) -> tuple[list[_TbEntry], dict[int, Transfer], set[int]]:
        """An entry per record found (its out side; the in side follows
        from it), with the hold's record of each move and the moves whose
        hold a post or void ended."""
        held: dict[int, Transfer] = {}  # the hold's record, by move
        ended: set[int] = set()
        moves: list[_TbEntry] = []
        for op, move, rec in found:
            amount = _tb_fit(rec)
            e = _TbEntry(ts=rec.timestamp, id=rec.id, kind=kind, op=op, move=move, timeout=rec.timeout)
            if op == "do":
                e.posted = amount
            elif op == "hold":
                e.held_out = amount
                held[move] = rec
            else:
                h = held.get(move)
                if h is None:
                    raise ChoboError("CHOBO_UNEXPECTED", f"record {hex_id(rec.id)} ends a hold that is not there")
                ended.add(move)
                e.held_out = _tb_fit(h)
                if op == "post":
                    e.posted = amount
            moves.append(e)
        return moves, held, ended

    def _open_holds_flow(self, where: str, account: int | None, values: Sequence[object] | None,
                         kind: int | None) -> _TbFlow[list[OpenHold]]:
        d = self.d
        if kind is not None and (isinstance(kind, bool) or not isinstance(kind, int) or not 0 <= kind < len(d.transfers)):
            raise ChoboError("CHOBO_UNEXPECTED", f"{where}: the book {d.book} has no transfer kind {kind!r}")
        aid, args = 0, cast("tuple[str, ...]", ())
        if account is not None:
            aid, args = self._account_of(where, account, values if values is not None else [])
        codes = _fixed_of(d).transfer_codes
        records: list[Transfer] = []
        if account is not None:
            records = yield from self._read_all_flow(AccountFilter(aid, debits=True, credits=True))
        else:
            for k, t in enumerate(d.transfers):
                if (kind is None or k == kind) and t.pending:
                    records += yield from self._read_all_flow(QueryFilter(code=codes[k]))
        # The holds' first events, by the call's content hash, and the
        # moves a post or void ended.
        ended = {r.pending_id for r in records if r.flags & (TRANSFER_POST_PENDING | TRANSFER_VOID_PENDING)}
        dec = _TbDecoder(self)
        firsts: dict[int, Transfer] = {}
        for r in records:
            if not r.flags & TRANSFER_PENDING or r.id in ended:
                continue
            kr = dec.by_code.get(r.code)
            if kr is None or (kind is not None and kr != kind) or not d.transfers[kr].pending:
                continue
            f = firsts.get(r.user_data_128)
            if f is None or r.timestamp < f.timestamp:
                firsts[r.user_data_128] = r
        # A hold whose deadline is at or before the last record read has
        # expired on TigerBeetle's clock: nothing more is asked of it.
        last = max((r.timestamp for r in records), default=0)
        found: list[tuple[int, OpenHold]] = []
        heads: list[_TbEntry] = []
        sinks = set(self._tids.sinks)
        for c, r in firsts.items():
            k = dec.by_code[r.code]
            t = d.transfers[k]
            if t.timeout > 0 and r.timestamp + t.timeout * 1_000_000_000 <= last:
                continue
            ans = yield Request("query_transfers", filter=QueryFilter(user_data_128=c, code=r.code, limit=MAX_EVENTS + 1))
            chain = ans.transfers
            if not chain or not chain[0].flags & TRANSFER_PENDING or len(chain) > _REACH * len(t.moves):
                continue  # not a hold's chain: the voids of a kind share one hash
            frm = yield from dec.account_kind_flow(chain[0].debit_account_id)
            if frm < 0:
                continue  # another tenant's

            def side(acc: int, a: int) -> tuple[str, ...] | None:
                if account is not None and acc == aid:
                    return args
                return () if d.accounts[a].params == 0 else None

            # The moves are the chain's pending records that name no sink, in
            # order, whatever layout the version that made the hold had (see
            # hold_of): a probe and the floor and room events name the sink.
            moves: list[HoldMove] = []
            for rec in chain:
                if (not rec.flags & TRANSFER_PENDING or rec.debit_account_id in sinks
                        or rec.credit_account_id in sinks or len(moves) == len(t.moves)):
                    continue
                mv = t.moves[len(moves)]
                moves.append(HoldMove(
                    move=len(moves) + 1, from_=d.accounts[mv.from_.account].name, to=d.accounts[mv.to.account].name,
                    from_args=side(rec.debit_account_id, mv.from_.account),
                    to_args=side(rec.credit_account_id, mv.to.account), amount=_tb_fit(rec),
                ))
            ts = chain[0].timestamp
            # the timeout the hold was sent with, which TigerBeetle expires it by
            deadline = _tb_at(ts + chain[0].timeout * 1_000_000_000) if chain[0].timeout > 0 else None
            found.append((ts, OpenHold(transfer=t.name, key=None, id=hex_id(chain[0].id), moves=tuple(moves),
                                       created=_tb_at(ts), deadline=deadline)))
            heads.append(_TbEntry(id=chain[0].id, kind=k, account=frm))
        states = yield from self._hold_states_flow(heads)
        open_ = [(ts, h) for (ts, h), s in zip(found, states) if s == "held"]
        open_.sort(key=lambda x: (x[0], x[1].transfer, x[1].id))
        return [h for _, h in open_]

    def _history_client(self, where: str, client: object) -> None:
        """Raises unless the client can read an account's transfers and
        query transfers, as the official client can."""
        for name in ("get_account_transfers", "query_transfers"):
            if not callable(getattr(client, name, None)):
                raise ChoboError(
                    "CHOBO_UNSUPPORTED",
                    f"{where}: reading the history needs a TigerBeetle client with {name}, as the official one has",
                )


def _over_hold(state: HoldState | None) -> Result:
    """The answer to a post over its hold: TigerBeetle looks at the amount
    before the hold's state, the reference interpreter at the state first,
    so the state says it."""
    if state == "held":
        return refused("over_hold")
    if state == "posted":
        return refused("key_conflict")
    if state == "voided":
        return refused("already_voided")
    if state == "expired":
        return refused("expired")
    return refused("no_such_hold")


def _tb_account(a: Account) -> tb.Account:
    return tb.Account(
        id=a.id, debits_pending=a.debits_pending, debits_posted=a.debits_posted, credits_pending=a.credits_pending,
        credits_posted=a.credits_posted, user_data_128=a.user_data_128, user_data_64=a.user_data_64,
        user_data_32=a.user_data_32, ledger=a.ledger, code=a.code, flags=tb.AccountFlags(a.flags),
        timestamp=a.timestamp,
    )


def _tb_transfer(t: Transfer) -> tb.Transfer:
    return tb.Transfer(
        id=t.id, debit_account_id=t.debit_account_id, credit_account_id=t.credit_account_id, amount=t.amount,
        pending_id=t.pending_id, user_data_128=t.user_data_128, user_data_64=t.user_data_64,
        user_data_32=t.user_data_32, timeout=t.timeout, ledger=t.ledger, code=t.code,
        flags=tb.TransferFlags(t.flags), timestamp=t.timestamp,
    )


def _tb_account_back(a: tb.Account) -> Account:
    return Account(
        a.id, debits_pending=a.debits_pending, debits_posted=a.debits_posted, credits_pending=a.credits_pending,
        credits_posted=a.credits_posted, user_data_128=a.user_data_128, user_data_64=a.user_data_64,
        user_data_32=a.user_data_32, ledger=a.ledger, code=a.code, flags=int(a.flags), timestamp=a.timestamp,
    )


def _tb_transfer_back(t: tb.Transfer) -> Transfer:
    return Transfer(
        t.id, debit_account_id=t.debit_account_id, credit_account_id=t.credit_account_id, amount=t.amount,
        pending_id=t.pending_id, user_data_128=t.user_data_128, user_data_64=t.user_data_64,
        user_data_32=t.user_data_32, timeout=t.timeout, ledger=t.ledger, code=t.code, flags=int(t.flags),
        timestamp=t.timestamp,
    )


def _tb_account_filter(f: AccountFilter | QueryFilter | None) -> tb.AccountFilter:
    if not isinstance(f, AccountFilter):
        raise ChoboError("CHOBO_UNEXPECTED", "a read of an account's transfers without its filter")
    flags = ((tb.AccountFilterFlags.DEBITS if f.debits else 0) | (tb.AccountFilterFlags.CREDITS if f.credits else 0)
             | (tb.AccountFilterFlags.REVERSED if f.reversed else 0))
    return tb.AccountFilter(
        account_id=f.account_id, user_data_128=0, user_data_64=0, user_data_32=0, code=f.code,
        timestamp_min=f.timestamp_min, timestamp_max=f.timestamp_max, limit=f.limit,
        flags=tb.AccountFilterFlags(flags),
    )


def _tb_query_filter(f: AccountFilter | QueryFilter | None) -> tb.QueryFilter:
    if not isinstance(f, QueryFilter):
        raise ChoboError("CHOBO_UNEXPECTED", "a query of transfers without its filter")
    return tb.QueryFilter(
        user_data_128=f.user_data_128, user_data_64=f.user_data_64, user_data_32=0, ledger=f.ledger, code=f.code,
        timestamp_min=f.timestamp_min, timestamp_max=f.timestamp_max, limit=f.limit,
        flags=tb.QueryFilterFlags.REVERSED if f.reversed else tb.QueryFilterFlags.NONE,
    )


def _tb_check_client(client: object, want_async: bool) -> None:
    book, kind = ("AsyncTigerBeetleBook", "tigerbeetle.ClientAsync") if want_async else ("TigerBeetleBook",
                                                                                       "tigerbeetle.ClientSync")
    for name in ("create_accounts", "create_transfers", "lookup_accounts", "lookup_transfers"):
        method = getattr(client, name, None)
        if not callable(method):
            raise ChoboError("CHOBO_BAD_ARGUMENT", f"tigerbeetle: {book} takes a {kind}, got {describe(client)}")
        if inspect.iscoroutinefunction(method) != want_async:
            raise ChoboError("CHOBO_BAD_ARGUMENT", f"tigerbeetle: {book} takes a {kind}; its {name} is "
                             + ("not async" if want_async else "async"))


_TbR = TypeVar("_TbR")


class _TbWorker:
    """A daemon thread that runs requests of ClientSync for callers that
    wait with a timeout. It is kept between requests, since starting a
    thread costs more than a request's own work in the runtime; one whose
    caller gave up on it ends once its request does."""

    __slots__ = ("go", "done", "mu", "send", "result", "error", "finished", "abandoned")

    def __init__(self) -> None:
        self.go = threading.Lock()
        self.go.acquire()
        self.done = threading.Lock()
        self.done.acquire()
        self.mu = threading.Lock()
        self.send: Callable[[], Any] | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self.finished = False
        self.abandoned = False
        # A daemon thread, so that a replica that never answers cannot keep
        # the process from exiting.
        threading.Thread(target=self._run, name="chobo tigerbeetle", daemon=True).start()

    def _run(self) -> None:
        while True:
            self.go.acquire()
            send = self.send
            if send is None:
                return  # no longer wanted
            try:
                self.result, self.error = send(), None
            except BaseException as e:
                self.result, self.error = None, e
            with self.mu:
                if self.abandoned:
                    return
                self.finished = True
            self.done.release()


_tb_idle: list[_TbWorker] = []
_tb_idle_mu = threading.Lock()
_TB_IDLE_MOST = 8
"""How many workers wait for a request at most; more callers at once start
more, and those beyond this end when their request does."""


def _tb_blocking(send: Callable[[], _TbR], timeout_ms: int, what: str) -> _TbR:
    """Runs a request of ClientSync on a worker thread and waits for it at
    most timeout_ms (0: for ever, on the caller's thread)."""
    if timeout_ms == 0:
        return send()
    with _tb_idle_mu:
        w = _tb_idle.pop() if _tb_idle else None
    if w is None:
        w = _TbWorker()
    w.send, w.finished = send, False
    w.go.release()
    # a longer wait than a lock takes is for ever, near enough
    if not w.done.acquire(timeout=min(timeout_ms / 1000, threading.TIMEOUT_MAX)):
        with w.mu:
            if not w.finished:
                w.abandoned = True
                raise ChoboError("CHOBO_TIMEOUT", f"{what}: no answer within {timeout_ms} ms")
        w.done.acquire()  # it finished as the wait ended; done follows at once
    result, error = w.result, w.error
    w.send = w.result = w.error = None
    with _tb_idle_mu:
        keep = len(_tb_idle) < _TB_IDLE_MOST
        if keep:
            _tb_idle.append(w)
    if not keep:
        w.go.release()  # send is None: it ends
    if error is not None:
        raise error
    return cast(_TbR, result)


_tb_left: set[asyncio.Task[Any]] = set()
"""Requests of ClientAsync given up on: kept until they end, so that none
is collected while the official client still waits for its answer."""


async def _tb_awaiting(send: Awaitable[_TbR], timeout_ms: int, what: str) -> _TbR:
    """Awaits a request of ClientAsync at most timeout_ms (0: for ever). A
    request given up on, by the timeout or by the caller's cancellation, is
    left to finish rather than cancelled: the official client forgets a
    request only when its answer comes, and one cancelled would stay in its
    table, failing close()."""
    if timeout_ms == 0:
        return await send
    task = asyncio.ensure_future(send)
    try:
        return await asyncio.wait_for(asyncio.shield(task), timeout_ms / 1000)
    except TimeoutError:
        if task.done():
            raise  # the request itself failed with a TimeoutError
        raise ChoboError("CHOBO_TIMEOUT", f"{what}: no answer within {timeout_ms} ms") from None
    finally:
        if not task.done():
            _tb_left.add(task)
            task.add_done_callback(_tb_forget)


def _tb_forget(task: asyncio.Task[Any]) -> None:
    _tb_left.discard(task)
    if not task.cancelled():
        task.exception()  # read, so that asyncio does not log it as never retrieved


class TigerBeetleBook(_TbHistory):
    """Sends the calls of one book, for one tenant, through the official
    client's ClientSync. It remembers the accounts and openings it has
    made, so that each is sent once per book: keep one book per tenant
    rather than making one per call. It may be shared by threads.

    A request that gets no answer within timeout_ms raises ChoboError
    CHOBO_TIMEOUT, as in the other runtimes. ClientSync itself waits for
    ever for a replica that does not answer, so each request runs on a
    worker thread while the caller waits at most timeout_ms; a request
    given up on stays with the client and may still take effect. That is
    safe: a call sent again has the same ids and answers done_before, or
    the refusal it got. Workers are kept between requests; the handoff
    costs two thread wake-ups a request, tens of microseconds beside a
    round trip to the replica. timeout_ms=0 sends on the caller's thread
    and waits for ever.

    request_events is how many events the book puts in one request (the
    requests of bulk, and those that make accounts): MAX_EVENTS (253) by
    default, what every replica takes; up to MAX_REQUEST_EVENTS (8,189) for
    a cluster started without --development, whose fuller requests carry
    more calls a round trip. A cluster that takes fewer refuses such a
    request before anything is sent.

    on_request, when given, is called with each request before it is sent."""

    def __init__(self, client: TigerBeetleClient, d: Def, tenant: str = "", timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 on_request: Callable[[Request], None] | None = None, request_events: int = MAX_EVENTS) -> None:
        _tb_check_client(client, False)
        super().__init__(d, tenant, timeout_ms, on_request, request_events)
        self._client = client

    def _run(self, flow: _TbFlow[_TbT]) -> _TbT:
        try:
            req = next(flow)
            while True:
                error: Exception | None = None
                try:
                    answer = self._send(req)
                except Exception as e:
                    error = e
                # Thrown in out here, not in the except clause, so that what
                # the flow raises is not chained to the error it replaces.
                req = flow.send(answer) if error is None else flow.throw(error)
        except StopIteration as stop:
            return cast(_TbT, stop.value)
        finally:
            flow.close()

    def _send(self, req: Request) -> _TbAnswer:
        self._recorded(req)
        c, ms, what = self._client, self.timeout_ms, "TigerBeetle " + req.op
        if req.op == "create_accounts":
            accounts = [_tb_account(a) for a in req.accounts]
            return _TbAnswer(statuses=[int(r.status) for r in _tb_blocking(lambda: c.create_accounts(accounts), ms,
                                                                           what)])
        if req.op == "create_transfers":
            transfers = [_tb_transfer(t) for t in req.transfers]
            return _TbAnswer(statuses=[int(r.status) for r in _tb_blocking(lambda: c.create_transfers(transfers), ms,
                                                                           what)])
        if req.op == "get_account_transfers":
            hc = cast(TigerBeetleHistoryClient, c)
            af = _tb_account_filter(req.filter)
            return _TbAnswer(transfers=[_tb_transfer_back(t) for t in _tb_blocking(
                lambda: hc.get_account_transfers(af), ms, what)])
        if req.op == "query_transfers":
            hc = cast(TigerBeetleHistoryClient, c)
            qf = _tb_query_filter(req.filter)
            return _TbAnswer(transfers=[_tb_transfer_back(t) for t in _tb_blocking(
                lambda: hc.query_transfers(qf), ms, what)])
        ids = list(req.ids)
        if req.op == "lookup_accounts":
            return _TbAnswer(accounts=[_tb_account_back(a) for a in _tb_blocking(lambda: c.lookup_accounts(ids), ms,
                                                                                 what)])
        return _TbAnswer(transfers=[_tb_transfer_back(t) for t in _tb_blocking(lambda: c.lookup_transfers(ids), ms,
                                                                               what)])

    def call(self, kind: int, op: Literal["do", "hold"], vals: Sequence[Value]) -> Result:
        """Sends a do or a hold of the transfer kind with its values in declaration order."""
        return self._run(self._call_flow(kind, op, vals))

    def post(self, kind: int, key_vals: Sequence[Value], amounts: Sequence[int] | None) -> Result:
        """Posts a hold named by its key's values in key order. amounts are
        the kind's post amounts in declaration order, or None for the whole hold."""
        return self._run(self._post_flow(kind, key_vals, amounts))

    def void(self, kind: int, key_vals: Sequence[Value]) -> Result:
        """Voids a hold named by its key's values in key order."""
        return self._run(self._void_flow(kind, key_vals))

    def status(self, kind: int, key_vals: Sequence[Value]) -> HoldState | None:
        """Where a hold stands, None when there is none. It writes nothing."""
        return self._run(self._status_flow(kind, key_vals))

    def balance(self, account: int, args: Sequence[str]) -> Balance:
        """Reads an account of the kind, named by its arguments; one never
        written to holds nothing."""
        return self._run(self._balance_flow(account, args))

    def bulk(self, calls: Sequence[TbCall]) -> list[TbAnswer]:
        """Sends many calls in as few requests as they fit and answers each,
        in order, as it would be answered alone (see _bulk_flow)."""
        return self._run(self._bulk_flow(calls))

    def statement(self, where: str, account: int, values: Sequence[object], query: object) -> Statement:
        """A page of the statement of an account of the kind, named by its
        values, as query (a StatementQuery, None for the default) asks: an
        entry for each move of a do or a hold that names the account and
        for each post or void of such a hold, and an expiry at the deadline
        of each hold TigerBeetle found expired. Entries have neither key nor
        arguments, which TigerBeetle keeps only as hashes; id names the
        record. Balances are summed from the account's first record, so a
        page reads the account's whole history."""
        self._history_client(where, self._client)
        return self._run(self._statement_flow(where, account, values, query))

    def entries(self, where: str, kind: int, key: Sequence[object]) -> list[Entry]:
        """Every entry the call of the kind with the key wrote, oldest
        first, both sides of every move, with the key but not the other
        arguments; an entry's account values are there when the key holds
        them, and after is None (a statement of the account has it)."""
        return self._run(self._entries_flow(where, kind, key))

    def open_holds(self, where: str, account: int | None, values: Sequence[object] | None,
                   kind: int | None) -> list[OpenHold]:
        """The holds still held that move from or to the account of the kind
        named by values (any account for None), of the transfer kind (any
        for None), the oldest first; key is None and id the hold's first
        move's."""
        self._history_client(where, self._client)
        return self._run(self._open_holds_flow(where, account, values, kind))

    def balance_at(self, where: str, account: int, values: Sequence[object], at: object) -> Balance:
        """What the account held at a time, an aware datetime: after every
        entry of its statement at that time or before."""
        self._history_client(where, self._client)
        return self._run(self._balance_at_flow(where, account, values, at))


class AsyncTigerBeetleBook(_TbHistory):
    """TigerBeetleBook over the official client's ClientAsync: the same
    calls, awaited. A request that gets no answer within timeout_ms (0: no
    limit) raises ChoboError CHOBO_TIMEOUT; it is left to finish in the
    background and may still take effect, which a call sent again with the
    same values answers as done_before."""

    def __init__(self, client: AsyncTigerBeetleClient, d: Def, tenant: str = "",
                 timeout_ms: int = DEFAULT_TIMEOUT_MS, on_request: Callable[[Request], None] | None = None,
                 request_events: int = MAX_EVENTS) -> None:
        _tb_check_client(client, True)
        super().__init__(d, tenant, timeout_ms, on_request, request_events)
        self._client = client

    async def _run(self, flow: _TbFlow[_TbT], where: str = "") -> _TbT:
        """Runs an operation's requests. where names one that writes (do,
        hold, post, void, a bulk): cancelled once a create_transfers of its
        has gone out, it may have been applied, and raises
        ChoboCancelledError; cancelled before, or a read, the plain
        CancelledError."""
        went = False
        try:
            req = next(flow)
            while True:
                error: Exception | None = None
                try:
                    went = went or (where != "" and req.op == "create_transfers")
                    answer = await self._send(req)
                except asyncio.CancelledError as e:
                    if went:
                        raise ChoboCancelledError(where) from e
                    raise
                except Exception as e:
                    error = e
                # Thrown in out here, not in the except clause, so that what
                # the flow raises is not chained to the error it replaces.
                req = flow.send(answer) if error is None else flow.throw(error)
        except StopIteration as stop:
            return cast(_TbT, stop.value)
        finally:
            flow.close()

    def _where(self, kind: int, op: str) -> str:
        """The call's name for an error: its transfer kind's and op's."""
        ts = self.d.transfers
        return f"{ts[kind].name}.{op}" if isinstance(kind, int) and 0 <= kind < len(ts) else op

    async def _send(self, req: Request) -> _TbAnswer:
        self._recorded(req)
        c, ms, what = self._client, self.timeout_ms, "TigerBeetle " + req.op
        if req.op == "create_accounts":
            res_a = await _tb_awaiting(c.create_accounts([_tb_account(a) for a in req.accounts]), ms, what)
            return _TbAnswer(statuses=[int(r.status) for r in res_a])
        if req.op == "create_transfers":
            res_t = await _tb_awaiting(c.create_transfers([_tb_transfer(t) for t in req.transfers]), ms, what)
            return _TbAnswer(statuses=[int(r.status) for r in res_t])
        if req.op == "get_account_transfers":
            ahc = cast(AsyncTigerBeetleHistoryClient, c)
            got = await _tb_awaiting(ahc.get_account_transfers(_tb_account_filter(req.filter)), ms, what)
            return _TbAnswer(transfers=[_tb_transfer_back(t) for t in got])
        if req.op == "query_transfers":
            ahc = cast(AsyncTigerBeetleHistoryClient, c)
            got = await _tb_awaiting(ahc.query_transfers(_tb_query_filter(req.filter)), ms, what)
            return _TbAnswer(transfers=[_tb_transfer_back(t) for t in got])
        if req.op == "lookup_accounts":
            found_a = await _tb_awaiting(c.lookup_accounts(list(req.ids)), ms, what)
            return _TbAnswer(accounts=[_tb_account_back(a) for a in found_a])
        found_t = await _tb_awaiting(c.lookup_transfers(list(req.ids)), ms, what)
        return _TbAnswer(transfers=[_tb_transfer_back(t) for t in found_t])

    async def call(self, kind: int, op: Literal["do", "hold"], vals: Sequence[Value]) -> Result:
        """Sends a do or a hold of the transfer kind with its values in declaration order."""
        return await self._run(self._call_flow(kind, op, vals), self._where(kind, op))

    async def post(self, kind: int, key_vals: Sequence[Value], amounts: Sequence[int] | None) -> Result:
        """Posts a hold named by its key's values in key order. amounts are
        the kind's post amounts in declaration order, or None for the whole hold."""
        return await self._run(self._post_flow(kind, key_vals, amounts), self._where(kind, "post"))

    async def void(self, kind: int, key_vals: Sequence[Value]) -> Result:
        """Voids a hold named by its key's values in key order."""
        return await self._run(self._void_flow(kind, key_vals), self._where(kind, "void"))

    async def status(self, kind: int, key_vals: Sequence[Value]) -> HoldState | None:
        """Where a hold stands, None when there is none. It writes nothing."""
        return await self._run(self._status_flow(kind, key_vals))

    async def bulk(self, calls: Sequence[TbCall]) -> list[TbAnswer]:
        """TigerBeetleBook.bulk, awaited."""
        return await self._run(self._bulk_flow(calls), "bulk")

    async def balance(self, account: int, args: Sequence[str]) -> Balance:
        """Reads an account of the kind, named by its arguments; one never
        written to holds nothing."""
        return await self._run(self._balance_flow(account, args))

    async def statement(self, where: str, account: int, values: Sequence[object], query: object) -> Statement:
        """TigerBeetleBook.statement, awaited."""
        self._history_client(where, self._client)
        return await self._run(self._statement_flow(where, account, values, query))

    async def entries(self, where: str, kind: int, key: Sequence[object]) -> list[Entry]:
        """TigerBeetleBook.entries, awaited."""
        return await self._run(self._entries_flow(where, kind, key))

    async def open_holds(self, where: str, account: int | None, values: Sequence[object] | None,
                         kind: int | None) -> list[OpenHold]:
        """TigerBeetleBook.open_holds, awaited."""
        self._history_client(where, self._client)
        return await self._run(self._open_holds_flow(where, account, values, kind))

    async def balance_at(self, where: str, account: int, values: Sequence[object], at: object) -> Balance:
        """TigerBeetleBook.balance_at, awaited."""
        self._history_client(where, self._client)
        return await self._run(self._balance_at_flow(where, account, values, at))
