"""How a Python client calls a chobo book kept in PostgreSQL, the same for
every book: one statement per operation, the call of one of the book's SQL
functions, sent again when the server could not serialize it, with the
answer read into chobo's types. It is the TypeScript runtime's postgres.ts
(and the Go runtime's chobopg) written again.

Each operation is written once, as a generator that yields the step it
needs (a statement to send, a pause before sending it again) and is handed
what came of it; PostgresBook runs those generators over a DB-API 2
connection (psycopg 3 or psycopg2), AsyncPostgresBook over psycopg 3's
AsyncConnection. Neither driver is imported here: a connection is used
only through the few methods every DB-API 2 driver has, so that a client
over psycopg2 needs no psycopg 3, and the other way round."""

from __future__ import annotations

import asyncio
import inspect
import random
import re
import threading
import time
import uuid
import weakref
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timezone
from types import MappingProxyType
from typing import Any, Protocol, TypeAlias, TypeVar, cast

from .chobo import (
    DONE,
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
    StatementQuery,
    check_decimal_cursor,
    check_query,
    check_size,
    check_text,
    check_time,
    describe,
    page_limit,
    parse_hold_state,
    parse_outcome,
    refused,
)

MAX_ATTEMPTS = 30
"""How often one call is sent at most while the server keeps answering
with a failure that may be retried."""


def backoff(n: int) -> int:
    """The longest wait, in milliseconds, before attempt n + 1 (n from 0): 1,
    2, 4 ... 128, then 128. The wait itself is drawn at random up to it, so
    that callers that collided do not collide again in step."""
    return 128 if n >= 7 else 1 << n


SERIALIZATION_FAILURE = "40001"
"""Only under REPEATABLE READ or SERIALIZABLE; nothing was written, the call may go again."""
DEADLOCK_DETECTED = "40P01"
"""The book's functions lock in one order and should never meet it; retried all the same."""
IN_FAILED_TRANSACTION = "25P02"
"""The caller's transaction failed earlier; the first error is the telling one."""
BOUNDS_CHANGED = "CB001"
"""chobo's own: an account made outside met a book in which its kind has bounds."""


def retryable(code: str) -> bool:
    """Whether a call that failed with the SQLSTATE may be sent again
    unchanged; its key makes that safe."""
    return code in (SERIALIZATION_FAILURE, DEADLOCK_DETECTED)


_SQLSTATE = re.compile(r"[0-9A-Z]{5}")


def sqlstate_of(err: object) -> str:
    """The SQLSTATE of a driver's error, or "": psycopg 3 keeps it in
    sqlstate, psycopg2 in pgcode. Errors raised by the driver itself, before
    the server answered, have none."""
    for attr in ("sqlstate", "pgcode"):
        code = getattr(err, attr, None)
        if isinstance(code, str) and _SQLSTATE.fullmatch(code):
            return code
    return ""


_pg_retried: dict[str, int] = {SERIALIZATION_FAILURE: 0, DEADLOCK_DETECTED: 0}
_pg_retried_lock = threading.Lock()


def retries_of(code: str) -> int:
    """How often, in this process, a call was sent again after failing with
    the SQLSTATE (a retryable one; 0 for any other). The book's functions
    lock in one order, so a test can show that deadlocks never happen."""
    with _pg_retried_lock:
        return _pg_retried.get(code, 0)


def _pg_count_retry(code: str) -> None:
    with _pg_retried_lock:
        _pg_retried[code] = _pg_retried.get(code, 0) + 1


class PgCursor(Protocol):
    """What a book uses of a DB-API 2 cursor. Statements take %s
    placeholders, as psycopg 3 and psycopg2 both read them."""

    def execute(self, query: str, params: Sequence[object], /) -> object: ...

    def fetchone(self) -> object: ...

    def fetchall(self) -> Sequence[object]: ...

    # None, not object: an async cursor's close answers a coroutine, so
    # that a type checker tells the two kinds of connection apart.
    def close(self) -> None: ...


class PgConnection(Protocol):
    """A DB-API 2 connection: psycopg 3's Connection, psycopg2's connection."""

    def cursor(self) -> PgCursor: ...


class AsyncPgCursor(Protocol):
    """What a book uses of psycopg 3's AsyncCursor."""

    async def execute(self, query: str, params: Sequence[object], /) -> object: ...

    async def fetchone(self) -> object: ...

    async def fetchall(self) -> Sequence[object]: ...

    async def close(self) -> object: ...


class AsyncPgConnection(Protocol):
    """psycopg 3's AsyncConnection, or anything whose cursors are awaited the same way."""

    def cursor(self) -> AsyncPgCursor: ...


class PgPool(Protocol):
    """What PostgresBook needs of a pool: connection(), a context manager
    that lends one connection and commits (or rolls back) at its end, as
    psycopg_pool's ConnectionPool has."""

    def connection(self) -> AbstractContextManager[PgConnection]: ...


class AsyncPgPool(Protocol):
    """What AsyncPostgresBook needs of a pool: psycopg_pool's
    AsyncConnectionPool."""

    def connection(self) -> AbstractAsyncContextManager[AsyncPgConnection]: ...


@dataclass(frozen=True)
class _PgQuery:
    """A step: send the statement, answer its first row (None for none), or
    every row when many."""

    statement: str
    params: tuple[object, ...]
    where: str = ""
    many: bool = False


@dataclass(frozen=True)
class _PgPause:
    """A step: wait so long before the next attempt."""

    seconds: float


_PgStep: TypeAlias = "_PgQuery | _PgPause"
_PgT = TypeVar("_PgT")
_PgFlow: TypeAlias = Generator[_PgStep, object, _PgT]
"""An operation as the drivers run it: it yields steps, is sent the row a
query fetched (None after a pause), or has the driver's error thrown in,
and returns the operation's answer."""


def _pg_classify(where: str, err: Exception) -> Exception:
    """The error a failed call raises: chobo's own for the SQLSTATEs it
    knows, keeping the driver's error as the cause; any other as it is."""
    code = sqlstate_of(err)
    if code == BOUNDS_CHANGED:
        e = ChoboError("CHOBO_BOUNDS_CHANGED", f"{where}: an account keeps bounds other than the book has now: {err}")
    elif code.startswith("22"):
        e = ChoboError("CHOBO_BAD_CALL", f"{where}: the function rejected the call: {err}")
    else:
        return err
    e.__cause__ = err
    return e


