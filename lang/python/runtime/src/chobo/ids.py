"""The ids chobo gives accounts, holds and transfers, the same in every
backend and language (docs/formats.md, "Ids"): a key always names the same
128-bit number, so that a retry from any client, in any language, names
the same transfer.

    id = the first 16 bytes, big-endian, of
         SHA-256(enc("chobo/1") || enc(role) || enc(part 1) || ...)
    enc(s) = the length of s in UTF-8 as a big-endian uint32 || s in UTF-8

Zero and 2^128 - 1 are not valid TigerBeetle ids; they become 1 and
2^128 - 2.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

ID_MAX = (1 << 128) - 1

CodeCategory = Literal["account", "transfer", "sink"]


def digest(role: str, parts: Sequence[str]) -> bytes:
    """The SHA-256 of a role and its parts, as the scheme lays them out."""
    h = hashlib.sha256()
    for s in ("chobo/1", role, *parts):
        b = s.encode("utf-8")
        h.update(len(b).to_bytes(4, "big"))
        h.update(b)
    return h.digest()


def sum_id(role: str, *parts: str) -> int:
    """The id of a role and its parts."""
    v = int.from_bytes(digest(role, parts)[:16], "big")
    if v == 0:
        return 1
    return ID_MAX - 1 if v == ID_MAX else v


def hex_id(v: int) -> str:
    """An id as 32 lowercase hex digits, as ids are hashed into other ids."""
    return format(v, "032x")


def account_id(book: str, tenant: str, kind: str, args: Sequence[str]) -> int:
    return sum_id("account", book, tenant, kind, *args)


def transfer_id(book: str, tenant: str, kind: str, op: str, key: Sequence[str], pos: int) -> int:
    """The event at pos of the chain an operation sends; 0 is the hold itself."""
    return sum_id("transfer", book, tenant, kind, op, *key, str(pos))


def floor_id(account: int) -> int:
    return sum_id("floor", hex_id(account))


def room_id(account: int) -> int:
    return sum_id("room", hex_id(account))


def shortfall_id(helper: int) -> int:
    """The account that records what a floor or room owes."""
    return sum_id("shortfall", hex_id(helper))


def sink_id(book: str, tenant: str, unit: str) -> int:
    return sum_id("sink", book, tenant, unit)


def opening_id(helper: int) -> int:
    return sum_id("opening", hex_id(helper))


def never_id() -> int:
    """A transfer chobo never makes: the key guard of a do or hold voids it."""
    return sum_id("never")


def kind_id(book: str, tenant: str, kind: str) -> int:
    return sum_id("kind", book, tenant, kind)


def content_id(book: str, tenant: str, kind: str, op: str, definition: str, content: str) -> int:
    return sum_id("content", book, tenant, kind, op, definition, content)


def ledger_of(unit: str, scale: int) -> int:
    """The 32-bit ledger of a unit; 1 when the hash starts with four zero bytes,
    since TigerBeetle takes no ledger 0."""
    return int.from_bytes(digest("ledger", [unit, str(scale)])[:4], "big") or 1


def code_of(book: str, category: CodeCategory, name: str) -> int:
    """The 16-bit code of an account kind, a transfer kind or a sink."""
    return int.from_bytes(digest("code", [book, category, name])[:2], "big") or 1


_SHORT_ESCAPES = {0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x5C: "\\\\"}


def json_string(s: str) -> str:
    """s as a JSON string, byte for byte as Go's json.Marshal writes it: the
    HTML characters and U+2028, U+2029 are escaped too, so that clients of
    every language hash the same bytes."""
    out = ['"']
    for ch in s:
        c = ord(ch)
        short = _SHORT_ESCAPES.get(c)
        if short is not None:
            out.append(short)
        elif c < 0x20 or c in (0x3C, 0x3E, 0x26, 0x2028, 0x2029):
            out.append("\\u%04x" % c)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def content(vals: Sequence[str | int]) -> str:
    """What a key is compared on, hashed into user_data_128: every value of
    a do or hold in declaration order, as a compact JSON array."""
    return "[" + ",".join(str(v) if isinstance(v, int) else json_string(v) for v in vals) + "]"


def post_content(amounts: Sequence[int]) -> str:
    """The content of a post: what each move posts, in move order."""
    return "[" + ",".join(str(a) for a in amounts) + "]"
