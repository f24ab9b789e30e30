"""How a Python client keeps a chobo book in TigerBeetle, the same for every
book: an operation becomes the accounts it needs, the openings of their
floor and room accounts, and one linked chain of transfers sent in one
request, so that every bound is kept in one write; the per-event answers of
the chain become chobo's answer. It is the Go runtime (runtime/go/chobotb)
written again, and the tests hold both to the same vectors.

Everything here is pure: nothing imports the tigerbeetle package, so a
client's chains can be checked where no replica runs."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypeAlias

from .chobo import DONE, DONE_BEFORE, Balance, ChoboError, HoldState, Result, refused
from .ids import (
    account_id,
    code_of,
    content,
    content_id,
    floor_id,
    kind_id,
    ledger_of,
    never_id,
    opening_id,
    post_content,
    room_id,
    shortfall_id,
    sink_id,
    transfer_id,
)

__all__ = [
    "MAX_EVENTS", "MAX_REQUEST_EVENTS", "DEFAULT_TIMEOUT_MS", "ACCOUNT_LINKED", "ACCOUNT_DEBITS_MUST_NOT_EXCEED_CREDITS",
    "ACCOUNT_CREDITS_MUST_NOT_EXCEED_DEBITS", "TRANSFER_LINKED", "TRANSFER_PENDING", "TRANSFER_POST_PENDING",
    "TRANSFER_VOID_PENDING", "AMOUNT_MAX_128", "Account", "Transfer", "Unit", "Bound", "AccountKind", "Param",
    "Side", "Move", "TransferKind", "Def", "Value", "Role", "ChainEvent", "Plan", "TenantIds", "content",
    "post_content", "transfer_status", "account_status", "tenant_ids_of", "key_values", "definition_tag", "plan",
    "lookups", "HoldEvent", "hold_of", "finish", "finish_of", "status_chain", "read", "read_status", "balance_of",
]

MAX_EVENTS = 253
"""The events one request carries unless a book is told otherwise
(request_events): what a --development replica of TigerBeetle 0.17.9 takes."""

MAX_REQUEST_EVENTS = 8189
"""The most events a request to TigerBeetle 0.17.9 carries: what a replica
started without --development takes, the limit of its 1 MiB messages."""

DEFAULT_TIMEOUT_MS = 30_000

# What a floor or room holds for a side without a bound: further than any
# balance of 64 bits goes. An account made before its kind had the bound is
# opened with it, until `chobo migrate` moves it onto the bound.
UNBOUNDED = 1 << 64
"""How long one request may take, in milliseconds, unless the book is given another figure."""

# Flags, with TigerBeetle's bit values.
ACCOUNT_LINKED = 1 << 0
ACCOUNT_DEBITS_MUST_NOT_EXCEED_CREDITS = 1 << 1
ACCOUNT_CREDITS_MUST_NOT_EXCEED_DEBITS = 1 << 2
TRANSFER_LINKED = 1 << 0
TRANSFER_PENDING = 1 << 1
TRANSFER_POST_PENDING = 1 << 2
TRANSFER_VOID_PENDING = 1 << 3
# balancing_debit and balancing_credit: a netting moves what the floor or
# room has and its shortfall owes, at most.
TRANSFER_BALANCING = 1 << 4 | 1 << 5

AMOUNT_MAX_128 = (1 << 128) - 1
"""The whole of a pending transfer, as an amount to post."""


@dataclass
class Account:
    """TigerBeetle's account record, with the official client's field names."""

    id: int
    debits_pending: int = 0
    debits_posted: int = 0
    credits_pending: int = 0
    credits_posted: int = 0
    user_data_128: int = 0
    user_data_64: int = 0
    user_data_32: int = 0
    reserved: int = 0
    ledger: int = 0
    code: int = 0
    flags: int = 0
    timestamp: int = 0


@dataclass
class Transfer:
    """TigerBeetle's transfer record, with the official client's field names."""

    id: int
    debit_account_id: int = 0
    credit_account_id: int = 0
    amount: int = 0
    pending_id: int = 0
    user_data_128: int = 0
    user_data_64: int = 0
    user_data_32: int = 0
    timeout: int = 0
    ledger: int = 0
    code: int = 0
    flags: int = 0
    timestamp: int = 0


# The statuses of create_transfers and create_accounts in TigerBeetle 0.17.9
# by number, so that a client needs the official package only to make its
# connection.
_CREATED = 0xFFFFFFFF
_TRANSFER_STATUSES: dict[int, str] = {
    _CREATED: "created", 1: "linked_event_failed", 2: "linked_event_chain_open", 3: "timestamp_must_be_zero",
    4: "reserved_flag", 5: "id_must_not_be_zero", 6: "id_must_not_be_int_max", 7: "flags_are_mutually_exclusive",
    8: "debit_account_id_must_not_be_zero", 9: "debit_account_id_must_not_be_int_max",
    10: "credit_account_id_must_not_be_zero", 11: "credit_account_id_must_not_be_int_max",
    12: "accounts_must_be_different", 13: "pending_id_must_be_zero", 14: "pending_id_must_not_be_zero",
    15: "pending_id_must_not_be_int_max", 16: "pending_id_must_be_different",
    17: "timeout_reserved_for_pending_transfer",
    19: "ledger_must_not_be_zero", 20: "code_must_not_be_zero", 21: "debit_account_not_found",
    22: "credit_account_not_found", 23: "accounts_must_have_the_same_ledger",
    24: "transfer_must_have_the_same_ledger_as_accounts", 25: "pending_transfer_not_found",
    26: "pending_transfer_not_pending", 27: "pending_transfer_has_different_debit_account_id",
    28: "pending_transfer_has_different_credit_account_id", 29: "pending_transfer_has_different_ledger",
    30: "pending_transfer_has_different_code", 31: "exceeds_pending_transfer_amount",
    32: "pending_transfer_has_different_amount", 33: "pending_transfer_already_posted",
    34: "pending_transfer_already_voided", 35: "pending_transfer_expired", 36: "exists_with_different_flags",
    37: "exists_with_different_debit_account_id", 38: "exists_with_different_credit_account_id",
    39: "exists_with_different_amount", 40: "exists_with_different_pending_id",
    41: "exists_with_different_user_data_128", 42: "exists_with_different_user_data_64",
    43: "exists_with_different_user_data_32", 44: "exists_with_different_timeout",
    45: "exists_with_different_code", 46: "exists", 47: "overflows_debits_pending",
    48: "overflows_credits_pending", 49: "overflows_debits_posted", 50: "overflows_credits_posted",
    51: "overflows_debits", 52: "overflows_credits", 53: "overflows_timeout", 54: "exceeds_credits",
    55: "exceeds_debits", 56: "imported_event_expected", 57: "imported_event_not_expected",
    58: "imported_event_timestamp_out_of_range", 59: "imported_event_timestamp_must_not_advance",
    60: "imported_event_timestamp_must_not_regress", 61: "imported_event_timestamp_must_postdate_debit_account",
    62: "imported_event_timestamp_must_postdate_credit_account", 63: "imported_event_timeout_must_be_zero",
    64: "closing_transfer_must_be_pending", 65: "debit_account_already_closed",
    66: "credit_account_already_closed", 67: "exists_with_different_ledger", 68: "id_already_failed",
}
_ACCOUNT_STATUSES: dict[int, str] = {
    _CREATED: "created", 1: "linked_event_failed", 2: "linked_event_chain_open", 3: "timestamp_must_be_zero",
    4: "reserved_field", 5: "reserved_flag", 6: "id_must_not_be_zero", 7: "id_must_not_be_int_max",
    8: "flags_are_mutually_exclusive", 9: "debits_pending_must_be_zero", 10: "debits_posted_must_be_zero",
    11: "credits_pending_must_be_zero", 12: "credits_posted_must_be_zero", 13: "ledger_must_not_be_zero",
    14: "code_must_not_be_zero", 15: "exists_with_different_flags", 16: "exists_with_different_user_data_128",
    17: "exists_with_different_user_data_64", 18: "exists_with_different_user_data_32",
    19: "exists_with_different_ledger", 20: "exists_with_different_code", 21: "exists",
    22: "imported_event_expected", 23: "imported_event_not_expected", 24: "imported_event_timestamp_out_of_range",
    25: "imported_event_timestamp_must_not_advance", 26: "imported_event_timestamp_must_not_regress",
}


def transfer_status(n: int) -> str:
    """A status of create_transfers, named as TigerBeetle's documentation names it."""
    return _TRANSFER_STATUSES.get(n, f"status {n}")