_PG_LOST = (
    "the connection was lost after the call was sent, so it may or may not have been applied; "
    "sending it again with the same arguments, on a new connection, is safe, and its answer says which"
)


_PG_POOLER_NOT_SENT = re.compile(
    r"pgbouncer cannot connect to server|server login has been failing|query_wait_timeout|no more connections allowed"
)
"""PgBouncer's messages (all SQLSTATE 08P01) for a statement that waited in
the pooler for a server connection it never got: the statement never
reached the server."""


def _pg_lost(where: str, err: Exception) -> Exception | None:
    """CHOBO_OUTCOME_UNKNOWN for an error that says the connection broke, or
    the server shut down, while the statement was out (SQLSTATE 57P01-57P05
    or class 08, or a driver's OperationalError, InterfaceError or
    InternalError that carries none: psycopg's InternalError says the
    answers on the connection were not what was sent, as when a server
    behind a pooler ends the session before a COMMIT is answered);
    CHOBO_NOT_SENT for PgBouncer's word that the statement never reached a
    server; None for an answer of the server's."""
    code = sqlstate_of(err)
    if code == "08P01":
        diag = getattr(err, "diag", None)
        message = getattr(diag, "message_primary", None) or str(err)
        if _PG_POOLER_NOT_SENT.search(message):
            n = ChoboError("CHOBO_NOT_SENT", f"{where}: the call was not sent: the pooler reached no server: {err}")
            n.__cause__ = err
            return n
    if code:
        if not (code.startswith("57P") or code.startswith("08")):
            return None
    elif not any(c.__name__ in ("OperationalError", "InterfaceError", "InternalError") for c in type(err).__mro__):
        return None
    e = ChoboError("CHOBO_OUTCOME_UNKNOWN", f"{where}: {_PG_LOST}: {err}")
    e.__cause__ = err
    return e


DEFAULT_RESEND_FOR = 30.0
"""How long, in seconds, a book over a pool sends a call whose connection
was lost again, with the same arguments, unless made with another
resend_for: long enough for a standby to be promoted, short enough that a
caller hears of a server that is gone. A book over one connection cannot:
the lost connection is closed."""


def _pg_row_flow(
    where: str, statement: str, params: tuple[object, ...], resend_for: float = 0.0
) -> _PgFlow[tuple[tuple[object, ...], bool]]:
    """Sends one statement and answers the values of its one row, in column
    order, and whether they are those of a sending again after a lost
    connection (_pg_send_flow says how it is sent)."""
    fetched, again = yield from _pg_send_flow(where, statement, params, resend_for, False)
    return _pg_values(where, fetched), again


def _pg_rows_flow(where: str, statement: str, params: tuple[object, ...], resend_for: float = 0.0) -> _PgFlow[list[tuple[object, ...]]]:
    """Sends one statement that reads, and answers the values of each of its
    rows, in column order."""
    fetched, _ = yield from _pg_send_flow(where, statement, params, resend_for, True)
    if isinstance(fetched, (str, bytes)) or not isinstance(fetched, Sequence):
        raise ChoboError("CHOBO_UNEXPECTED", f"{where}: the statement answered {describe(fetched)} for its rows")
    return [_pg_values(where, r) for r in fetched]


def _pg_send_flow(
    where: str, statement: str, params: tuple[object, ...], resend_for: float, many: bool
) -> _PgFlow[tuple[object, bool]]:
    """Sends one statement and answers what it fetched (its first row, or
    every row when many), and whether that is the answer of a sending again
    after a lost connection. A failure that may be retried is sent again after a random
    wait, up to MAX_ATTEMPTS times in all. Inside a transaction of the
    caller's that failed, every later statement gets 25P02, so the first
    error is raised instead: it says what went wrong. A statement whose
    connection was lost is sent again for resend_for seconds (0: never)."""
    first: Exception | None = None
    n = 0
    lost_tries = 0
    lost_once = False
    until = _pg_now() + resend_for if resend_for > 0 else 0.0
    while True:
        err: Exception
        try:
            fetched = yield _PgQuery(statement, params, where, many)
        except Exception as e:
            err = e
        else:
            return fetched, lost_once
        # Raised out here rather than in the except clause, so that an error
        # that goes out unchanged is not given the one it replaces as context.
        lost: Exception | None = None
        if isinstance(err, ChoboError):
            if err.code != "CHOBO_NOT_SENT":
                raise err
            lost = err
        else:
            lost = _pg_lost(where, err)
        if lost is not None:
            unknown = isinstance(lost, ChoboError) and lost.code == "CHOBO_OUTCOME_UNKNOWN"
            lost_once = lost_once or unknown
            if until == 0.0 or _pg_now() >= until:
                if lost_once and not unknown:
                    # An earlier sending may have been applied.
                    unknown_err = ChoboError("CHOBO_OUTCOME_UNKNOWN", f"{where}: {_PG_LOST}: {lost}")
                    unknown_err.__cause__ = lost
                    raise unknown_err
                raise lost
            _pg_count_resend("CHOBO_OUTCOME_UNKNOWN" if unknown else "CHOBO_NOT_SENT")
            yield _PgPause(random.random() * backoff(lost_tries) / 1000)
            lost_tries += 1
            # A sending again counts among the attempts, as in the Go and
            # TypeScript runtimes: MAX_ATTEMPTS bounds every sending of
            # the call, not only those after a failure to serialize.
            n += 1
            continue
        if first is None:
            first = err
        code = sqlstate_of(err)
        if code == IN_FAILED_TRANSACTION:
            raise _pg_classify(where, first)
        if not retryable(code) or n + 1 >= MAX_ATTEMPTS:
            if lost_once:
                # An earlier sending was out when its connection broke, and
                # may have been applied: this error does not say it was not.
                unknown_err = ChoboError("CHOBO_OUTCOME_UNKNOWN", f"{where}: {_PG_LOST}: {err}")
                unknown_err.__cause__ = err
                raise unknown_err
            raise _pg_classify(where, err)
        _pg_count_retry(code)
        yield _PgPause(random.random() * backoff(n) / 1000)
        n += 1


_pg_resent: dict[str, int] = {"CHOBO_OUTCOME_UNKNOWN": 0, "CHOBO_NOT_SENT": 0}


