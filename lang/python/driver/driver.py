"""chobo's Python driver: it serves the driver protocol (docs/formats.md,
"Driver protocol") on stdin and stdout, so that the conformance runner
drives a generated Python client the way it drives one in any other
language.

    python driver.py [--mode alternate|sync|async] <book>.py

<book>.py is the generated client. Everything else comes in the open
request: the target, what `chobo api` says of it ("names": the driver reads
no book and calls the members those names give), and where the backend is.
A "tigerbeetle" address means a TigerBeetle client, reached with the
official tigerbeetle package; a "dsn" a PostgreSQL one, reached with
psycopg 3, or with psycopg2 for the sync book when CHOBO_DRIVER_PSYCOPG2=1.

Every client has a sync book and an asyncio one. --mode alternate (the
default) sends requests with an even id through the sync book, on a worker
thread, and the others through the async one, so that every scenario runs
through both at once and on the same data; sync and async use one of them
only.

With "hold_seconds", every hold that expires is sent with a timeout of that
many seconds instead of the book's. With CHOBO_DRIVER_RECORD set to a file,
every request the client hands to psycopg or to the TigerBeetle client is
appended to that file as one JSON line before it is sent, so that a test
can hold what the client sends to what `chobo run --show` prints.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextvars
import dataclasses
import datetime
import importlib.util
import json
import os
import re
import secrets
import sys
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

MAX_CONNS = 8
"""The most connections of each of the driver's pools: more calls at once wait their turn."""

_AMOUNT = re.compile(r"-?[0-9]+")
_ID_FIELDS = ("id", "debit_account_id", "credit_account_id", "pending_id", "user_data_128")