def account_status(n: int) -> str:
    """A status of create_accounts, named as TigerBeetle's documentation names it."""
    return _ACCOUNT_STATUSES.get(n, f"status {n}")


# The definition of a book, as a generated client carries it: what the
# chains are built from. Indexes refer to the lists of the Def; `chobo run
# --show tigerbeetle` builds the same value from the book.


@dataclass(frozen=True)
class Unit:
    name: str
    scale: int


@dataclass(frozen=True)
class Bound:
    value: int
    reason: str


@dataclass(frozen=True)
class AccountKind:
    name: str
    unit: int  # index in units
    params: int  # how many string arguments name one account
    outside: bool
    lower: Bound | None
    upper: Bound | None


@dataclass(frozen=True)
class Param:
    name: str
    amount: bool


@dataclass(frozen=True)
class Side:
    account: int
    args: tuple[int, ...]  # indexes in the transfer kind's params


@dataclass(frozen=True)
class Move:
    amount: int  # index in params of the amount, or -1 for the literal
    literal: int
    from_: Side
    to: Side


@dataclass(frozen=True)
class TransferKind:
    name: str
    definition: str  # the hash of the kind's definition, part of every content hash
    params: tuple[Param, ...]
    key: tuple[int, ...]  # indexes in params, in key order
    pending: bool
    timeout: int  # seconds; 0 for never
    moves: tuple[Move, ...]
    post_amounts: tuple[int, ...]  # the amount params a partial post gives, in declaration order
    # The hash earlier versions of chobo had for the same kind, with the
    # bounds of its accounts in it: a hold tagged with it, or a call hashed
    # with it, is this kind's all the same. "" when not known.
    legacy: str = ""


