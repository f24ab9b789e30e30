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
import secrets
import threading
from collections.abc import Awaitable, Callable, Generator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn, Protocol, TypeAlias, TypeVar, cast

import tigerbeetle as tb

from .chobo import (
    Balance,
    ChoboCancelledError,
    ChoboError,
    Entry,
    HoldState,
    OpenHold,
    Result,
    Statement,
    check_amount,
    check_size,
    check_text,
    describe,
    refused,
)
from .ids import account_id, hex_id
from .tigerbeetle import (
    AMOUNT_MAX_128,
    DEFAULT_TIMEOUT_MS,
    MAX_EVENTS,
    Account,
    ChainEvent,
    Def,
    Plan,
    Transfer,
    Value,
    _kind_of,
    _text,
    account_status,
    balance_of,
    definition_tag,
    finish,
    lookups,
    plan,
    read,
    read_status,
    status_chain,
    tenant_ids_of,
    transfer_status,
)

RequestOp: TypeAlias = Literal["create_accounts", "create_transfers", "lookup_accounts", "lookup_transfers"]


@dataclass(frozen=True)
class Request:
    """A request as a book sends it, in the runtime's own records, for a
    caller that records them (on_request): accounts for create_accounts,
    transfers for create_transfers, ids for the lookups."""

    op: RequestOp
    accounts: tuple[Account, ...] = ()
    transfers: tuple[Transfer, ...] = ()
    ids: tuple[int, ...] = ()


class TigerBeetleClient(Protocol):
    """What TigerBeetleBook uses of tigerbeetle.ClientSync."""

    def create_accounts(self, accounts: list[tb.Account], /) -> list[tb.CreateAccountResult]: ...

    def create_transfers(self, transfers: list[tb.Transfer], /) -> list[tb.CreateTransferResult]: ...

    def lookup_accounts(self, accounts: list[int], /) -> list[tb.Account]: ...

    def lookup_transfers(self, transfers: list[int], /) -> list[tb.Transfer]: ...


class AsyncTigerBeetleClient(Protocol):
    """What AsyncTigerBeetleBook uses of tigerbeetle.ClientAsync."""

    async def create_accounts(self, accounts: list[tb.Account], /) -> list[tb.CreateAccountResult]: ...

    async def create_transfers(self, transfers: list[tb.Transfer], /) -> list[tb.CreateTransferResult]: ...

    async def lookup_accounts(self, accounts: list[int], /) -> list[tb.Account]: ...

    async def lookup_transfers(self, transfers: list[int], /) -> list[tb.Transfer]: ...


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


_HeldOf: TypeAlias = "list[int] | None | Literal['other']"

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


