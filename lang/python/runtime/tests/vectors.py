"""The file every runtime replays without a server, written by chobo's Go
tests from the Go implementation (runtime/testdata/vectors.json), read
where the repository keeps it beside this runtime, or wherever
CHOBO_VECTORS names it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

# The tests run the sources as they are, without installing the package;
# every test module imports this one before chobo.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from chobo.tigerbeetle import AccountKind, Bound, Def, Move, Param, Side, TransferKind, Unit, Value  # noqa: E402

# The file is JSON, read as it is: the tests index into it as the Go tests
# wrote it, and a missing key fails the test that reads it.
Json = Any


def _path() -> Path:
    named = os.environ.get("CHOBO_VECTORS", "")
    if named:
        return Path(named)
    p = Path(__file__).resolve().parents[4] / "runtime" / "testdata" / "vectors.json"
    if not p.exists():
        raise FileNotFoundError("runtime/testdata/vectors.json is not in the checkout above the runtime; name it in CHOBO_VECTORS")
    return p


def load() -> Json:
    with open(_path(), encoding="utf-8") as f:
        return json.load(f)


VECTORS: Json = load()


def value(v: Json) -> Value:
    """A call's value as a runtime takes it: a string, or an amount written as a decimal string."""
    if isinstance(v, str):
        return v
    return int(v["amount"])


def _bound(b: Json) -> Bound | None:
    return None if b is None else Bound(int(b["value"]), b["reason"])


def _side(s: Json) -> Side:
    return Side(s["account"], tuple(s["args"]))


def def_of(v: Json) -> Def:
    """The file's definition of a book as a generated client carries it."""
    return Def(
        book=v["book"],
        units=tuple(Unit(u["name"], u["scale"]) for u in v["units"]),
        accounts=tuple(
            AccountKind(a["name"], a["unit"], a["params"], a["outside"], _bound(a["lower"]), _bound(a["upper"]))
            for a in v["accounts"]
        ),
        transfers=tuple(
            TransferKind(
                name=t["name"],
                definition=t["definition"],
                params=tuple(Param(p["name"], p["amount"]) for p in t["params"]),
                key=tuple(t["key"]),
                pending=t["pending"],
                timeout=t["timeout"],
                moves=tuple(
                    Move(m["amount"], int(m["literal"]), _side(m["from"]), _side(m["to"])) for m in t["moves"]
                ),
                post_amounts=tuple(t["post_amounts"]),
            )
            for t in v["transfers"]
        ),
    )