@dataclass(frozen=True)
class Def:
    book: str
    units: tuple[Unit, ...]
    accounts: tuple[AccountKind, ...]
    transfers: tuple[TransferKind, ...]


Value: TypeAlias = str | int
"""A value of a call: a string, or an int for an amount."""

Role: TypeAlias = Literal[
    "move",
    "lower_probe",
    "lower_probe_void",
    "floor_net",
    "floor_take",
    "room_give",
    "room_net",
    "room_take",
    "floor_give",
    "post",
    "void",
    "status_void",
    "status_fail",
    "key_guard",
]
"""What an event of a chain is for; `chobo run --show tigerbeetle` prints the same names."""


@dataclass
class ChainEvent:
    """One transfer of a chain, what it is for, and the reason when
    TigerBeetle answers exceeds_credits for it."""

    transfer: Transfer
    role: Role
    move: int  # from 1; 0 in a status chain and for the key guard
    reason: str


@dataclass
class Plan:
    """Everything a do or hold sends: its accounts (first use first), the
    openings, the chain. same_account: a move goes from an account to
    itself, nothing is sent, and the call is refused with same_account."""

    accounts: list[Account] = field(default_factory=list)
    openings: list[Transfer] = field(default_factory=list)
    chain: list[ChainEvent] = field(default_factory=list)
    same_account: bool = False


@dataclass(frozen=True)
class _Slot:
    role: Role
    move: int


def _layout(d: Def, t: TransferKind) -> list[_Slot]:
    """The events a do or hold of a kind lays out, in order: post, void and
    lookups find the pending events of a hold by their place in it."""
    out: list[_Slot] = []
    for i, m in enumerate(t.moves):
        src, dst = d.accounts[m.from_.account], d.accounts[m.to.account]
        n = i + 1
        out.append(_Slot("move", n))
        if src.lower is not None and src.lower.value > 0:
            out += [_Slot("lower_probe", n), _Slot("lower_probe_void", n)]
        if src.lower is not None and src.lower.value < 0:
            out.append(_Slot("floor_take", n))
        if src.upper is not None:
            out.append(_Slot("room_give", n))
        if dst.upper is not None:
            out.append(_Slot("room_take", n))
        if dst.lower is not None and dst.lower.value < 0:
            out.append(_Slot("floor_give", n))
    if _guarded(d, t):
        out.append(_Slot("key_guard", 0))
    return out


def _guarded(d: Def, t: TransferKind) -> bool:
    """Whether a do or hold of t sends a key guard: when an event of its
    chain other than the first may be refused by a bound, or two or more
    may. The guard uses the first event's id up on a refusal, so a retry
    is answered at the first event whatever bounds the chain keeps by
    then: the move keeps its place and id when a deploy adds or removes
    the events of a bound after it, where a later event's id may not be
    sent again. A chain whose only refusable event is its first uses that
    id up itself."""
    n = 0
    first = False
    for i, m in enumerate(t.moves):
        lower = d.accounts[m.from_.account].lower
        if lower is not None:
            n += 2 if lower.value > 0 else 1  # the move, its probe, or its floor_take
            first = first or (i == 0 and lower.value == 0)
        if d.accounts[m.to.account].upper is not None:
            n += 1  # room_take
    return n >= 2 or (n == 1 and not first)


def _guard(first: int) -> ChainEvent:
    """The key guard sent after the chain of a guarded do or hold, outside
    it, with the id of the chain's first event: a void of a transfer that
    never exists. When the chain was written, now or before, the id is
    taken and the guard gets exists_with_different_flags, writing nothing.
    When it was not, the guard is refused with pending_transfer_not_found,
    which uses the id up: every later call with the key stops at the first
    event with id_already_failed (already_refused) before any bound is
    looked at."""
    return ChainEvent(Transfer(first, pending_id=never_id(), flags=TRANSFER_VOID_PENDING), "key_guard", 0, "")


def _kind_of(d: Def, kind: int) -> TransferKind:
    if kind < 0 or kind >= len(d.transfers):
        raise ChoboError("CHOBO_UNEXPECTED", f"the book {d.book} has no transfer kind {kind}")
    return d.transfers[kind]


@dataclass(frozen=True)
class _FixedIds:
    """The codes and ledgers of a book, which every call would hash the same."""

    ledgers: tuple[int, ...]  # by unit
    sink_codes: tuple[int, ...]  # by unit
    account_codes: tuple[int, ...]  # by account kind
    transfer_codes: tuple[int, ...]  # by transfer kind


_fixed_ids: dict[int, tuple[Def, _FixedIds]] = {}


def _fixed_of(d: Def) -> _FixedIds:
    """A book's codes and ledgers, worked out once per definition. The Def
    is kept beside them so that its id is never reused for another."""
    got = _fixed_ids.get(id(d))
    if got is not None and got[0] is d:
        return got[1]
    f = _FixedIds(
        ledgers=tuple(ledger_of(u.name, u.scale) for u in d.units),
        sink_codes=tuple(code_of(d.book, "sink", u.name) for u in d.units),
        account_codes=tuple(code_of(d.book, "account", a.name) for a in d.accounts),
        transfer_codes=tuple(code_of(d.book, "transfer", t.name) for t in d.transfers),
    )
    _fixed_ids[id(d)] = (d, f)
    return f


