"""The part of every Python client of a chobo book that depends neither on
the book nor on the backend: the answers an operation gets, what an account
holds, the error a failed call raises, and the checks every argument passes
before anything is sent."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Literal, TypeAlias

Outcome: TypeAlias = Literal["done", "done_before", "refused"]
"""How an operation ended."""

HoldState: TypeAlias = Literal["held", "posted", "voided", "expired"]
"""Where a hold stands. A status call answers None when there is none."""

ChoboErrorCode: TypeAlias = Literal[
    "CHOBO_BAD_ARGUMENT",  # an argument of the wrong type, or a value no backend stores
    "CHOBO_BAD_CALL",  # PostgreSQL rejected the call as malformed (SQLSTATE class 22)
    "CHOBO_BOUNDS_CHANGED",  # an account keeps bounds other than the book's (CB001)
    "CHOBO_ACCOUNT_CHANGED",  # a TigerBeetle account exists with another definition
    "CHOBO_BALANCE_OVERFLOW",  # a TigerBeetle balance outside 64 bits
    "CHOBO_TIMEOUT",  # no answer within the time a request may take
    "CHOBO_OUTCOME_UNKNOWN",  # the connection was lost, or an asyncio call cancelled, while the call was out: it may have been applied
    "CHOBO_NOT_SENT",  # the connection was closed before the call: it never went
    "CHOBO_UNEXPECTED",  # an answer chobo's statements or chains never get
    "CHOBO_UNSUPPORTED",  # a read the client given cannot make (TigerBeetle: one without get_account_transfers)
]


@dataclass(frozen=True)
class Result:
    """The answer to an operation. A refusal is an answer, not an exception:
    nothing changed, and reason says why. done_before means the same call,
    with the same key and content, took effect earlier."""

    result: Outcome
    reason: str | None = None
    resent: bool = field(default=False, compare=False, repr=False)
    """The answer is that of the call sent again, with the same arguments,
    after its connection was lost while it was out: done_before then says
    the first sending had been applied. It is not part of the answer: a
    result equals the one the call would have had sent once."""


DONE = Result("done")
DONE_BEFORE = Result("done_before")


def refused(reason: str) -> Result:
    """The answer of a refusal."""
    return Result("refused", reason)


@dataclass(frozen=True)
class Balance:
    """What an account holds, in the smallest step of its unit."""

    posted: int
    held_in: int
    held_out: int


EntryOp: TypeAlias = Literal["do", "hold", "post", "void", "expire"]
"""What wrote an entry: an operation of the book, or expire for a hold given
back at its deadline, which no caller asks for."""


@dataclass(frozen=True)
class Entry:
    """One change of one account by one call: a move of a call gives two,
    the side it leaves (out) and the side it reaches. Amounts are in the
    smallest step of the account's unit."""

    transfer: str
    op: EntryOp
    key: tuple[str, ...] | None
    """The call's key, in key order; None where the backend keeps no key."""
    args: Mapping[str, str] | None = field(hash=False)
    """What the call was given, by the book's parameter names, amounts as
    decimal text: every argument of a do or a hold, the key and the amounts
    of a post in part, the key alone for a post in full, a void or an
    expiry, read-only. None where the backend keeps no arguments. Left out
    of the entry's hash, as a mapping has none."""
    id: str
    """The id of the entry's transfer where the backend has one (32 hex
    digits on TigerBeetle); empty on PostgreSQL."""
    move: int
    """The move of the transfer kind, from 1 as the book writes them."""
    out: bool
    account: str
    account_args: tuple[str, ...] | None
    posted: int
    held_in: int
    held_out: int
    after: Balance | None
    """What the account held right after the entry; None for an account
    without bounds on PostgreSQL, whose balance no single entry leaves."""
    at: datetime
    """When the entry was written, in UTC."""
    cursor: str
    """Where a statement read after this entry starts (StatementQuery.after);
    it means something only to the ledger that gave it, for this account."""


DEFAULT_PAGE = 100
"""The entries a statement's page holds when its query gives no limit."""
MAX_PAGE = 1000
"""The most entries a statement's page may hold."""


@dataclass(frozen=True)
class StatementQuery:
    """Which of an account's entries a statement reads: oldest first unless
    newest, those written at from_ or later and before to (None: open),
    of the transfer kinds named (none: all), limit at most (0: DEFAULT_PAGE),
    starting past the cursor after ("": from the start)."""

    newest: bool = False
    from_: datetime | None = None
    to: datetime | None = None
    transfers: tuple[str, ...] = ()
    limit: int = 0
    after: str = ""