def resent_of(kind: str) -> int:
    """How often, in this process, a call was sent again after its
    connection was lost while it was out (CHOBO_OUTCOME_UNKNOWN) or before it
    went (CHOBO_NOT_SENT)."""
    with _pg_retried_lock:
        return _pg_resent.get(kind, 0)


def _pg_count_resend(kind: str) -> None:
    with _pg_retried_lock:
        _pg_resent[kind] = _pg_resent.get(kind, 0) + 1


def _pg_values(where: str, fetched: object) -> tuple[object, ...]:
    """A fetched row as its values in column order. Rows are tuples unless
    the caller chose another row factory; a dict row keeps its columns in
    order too."""
    if fetched is None:
        raise ChoboError("CHOBO_UNEXPECTED", f"{where}: the statement answered no row")
    if isinstance(fetched, Mapping):
        return tuple(fetched.values())
    if isinstance(fetched, Sequence) and not isinstance(fetched, (str, bytes)):
        return tuple(fetched)
    raise ChoboError("CHOBO_UNEXPECTED", f"{where}: the statement answered {describe(fetched)} for a row")


def _pg_column(row: tuple[object, ...], i: int) -> object:
    return row[i] if i < len(row) else None


def _pg_int64(where: str, v: object) -> int:
    """A bigint column. Both drivers hand it over as an int; a string of
    digits is taken too, as the other runtimes take it."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str) and re.fullmatch(r"-?[0-9]+", v):
        return int(v)
    raise ChoboError("CHOBO_UNEXPECTED", f"{where}: a balance of {describe(v)}")


def _pg_call_id() -> str:
    """A new call's id, sent last with an operation or expire. The server
    keeps it with what the call did, so that a sending of the same call
    again, with the same id, is answered what the first sending was
    answered (done, or refused with its reason, for an operation; the
    holds given back, for expire) rather than done_before or
    already_refused. Each call gets one of its own: only the book's own
    sendings again of that call share it. Text, which the statement casts
    to uuid, so that both drivers send it alike."""
    return str(uuid.uuid4())


def _pg_call_flow(where: str, statement: str, params: tuple[object, ...], resend_for: float = 0.0) -> _PgFlow[Result]:
    row, again = yield from _pg_row_flow(where, statement, params, resend_for)
    outcome = parse_outcome(_pg_column(row, 0))
    if outcome == "done":
        r = DONE
    elif outcome == "done_before":
        r = DONE_BEFORE
    else:
        reason = _pg_column(row, 1)
        if not isinstance(reason, str):
            raise ChoboError("CHOBO_UNEXPECTED", f"{where}: a refusal without a reason")
        r = refused(reason)
    return Result(r.result, r.reason, resent=True) if again else r


def _pg_status_flow(where: str, statement: str, params: tuple[object, ...], resend_for: float = 0.0) -> _PgFlow[HoldState | None]:
    row, _ = yield from _pg_row_flow(where, statement, params, resend_for)
    return parse_hold_state(_pg_column(row, 0))


def _pg_balance_flow(where: str, statement: str, params: tuple[object, ...], resend_for: float = 0.0) -> _PgFlow[Balance]:
    row, _ = yield from _pg_row_flow(where, statement, params, resend_for)
    return Balance(
        posted=_pg_int64(where, _pg_column(row, 0)),
        held_in=_pg_int64(where, _pg_column(row, 1)),
        held_out=_pg_int64(where, _pg_column(row, 2)),
    )


EXPIRE_MAX = (1 << 31) - 1
"""The most holds one expire gives back: its SQL function takes max as an
integer, which PostgreSQL keeps in 32 bits."""


def _pg_expire_flow(statement: str, max: int, resend_for: float = 0.0) -> _PgFlow[int]:
    if isinstance(max, bool) or not isinstance(max, int) or max < 0 or max > EXPIRE_MAX:
        raise ChoboError(
            "CHOBO_BAD_ARGUMENT", f"expire: max must be a whole number from 0 to {EXPIRE_MAX}, got {describe(max)}"
        )
    # Made once for the call, so that every sending again of it carries it.
    row, _ = yield from _pg_row_flow("expire", statement, (max, _pg_call_id()), resend_for)
    return _pg_int64("expire", _pg_column(row, 0))


@dataclass(frozen=True)
class PgCallNames:
    """The names of what a call of one transfer kind is given, as the book
    writes them, by which a history row's values are named: every parameter
    (do, hold), the key's, and the amounts a post in part gives."""

    args: tuple[str, ...]
    key: tuple[str, ...]
    amounts: tuple[str, ...]


@dataclass(frozen=True)
class PgHistory:
    """The statements that read a book's history, with %s placeholders, and
    the names of each transfer kind's values."""

    statement: str
    call: str
    open_holds: str
    balance_at: str
    transfers: Mapping[str, PgCallNames]


_PG_OPS: dict[object, EntryOp] = {"do": "do", "hold": "hold", "post": "post", "void": "void", "expire": "expire"}


def _pg_text(where: str, what: str, v: object) -> str:
    if not isinstance(v, str):
        raise ChoboError("CHOBO_UNEXPECTED", f"{where}: {what} of {describe(v)}")
    return v


def _pg_texts(where: str, what: str, v: object) -> tuple[str, ...]:
    """A text[] column, which both drivers hand over as a list."""
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
        raise ChoboError("CHOBO_UNEXPECTED", f"{where}: {what} of {describe(v)}")
    return tuple(_pg_text(where, what, x) for x in v)


def _pg_instant(t: datetime) -> str:
    """A time sent as text, which the statement casts to pg_catalog's
    timestamptz: a driver that writes a datetime into the statement
    itself (psycopg2) writes an unqualified ::timestamptz after it, which
    a type of that name earlier on the caller's path would take."""
    return t.isoformat()


def _pg_time(where: str, v: object) -> datetime:
    """A timestamptz column in UTC: the drivers give it in the session's zone."""
    if not isinstance(v, datetime) or v.tzinfo is None:
        raise ChoboError("CHOBO_UNEXPECTED", f"{where}: a time of {describe(v)}")
    return v.astimezone(timezone.utc)