@dataclass(frozen=True)
class TenantIds:
    """The ids every call of one tenant shares, worked out once, so that a
    call hashes only what depends on it."""

    sinks: tuple[int, ...]  # by unit
    kinds: tuple[int, ...]  # by account kind: what its accounts carry in user_data_128
    plain: tuple[int | None, ...]  # by account kind: the one account of a kind without parameters


def tenant_ids_of(d: Def, tenant: str) -> TenantIds:
    """The ids a tenant's calls share."""
    return TenantIds(
        sinks=tuple(sink_id(d.book, tenant, u.name) for u in d.units),
        kinds=tuple(kind_id(d.book, tenant, a.name) for a in d.accounts),
        plain=tuple(account_id(d.book, tenant, a.name, []) if a.params == 0 else None for a in d.accounts),
    )


def _text(v: Value) -> str:
    """A value as an id part: a string as itself, an amount in decimal."""
    return str(v) if isinstance(v, int) else v


def key_values(t: TransferKind, vals: Sequence[Value]) -> list[str]:
    """The key's values out of a call's values, as its ids hash them."""
    return [_text(vals[k]) for k in t.key]


_HASH16 = re.compile(r"[0-9a-fA-F]{16}")


def _tagged(t: TransferKind, tag: int) -> bool:
    """Whether a hold's event tagged with tag may be ended by the kind: its
    own tag, its legacy hash's, or none (a client that did not tag holds)."""
    return tag == 0 or tag == definition_tag(t.definition) or (t.legacy != "" and tag == definition_tag(t.legacy))


def _laid_out_otherwise(chain: Sequence[ChainEvent], statuses: Sequence[int]) -> bool:
    """Whether the answer to a do or hold chain says its first event exists
    with other flags. A deploy that adds or removes the events keeping a
    bound (a room, a floor, a probe) lays the chain out otherwise, and the
    move goes alone or linked to the events after it: a retry of a call
    made before meets its first event with other flags, which TigerBeetle
    reports before any other field, whether or not the call means what the
    first one meant. So that answer is judged by what the call means, as
    the Go runtime does: the first event is looked up, and it is the same
    call when the record carries this call's content (user_data_128) and
    definition tag (user_data_64), done before."""
    return (
        bool(chain)
        and bool(statuses)
        and chain[0].role == "move"
        and transfer_status(statuses[0]) == "exists_with_different_flags"
    )


def _made_by_legacy(t: TransferKind, statuses: Sequence[int]) -> bool:
    """Whether the statuses of a chain of the kind say its first event exists
    with other fields, and the kind has a legacy hash that could have made
    it: an earlier version of chobo hashed the bounds of the accounts into
    the definition, and so into the content and tag. TigerBeetle names one
    field that differs, not always the content, so any is sent again, as
    the Go runtime does."""
    if not statuses or t.legacy in ("", t.definition):
        return False
    return transfer_status(statuses[0]).startswith("exists_with_different_")


_legacy_defs: dict[int, tuple[Def, Def]] = {}


def _as_legacy(d: Def) -> Def:
    """The definition with every kind's legacy hash as its own: what an
    earlier version of chobo laid out for the same book. A chain whose
    first event exists fails whole, so sending it again writes nothing;
    its answer is that version's."""
    got = _legacy_defs.get(id(d))
    if got is not None and got[0] is d:
        return got[1]
    legacy = replace(d, transfers=tuple(replace(t, definition=t.legacy) if t.legacy else t for t in d.transfers))
    _legacy_defs[id(d)] = (d, legacy)
    return legacy


def definition_tag(definition: str) -> int:
    """What every event of a hold's chain carries in user_data_64: the kind's
    definition hash (8 bytes, as hex) as a number; 1 when it is zero, since
    0 means none. Post and void compare it with their own. A definition that
    is not such a hash takes the first 8 bytes of its SHA-256."""
    if _HASH16.fullmatch(definition):
        v = int(definition, 16)
    else:
        v = int.from_bytes(hashlib.sha256(definition.encode("utf-8")).digest()[:8], "big")
    return v or 1


def _link(chain: list[ChainEvent]) -> None:
    """Sets the linked flag on every event but the last."""
    for e in chain[:-1]:
        e.transfer.flags |= TRANSFER_LINKED


def _check(t: TransferKind, vals: Sequence[Value]) -> None:
    """Makes sure vals fits the kind's parameters, as the Go runtime does
    before it lays out anything: a generated client checks its arguments
    first, so a failure here is chobo's own."""
    if len(vals) != len(t.params):
        raise ChoboError("CHOBO_UNEXPECTED", f"{t.name} takes {len(t.params)} values, got {len(vals)}")
    for p, v in zip(t.params, vals):
        is_amount = isinstance(v, int) and not isinstance(v, bool)
        if p.amount and not is_amount:
            raise ChoboError("CHOBO_UNEXPECTED", f"{p.name} of {t.name} is an amount, got {v!r}")
        if not p.amount and not isinstance(v, str):
            raise ChoboError("CHOBO_UNEXPECTED", f"{p.name} of {t.name} is a string, got {v!r}")


