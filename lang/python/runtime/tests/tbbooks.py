"""Definitions of small books, written by hand as a generated client
carries them, for the tests of the TigerBeetle books."""

from __future__ import annotations

import vectors  # noqa: F401  first: it puts the sources on the path

from chobo.tigerbeetle import AccountKind, Bound, Def, Move, Param, Side, TransferKind, Unit

# The shape of tests/testdata/stock_reservation's book: a shelf per SKU
# that never goes below zero, stocked from vendors, reserved for shoppers.
STOCK = Def(
    book="stock_reservation",
    units=(Unit("pcs", 0),),
    accounts=(
        AccountKind("shelf", unit=0, params=1, outside=False, lower=Bound(0, "sold_out"), upper=None),
        AccountKind("vendors", unit=0, params=0, outside=True, lower=None, upper=None),
        AccountKind("shoppers", unit=0, params=0, outside=True, lower=None, upper=None),
    ),
    transfers=(
        TransferKind(
            "restock", "e7a340a366bbd74e", (Param("delivery", False), Param("sku", False), Param("qty", True)),
            key=(0, 1), pending=False, timeout=0,
            moves=(Move(amount=2, literal=0, from_=Side(1, ()), to=Side(0, (1,))),), post_amounts=(2,),
        ),
        TransferKind(
            "reserve_stock", "64572eac7fcf7fa1", (Param("order", False), Param("sku", False), Param("qty", True)),
            key=(0, 1), pending=True, timeout=1800,
            moves=(Move(amount=2, literal=0, from_=Side(0, (1,)), to=Side(2, ())),), post_amounts=(2,),
        ),
        TransferKind(
            "give_back", "4615d5da9955a3e9", (Param("return_slip", False), Param("sku", False), Param("qty", True)),
            key=(0, 1), pending=False, timeout=0,
            moves=(Move(amount=2, literal=0, from_=Side(2, ()), to=Side(0, (1,))),), post_amounts=(2,),
        ),
    ),
)
RESTOCK, RESERVE, GIVE_BACK = 0, 1, 2
SHELF, VENDORS, SHOPPERS = 0, 1, 2

# Cells that may go 100 below zero and hold 1000 at most: every move into
# one needs a room and a floor account, each opened from the sink.
CELLS = Def(
    book="cells",
    units=(Unit("eur", 2),),
    accounts=(
        AccountKind("cell", unit=0, params=1, outside=False, lower=Bound(-100, "overdrawn"), upper=Bound(1000, "full")),
        AccountKind("bank", unit=0, params=0, outside=True, lower=None, upper=None),
    ),
    transfers=(
        TransferKind(
            "fund", "1111111111111111", (Param("ref", False), Param("to", False), Param("amount", True)),
            key=(0,), pending=False, timeout=0,
            moves=(Move(amount=2, literal=0, from_=Side(1, ()), to=Side(0, (1,))),), post_amounts=(2,),
        ),
        TransferKind(
            "shift", "2222222222222222",
            (Param("ref", False), Param("from", False), Param("to", False), Param("amount", True)),
            key=(0,), pending=False, timeout=0,
            moves=(Move(amount=3, literal=0, from_=Side(0, (1,)), to=Side(0, (2,))),), post_amounts=(3,),
        ),
    ),
)
FUND, SHIFT = 0, 1
CELL, BANK = 0, 1

# A kind whose chain is one event longer than a request carries.
LONG = Def(
    book="long",
    units=(Unit("pcs", 0),),
    accounts=(
        AccountKind("a", unit=0, params=0, outside=True, lower=None, upper=None),
        AccountKind("b", unit=0, params=0, outside=True, lower=None, upper=None),
    ),
    transfers=(
        TransferKind(
            "many", "3333333333333333", (Param("ref", False),), key=(0,), pending=False, timeout=0,
            moves=tuple(Move(amount=-1, literal=1, from_=Side(0, ()), to=Side(1, ())) for _ in range(254)),
            post_amounts=(),
        ),
    ),
)