def _pg_call_args(where: str, names: PgCallNames, op: EntryOp, values: tuple[str, ...]) -> Mapping[str, str]:
    """A call's values named: a do or a hold gives every parameter; a post
    its key, then the amounts when it gives them; a void or an expiry its
    key."""
    if op in ("do", "hold"):
        ns = names.args
    elif op == "post" and len(values) > len(names.key):
        ns = names.key + names.amounts
    else:
        ns = names.key
    if len(ns) != len(values):
        raise ChoboError("CHOBO_UNEXPECTED", f"{where}: a {op} entry with {len(values)} values, for {len(ns)} names")
    return MappingProxyType(dict(zip(ns, values)))


def _pg_entry(where: str, h: PgHistory, row: tuple[object, ...]) -> Entry:
    """An entry from a row of history_statement or history_call, whose
    columns are (cursor, kind, op, key, args, move, out, account,
    account_args, posted, held_in, held_out, after_posted, after_held_in,
    after_held_out, at)."""
    def c(i: int) -> object:
        return _pg_column(row, i)

    kind = _pg_text(where, "a transfer kind", c(1))
    names = h.transfers.get(kind)
    if names is None:
        raise ChoboError("CHOBO_UNEXPECTED", f"{where}: an entry of {describe(kind)}, which is no transfer kind of the book")
    op = _PG_OPS.get(c(2))
    if op is None:
        raise ChoboError("CHOBO_UNEXPECTED", f"{where}: an entry written by {describe(c(2))}")
    move, out = c(5), c(6)
    if isinstance(move, bool) or not isinstance(move, int) or not isinstance(out, bool):
        raise ChoboError("CHOBO_UNEXPECTED", f"{where}: a move of {describe(move)}, {describe(out)}")
    after: Balance | None = None
    if c(12) is not None or c(13) is not None or c(14) is not None:
        after = Balance(_pg_int64(where, c(12)), _pg_int64(where, c(13)), _pg_int64(where, c(14)))
    return Entry(
        transfer=kind,
        op=op,
        key=_pg_texts(where, "a key", c(3)),
        args=_pg_call_args(where, names, op, _pg_texts(where, "the values of a call", c(4))),
        id="",
        move=move,
        out=out,
        account=_pg_text(where, "an account kind", c(7)),
        account_args=_pg_texts(where, "an account's values", c(8)),
        posted=_pg_int64(where, c(9)),
        held_in=_pg_int64(where, c(10)),
        held_out=_pg_int64(where, c(11)),
        after=after,
        at=_pg_time(where, c(15)),
        cursor=str(_pg_int64(where, c(0))),
    )


def _pg_statement_flow(
    where: str, h: PgHistory, params: tuple[object, ...], limit: int, after: str, resend_for: float = 0.0
) -> _PgFlow[Statement]:
    """A statement's page: the statement asks for limit + 1 rows, so that one
    past the page says there is more, and is dropped."""
    rows = yield from _pg_rows_flow(where, h.statement, params, resend_for)
    entries = [_pg_entry(where, h, r) for r in rows]
    more = len(entries) > limit
    del entries[limit:]
    return Statement(tuple(entries), entries[-1].cursor if entries else after, more)


def _pg_entries_flow(where: str, h: PgHistory, params: tuple[object, ...], resend_for: float = 0.0) -> _PgFlow[list[Entry]]:
    rows = yield from _pg_rows_flow(where, h.call, params, resend_for)
    return [_pg_entry(where, h, r) for r in rows]


def _pg_holds_flow(where: str, params: tuple[object, ...], open_holds: str, resend_for: float = 0.0) -> _PgFlow[list[OpenHold]]:
    """The open holds from history_open_holds's rows, one per move, (kind,
    key, move, from_account, from_args, to_account, to_args, amount,
    created, deadline), which come with the moves of a hold together."""
    rows = yield from _pg_rows_flow(where, open_holds, params, resend_for)
    out: list[OpenHold] = []
    for row in rows:
        c = row + (None,) * (10 - len(row))
        kind = _pg_text(where, "a transfer kind", c[0])
        key = _pg_texts(where, "a key", c[1])
        move = c[2]
        if isinstance(move, bool) or not isinstance(move, int):
            raise ChoboError("CHOBO_UNEXPECTED", f"{where}: a move of {describe(move)}")
        m = HoldMove(
            move=move,
            from_=_pg_text(where, "an account kind", c[3]),
            to=_pg_text(where, "an account kind", c[5]),
            from_args=_pg_texts(where, "an account's values", c[4]),
            to_args=_pg_texts(where, "an account's values", c[6]),
            amount=_pg_int64(where, c[7]),
        )
        if out and out[-1].transfer == kind and out[-1].key == key:
            last = out[-1]
            out[-1] = OpenHold(last.transfer, last.key, last.id, (*last.moves, m), last.created, last.deadline)
            continue
        deadline = None if c[9] is None else _pg_time(where, c[9])
        out.append(OpenHold(kind, key, "", (m,), _pg_time(where, c[8]), deadline))
    return out


def _pg_account(where: str, values: Sequence[object]) -> list[str]:
    return [check_text(where, "an account's value", v) for v in values]


def _pg_kinds(where: str, h: PgHistory, kinds: Sequence[str]) -> list[str] | None:
    """The transfer kinds a statement keeps, None for all; a kind the book
    does not have raises, since it could only ever keep nothing."""
    for k in kinds:
        if k not in h.transfers:
            raise ChoboError("CHOBO_BAD_ARGUMENT", f"{where}: the book has no transfer kind {k!r}")
    return list(kinds) if kinds else None


def _pg_now() -> float:
    """The clock a resending's end is read from; the tests replace it."""
    return time.monotonic()


def _pg_pause(seconds: float) -> None:
    """The wait before a retry of PostgresBook; the tests replace it."""
    time.sleep(seconds)


async def _pg_pause_async(seconds: float) -> None:
    """The wait before a retry of AsyncPostgresBook; the tests replace it."""
    await asyncio.sleep(seconds)


def _pg_is_pool(conn: object) -> bool:
    """A pool (psycopg_pool's ConnectionPool or AsyncConnectionPool) lends
    a connection per statement through connection(); a connection has
    cursor()."""
    return callable(getattr(conn, "connection", None)) and not callable(getattr(conn, "cursor", None))


def _pg_check_conn(conn: object, what: str) -> None:
    if not callable(getattr(conn, "cursor", None)) and not _pg_is_pool(conn):
        raise ChoboError(
            "CHOBO_BAD_ARGUMENT",
            f"postgres: the connection must be {what}, with cursor(), or a pool with connection(); got {describe(conn)}",
        )