@dataclass(frozen=True)
class _End:
    """One end of a move: the account's id, its kind's index and the kind."""

    id: int
    kind: int
    a: AccountKind


class _Planner:
    """What plan keeps while it lays out one call, step by step as the Go
    runtime's planner does: the accounts each move names, which decide alone
    whether anything is sent (same_account); then, move by move, the move and
    the events that keep its accounts' bounds, in the order of _layout; then
    the links and the key guard."""

    def __init__(self, d: Def, tenant: str, tids: TenantIds, t: TransferKind, vals: Sequence[Value]) -> None:
        self.d, self.tenant, self.tids, self.t, self.vals = d, tenant, tids, t, vals
        self.p = Plan()
        self.fixed = _fixed_of(d)
        self.seen: set[int] = set()
        # What every event of the call's chain carries; start sets them.
        self.op = ""
        self.key: list[str] = []
        self.user = 0
        self.code = 0
        self.flags = 0
        self.timeout = 0
        self.tag = 0
        # That of the account the current move takes from: every event of a move is on it.
        self.ledger = 0
        # The layout position of the next event, and that of the next
        # netting, counted on from the end of the layout.
        self.pos = 0
        self.net = len(_layout(d, t))

    def _account_id(self, s: Side) -> int:
        if not s.args:
            plain = self.tids.plain[s.account]
            assert plain is not None
            return plain
        args = [_text(self.vals[p]) for p in s.args]
        return account_id(self.d.book, self.tenant, self.d.accounts[s.account].name, args)

    def sides(self) -> list[tuple[_End, _End]]:
        """The accounts at both ends of every move; a move from an account to
        itself marks the plan same_account."""
        out: list[tuple[_End, _End]] = []
        for m in self.t.moves:
            ends = (
                _End(self._account_id(m.from_), m.from_.account, self.d.accounts[m.from_.account]),
                _End(self._account_id(m.to), m.to.account, self.d.accounts[m.to.account]),
            )
            if ends[0].id == ends[1].id:
                self.p.same_account = True
            out.append(ends)
        return out

    def start(self, kind: int, op: Literal["do", "hold"]) -> None:
        """Works out what every event of the call carries."""
        t = self.t
        self.op, self.code, self.key = op, self.fixed.transfer_codes[kind], key_values(t, self.vals)
        self.user = content_id(self.d.book, self.tenant, t.name, op, t.definition, content(self.vals))
        if op == "hold":
            self.timeout, self.flags, self.tag = t.timeout, TRANSFER_PENDING, definition_tag(t.definition)

    def account(self, a: Account) -> None:
        """Adds an account to the plan the first time it is named."""
        if a.id not in self.seen:
            self.seen.add(a.id)
            self.p.accounts.append(a)

    def sink(self, unit: int) -> int:
        """The tenant's sink account of a unit, added to the plan."""
        sid = self.tids.sinks[unit]
        self.account(Account(sid, ledger=self.fixed.ledgers[unit], code=self.fixed.sink_codes[unit]))
        return sid

    def opened(self, owner: _End, hid: int, amount: int) -> int:
        """A floor or room account of owner, added to the plan with the
        opening that puts amount into it from the sink: the distance from
        zero to the bound it keeps."""
        if amount < 0:
            raise ChoboError(
                "CHOBO_UNEXPECTED",
                f"the bounds of {owner.a.name} cannot be kept in TigerBeetle: a room or floor would open below zero",
            )
        unit = owner.a.unit
        s = self.sink(unit)
        if hid not in self.seen:
            self.account(
                Account(hid, user_data_128=owner.id, ledger=self.fixed.ledgers[unit],
                        code=self.fixed.account_codes[owner.kind], flags=ACCOUNT_DEBITS_MUST_NOT_EXCEED_CREDITS)
            )
            self.p.openings.append(
                Transfer(opening_id(hid), debit_account_id=s, credit_account_id=hid, amount=amount,
                         ledger=self.fixed.ledgers[unit], code=self.fixed.sink_codes[unit])
            )
        return hid

    def add(self, role: Role, move: int, debit: int, credit: int, amount: int, flags: int, timeout: int,
            pending_id: int, reason: str) -> None:
        """Appends an event to the chain; its id is its place in the layout."""
        tid = transfer_id(self.d.book, self.tenant, self.t.name, self.op, self.key, self.pos)
        self.pos += 1
        self.p.chain.append(ChainEvent(
            Transfer(tid, debit_account_id=debit, credit_account_id=credit, amount=amount, pending_id=pending_id,
                     user_data_128=self.user, user_data_64=self.tag, timeout=timeout, ledger=self.ledger,
                     code=self.code, flags=flags),
            role, move, reason,
        ))

    def netting(self, role: Role, n: int, owner: _End, hid: int) -> None:
        """Pays what the floor or room hid has towards its shortfall, before a
        take from it: a posted transfer with both balancing flags, under the
        sink's code, that moves as much as the one has and the other owes. Its
        id comes after every position of the layout, so the other events keep
        the ids they had before chains netted."""
        unit = owner.a.unit
        short = shortfall_id(hid)
        self.account(Account(short, user_data_128=hid, ledger=self.fixed.ledgers[unit],
                             code=self.fixed.account_codes[owner.kind], flags=ACCOUNT_CREDITS_MUST_NOT_EXCEED_DEBITS))
        tid = transfer_id(self.d.book, self.tenant, self.t.name, self.op, self.key, self.net)
        self.net += 1
        self.p.chain.append(ChainEvent(
            Transfer(tid, debit_account_id=hid, credit_account_id=short, amount=UNBOUNDED, user_data_128=self.user,
                     user_data_64=self.tag, ledger=self.fixed.ledgers[unit], code=self.fixed.sink_codes[unit],
                     flags=TRANSFER_BALANCING),
            role, n, "",
        ))

    def move(self, n: int, m: Move, src: _End, dst: _End) -> None:
        """Lays out move n (from 1) and the events that keep the bounds of its
        two accounts, in the order of _layout."""
        for s in (src, dst):
            # A lower bound of 0 or more is kept by the account's own flag:
            # the move itself is the event TigerBeetle refuses.
            lower = s.a.lower
            flag = ACCOUNT_DEBITS_MUST_NOT_EXCEED_CREDITS if lower is not None and lower.value >= 0 else 0
            self.account(Account(s.id, user_data_128=self.tids.kinds[s.kind], ledger=self.fixed.ledgers[s.a.unit],
                                 code=self.fixed.account_codes[s.kind], flags=flag))
        amount = m.literal
        if m.amount >= 0:
            v = self.vals[m.amount]
            assert isinstance(v, int)
            amount = v
        if amount < 0:
            raise ChoboError("CHOBO_UNEXPECTED", f"move {n} of {self.t.name} moves {amount}")
        self.ledger = self.fixed.ledgers[src.a.unit]
        lower = src.a.lower
        reason = lower.reason if lower is not None and lower.value >= 0 else ""
        self.add("move", n, src.id, dst.id, amount, self.flags, self.timeout, 0, reason)
        if lower is not None and lower.value > 0:
            self.probe(n, src, lower)
        self.floors_and_rooms(n, amount, src, dst)

    def probe(self, n: int, src: _End, lower: Bound) -> None:
        """Keeps a lower bound L > 0 of the account a move takes from: after
        the move, a pending transfer of L from it must still pass, and is
        voided at once, so that nothing stays held."""
        pos = len(self.p.chain)
        self.add("lower_probe", n, src.id, self.sink(src.a.unit), lower.value, TRANSFER_PENDING, 0, 0, lower.reason)
        self.add("lower_probe_void", n, 0, 0, 0, TRANSFER_VOID_PENDING, 0, self.p.chain[pos].transfer.id, "")
        # A void takes its ledger and code from the probe.
        last = self.p.chain[-1].transfer
        last.ledger, last.code = 0, 0

    def floors_and_rooms(self, n: int, amount: int, src: _End, dst: _End) -> None:
        """The events of move n that keep the bounds a flag or a probe cannot:
        each moves the amount between a floor or room account and the sink in
        step with the move, so that the helper holds the distance from its
        account's balance to the bound, and its own flag refuses the event
        that would cross it."""
        lower = src.a.lower
        if lower is not None and lower.value < 0:
            f = self.opened(src, floor_id(src.id), -lower.value)
            self.netting("floor_net", n, src, f)
            self.add("floor_take", n, f, self.sink(src.a.unit), amount, self.flags, self.timeout, 0, lower.reason)
        if src.a.upper is not None:
            r = self.opened(src, room_id(src.id), src.a.upper.value)
            self.add("room_give", n, self.sink(src.a.unit), r, amount, self.flags, self.timeout, 0, "")
        if dst.a.upper is not None:
            r = self.opened(dst, room_id(dst.id), dst.a.upper.value)
            self.netting("room_net", n, dst, r)
            self.add("room_take", n, r, self.sink(dst.a.unit), amount, self.flags, self.timeout, 0,
                     dst.a.upper.reason)
        if dst.a.lower is not None and dst.a.lower.value < 0:
            f = self.opened(dst, floor_id(dst.id), -dst.a.lower.value)
            self.add("floor_give", n, self.sink(dst.a.unit), f, amount, self.flags, self.timeout, 0, "")