@dataclass(frozen=True)
class Statement:
    """One page of an account's entries. next is the cursor to read on from:
    the last entry's, or the query's after when the page is empty; more says
    entries the query keeps were left past the page."""

    entries: tuple[Entry, ...]
    next: str
    more: bool


@dataclass(frozen=True)
class HoldMove:
    """What one move of a hold holds, from one account to another."""

    move: int
    from_: str
    to: str
    from_args: tuple[str, ...] | None
    to_args: tuple[str, ...] | None
    amount: int


@dataclass(frozen=True)
class OpenHold:
    """A hold still held: not posted, voided or past its deadline. deadline
    is None for a kind whose holds never expire."""

    transfer: str
    key: tuple[str, ...] | None
    id: str
    moves: tuple[HoldMove, ...]
    created: datetime
    deadline: datetime | None


class ChoboError(Exception):
    """The exception every failed call of a chobo client raises. A failure is
    not an answer: the call was not made, or its answer could not be read.
    The driver's own error, when there is one, is the __cause__."""

    code: ChoboErrorCode

    def __init__(self, code: ChoboErrorCode, message: str) -> None:
        super().__init__("chobo: " + message)
        self.code = code


class ChoboCancelledError(ChoboError, asyncio.CancelledError):
    """What an asyncio call raises when it is cancelled (task.cancel(),
    asyncio.wait_for, asyncio.timeout) after it was sent: its outcome is
    unknown, as that of a call whose connection was lost
    (CHOBO_OUTCOME_UNKNOWN). It is a CancelledError too, so that whatever
    cancelled the task still sees its cancellation. A call cancelled before
    it went raises the plain CancelledError: nothing was sent; so does, on
    TigerBeetle, a read (a status, a balance), which changes nothing."""

    def __init__(self, where: str) -> None:
        super().__init__(
            "CHOBO_OUTCOME_UNKNOWN",
            f"{where}: the call was cancelled after it was sent, so it may or may not have been applied; "
            "sending it again with the same arguments is safe, and its answer says which",
        )


AMOUNT_MAX = (1 << 63) - 1
"""The largest amount: amounts are 64-bit integers from 0 up."""

# The most text a call may carry, the same on every backend and in the
# reference interpreter: a tenant of at most MAX_TENANT bytes of UTF-8, and
# text values of one call taking at most MAX_TEXTS bytes together, each
# counted with TEXT_OVERHEAD bytes more than its UTF-8. A key and its tenant
# are stored in an index of PostgreSQL's, whose rows hold about 2.7 kB at
# the most.
MAX_TENANT = 256
MAX_TEXTS = 2048
TEXT_OVERHEAD = 8


def describe(v: object) -> str:
    """A value for an error message: its type, and itself when short."""
    if v is None:
        return "None"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, str):
        return f"a string of {len(v)} characters" if len(v) > 40 else f"the string {v!r}"
    if isinstance(v, int):
        return f"the int {v}"
    return f"a {type(v).__name__}"


def check_keywords(where: str, unknown: Mapping[str, object]) -> None:
    """Refuses, before anything is sent, keyword arguments the operation
    does not take: a generated method gathers them in **_unknown (typed
    Never, so that a type checker names them too) rather than letting
    Python raise its TypeError, so that every mistake in a call is a
    ChoboError."""
    if unknown:
        names = ", ".join(repr(n) for n in unknown)
        what = "argument" if len(unknown) == 1 else "arguments"
        raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: the operation takes no {what} named {names}")