def _pg_not_sent(err: Exception) -> ChoboError:
    e = ChoboError("CHOBO_NOT_SENT", f"the call was not sent: the pool lent no connection: {err}")
    e.__cause__ = err
    return e


def _pg_check_resend_for(resend_for: object) -> float:
    if isinstance(resend_for, bool) or not isinstance(resend_for, (int, float)) or not resend_for >= 0:
        raise ChoboError("CHOBO_BAD_ARGUMENT", f"postgres: resend_for must be a number of seconds from 0, got {describe(resend_for)}")
    return float(resend_for)


def _pg_unprepared(conn: object) -> dict[str, object]:
    """What execute is given so that the statement goes unnamed. psycopg 3
    prepares a statement once it ran a few times on a connection, under a
    name of that connection's; behind a pooler in transaction mode the
    server connection that runs the next call may hold another client's
    statement of that name, of another function, and run it instead.
    psycopg2 never prepares, and its execute takes no such argument: it is
    told apart by psycopg 3's prepare_threshold."""
    return {"prepare": False} if hasattr(conn, "prepare_threshold") else {}


def _pg_check_open(conn: object) -> None:
    """CHOBO_NOT_SENT for a connection already closed (psycopg's closed is
    a bool, psycopg2's a number, 0 while open): nothing goes."""
    if getattr(conn, "closed", False):
        raise ChoboError("CHOBO_NOT_SENT", "the call was not sent: the connection is closed; open a new one")


# One connection, many callers. A connection carries one statement at a
# time, and psycopg 3 takes its own lock only for each statement, not for
# the whole of a pipeline: a statement another thread sends while a bulk's
# pipeline is open meets it half-way ("another command is already in
# progress"), and the pipeline is left broken. So every book over one
# connection takes the same lock for each statement and each pipeline
# (PostgresBook a threading.Lock, AsyncPostgresBook an asyncio.Lock for
# the tasks of one loop), kept beside the connection for as long as it
# lives. Over a pool each call has a connection of its own, and no lock.

_pg_locks: weakref.WeakKeyDictionary[object, threading.Lock] = weakref.WeakKeyDictionary()
_pg_async_locks: weakref.WeakKeyDictionary[object, asyncio.Lock] = weakref.WeakKeyDictionary()
_pg_locks_guard = threading.Lock()


_PgLockT = TypeVar("_PgLockT")


def _pg_lock_in(locks: weakref.WeakKeyDictionary[object, _PgLockT], conn: object, make: Callable[[], _PgLockT]) -> _PgLockT:
    """The lock in locks of the books over conn, made by make the first
    time. A connection that cannot be referred to weakly gets one for each
    book: its books do not take turns with one another."""
    with _pg_locks_guard:
        try:
            lock = locks.get(conn)
            if lock is None:
                lock = locks[conn] = make()
        except TypeError:
            lock = make()
        return lock


def _pg_lock_of(conn: object) -> threading.Lock:
    """The lock of the blocking books over conn."""
    return _pg_lock_in(_pg_locks, conn, threading.Lock)


def _pg_async_lock_of(conn: object) -> asyncio.Lock:
    """The asyncio lock of the async books over conn."""
    return _pg_lock_in(_pg_async_locks, conn, asyncio.Lock)


async def _pg_out(where: str, sending: Awaitable[_PgT]) -> _PgT:
    """Awaits a statement (or a pipeline) that is being sent. Cancelled
    now, the call may have been applied: psycopg asks the server to cancel
    the statement, but the server may have committed it first, so the
    caller gets ChoboCancelledError, which is CHOBO_OUTCOME_UNKNOWN and a
    CancelledError both. A cancellation before this point (waiting for a
    pool's connection or for the lock) sent nothing and stays plain."""
    try:
        return await sending
    except ChoboCancelledError:
        raise
    except asyncio.CancelledError as e:
        raise ChoboCancelledError(where or "postgres") from e


PIPELINE_MAX = 1000
"""How many calls of a bulk go in one pipeline at most."""

PgAnswer: TypeAlias = "Result | HoldState | None | Exception"
"""What one call of a bulk got: a Result (do, hold, post, void), a hold
state or None (status), or the error the call alone would have raised."""


@dataclass(frozen=True)
class PgCall:
    """One call of a bulk, made by a transfer's *_call method and sent by
    the book's bulk: its statement and parameters (the tenant first), or
    the error that kept the client from making it. An operation's call id
    is not among the parameters: a bulk gives it one each time it takes
    it (_pg_with_id), so that one PgCall passed twice is two calls, never
    one call answered twice."""

    where: str
    statement: str
    params: tuple[object, ...]
    status: bool = False
    error: Exception | None = None


_pg_pipelined = 0


def pipelined() -> int:
    """How many calls, in this process, went in a pipeline together with
    others, so that a test can show a bulk did not go one by one."""
    with _pg_retried_lock:
        return _pg_pipelined


def _pg_count_pipelined(n: int) -> None:
    global _pg_pipelined
    with _pg_retried_lock:
        _pg_pipelined += n


def _pg_with_id(c: PgCall) -> PgCall:
    """The call as a bulk sends it: an operation with a new call id last,
    which its pipeline and any sending of it alone afterwards share; a
    status, or a call the client could not make, as it is."""
    if c.status or c.error is not None:
        return c
    return PgCall(c.where, c.statement, (*c.params, _pg_call_id()), c.status)


def _pg_flow_of(c: PgCall, resend_for: float = 0.0) -> _PgFlow[PgAnswer]:
    if c.status:
        return _pg_status_flow(c.where, c.statement, c.params, resend_for)
    return _pg_call_flow(c.where, c.statement, c.params, resend_for)


def _pg_answer_of(c: PgCall, row: object) -> PgAnswer:
    """The answer a call's flow reads from the row its statement fetched."""
    flow = _pg_flow_of(c)
    try:
        next(flow)
        flow.send(row)
    except StopIteration as stop:
        return cast(PgAnswer, stop.value)
    except Exception as e:
        return e
    finally:
        flow.close()
    return ChoboError("CHOBO_UNEXPECTED", f"{c.where}: the answer needed a second statement")