def plan(d: Def, tenant: str, kind: int, op: Literal["do", "hold"], vals: Sequence[Value],
         tids: TenantIds | None = None) -> Plan:
    """What a do or hold of a kind sends; vals are its values in declaration
    order, tids the tenant's shared ids (tenant_ids_of), worked out here when
    the caller keeps none."""
    t = _kind_of(d, kind)
    _check(t, vals)
    if (op == "hold") != t.pending or op not in ("do", "hold"):
        raise ChoboError("CHOBO_UNEXPECTED", f"{t.name} has no operation {op}")
    b = _Planner(d, tenant, tids if tids is not None else tenant_ids_of(d, tenant), t, vals)
    sides = b.sides()
    if b.p.same_account:
        return b.p
    b.start(kind, op)
    for i, m in enumerate(t.moves):
        b.move(i + 1, m, *sides[i])
    _link(b.p.chain)
    if _guarded(d, t):
        b.p.chain.append(_guard(b.p.chain[0].transfer.id))
    return b.p


# How many places of a hold's chain one move can take under any layout: the
# move, a probe and its void, a room_give, a room_take and a floor_give (a
# floor_take needs a lower bound below zero, which never comes with a probe:
# a lower bound cannot cross zero between versions).
_REACH = 6


def lookups(d: Def, tenant: str, kind: int, key: Sequence[str]) -> list[int]:
    """The ids of every place a hold of the kind can have put an event at,
    under this layout or another one a version of the book lays its chain
    out by: what post and void read first. A deploy that adds or removes a
    floor, room or probe on an account a hold moves through moves the hold's
    later events to other places, and the hold made before it is ended after
    it by what is found (hold_of), in one lookup as before."""
    t = _kind_of(d, kind)
    return [transfer_id(d.book, tenant, t.name, "hold", key, pos) for pos in range(_REACH * len(t.moves))]