class _TbFlows:
    """The operations of a book over TigerBeetle, written once for both
    drivers, and what a book remembers between calls."""

    d: Def
    tenant: str
    timeout_ms: int

    def __init__(self, d: Def, tenant: str, timeout_ms: int, on_request: Callable[[Request], None] | None) -> None:
        if not isinstance(d, Def):
            raise ChoboError("CHOBO_BAD_ARGUMENT", f"tigerbeetle: the definition must be a Def, got {describe(d)}")
        if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms < 0:
            raise ChoboError(
                "CHOBO_BAD_ARGUMENT", f"tigerbeetle: timeout_ms must be a whole number from 0, got {describe(timeout_ms)}"
            )
        self.d = d
        self.tenant = check_text("tigerbeetle", "the tenant", tenant)
        self.timeout_ms = timeout_ms
        self._on_request = on_request
        self._tids = tenant_ids_of(d, self.tenant)
        # The accounts and openings this book has made. A set's add is one
        # step under the interpreter's lock, and making one twice is
        # harmless (it exists), so threads share it without a lock of ours.
        self._made: set[int] = set()

    def _ensure_flow(self, p: Plan) -> _TbFlow[None]:
        """Makes the accounts, then the openings, of a plan that this book
        has not made yet, in requests of at most MAX_EVENTS apart from the chain."""
        accounts = [a for a in p.accounts if a.id not in self._made]
        for i in range(0, len(accounts), MAX_EVENTS):
            batch = accounts[i : i + MAX_EVENTS]
            ans = yield Request("create_accounts", accounts=tuple(batch))
            self._made_once(
                [account_status(s) for s in _tb_statuses(ans, len(batch), "accounts")], [a.id for a in batch],
                "CHOBO_ACCOUNT_CHANGED",
                "an account exists in TigerBeetle with another definition: the book's account kinds changed", "account",
            )
        openings = [t for t in p.openings if t.id not in self._made]
        for i in range(0, len(openings), MAX_EVENTS):
            batch_t = openings[i : i + MAX_EVENTS]
            ans = yield Request("create_transfers", transfers=tuple(batch_t))
            self._made_once(
                [transfer_status(s) for s in _tb_statuses(ans, len(batch_t), "transfers")], [t.id for t in batch_t],
                "CHOBO_BOUND_CHANGED",
                "a floor or room account was opened with another amount: a bound of the book changed", "opening",
            )

    def _made_once(self, statuses: list[str], made: list[int],
                   code: Literal["CHOBO_ACCOUNT_CHANGED", "CHOBO_BOUND_CHANGED"], changed: str, what: str) -> None:
        """Remembers a batch as made when every record was created or was
        there already; one there with other fields means the book changed."""
        for s, rid in zip(statuses, made):
            if s.startswith("exists_with_different_"):
                raise ChoboError(code, f"{changed} ({what} {hex_id(rid)}: {s})")
            if s not in ("created", "exists"):
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
        if len(p.chain) > MAX_EVENTS:
            raise ChoboError(
                "CHOBO_UNEXPECTED", f"a chain of {len(p.chain)} events does not fit one request of {MAX_EVENTS}"
            )
        yield from self._ensure_flow(p)
        return read(p.chain, (yield from self._send_chain_flow(p.chain)))

    def _held_flow(self, kind: int, key: Sequence[str]) -> _TbFlow[_HeldOf]:
        """What a hold holds, one amount per move; None when there is no
        hold, "other" when it was made under another definition of its kind
        (an event tagged with another definition; an untagged one was made
        by a client that did not tag holds, and is taken as it is)."""
        ids = lookups(self.d, self.tenant, kind, key)
        found: dict[int, Transfer] = {}
        for i in range(0, len(ids), MAX_EVENTS):
            batch = ids[i : i + MAX_EVENTS]
            ans = yield Request("lookup_transfers", ids=tuple(batch))
            for t in ans.transfers:
                if t.id not in batch:
                    raise ChoboError("CHOBO_UNEXPECTED", "the lookup of a hold answered another transfer")
                found[t.id] = t
        tag = definition_tag(_kind_of(self.d, kind).definition)
        if any(t.user_data_64 not in (0, tag) for t in found.values()):
            return "other"
        out = [found[i].amount for i in ids if i in found]
        if not out:
            return None
        if len(out) != len(ids):
            raise ChoboError("CHOBO_UNEXPECTED", f"{len(out)} of the {len(ids)} moves of a hold were found")
        return out

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
        held = yield from self._held_flow(kind, key)
        if held is None:
            return refused("no_such_hold")
        if held == "other":
            return refused("key_conflict")
        want = held
        if amounts is not None:
            by_param = dict(zip(t.post_amounts, amounts))
            # A move of a literal amount always posts whole.
            want = [held[i] if m.amount < 0 else by_param.get(m.amount, 0) for i, m in enumerate(t.moves)]
        if any(w > h for w, h in zip(want, held)):
            return _over_hold((yield from self._status_of_flow(kind, key)))
        chain = finish(self.d, self.tenant, kind, "post", key, want)
        return read(chain, (yield from self._send_chain_flow(chain)))

    def _void_flow(self, kind: int, key_vals: Sequence[Value]) -> _TbFlow[Result]:
        check_size(f"{_kind_of(self.d, kind).name}.void", self.tenant, key_vals)
        key = [_text(v) for v in key_vals]
        held = yield from self._held_flow(kind, key)
        if held is None:
            return refused("no_such_hold")
        if held == "other":
            return refused("key_conflict")
        chain = finish(self.d, self.tenant, kind, "void", key, [])
        return read(chain, (yield from self._send_chain_flow(chain)))

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
        requests of at most MAX_EVENTS events, a chain never split. A call
        reads nothing another of the same bulk writes: a post, void or
        status of a hold held in it finds no hold."""
        out: list[TbAnswer] = [c.error for c in calls]
        chains: dict[int, list[ChainEvent]] = {}
        reads: dict[int, str] = {}  # result, state, or over_hold (a post over its hold, as a status chain)
        plans: list[tuple[int, Plan]] = []
        finishing: list[tuple[int, list[str], list[int]]] = []  # a post or void, its key and its lookups
        for i, c in enumerate(calls):
            if c.error is not None:
                continue
            try:
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
                        out[i] = refused("same_account")
                    elif len(p.chain) > MAX_EVENTS:
                        raise ChoboError(
                            "CHOBO_UNEXPECTED", f"a chain of {len(p.chain)} events does not fit one request of {MAX_EVENTS}"
                        )
                    else:
                        plans.append((i, p))
                        chains[i], reads[i] = p.chain, "result"
                elif c.op == "status":
                    key = [_text(v) for v in c.values]
                    chains[i] = status_chain(self.d, self.tenant, c.kind, key, _tb_random_id(), _tb_random_id())
                    reads[i] = "state"
                else:
                    key = [_text(v) for v in c.values]
                    finishing.append((i, key, lookups(self.d, self.tenant, c.kind, key)))
            except Exception as e:
                out[i] = e
        # The accounts and openings of every plan, each once.
        if plans:
            whole = Plan()
            seen: set[int] = set()
            for _, p in plans:
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
                for i, _ in plans:
                    out[i] = e
                    chains.pop(i, None)
        # One lookup for the holds of every post and void.
        found: dict[int, Transfer] = {}
        ids = list(dict.fromkeys(x for _, _, ls in finishing for x in ls))
        try:
            for k in range(0, len(ids), MAX_EVENTS):
                batch = ids[k : k + MAX_EVENTS]
                ans = yield Request("lookup_transfers", ids=tuple(batch))
                for tr in ans.transfers:
                    found[tr.id] = tr
        except Exception as e:
            for i, _, _ in finishing:
                out[i] = e
            finishing = []
        for i, key, ls in finishing:
            try:
                self._finish_of(calls[i], key, ls, found, out, chains, reads, i)
            except Exception as e:
                out[i] = e
        # Every chain, in the order of the calls.
        order = [i for i in range(len(calls)) if i in chains]
        k = 0
        while k < len(order):
            batch_i = [order[k]]
            n = len(chains[order[k]])
            k += 1
            while k < len(order) and n + len(chains[order[k]]) <= MAX_EVENTS:
                n += len(chains[order[k]])
                batch_i.append(order[k])
                k += 1
            events = [e for i in batch_i for e in chains[i]]
            try:
                ans = yield Request("create_transfers", transfers=tuple(e.transfer for e in events))
                statuses = _tb_statuses(ans, len(events), "transfers")
            except Exception as e:
                for i in batch_i:
                    out[i] = e
                continue
            at = 0
            for i in batch_i:
                mine = statuses[at : at + len(chains[i])]
                at += len(chains[i])
                try:
                    if reads[i] == "result":
                        out[i] = read(chains[i], mine)
                    elif reads[i] == "state":
                        out[i] = read_status(mine)
                    else:
                        out[i] = _over_hold(read_status(mine))
                except Exception as e:
                    out[i] = e
        return out

    def _finish_of(self, c: TbCall, key: list[str], ids: list[int], found: dict[int, Transfer], out: list[TbAnswer],
                   chains: dict[int, list[ChainEvent]], reads: dict[int, str], i: int) -> None:
        """The chain of a post or void of a bulk from the holds looked up,
        as _post_flow and _void_flow build it, or its answer when it needs none."""
        t = _kind_of(self.d, c.kind)
        tag = definition_tag(t.definition)
        mine = [found[x] for x in ids if x in found]
        if any(tr.user_data_64 not in (0, tag) for tr in mine):
            out[i] = refused("key_conflict")
            return
        if not mine:
            out[i] = refused("no_such_hold")
            return
        if len(mine) != len(ids):
            raise ChoboError("CHOBO_UNEXPECTED", f"{len(mine)} of the {len(ids)} moves of a hold were found")
        held = [tr.amount for tr in mine]
        if c.op == "void":
            chains[i], reads[i] = finish(self.d, self.tenant, c.kind, "void", key, []), "result"
            return
        want = held
        if c.amounts is not None:
            by_param = dict(zip(t.post_amounts, c.amounts))
            want = [held[n] if m.amount < 0 else by_param.get(m.amount, 0) for n, m in enumerate(t.moves)]
        if any(w > h for w, h in zip(want, held)):
            chains[i] = status_chain(self.d, self.tenant, c.kind, key, _tb_random_id(), _tb_random_id())
            reads[i] = "over_hold"
            return
        chains[i], reads[i] = finish(self.d, self.tenant, c.kind, "post", key, want), "result"

    def _recorded(self, req: Request) -> None:
        if self._on_request is not None:
            self._on_request(req)


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


def _tb_blocking(send: Callable[[], _TbR], timeout_ms: int, what: str) -> _TbR:
    """Runs a request of ClientSync on a thread of its own and waits for it
    at most timeout_ms (0: for ever, on the caller's thread)."""
    if timeout_ms == 0:
        return send()
    fut: Future[_TbR] = Future()

    def work() -> None:
        try:
            fut.set_result(send())
        except BaseException as e:
            fut.set_exception(e)

    # A daemon thread, so that a replica that never answers cannot keep the
    # process from exiting.
    threading.Thread(target=work, name="chobo " + what, daemon=True).start()
    try:
        return fut.result(timeout_ms / 1000)
    except TimeoutError:
        if fut.done():
            raise  # the request itself failed with a TimeoutError
        raise ChoboError("CHOBO_TIMEOUT", f"{what}: no answer within {timeout_ms} ms") from None


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


def _tb_no_history(where: str) -> NoReturn:
    """What every history read of a TigerBeetle book raises for now: the
    reads are in the client's surface, so that a program written against a
    PostgreSQL book type-checks against this one, but this client does not
    read TigerBeetle's records yet."""
    raise ChoboError(
        "CHOBO_UNSUPPORTED",
        f"{where}: reading the history is not in the Python TigerBeetle client yet; "
        "the PostgreSQL client and the Go TigerBeetle client have it",
    )


class TigerBeetleBook(_TbFlows):
    """Sends the calls of one book, for one tenant, through the official
    client's ClientSync. It remembers the accounts and openings it has
    made, so that each is sent once per book: keep one book per tenant
    rather than making one per call. It may be shared by threads.

    A request that gets no answer within timeout_ms raises ChoboError
    CHOBO_TIMEOUT, as in the other runtimes. ClientSync itself waits for
    ever for a replica that does not answer, so each request runs on a
    daemon thread of its own while the caller waits at most timeout_ms; a
    request given up on stays with the client and may still take effect.
    That is safe: a call sent again has the same ids and answers
    done_before, or the refusal it got. The thread costs about a tenth of a
    millisecond a request, little beside a round trip to the replica;
    timeout_ms=0 sends on the caller's thread and waits for ever.

    on_request, when given, is called with each request before it is sent."""

    def __init__(self, client: TigerBeetleClient, d: Def, tenant: str = "", timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 on_request: Callable[[Request], None] | None = None) -> None:
        _tb_check_client(client, False)
        super().__init__(d, tenant, timeout_ms, on_request)
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
        """A page of an account's statement: not read on TigerBeetle yet."""
        _tb_no_history(where)

    def entries(self, where: str, kind: int, key: Sequence[object]) -> list[Entry]:
        """The entries of one key's calls: not read on TigerBeetle yet."""
        _tb_no_history(where)

    def open_holds(self, where: str, account: int | None, values: Sequence[object] | None, kind: int | None) -> list[OpenHold]:
        """The holds still open: not read on TigerBeetle yet."""
        _tb_no_history(where)

    def balance_at(self, where: str, account: int, values: Sequence[object], at: object) -> Balance:
        """What an account held at a time: not read on TigerBeetle yet."""
        _tb_no_history(where)


class AsyncTigerBeetleBook(_TbFlows):
    """TigerBeetleBook over the official client's ClientAsync: the same
    calls, awaited. A request that gets no answer within timeout_ms (0: no
    limit) raises ChoboError CHOBO_TIMEOUT; it is left to finish in the
    background and may still take effect, which a call sent again with the
    same values answers as done_before."""

    def __init__(self, client: AsyncTigerBeetleClient, d: Def, tenant: str = "",
                 timeout_ms: int = DEFAULT_TIMEOUT_MS, on_request: Callable[[Request], None] | None = None) -> None:
        _tb_check_client(client, True)
        super().__init__(d, tenant, timeout_ms, on_request)
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
        """A page of an account's statement: not read on TigerBeetle yet."""
        _tb_no_history(where)

    async def entries(self, where: str, kind: int, key: Sequence[object]) -> list[Entry]:
        """The entries of one key's calls: not read on TigerBeetle yet."""
        _tb_no_history(where)

    async def open_holds(self, where: str, account: int | None, values: Sequence[object] | None, kind: int | None) -> list[OpenHold]:
        """The holds still open: not read on TigerBeetle yet."""
        _tb_no_history(where)

    async def balance_at(self, where: str, account: int, values: Sequence[object], at: object) -> Balance:
        """What an account held at a time: not read on TigerBeetle yet."""
        _tb_no_history(where)