def _pg_pipelines(conn: object) -> bool:
    """Whether a bulk over conn goes in pipelines: psycopg 3 (which has
    them), in autocommit mode, outside a transaction. Inside the caller's
    transaction the calls go one by one, so that a failure is the caller's
    to handle, as a single call's is; psycopg2 has no pipeline."""
    if getattr(conn, "autocommit", None) is not True or not callable(getattr(conn, "pipeline", None)):
        return False
    status = getattr(getattr(conn, "info", None), "transaction_status", None)
    return status is not None and int(status) == 0


def _pg_chunks(at: list[int]) -> list[list[int]]:
    return [at[i : i + PIPELINE_MAX] for i in range(0, len(at), PIPELINE_MAX)]


def _pg_settle(calls: Sequence[PgCall], part: list[int], got: list[object] | Exception, out: list[PgAnswer]) -> list[int]:
    """Writes into out what the calls at part got from their pipeline, and
    answers those that must go again alone. When the pipeline failed, the
    server undid it whole (psycopg sends no Sync between its statements),
    so all of them go again, unless its connection was lost while it was
    out: it may have committed, so each call is of unknown outcome. A
    connection already closed sent nothing: its calls go alone, to be
    answered CHOBO_NOT_SENT."""
    if isinstance(got, Exception):
        for i in part:
            lost = _pg_lost(calls[i].where, got)
            if lost is None:
                return part
            out[i] = lost
        return []
    for i, row in zip(part, got):
        out[i] = _pg_answer_of(calls[i], row)
    return []


class _PgBase:
    """What both books keep, and the checks every call passes before
    anything is sent."""

    tenant: str

    def __init__(self, conn: object, tenant: str, what: str, resend_for: float | None) -> None:
        _pg_check_conn(conn, what)
        self.tenant = check_text("postgres", "the tenant", tenant)
        resend_for = DEFAULT_RESEND_FOR if resend_for is None else _pg_check_resend_for(resend_for)
        # Over one connection a lost call cannot go again: the connection
        # is closed. Over a pool it goes on another.
        self._resend_for = resend_for if _pg_is_pool(conn) else 0.0

    def _params(self, where: str, values: Sequence[object]) -> tuple[object, ...]:
        """The statement's parameters: the tenant, then the call's values."""
        check_size(where, self.tenant, values)
        return (self.tenant, *values)

    def _call_params(self, where: str, values: Sequence[object]) -> tuple[object, ...]:
        """An operation's parameters: those of _params, then a new call id,
        made once here for the call and every sending of it again."""
        return (*self._params(where, values), _pg_call_id())

    def _statement_params(
        self, where: str, h: PgHistory, account: str, values: Sequence[object], query: object
    ) -> tuple[tuple[object, ...], int, str]:
        """A statement's parameters, the page's size and its after: every
        value is checked here, before anything is sent."""
        q = check_query(where, query)
        limit = page_limit(where, q.limit)
        after = check_decimal_cursor(where, q.after)
        args = _pg_account(where, values)
        kinds = _pg_kinds(where, h, q.transfers)
        check_size(where, self.tenant, [account, *args])
        frm = None if q.from_ is None else _pg_instant(check_time(where, "from_", q.from_))
        to = None if q.to is None else _pg_instant(check_time(where, "to", q.to))
        return (self.tenant, account, args, frm, to, kinds, q.newest, limit + 1, after), limit, q.after

    def _account_params(self, where: str, account: str | None, values: Sequence[object] | None, *rest: object) -> tuple[object, ...]:
        args = None if values is None else _pg_account(where, values)
        check_size(where, self.tenant, [account or "", *(args or [])])
        return (self.tenant, account, args, *rest)

    def make_call(
        self, where: str, statement: str, values: Callable[[], Sequence[object]], status: bool = False
    ) -> PgCall:
        """One call of a bulk: the call's values are checked here, and an
        error of theirs is the call's answer, never raised."""
        try:
            return PgCall(where, statement, self._params(where, values()), status)
        except Exception as e:
            return PgCall(where, statement, (), status, e)