@dataclass(frozen=True)
class HoldEvent:
    """An event of a hold that a post or void ends, and its move (from 1)."""

    id: int
    move: int


def hold_of(d: Def, tenant: str, kind: int, ids: Sequence[int], found: Mapping[int, Transfer],
            sinks: Sequence[int] | None = None) -> tuple[list[HoldEvent], list[int]] | None | Literal["other"]:
    """Reads a hold of the kind from what the lookup of its lookups ids
    found: the events a post or void ends, in the order of its chain, and
    what each move holds; None when there is no hold, "other" when an event
    was made under another definition of the kind. It goes by the records,
    not by this version's layout: only pending events are ended (nettings
    and a probe's void are not pending); a probe is voided by the event after
    it and left out; every other event belongs to the move before it, a
    move's accounts being the book's and its satellites' a floor or room and
    the sink, so a found event that names no sink starts the next move."""
    t = _kind_of(d, kind)
    sink = set(sinks if sinks is not None else (sink_id(d.book, tenant, u.name) for u in d.units))
    hold: list[HoldEvent] = []
    amounts: list[int] = []
    for pos, x in enumerate(ids):
        e = found.get(x)
        if e is None:
            continue
        if not _tagged(t, e.user_data_64):
            return "other"
        if e.flags & TRANSFER_PENDING == 0:
            continue
        nxt = found.get(ids[pos + 1]) if pos + 1 < len(ids) else None
        if nxt is not None and nxt.flags & TRANSFER_VOID_PENDING and nxt.pending_id == e.id:
            continue  # a probe
        if e.debit_account_id not in sink and e.credit_account_id not in sink:
            amounts.append(e.amount)
        elif not amounts:
            raise ChoboError("CHOBO_UNEXPECTED", "the lookup of a hold found an event of no move")
        hold.append(HoldEvent(e.id, len(amounts)))
    if not amounts:
        return None
    if len(amounts) != len(t.moves):
        raise ChoboError("CHOBO_UNEXPECTED", f"{len(amounts)} of the {len(t.moves)} moves of a hold were found")
    return hold, amounts


def finish(d: Def, tenant: str, kind: int, op: Literal["post", "void"], key: Sequence[str],
           amounts: Sequence[int]) -> list[ChainEvent]:
    """The chain that posts or voids a hold this version laid out: one event
    per pending event of the hold (the probes were voided already), in the
    hold's order. amounts are what each move posts, in move order; a void
    sends none."""
    t = _kind_of(d, kind)
    hold = [HoldEvent(transfer_id(d.book, tenant, t.name, "hold", key, pos), s.move)
            for pos, s in enumerate(_layout(d, t)) if s.role not in ("lower_probe", "lower_probe_void", "key_guard")]
    return finish_of(d, tenant, kind, op, key, amounts, hold)


def finish_of(d: Def, tenant: str, kind: int, op: Literal["post", "void"], key: Sequence[str],
              amounts: Sequence[int], hold: Sequence[HoldEvent]) -> list[ChainEvent]:
    """The chain that posts or voids the hold whose events hold_of read,
    whatever layout made it: one event per held event, in order, with its
    move's amount. The ids count the chain's own events, as for every
    layout, so a post or void sent before a deploy and again after it sends
    the same chain."""
    t = _kind_of(d, kind)
    if not t.pending or op not in ("post", "void"):
        raise ChoboError("CHOBO_UNEXPECTED", f"{t.name} has no operation {op}")
    post = op == "post"
    if post and len(amounts) != len(t.moves):
        raise ChoboError("CHOBO_UNEXPECTED", f"a post of {t.name} gives {len(amounts)} amounts for {len(t.moves)} moves")
    user = content_id(d.book, tenant, t.name, op, t.definition, post_content(amounts) if post else "")
    chain: list[ChainEvent] = []
    for i, h in enumerate(hold):
        chain.append(ChainEvent(
            Transfer(
                transfer_id(d.book, tenant, t.name, op, key, i),
                pending_id=h.id,
                amount=amounts[h.move - 1] if post else 0,
                user_data_128=user,
                flags=TRANSFER_POST_PENDING if post else TRANSFER_VOID_PENDING,
            ),
            op, h.move, "",
        ))
    _link(chain)
    return chain