def check_amount(where: str, name: str, v: object) -> int:
    """v when it is an amount: an int from 0 to 2^63 - 1. A bool is an int to
    Python but never an amount; anything else raises, naming the parameter."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: the amount {name} must be an int, got {describe(v)}")
    if v < 0 or v > AMOUNT_MAX:
        raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: the amount {name} is {v}; amounts run from 0 to {AMOUNT_MAX}")
    return v


def check_text(where: str, name: str, v: object) -> str:
    """v when it is a string every backend can store: valid Unicode (no lone
    surrogate, so it has a UTF-8 form) holding no NUL character. PostgreSQL's
    text type holds neither, so the rule is the same on every backend and in
    the reference interpreter."""
    if not isinstance(v, str):
        raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: {name} must be a string, got {describe(v)}")
    for i, ch in enumerate(v):
        c = ord(ch)
        if c == 0:
            raise ChoboError(
                "CHOBO_BAD_ARGUMENT",
                f"{where}: {name} holds a NUL character (U+0000) at index {i}; strings are Unicode text without NUL",
            )
        if 0xD800 <= c <= 0xDFFF:
            raise ChoboError(
                "CHOBO_BAD_ARGUMENT",
                f"{where}: {name} has a lone surrogate (U+{c:04X}) at index {i}, which is not text UTF-8 can carry; "
                "strings are Unicode text without NUL",
            )
    return v


def check_size(where: str, tenant: object, values: Sequence[object]) -> None:
    """Refuses, before anything is sent, a tenant or text values longer than
    every backend stores. Values that are not strings take no room."""
    t = len(tenant.encode("utf-8")) if isinstance(tenant, str) else 0
    if t > MAX_TENANT:
        raise ChoboError(
            "CHOBO_BAD_ARGUMENT", f"{where}: the tenant is {t} bytes; a tenant is at most {MAX_TENANT} bytes of UTF-8"
        )
    n = sum(len(v.encode("utf-8")) + TEXT_OVERHEAD for v in values if isinstance(v, str))
    if n > MAX_TEXTS:
        raise ChoboError(
            "CHOBO_BAD_ARGUMENT",
            f"{where}: the text values of the call take {n} bytes; they take at most {MAX_TEXTS} together, "
            f"each counted with {TEXT_OVERHEAD} bytes more than its UTF-8",
        )


def parse_outcome(s: object) -> Outcome:
    """An outcome as a backend writes it."""
    if s == "done":
        return "done"
    if s == "done_before":
        return "done_before"
    if s == "refused":
        return "refused"
    raise ChoboError("CHOBO_UNEXPECTED", f"unknown outcome {describe(s)}")


def parse_hold_state(s: object) -> HoldState | None:
    """A hold state as a backend writes it; None is no hold."""
    if s is None:
        return None
    if s == "held":
        return "held"
    if s == "posted":
        return "posted"
    if s == "voided":
        return "voided"
    if s == "expired":
        return "expired"
    raise ChoboError("CHOBO_UNEXPECTED", f"unknown hold state {describe(s)}")


def check_query(where: str, q: object) -> StatementQuery:
    """q when it is a StatementQuery whose fields are each of their type, the
    default query for None; anything else raises before anything is sent."""
    if q is None:
        return StatementQuery()
    if not isinstance(q, StatementQuery):
        raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: the query must be a StatementQuery, got {describe(q)}")
    if not isinstance(q.newest, bool):
        raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: newest must be a bool, got {describe(q.newest)}")
    for name, t in (("from_", q.from_), ("to", q.to)):
        if t is not None:
            check_time(where, name, t)
    if isinstance(q.transfers, str) or not isinstance(q.transfers, Sequence):
        raise ChoboError(
            "CHOBO_BAD_ARGUMENT", f"{where}: transfers must be a tuple of transfer kinds, got {describe(q.transfers)}"
        )
    for kind in q.transfers:
        check_text(where, "a transfer kind", kind)
    page_limit(where, q.limit)
    if not isinstance(q.after, str):
        raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: after must be a cursor (a string), got {describe(q.after)}")
    return q


def page_limit(where: str, limit: object) -> int:
    """The number of entries a statement asks for: DEFAULT_PAGE for 0, limit
    from 1 to MAX_PAGE; anything else raises before anything is sent."""
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: the limit must be an int, got {describe(limit)}")
    if limit == 0:
        return DEFAULT_PAGE
    if limit < 0 or limit > MAX_PAGE:
        raise ChoboError(
            "CHOBO_BAD_ARGUMENT",
            f"{where}: a statement's limit is {limit}; it is from 1 to {MAX_PAGE}, or 0 for {DEFAULT_PAGE}",
        )
    return limit


def check_time(where: str, name: str, v: object) -> datetime:
    """v in UTC when it is an aware datetime. A naive one names no instant (its
    zone is the reader's guess), so it is refused rather than read as local
    time or as UTC."""
    if not isinstance(v, datetime):
        raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: {name} must be a datetime, got {describe(v)}")
    if v.tzinfo is None or v.utcoffset() is None:
        raise ChoboError(
            "CHOBO_BAD_ARGUMENT", f"{where}: {name} is a naive datetime; give one with its time zone (e.g. timezone.utc)"
        )
    return v.astimezone(timezone.utc)


_DECIMAL_CURSOR = re.compile(r"[0-9]{1,19}")


def check_decimal_cursor(where: str, cursor: str) -> int | None:
    """A cursor of a backend whose cursors are an entry's number as decimal
    text (PostgreSQL): that number, None for "" (the start); any other text
    did not come from that backend, and raises before anything is sent."""
    if cursor == "":
        return None
    if _DECIMAL_CURSOR.fullmatch(cursor) and int(cursor) <= AMOUNT_MAX:
        return int(cursor)
    raise ChoboError(
        "CHOBO_BAD_ARGUMENT",
        f"{where}: the cursor {cursor!r} is not one this ledger gives; pass the cursor or next of an earlier read",
    )