class PostgresBook(_PgBase):
    """Sends the statements of one book, for one tenant, over a DB-API 2
    connection (psycopg 3's Connection or a psycopg2 connection). The book
    opens a cursor per statement and never commits or rolls back: with
    autocommit on, each call is its own transaction, and one the server
    could not serialize is sent again; inside the caller's transaction, its
    writes commit with it, and a failure is raised for the caller to roll
    back (a retry there only meets 25P02, so the first error is raised).

    Every method takes the statement of the operation, with %s placeholders
    of which the first is the tenant, and the call's values without it. An
    operation's statement (do, hold, post, void) has one placeholder more,
    last, and expire's one after max: the call id the book makes for each
    call and sends with every sending of it, so that a call sent again
    after a lost connection or a failure to serialize is answered what its
    first sending was answered."""

    def __init__(self, conn: PgConnection | PgPool, tenant: str = "", resend_for: float | None = None) -> None:
        super().__init__(conn, tenant, "a DB-API 2 connection (psycopg or psycopg2)", resend_for)
        self._conn = conn
        # Shared by every book over the connection, so that threads calling
        # them take turns; a pool lends each call a connection of its own.
        self._lock = _pg_lock_of(conn) if not _pg_is_pool(conn) else None

    def _run(self, flow: _PgFlow[_PgT]) -> _PgT:
        try:
            step = next(flow)
            while True:
                answer: object = None
                error: Exception | None = None
                if isinstance(step, _PgPause):
                    _pg_pause(step.seconds)
                else:
                    try:
                        answer = self._fetch(step)
                    except Exception as e:
                        error = e
                # Thrown in out here, not in the except clause, so that what
                # the flow raises is not chained to the error it replaces.
                step = flow.send(answer) if error is None else flow.throw(error)
        except StopIteration as stop:
            return cast(_PgT, stop.value)
        finally:
            flow.close()

    def _fetch(self, q: _PgQuery) -> object:
        if _pg_is_pool(self._conn):
            # One transaction of a lent connection, committed when the
            # block ends; a commit that fails there is a lost call.
            try:
                lending = cast(PgPool, self._conn).connection()
                conn = lending.__enter__()
            except Exception as e:
                raise _pg_not_sent(e) from None
            try:
                row = self._fetch_on(conn, q)
            except BaseException as e:
                lending.__exit__(type(e), e, e.__traceback__)
                raise
            lending.__exit__(None, None, None)
            return row
        with self._turn():
            return self._fetch_on(cast(PgConnection, self._conn), q)

    def _turn(self) -> AbstractContextManager[object]:
        """The connection's lock, held while one statement or pipeline is out."""
        return self._lock if self._lock is not None else threading.Lock()

    def _fetch_on(self, conn: PgConnection, q: _PgQuery) -> object:
        _pg_check_open(conn)
        cur = conn.cursor()
        # Checked before anything is sent: an async cursor's execute would
        # only make a coroutine, which nothing awaits.
        if inspect.iscoroutinefunction(cur.execute):
            raise ChoboError("CHOBO_BAD_ARGUMENT", "postgres: an async connection needs AsyncPostgresBook")
        try:
            cur.execute(q.statement, q.params, **_pg_unprepared(conn))
            return cur.fetchall() if q.many else cur.fetchone()
        finally:
            cur.close()

    def call(self, where: str, statement: str, values: Sequence[object]) -> Result:
        """Sends an operation (do, hold, post, void), whose row is (outcome, reason)."""
        return self._run(_pg_call_flow(where, statement, self._call_params(where, values), self._resend_for))

    def status(self, where: str, statement: str, values: Sequence[object]) -> HoldState | None:
        """Sends a status statement, whose row holds the state of a hold, None when there is none."""
        return self._run(_pg_status_flow(where, statement, self._params(where, values), self._resend_for))

    def balance(self, where: str, statement: str, values: Sequence[object]) -> Balance:
        """Sends a balance statement, whose row is (posted, held_in, held_out)."""
        return self._run(_pg_balance_flow(where, statement, self._params(where, values), self._resend_for))

    def expire(self, statement: str, max: int) -> int:
        """Sends the book's expire statement, whose parameters are max (no
        tenant: it gives back holds of every tenant) and the call id, and
        answers how many holds past their deadline it gave back."""
        return self._run(_pg_expire_flow(statement, max, self._resend_for))

    def statement(self, where: str, h: PgHistory, account: str, values: Sequence[object], query: object) -> Statement:
        """Reads a page of an account's statement: values name the account,
        query (a StatementQuery, or None for the default) says which
        entries; a bad query raises before anything is sent."""
        params, limit, after = self._statement_params(where, h, account, values, query)
        return self._run(_pg_statement_flow(where, h, params, limit, after, self._resend_for))

    def entries(self, where: str, h: PgHistory, kind: str, key: Sequence[object]) -> list[Entry]:
        """Reads the entries of the calls of one key of a transfer kind, oldest first."""
        values = [check_text(where, "a key value", v) for v in key]
        check_size(where, self.tenant, [kind, *values])
        params = (self.tenant, kind, values)
        return self._run(_pg_entries_flow(where, h, params, self._resend_for))

    def open_holds(
        self, where: str, h: PgHistory, account: str | None, values: Sequence[object] | None, kind: str | None
    ) -> list[OpenHold]:
        """Reads the holds still open, of an account or of any (None), of a
        transfer kind or of any (None), the oldest first."""
        return self._run(_pg_holds_flow(where, self._account_params(where, account, values, kind), h.open_holds, self._resend_for))

    def balance_at(self, where: str, h: PgHistory, account: str, values: Sequence[object], at: object) -> Balance:
        """Reads what an account held at a time, an aware datetime."""
        t = _pg_instant(check_time(where, "the time", at))
        return self._run(_pg_balance_flow(where, h.balance_at, self._account_params(where, account, values, t), self._resend_for))

    def _one(self, c: PgCall) -> PgAnswer:
        try:
            return self._run(_pg_flow_of(c, self._resend_for))
        except Exception as e:
            return e

    def bulk(self, calls: Sequence[PgCall]) -> list[PgAnswer]:
        """Sends many calls and answers each, in order, as it would be
        answered alone. Over psycopg 3 in autocommit mode the calls go in
        one pipeline (PIPELINE_MAX calls at most), which the server runs as
        one transaction: when every call succeeds they commit together,
        each answered from its row; when one fails, the server undoes them
        all, and they go again one by one, each its own transaction, with
        the retries and errors of a single call. Elsewhere (psycopg2, a
        pool, the caller's transaction) they go one by one. Each operation
        goes with a call id the bulk makes for it, and keeps it when it
        goes again alone."""
        out: list[PgAnswer] = [c.error for c in calls]
        calls = [_pg_with_id(c) for c in calls]
        send = [i for i, c in enumerate(calls) if c.error is None]
        alone = send
        if len(send) > 1 and _pg_pipelines(self._conn):
            alone = []
            for part in _pg_chunks(send):
                with self._turn():
                    got = self._pipeline([calls[i] for i in part])
                alone += _pg_settle(calls, part, got, out)
        for i in alone:
            out[i] = self._one(calls[i])
        return out

    def _pipeline(self, calls: list[PgCall]) -> list[object] | Exception:
        """Sends calls in one pipeline and answers the row each fetched, or
        the error that ended it (_pg_settle says what that means)."""
        conn = cast(Any, self._conn)
        curs: list[Any] = []
        try:
            _pg_check_open(conn)
            _pg_count_pipelined(len(calls))
            with conn.pipeline():
                for c in calls:
                    cur = conn.cursor()
                    curs.append(cur)
                    # Not prepared: a statement prepared in a pipeline that
                    # fails is not there afterwards, though psycopg counts it.
                    cur.execute(c.statement, c.params, prepare=False)
            return [cur.fetchone() for cur in curs]
        except Exception as e:
            return e
        finally:
            for cur in curs:
                try:
                    cur.close()
                except Exception:
                    pass


