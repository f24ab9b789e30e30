"""Holds stock for an order through the book's Python client, the way a
Python service would: the client is the module `stock` (//ledger:
stock_py_client), the connection psycopg's.

    bazel run //stockpy:reserve -- "dbname=warehouse" o-1 north bolt 3

The book's SQL must be loaded into that database first
(bazel-bin/ledger/stock_sql.sql). psycopg comes from the Python
environment the program runs in, not from the client.
"""

from __future__ import annotations

import sys
from typing import Any

import stock

TENANT = "warehouse-1"


def reserve(conn: Any, order_id: str, site: str, sku: str, qty: int) -> str:
    """Holds qty of sku at site for the order, and says how it went."""
    book = stock.postgres(conn, TENANT)
    res = book.order.hold(order_id=order_id, site=site, sku=sku, qty=qty)
    if res.result == "refused":
        return f"{order_id}: refused ({res.reason})"
    return f"{order_id}: {res.result}"


def main(argv: list[str]) -> int:
    if len(argv) != 5:
        print("usage: reserve DSN ORDER SITE SKU QTY", file=sys.stderr)
        return 2
    import psycopg  # only here: the tests hand reserve() a stand-in

    dsn, order_id, site, sku, qty = argv
    with psycopg.connect(dsn, autocommit=True) as conn:
        print(reserve(conn, order_id, site, sku, int(qty)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