def status_chain(d: Def, tenant: str, kind: int, key: Sequence[str], void_id: int, fail_id: int) -> list[ChainEvent]:
    """The chain that reads where a hold stands without writing anything: a
    void of the hold's first event linked to a transfer from an account to
    itself, which TigerBeetle always refuses. The two ids are to be fresh
    random ones, so that no status ever meets an earlier one."""
    t = _kind_of(d, kind)
    if not t.pending:
        raise ChoboError("CHOBO_UNEXPECTED", f"{t.name} does not hold")
    held = transfer_id(d.book, tenant, t.name, "hold", key, 0)
    unit = d.accounts[t.moves[0].from_.account].unit
    fixed = _fixed_of(d)
    chain = [
        ChainEvent(Transfer(void_id, pending_id=held, flags=TRANSFER_VOID_PENDING), "status_void", 0, ""),
        ChainEvent(
            Transfer(fail_id, debit_account_id=held, credit_account_id=held, amount=1,
                     ledger=fixed.ledgers[unit], code=fixed.transfer_codes[kind]),
            "status_fail", 0, "",
        ),
    ]
    _link(chain)
    return chain


def _unexpected(chain: Sequence[ChainEvent], i: int, status: str) -> ChoboError:
    return ChoboError("CHOBO_UNEXPECTED", f"TigerBeetle answered {status} for event {i} ({chain[i].role}) of a chain")


def read(chain: Sequence[ChainEvent], statuses: Sequence[int]) -> Result:
    """chobo's answer from the statuses of a chain. The first status that is
    neither created nor linked_event_failed decides: TigerBeetle marks every
    other event of a failed chain, earlier ones too, as linked_event_failed."""
    if len(statuses) != len(chain):
        raise ChoboError("CHOBO_UNEXPECTED", f"{len(statuses)} statuses for a chain of {len(chain)} events")
    # A key guard after the chain never decides the answer; it can get one of three statuses.
    n = len(chain) - 1
    if n > 0 and chain[n].role == "key_guard":
        g = transfer_status(statuses[n])
        if g not in ("exists_with_different_flags", "pending_transfer_not_found", "id_already_failed"):
            raise _unexpected(chain, n, g)
        chain, statuses = chain[:n], statuses[:n]
    for i, st in enumerate(statuses):
        s = transfer_status(st)
        if s in ("created", "linked_event_failed"):
            continue
        if s == "exists":
            # Only a later event is there: another definition of the kind made the chain.
            return DONE_BEFORE if i == 0 else refused("key_conflict")
        if s == "id_already_failed":
            return refused("already_refused")
        if s == "exceeds_credits":
            if chain[i].reason == "":
                raise _unexpected(chain, i, s)
            return refused(chain[i].reason)
        reason = _REFUSALS.get(s)
        if reason is not None:
            return refused(reason)
        if s.startswith("exists_with_different_"):
            return refused("key_conflict")
        raise _unexpected(chain, i, s)
    for i, st in enumerate(statuses):
        if st != _CREATED:
            raise _unexpected(chain, i, transfer_status(st))
    return DONE


_REFUSALS = {
    "accounts_must_be_different": "same_account",
    "pending_transfer_already_posted": "already_posted",
    "pending_transfer_already_voided": "already_voided",
    "pending_transfer_expired": "expired",
    "exceeds_pending_transfer_amount": "over_hold",
}

_STATES: dict[str, HoldState | None] = {
    "pending_transfer_already_posted": "posted",
    "pending_transfer_already_voided": "voided",
    "pending_transfer_expired": "expired",
    "pending_transfer_not_found": None,
}


def read_status(statuses: Sequence[int]) -> HoldState | None:
    """Where a hold stands from the answer to a status chain; None when there is none."""
    if len(statuses) != 2:
        raise ChoboError("CHOBO_UNEXPECTED", f"{len(statuses)} statuses for a status chain")
    first, second = transfer_status(statuses[0]), transfer_status(statuses[1])
    if first == "linked_event_failed" and second == "accounts_must_be_different":
        return "held"
    if second == "linked_event_failed" and first in _STATES:
        return _STATES[first]
    raise ChoboError("CHOBO_UNEXPECTED", f"a status chain answered {first}, {second}")


def balance_of(name: str, a: Account) -> Balance:
    """An account record as chobo counts it: posted is credits less debits. TigerBeetle keeps 128 bits, chobo's other
    backends 64; a figure outside 64 bits raises (design 4.4)."""

    def fits(what: str, v: int) -> int:
        if v < -(1 << 63) or v >= 1 << 63:
            raise ChoboError("CHOBO_BALANCE_OVERFLOW", f"the {what} balance of {name} is {v}, outside 64 bits")
        return v

    return Balance(
        posted=fits("posted", a.credits_posted - a.debits_posted),
        held_in=fits("held_in", a.credits_pending),
        held_out=fits("held_out", a.debits_pending),
    )