class AsyncPostgresBook(_PgBase):
    """PostgresBook over psycopg 3's AsyncConnection: the same calls, awaited."""

    def __init__(self, conn: AsyncPgConnection | AsyncPgPool, tenant: str = "", resend_for: float | None = None) -> None:
        super().__init__(conn, tenant, "psycopg's AsyncConnection", resend_for)
        self._conn = conn
        # Shared by every async book over the connection: its tasks take
        # turns, as PostgresBook's threads do.
        self._lock = _pg_async_lock_of(conn) if not _pg_is_pool(conn) else None

    async def _run(self, flow: _PgFlow[_PgT]) -> _PgT:
        try:
            step = next(flow)
            while True:
                answer: object = None
                error: Exception | None = None
                if isinstance(step, _PgPause):
                    await _pg_pause_async(step.seconds)
                else:
                    try:
                        answer = await self._fetch(step)
                    except asyncio.CancelledError:
                        # Never sent again: a cancelled call ends here,
                        # plain or of unknown outcome (_pg_out).
                        raise
                    except Exception as e:
                        error = e
                # Thrown in out here, not in the except clause, so that what
                # the flow raises is not chained to the error it replaces.
                step = flow.send(answer) if error is None else flow.throw(error)
        except StopIteration as stop:
            return cast(_PgT, stop.value)
        finally:
            flow.close()

    async def _fetch(self, q: _PgQuery) -> object:
        if _pg_is_pool(self._conn):
            try:
                lending = cast(AsyncPgPool, self._conn).connection()
                conn = await lending.__aenter__()
            except Exception as e:
                raise _pg_not_sent(e) from None
            try:
                row = await _pg_out(q.where, self._fetch_on(conn, q))
            except BaseException as e:
                await lending.__aexit__(type(e), e, e.__traceback__)
                raise
            await lending.__aexit__(None, None, None)
            return row
        async with self._turn():
            return await _pg_out(q.where, self._fetch_on(cast(AsyncPgConnection, self._conn), q))

    def _turn(self) -> AbstractAsyncContextManager[object]:
        """The connection's asyncio lock, held while one statement or
        pipeline is out; waiting for it sends nothing, so a cancellation
        there is plain."""
        return self._lock if self._lock is not None else asyncio.Lock()

    async def _fetch_on(self, conn: AsyncPgConnection, q: _PgQuery) -> object:
        _pg_check_open(conn)
        cur = conn.cursor()
        # Checked before anything is sent: a blocking cursor's execute would
        # run the statement, and only then fail to be awaited.
        if not inspect.iscoroutinefunction(cur.execute):
            raise ChoboError("CHOBO_BAD_ARGUMENT", "postgres: a connection that is not async needs PostgresBook")
        try:
            await cur.execute(q.statement, q.params, **_pg_unprepared(conn))
            return await cur.fetchall() if q.many else await cur.fetchone()
        finally:
            await cur.close()

    async def call(self, where: str, statement: str, values: Sequence[object]) -> Result:
        """Sends an operation (do, hold, post, void), whose row is (outcome, reason)."""
        return await self._run(_pg_call_flow(where, statement, self._call_params(where, values), self._resend_for))

    async def status(self, where: str, statement: str, values: Sequence[object]) -> HoldState | None:
        """Sends a status statement, whose row holds the state of a hold, None when there is none."""
        return await self._run(_pg_status_flow(where, statement, self._params(where, values), self._resend_for))

    async def balance(self, where: str, statement: str, values: Sequence[object]) -> Balance:
        """Sends a balance statement, whose row is (posted, held_in, held_out)."""
        return await self._run(_pg_balance_flow(where, statement, self._params(where, values), self._resend_for))

    async def expire(self, statement: str, max: int) -> int:
        """Sends the book's expire statement, whose parameters are max and
        the call id, and answers how many holds past their deadline it gave
        back."""
        return await self._run(_pg_expire_flow(statement, max, self._resend_for))

    async def statement(self, where: str, h: PgHistory, account: str, values: Sequence[object], query: object) -> Statement:
        """Reads a page of an account's statement: values name the account,
        query (a StatementQuery, or None for the default) says which
        entries; a bad query raises before anything is sent."""
        params, limit, after = self._statement_params(where, h, account, values, query)
        return await self._run(_pg_statement_flow(where, h, params, limit, after, self._resend_for))

    async def entries(self, where: str, h: PgHistory, kind: str, key: Sequence[object]) -> list[Entry]:
        """Reads the entries of the calls of one key of a transfer kind, oldest first."""
        values = [check_text(where, "a key value", v) for v in key]
        check_size(where, self.tenant, [kind, *values])
        params = (self.tenant, kind, values)
        return await self._run(_pg_entries_flow(where, h, params, self._resend_for))

    async def open_holds(
        self, where: str, h: PgHistory, account: str | None, values: Sequence[object] | None, kind: str | None
    ) -> list[OpenHold]:
        """Reads the holds still open, of an account or of any (None), of a
        transfer kind or of any (None), the oldest first."""
        return await self._run(_pg_holds_flow(where, self._account_params(where, account, values, kind), h.open_holds, self._resend_for))

    async def balance_at(self, where: str, h: PgHistory, account: str, values: Sequence[object], at: object) -> Balance:
        """Reads what an account held at a time, an aware datetime."""
        t = _pg_instant(check_time(where, "the time", at))
        return await self._run(_pg_balance_flow(where, h.balance_at, self._account_params(where, account, values, t), self._resend_for))

    async def _one(self, c: PgCall) -> PgAnswer:
        try:
            return await self._run(_pg_flow_of(c, self._resend_for))
        except asyncio.CancelledError:
            raise  # the bulk's, not the call's answer
        except Exception as e:
            return e

    async def bulk(self, calls: Sequence[PgCall]) -> list[PgAnswer]:
        """PostgresBook.bulk, awaited."""
        out: list[PgAnswer] = [c.error for c in calls]
        calls = [_pg_with_id(c) for c in calls]
        send = [i for i, c in enumerate(calls) if c.error is None]
        alone = send
        if len(send) > 1 and _pg_pipelines(self._conn):
            alone = []
            for part in _pg_chunks(send):
                async with self._turn():
                    got = await _pg_out("bulk", self._pipeline([calls[i] for i in part]))
                alone += _pg_settle(calls, part, got, out)
        for i in alone:
            out[i] = await self._one(calls[i])
        return out

    async def _pipeline(self, calls: list[PgCall]) -> list[object] | Exception:
        """PostgresBook._pipeline over an AsyncConnection."""
        conn = cast(Any, self._conn)
        curs: list[Any] = []
        try:
            _pg_check_open(conn)
            _pg_count_pipelined(len(calls))
            async with conn.pipeline():
                for c in calls:
                    cur = conn.cursor()
                    curs.append(cur)
                    # Not prepared: a statement prepared in a pipeline that
                    # fails is not there afterwards, though psycopg counts it.
                    await cur.execute(c.statement, c.params, prepare=False)
            return [await cur.fetchone() for cur in curs]
        except Exception as e:
            return e
        finally:
            for cur in curs:
                try:
                    await cur.close()
                except Exception:
                    pass