class _Recorder:
    """Writes what a client sends, one JSON line each, into the file CHOBO_DRIVER_RECORD names."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lock = threading.Lock()

    def write(self, line: dict[str, Any]) -> None:
        data = json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self.lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(data)


def _hex(v: int) -> str:
    return format(v, "032x")


_BIG_FIELDS = ("amount", "user_data_64", "timestamp", "debits_pending", "debits_posted", "credits_pending",
               "credits_posted")
# Set while the driver runs an expire: its one argument is a count, not an amount.
_counting: contextvars.ContextVar[bool] = contextvars.ContextVar("counting", default=False)


def _records(batch: list[Any]) -> list[dict[str, Any]]:
    """The records of a request as the other drivers write them: ids in 32
    hex digits, 64- and 128-bit numbers as decimal strings."""
    out = []
    for r in batch:
        d: dict[str, Any] = {}
        for f in dataclasses.fields(r):
            k, v = f.name, getattr(r, f.name)
            if k in _ID_FIELDS:
                d[k] = _hex(int(v))
            elif k in _BIG_FIELDS:
                d[k] = str(int(v))
            else:
                d[k] = int(v)
        out.append(d)
    return out


def _sql_args(params: Any) -> list[Any]:
    if _counting.get():
        return list(params)
    return [{"amount": str(v)} if isinstance(v, int) and not isinstance(v, bool) else v for v in params]


def _dollars(sql: str) -> str:
    """The statement as PostgreSQL gets it: psycopg 3 sends %s as $1, $2 ...
    and %% as %; the statements chobo writes hold no other % form."""
    n = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal n
        if m.group(0) == "%%":
            return "%"
        n += 1
        return f"${n}"

    return re.sub(r"%%|%s", repl, sql)


class _RecordedCursor:
    def __init__(self, cur: Any, rec: _Recorder, tenant: str) -> None:
        self._cur, self._rec, self._tenant = cur, rec, tenant

    def execute(self, sql: str, params: Any = None, **kw: Any) -> Any:
        self._rec.write({"tenant": self._tenant, "sql": _dollars(sql), "args": _sql_args(params or [])})
        return self._cur.execute(sql, params, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cur, name)

    def __enter__(self) -> _RecordedCursor:
        self._cur.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._cur.__exit__(*exc)


class _RecordedAsyncCursor(_RecordedCursor):
    async def execute(self, sql: str, params: Any = None, **kw: Any) -> Any:  # type: ignore[override]
        self._rec.write({"tenant": self._tenant, "sql": _dollars(sql), "args": _sql_args(params or [])})
        return await self._cur.execute(sql, params, **kw)

    async def __aenter__(self) -> _RecordedAsyncCursor:
        await self._cur.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._cur.__aexit__(*exc)


class _RecordedConnection:
    """A connection that writes down each statement before its cursor sends it."""

    def __init__(self, conn: Any, rec: _Recorder, tenant: str, is_async: bool) -> None:
        self._conn, self._rec, self._tenant, self._async = conn, rec, tenant, is_async

    def cursor(self, *a: Any, **kw: Any) -> Any:
        cur = self._conn.cursor(*a, **kw)
        if self._async:
            return _RecordedAsyncCursor(cur, self._rec, self._tenant)
        return _RecordedCursor(cur, self._rec, self._tenant)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


class _TBClient:
    """Hands requests to the official client, writing each down first when
    recording, and cutting the timeout of every hold that expires to
    hold_seconds when that is set. The tigerbeetle package's classes are
    what the client is typed with, so this wraps one rather than stands in
    for it; the generated client only calls these six methods."""

    def __init__(self, client: Any, rec: _Recorder | None, tenant: str, hold_seconds: int) -> None:
        self._c, self._rec, self._tenant, self._hold = client, rec, tenant, hold_seconds

    def _note(self, op: str, key: str, value: Callable[[], Any]) -> None:
        if self._rec is not None:
            self._rec.write({"tenant": self._tenant, "op": op, key: value()})

    def _shorten(self, batch: list[Any]) -> list[Any]:
        if self._hold <= 0:
            return batch
        return [
            dataclasses.replace(t, timeout=self._hold) if (int(t.flags) & 2) != 0 and t.timeout > 0 else t
            for t in batch
        ]

    def create_accounts(self, batch: list[Any]) -> Any:
        self._note("create_accounts", "accounts", lambda: _records(batch))
        return self._c.create_accounts(batch)

    def create_transfers(self, batch: list[Any]) -> Any:
        self._note("create_transfers", "transfers", lambda: _records(batch))
        return self._c.create_transfers(self._shorten(batch))

    def lookup_accounts(self, ids: list[int]) -> Any:
        self._note("lookup_accounts", "ids", lambda: [_hex(i) for i in ids])
        return self._c.lookup_accounts(ids)

    def lookup_transfers(self, ids: list[int]) -> Any:
        self._note("lookup_transfers", "ids", lambda: [_hex(i) for i in ids])
        return self._c.lookup_transfers(ids)

    def get_account_transfers(self, f: Any) -> Any:
        return self._c.get_account_transfers(f)

    def query_transfers(self, f: Any) -> Any:
        return self._c.query_transfers(f)


class _AsyncTBClient(_TBClient):
    """The same over the official ClientAsync: the book tells the two kinds
    of client apart by whether their methods are coroutine functions."""

    async def create_accounts(self, batch: list[Any]) -> Any:
        return await super().create_accounts(batch)

    async def create_transfers(self, batch: list[Any]) -> Any:
        return await super().create_transfers(batch)

    async def lookup_accounts(self, ids: list[int]) -> Any:
        return await super().lookup_accounts(ids)

    async def lookup_transfers(self, ids: list[int]) -> Any:
        return await super().lookup_transfers(ids)

    async def get_account_transfers(self, f: Any) -> Any:
        return await super().get_account_transfers(f)

    async def query_transfers(self, f: Any) -> Any:
        return await super().query_transfers(f)


@dataclass
class _Pool:
    """Connections made as calls need them, up to MAX_CONNS; a call waits for a free one."""

    make: Callable[[], Awaitable[Any]]
    free: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    made: list[Any] = field(default_factory=list)

    async def take(self) -> Any:
        if self.free.empty() and len(self.made) < MAX_CONNS:
            return await self._new()
        c = await self.free.get()
        if c is not None:
            return c
        try:
            return await self._new()
        except BaseException:
            self.free.put_nowait(None)  # the place stays for the next call
            raise

    async def _new(self) -> Any:
        # The driver connects as an application does before it calls the
        # client: a connection that cannot be made means the call never
        # reached the client, which the caller may send again as it is.
        try:
            c = await self.make()
        except Exception as e:
            raise ConnectionError(f"the call was not sent: the driver reached no server: {e}") from e
        self.made.append(c)
        return c

    def give(self, c: Any) -> None:
        # A connection the server or the network closed is dropped, as an
        # application's pool drops it, and its place (None) goes to the
        # next call, which makes a new one.
        if c is not None and getattr(c, "closed", False):
            self.made.remove(c)
            c = None
        self.free.put_nowait(c)


class Driver:
    def __init__(self, module: ModuleType, mode: str) -> None:
        self.module = module
        self.mode = mode
        self.names: dict[str, Any] = {}
        self.open_ = False
        self.rec = _Recorder(os.environ["CHOBO_DRIVER_RECORD"]) if os.environ.get("CHOBO_DRIVER_RECORD") else None
        self.books: dict[tuple[bool, str, int], Any] = {}
        self.tb_sync: Any = None
        self.tb_async: Any = None
        self.pools: dict[bool, _Pool] = {}
        self.hold_seconds = 0
        self.timeout_ms = 0
        self.request_events = 0
        self.tb_address = ""

    # open

    async def open(self, req: dict[str, Any]) -> dict[str, Any]:
        if self.open_:
            raise ValueError("open: already open")
        names = req.get("names")
        if not req.get("target") or not isinstance(names, dict):
            raise ValueError('open: no "target" and "names"')
        hold = req.get("hold_seconds", 0)
        if not isinstance(hold, int) or isinstance(hold, bool) or hold < 0:
            raise ValueError(f'open: "hold_seconds" {hold!r} is not a number of seconds')
        self.hold_seconds = hold
        timeout = req.get("timeout_ms", 0)
        if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 0:
            raise ValueError(f'open: "timeout_ms" {timeout!r} is not a number of milliseconds')
        self.timeout_ms = timeout
        events = req.get("request_events", 0)
        if isinstance(events, bool) or not isinstance(events, int) or events < 0:
            raise ValueError(f'open: "request_events" {events!r} is not a number of events')
        self.request_events = events
        self.names = names
        for c in map(self._constructor, self._modes()):
            if not callable(getattr(self.module, c, None)):
                raise ValueError(f"open: the client has no function {c}")
        if req.get("tigerbeetle"):
            import tigerbeetle as tb

            addr = str(req["tigerbeetle"])
            self.tb_address = addr
            if self.mode != "async":
                self.tb_sync = tb.ClientSync(cluster_id=0, replica_addresses=addr)
            if self.mode != "sync":
                self.tb_async = tb.ClientAsync(cluster_id=0, replica_addresses=addr)
        else:
            dsn = str(req.get("dsn", ""))
            self.pools[False] = _Pool(lambda: asyncio.to_thread(self._connect_sync, dsn))
            self.pools[True] = _Pool(lambda: self._connect_async(dsn))
            # Reached once now, so that a wrong dsn fails the open.
            for is_async in self._modes():
                pool = self.pools[is_async]
                c = await pool.make()
                pool.made.append(c)
                pool.give(c)
        self.open_ = True
        for is_async in self._modes():
            await self._with_book(is_async, "", self._fits)
        return {"id": req["id"], "ok": True, "client": req["target"]}

    def _modes(self) -> list[bool]:
        return {"sync": [False], "async": [True]}.get(self.mode, [False, True])

    def _constructor(self, is_async: bool) -> str:
        """The name of the client's function that makes the book."""
        return str(self.names["async_constructor"] if is_async else self.names["constructor"])

    @staticmethod
    def _connect_sync(dsn: str) -> Any:
        # psycopg and psycopg2 both read a libpq connection string as it is.
        if os.environ.get("CHOBO_DRIVER_PSYCOPG2") == "1":
            import psycopg2

            c = psycopg2.connect(dsn)
            c.autocommit = True
            return c
        import psycopg

        return psycopg.connect(dsn, autocommit=True)

    @staticmethod
    async def _connect_async(dsn: str) -> Any:
        import psycopg

        return await psycopg.AsyncConnection.connect(dsn, autocommit=True)

    def _fits(self, book: Any) -> None:
        """Fails the open when the client lacks a member the names call for: a driver of another book."""
        for t in self.names["transfers"]:
            m = getattr(book, t["member"], None)
            for op in t["methods"]:
                if m is None or not callable(getattr(m, op, None)):
                    raise ValueError(f"open: the client has no {t['member']}.{op}")
        balance = self.names["balance"]
        for a in self.names["accounts"]:
            if not callable(getattr(getattr(book, balance, None), a["member"], None)):
                raise ValueError(f"open: the client has no {balance}.{a['member']}")

    # books

    def _book(self, is_async: bool, tenant: str, conn: Any) -> Any:
        key = (is_async, tenant, id(conn))
        b = self.books.get(key)
        if b is None:
            make = getattr(self.module, self._constructor(is_async))
            if conn is None:
                wrap = _AsyncTBClient if is_async else _TBClient
                c: Any = wrap(self.tb_async if is_async else self.tb_sync, self.rec, tenant, self.hold_seconds)
            elif self.rec is not None:
                c = _RecordedConnection(conn, self.rec, tenant, is_async)
            else:
                c = conn
            options: dict[str, int] = {}
            if conn is None:  # a TigerBeetle book's settings, where open gave them
                options = {k: v for k, v in (("timeout_ms", self.timeout_ms), ("request_events", self.request_events)) if v}
            b = make(c, tenant, **options)
            self.books[key] = b
        return b

    async def _with_book(self, is_async: bool, tenant: str, use: Callable[[Any], Any]) -> Any:
        """Runs use(book) on a book of the tenant: the async book on this
        loop (use answers an awaitable), the sync one on a worker thread."""
        pool = self.pools.get(is_async)
        conn = await pool.take() if pool is not None else None
        try:
            book = self._book(is_async, tenant, conn)
            if is_async:
                r = use(book)
                return await r if asyncio.iscoroutine(r) else r
            return await asyncio.to_thread(use, book)
        finally:
            if pool is not None:
                pool.give(conn)

    # requests

    async def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        op = req.get("op")
        is_async = {"sync": False, "async": True}.get(self.mode, req["id"] % 2 == 1)
        if op == "call":
            return await self._call(req, is_async)
        if op == "balance":
            return await self._balance(req, is_async)
        if op == "bulk":
            return await self._bulk(req, is_async)
        if op == "statement":
            return await self._statement(req, is_async)
        if op == "entries":
            return await self._entries(req, is_async)
        if op == "holds":
            return await self._holds(req, is_async)
        if op == "balance_at":
            return await self._balance_at(req, is_async)
        if op == "bench":
            return await self._bench(req, {"sync": False, "async": True}.get(req.get("flavor", ""), is_async))
        if op == "expire":
            expire = self.names.get("expire", "")
            if not expire:
                return {"expired": 0}
            mx = req.get("max", 1000)
            _counting.set(True)  # this task's own context, copied into a worker thread
            n = await self._with_book(is_async, "", lambda b: getattr(b, expire)(mx))
            return {"expired": n}
        raise ValueError(f"unknown op {json.dumps(op)}")

    def _resolve(self, req: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
        """The member of the transfer a call names, its operation and its keyword arguments."""
        t = next((x for x in self.names["transfers"] if x["transfer"] == req.get("transfer")), None)
        if t is None:
            raise ValueError(f"the book has no transfer {json.dumps(req.get('transfer'))}")
        op = req.get("operation", "")
        if op not in t["methods"]:
            raise ValueError(f"{t['transfer']} has no operation {json.dumps(op)}")
        args = req.get("args") or {}
        fields = t["args"] if op in ("do", "hold") else t["key"]
        amounts = (t.get("amounts") or []) if op == "post" else []
        _only_known(args, fields + amounts)
        return t["member"], op, _values(fields + amounts, args)

    async def _bench(self, req: dict[str, Any], is_async: bool) -> dict[str, Any]:
        """Times req["times"] calls, one after another, each its own key:
        through the client, or with req["sql"] through psycopg alone, on
        one connection. Every call's values are made before the clock
        starts; a sync bench runs whole on a worker thread."""
        times, key, given = req.get("times", 0), req.get("key_param", ""), req.get("args") or {}
        if not isinstance(times, int) or times < 1:
            raise ValueError(f"bench: times {times!r}")
        if req.get("raw"):
            return await self._bench_raw(times, is_async)
        if key not in given:
            raise ValueError(f"bench: no value of the key parameter {key!r}")
        tenant = req.get("tenant", "")
        # the statement numbers its values as PostgreSQL does; psycopg takes
        # %s for each, in order (chobo's statements have no % of their own)
        sql = re.sub(r"\$[0-9]+", "%s", req.get("sql", "").replace("%", "%%"))
        calls = [{**given, key: f"{given[key]}-{i}"} for i in range(times)]
        pool = self.pools.get(is_async)
        if pool is None:
            return await self._bench_tb(req, calls, is_async)
        conn = await pool.take()
        try:
            if sql:
                t = next((x for x in self.names["transfers"] if x["transfer"] == req.get("transfer")), None)
                if t is None:
                    raise ValueError(f"the book has no transfer {json.dumps(req.get('transfer'))}")
                kinds = {f["param"]: f["type"] for f in t["args"]}
                rows = [[tenant, *[int(a[p]) if kinds.get(p) == "int" else a[p] for p in req.get("params", [])], str(uuid.uuid4())]
                        for a in calls]
                # unnamed, as the client sends it, or prepared at once (psycopg 3
                # alone prepares; psycopg2 takes no such argument)
                how: dict[str, Any] = {"prepare": bool(req.get("prepared"))} if hasattr(conn, "prepare_threshold") else {}

                def raw_sync() -> int:
                    start = time.perf_counter_ns()
                    for r in rows:
                        cur = conn.cursor()
                        cur.execute(sql, r, **how)
                        got = cur.fetchone()
                        if got is None or got[0] != "done":
                            raise ValueError(f"bench: the statement answered {got!r}")
                    return time.perf_counter_ns() - start

                async def raw_async() -> int:
                    start = time.perf_counter_ns()
                    for r in rows:
                        cur = await conn.execute(sql, r, **how)
                        got = await cur.fetchone()
                        if got is None or got[0] != "done":
                            raise ValueError(f"bench: the statement answered {got!r}")
                    return time.perf_counter_ns() - start

                return {"nanos": await raw_async() if is_async else await asyncio.to_thread(raw_sync)}
            resolved = [self._resolve({**req, "args": a}) for a in calls]
            book = self._book(is_async, tenant, conn)
            return await self._time_calls([(getattr(getattr(book, member), op), kw) for member, op, kw in resolved], is_async)
        finally:
            pool.give(conn)

    def _tb_client(self, is_async: bool) -> Any:
        """The driver's TigerBeetle client of the sync or async kind, made
        now for a bench that asks for the kind its mode did not make."""
        import tigerbeetle as tb

        if not self.tb_address:
            raise ValueError("bench: no TigerBeetle to reach")
        if is_async and self.tb_async is None:
            self.tb_async = tb.ClientAsync(cluster_id=0, replica_addresses=self.tb_address)
        if not is_async and self.tb_sync is None:
            self.tb_sync = tb.ClientSync(cluster_id=0, replica_addresses=self.tb_address)
        return self.tb_async if is_async else self.tb_sync

    async def _bench_tb(self, req: dict[str, Any], calls: list[dict[str, str]], is_async: bool) -> dict[str, Any]:
        """The bench of a TigerBeetle client: the calls through its book."""
        self._tb_client(is_async)
        resolved = [self._resolve({**req, "args": a}) for a in calls]
        book = self._book(is_async, req.get("tenant", ""), None)
        return await self._time_calls([(getattr(getattr(book, member), op), kw) for member, op, kw in resolved], is_async)

    @staticmethod
    async def _time_calls(methods: list[tuple[Any, dict[str, Any]]], is_async: bool) -> dict[str, Any]:
        """Times the calls, one after another: on this loop, or whole on a
        worker thread for a sync book. Each must be done."""

        def client_sync() -> int:
            start = time.perf_counter_ns()
            for m, kw in methods:
                res = m(**kw)
                if res.result != "done":
                    raise ValueError(f"bench: the client answered {res.result} {res.reason}")
            return time.perf_counter_ns() - start

        async def client_async() -> int:
            start = time.perf_counter_ns()
            for m, kw in methods:
                res = await m(**kw)
                if res.result != "done":
                    raise ValueError(f"bench: the client answered {res.result} {res.reason}")
            return time.perf_counter_ns() - start

        return {"nanos": await client_async() if is_async else await asyncio.to_thread(client_sync)}

    async def _bench_raw(self, times: int, is_async: bool) -> dict[str, Any]:
        """Sends times requests of one transfer each through the tigerbeetle
        package itself, between two accounts it makes first."""
        import tigerbeetle as tb

        client = self._tb_client(is_async)
        # Random ids, as a client's hashed ids are: the replica files ids
        # made in time order (tb.id()) faster, which would favour the raw
        # requests over the client's.
        def random_id() -> int:
            return secrets.randbits(128) % (2**128 - 2) + 1

        a, b = random_id(), random_id()
        accounts = [tb.Account(id=i, ledger=1, code=1) for i in (a, b)]
        transfers = [tb.Transfer(id=random_id(), debit_account_id=a, credit_account_id=b, amount=1, ledger=1, code=1) for _ in range(times)]
        created = tb.CreateTransferStatus.CREATED

        def made(results: Any) -> None:
            if any(r.status != tb.CreateAccountStatus.CREATED for r in results):
                raise ValueError(f"bench: the accounts: {results!r}")

        def check(results: Any) -> None:
            if len(results) != 1 or results[0].status != created:
                raise ValueError(f"bench: a transfer: {results!r}")

        if is_async:
            made(await client.create_accounts(accounts))
            start = time.perf_counter_ns()
            for t in transfers:
                check(await client.create_transfers([t]))
            return {"nanos": time.perf_counter_ns() - start}

        def run() -> int:
            made(client.create_accounts(accounts))
            start = time.perf_counter_ns()
            for t in transfers:
                check(client.create_transfers([t]))
            return time.perf_counter_ns() - start

        return {"nanos": await asyncio.to_thread(run)}

    async def _call(self, req: dict[str, Any], is_async: bool) -> dict[str, Any]:
        member, op, kw = self._resolve(req)
        res = await self._with_book(is_async, req.get("tenant", ""), lambda b: getattr(getattr(b, member), op)(**kw))
        return _answer(op, res)

    async def _bulk(self, req: dict[str, Any], is_async: bool) -> dict[str, Any]:
        """Makes every call of the request with the *_call twins of the
        methods and sends them in one bulk of the book. A call the driver
        cannot make is answered with its error and left out."""
        bulk, suffix = self.names.get("bulk", ""), self.names.get("call_suffix", "")
        if not bulk or not suffix:
            raise ValueError("the client has no bulk call")
        calls = req.get("calls") or []
        answers: list[dict[str, Any]] = [{} for _ in calls]
        made: list[tuple[int, str, str, dict[str, Any]]] = []
        for i, c in enumerate(calls):
            try:
                member, op, kw = self._resolve(c)
            except Exception as e:
                answers[i] = {"error": str(e) or type(e).__name__}
                continue
            made.append((i, member, op, kw))

        def make(b: Any) -> tuple[list[Any], list[Any]]:
            ok, failed = [], []
            for i, member, op, kw in made:
                try:
                    ok.append((i, op, getattr(getattr(b, member), op + suffix)(**kw)))
                except Exception as e:  # a keyword missing or of the wrong type, as a call would raise
                    failed.append((i, e))
            return ok, failed

        def use_sync(b: Any) -> list[tuple[int, str, Any]]:
            ok, failed = make(b)
            res = getattr(b, bulk)([c for _, _, c in ok]) if ok else []
            return [(i, op, r) for (i, op, _), r in zip(ok, res)] + [(i, "", e) for i, e in failed]

        async def use_async(b: Any) -> list[tuple[int, str, Any]]:
            ok, failed = make(b)
            res = await getattr(b, bulk)([c for _, _, c in ok]) if ok else []
            return [(i, op, r) for (i, op, _), r in zip(ok, res)] + [(i, "", e) for i, e in failed]

        if made:
            got = await self._with_book(is_async, req.get("tenant", ""), use_async if is_async else use_sync)
            for i, op, r in got:
                answers[i] = _answer(op, r)
        return {"answers": answers}

    def _account(self, req: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The member of the account a request names, and its keyword arguments."""
        a = next((x for x in self.names["accounts"] if x["account"] == req.get("account")), None)
        if a is None:
            raise ValueError(f"the book has no account {json.dumps(req.get('account'))}")
        args = req.get("args") or {}
        _only_known(args, a["args"])
        return a["member"], _values(a["args"], args)

    def _transfer(self, name: object) -> dict[str, Any]:
        t = next((x for x in self.names["transfers"] if x["transfer"] == name), None)
        if t is None:
            raise ValueError(f"the book has no transfer {json.dumps(name)}")
        out: dict[str, Any] = t
        return out

    async def _read(self, req: dict[str, Any], is_async: bool, read: Callable[[Any], Any]) -> Any:
        return await self._with_book(is_async, req.get("tenant", ""), read)

    async def _statement(self, req: dict[str, Any], is_async: bool) -> dict[str, Any]:
        member, kw = self._account(req)
        limit = req.get("limit", 0)
        q = self.module.StatementQuery(
            newest=bool(req.get("newest", False)),
            from_=_time(req["from"]) if req.get("from") else None,
            to=_time(req["to"]) if req.get("to") else None,
            transfers=tuple(req.get("transfers") or ()),
            limit=limit,
            after=req.get("after", ""),
        )
        reader = self.names["statement"]
        st = await self._read(req, is_async, lambda b: getattr(getattr(b, reader), member)(q, **kw))
        return {"entries": [_entry(e) for e in st.entries], "next": st.next, "more": st.more}

    async def _entries(self, req: dict[str, Any], is_async: bool) -> dict[str, Any]:
        t = self._transfer(req.get("transfer"))
        args = req.get("args") or {}
        _only_known(args, t["key"])
        kw = _values(t["key"], args)
        got = await self._read(req, is_async, lambda b: getattr(b, t["member"]).entries(**kw))
        return {"entries": [_entry(e) for e in got]}

    async def _holds(self, req: dict[str, Any], is_async: bool) -> dict[str, Any]:
        """The open holds of an account, of a transfer kind, of both (the
        account's, of that kind) or of neither (every kind's, merged in the
        order the reads give them: by when they were made, then kind and
        key)."""
        kind = req.get("transfer")
        t = self._transfer(kind) if kind else None
        if req.get("account"):
            member, kw = self._account(req)
            reader = self.names["open_holds"]
            got = await self._read(req, is_async, lambda b: getattr(getattr(b, reader), member)(**kw))
            if t is not None:
                got = [h for h in got if h.transfer == kind]
        else:
            kinds = [t] if t is not None else self.names["transfers"]
            got = []
            for x in kinds:
                if "open_holds" not in x.get("reads", []):
                    continue  # a kind that never holds has none
                member = x["member"]

                def read(b: Any, member: str = member) -> Any:
                    return getattr(b, member).open_holds()

                got += await self._read(req, is_async, read)
            got.sort(key=lambda h: (h.created, h.transfer, h.key or (), h.id))
        return {"holds": [_hold(h) for h in got]}

    async def _balance_at(self, req: dict[str, Any], is_async: bool) -> dict[str, Any]:
        member, kw = self._account(req)
        at = _time(str(req.get("at", "")))
        reader = self.names["balance_at"]
        b = await self._read(req, is_async, lambda bk: getattr(getattr(bk, reader), member)(at, **kw))
        return {"posted": str(b.posted), "held_in": str(b.held_in), "held_out": str(b.held_out)}

    async def _balance(self, req: dict[str, Any], is_async: bool) -> dict[str, Any]:
        member, kw = self._account(req)
        balance = self.names["balance"]
        b = await self._read(req, is_async, lambda bk: getattr(getattr(bk, balance), member)(**kw))
        return {"posted": str(b.posted), "held_in": str(b.held_in), "held_out": str(b.held_out)}

    async def close(self) -> None:
        for is_async, pool in self.pools.items():
            for c in pool.made:
                if is_async:
                    await c.close()
                else:
                    c.close()
        if self.tb_sync is not None:
            self.tb_sync.close()
        if self.tb_async is not None:
            await self.tb_async.close()


def _answer(op: str, res: Any) -> dict[str, Any]:
    """A call's answer as the protocol writes it: an error, a state or an outcome."""
    if isinstance(res, Exception):
        return {"error": str(res) or type(res).__name__}
    if op == "status":
        return {"state": res or ""}
    if res.result == "refused":
        return {"outcome": res.result, "reason": res.reason}
    return {"outcome": res.result}


_RFC3339 = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.([0-9]+))?(Z|[+-][0-9]{2}:[0-9]{2})")


def _time(s: str) -> datetime.datetime:
    """A time as the protocol writes it, RFC 3339 with up to nanoseconds, cut
    to the microseconds a datetime holds, as PostgreSQL's drivers cut it."""
    m = _RFC3339.fullmatch(s)
    if m is None:
        raise ValueError(f"{json.dumps(s)} is not an RFC 3339 time")
    frac = (m.group(2) or "")[:6].ljust(6, "0")
    zone = "+00:00" if m.group(3) == "Z" else m.group(3)
    return datetime.datetime.fromisoformat(f"{m.group(1)}.{frac}{zone}")


def _time_text(t: datetime.datetime) -> str:
    """A time as the protocol writes it: RFC 3339 in UTC, with microseconds."""
    return t.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _entry(e: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "transfer": e.transfer,
        "op": e.op,
        "key": None if e.key is None else list(e.key),
        "args": None if e.args is None else dict(e.args),
    }
    if e.id:
        out["id"] = e.id
    out.update({
        "move": e.move,
        "out": e.out,
        "account": e.account,
        "account_args": None if e.account_args is None else list(e.account_args),
        "posted": str(e.posted),
        "held_in": str(e.held_in),
        "held_out": str(e.held_out),
        "after": None if e.after is None else
        {"posted": str(e.after.posted), "held_in": str(e.after.held_in), "held_out": str(e.after.held_out)},
        "at": _time_text(e.at),
        "cursor": e.cursor,
    })
    return out


def _hold(h: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"transfer": h.transfer, "key": None if h.key is None else list(h.key)}
    if h.id:
        out["id"] = h.id
    out.update({
        "moves": [{"move": m.move, "from": m.from_, "from_args": None if m.from_args is None else list(m.from_args),
                   "to": m.to, "to_args": None if m.to_args is None else list(m.to_args), "amount": str(m.amount)}
                  for m in h.moves],
        "created": _time_text(h.created),
        "deadline": "" if h.deadline is None else _time_text(h.deadline),
    })
    return out


def _values(fields: list[dict[str, Any]], args: dict[str, str]) -> dict[str, Any]:
    """The keyword arguments of a call from the protocol's strings; amounts become ints.
    A missing value is left out: the client says what is missing."""
    out: dict[str, Any] = {}
    for f in fields:
        v = args.get(f["param"])
        if v is None:
            continue
        if f["type"] == "int":
            if not isinstance(v, str) or not _AMOUNT.fullmatch(v):
                raise ValueError(f"{json.dumps(v)} is not an amount (decimal digits, in a string)")
            out[f["keyword"]] = int(v)
        else:
            out[f["keyword"]] = v
    return out


def _only_known(args: dict[str, str], fields: list[dict[str, Any]]) -> None:
    """Fails for an argument that names no parameter of the operation, as the
    other drivers do: a misspelt name would otherwise be dropped in silence."""
    known = {f["param"] for f in fields}
    for name in args:
        if name not in known:
            raise ValueError(f"{name} is not one of its parameters")


def _load(path: str) -> ModuleType:
    # A name of the driver's own: the book's could be a module already loaded.
    spec = importlib.util.spec_from_file_location("chobo_client", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as an import would: a dataclass of the
    # client looks its module up in sys.modules to read its annotations.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def _serve(driver: Driver) -> str:
    loop = asyncio.get_running_loop()
    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(max_workers=4 * MAX_CONNS))
    # stdin is read on a thread of its own, so that it may be a pipe, a
    # file or a terminal alike.
    stdin = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    out = sys.stdout

    def answer(r: dict[str, Any]) -> None:
        out.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
        out.flush()

    async def run(req: dict[str, Any]) -> None:
        try:
            r = await driver.handle(req)
            answer({"id": req["id"], **r})
        except Exception as e:  # a failed call is an answer, not a broken driver
            answer({"id": req["id"], "error": str(e) or type(e).__name__})

    tasks: set[asyncio.Task[None]] = set()
    broken = ""
    while True:
        raw = await loop.run_in_executor(stdin, sys.stdin.buffer.readline)
        if not raw:
            break
        line = raw.decode("utf-8").strip()
        if line == "":
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            broken = f"a line that is not a JSON object ({e}): {line!r}"
            break
        if not isinstance(req, dict) or not isinstance(req.get("id"), int) or isinstance(req.get("id"), bool):
            broken = f'a request without a numeric "id": {line!r}'
            break
        if req.get("op") == "open":
            # Answered before the next request is read: every other one needs it.
            try:
                answer(await driver.open(req))
            except Exception as e:
                answer({"id": req["id"], "error": str(e) or type(e).__name__})
            continue
        if not driver.open_:
            answer({"id": req["id"], "error": 'not open: the first request must be "open"'})
            continue
        task = asyncio.create_task(run(req))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.gather(*tasks)
    await driver.close()
    return broken


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="driver.py", description="Drives a generated Python client of a chobo book over the driver protocol.")
    ap.add_argument("--mode", choices=["alternate", "sync", "async"], default="alternate",
                    help="which book answers: even ids the sync one and odd the async one (alternate), or one of them")
    ap.add_argument("client", help="the generated client, <book>.py")
    ns = ap.parse_args(argv)
    driver = Driver(_load(ns.client), ns.mode)
    broken = asyncio.run(_serve(driver))
    if broken:
        sys.stderr.write(f"chobo driver: {broken}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
