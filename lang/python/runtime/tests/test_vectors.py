"""Each test replays a part of vectors.json, which the Go tests write from
the Go implementation: what this runtime sends and answers must be the
same, field for field, with no TigerBeetle or PostgreSQL to ask."""

from __future__ import annotations

import unittest
from typing import Any

from vectors import VECTORS, Json, def_of, value  # first: it puts the sources on the path

from chobo import chobo, ids, postgres
from chobo import tigerbeetle as tb
from chobo.tigerbeetle import Account, ChainEvent, Transfer


def transfer_of(tc: unittest.TestCase, t: Transfer) -> dict[str, Any]:
    """What the file holds of a transfer: every field chobo sets. The
    fields it leaves out are zero in every record a chain sends."""
    tc.assertEqual((t.user_data_32, t.timestamp), (0, 0))
    return {
        "id": ids.hex_id(t.id), "debit_account_id": ids.hex_id(t.debit_account_id),
        "credit_account_id": ids.hex_id(t.credit_account_id), "amount": str(t.amount),
        "pending_id": ids.hex_id(t.pending_id), "user_data_128": ids.hex_id(t.user_data_128),
        "user_data_64": str(t.user_data_64), "timeout": t.timeout, "ledger": t.ledger, "code": t.code,
        "flags": t.flags,
    }


def account_of(tc: unittest.TestCase, a: Account) -> dict[str, Any]:
    tc.assertEqual(
        (a.debits_pending, a.debits_posted, a.credits_pending, a.credits_posted, a.user_data_64, a.user_data_32,
         a.reserved, a.timestamp),
        (0, 0, 0, 0, 0, 0, 0, 0),
    )
    return {"id": ids.hex_id(a.id), "user_data_128": ids.hex_id(a.user_data_128), "ledger": a.ledger,
            "code": a.code, "flags": a.flags}


def chain_of(tc: unittest.TestCase, chain: list[ChainEvent]) -> list[dict[str, Any]]:
    return [{"role": e.role, "move": e.move, "reason": e.reason, "transfer": transfer_of(tc, e.transfer)}
            for e in chain]


class IdsTest(unittest.TestCase):
    def test_ids(self) -> None:
        self.assertGreaterEqual(len(VECTORS["ids"]), 10)
        for v in VECTORS["ids"]:
            with self.subTest(role=v["role"], parts=v["parts"]):
                self.assertEqual(ids.hex_id(ids.sum_id(v["role"], *v["parts"])), v["hex"])

    def test_ledgers(self) -> None:
        self.assertGreaterEqual(len(VECTORS["ledgers"]), 3)
        for v in VECTORS["ledgers"]:
            self.assertEqual(ids.ledger_of(v["unit"], v["scale"]), v["ledger"], v)

    def test_codes(self) -> None:
        self.assertGreaterEqual(len(VECTORS["codes"]), 3)
        for v in VECTORS["codes"]:
            self.assertEqual(ids.code_of(v["book"], v["category"], v["name"]), v["code"], v)

    def test_contents(self) -> None:
        self.assertGreaterEqual(len(VECTORS["contents"]), 8)
        for v in VECTORS["contents"]:
            self.assertEqual(ids.content([value(x) for x in v["values"]]), v["json"], v)


class ConstantsTest(unittest.TestCase):
    def test_limits(self) -> None:
        self.assertEqual(
            {"max_tenant": chobo.MAX_TENANT, "max_texts": chobo.MAX_TEXTS, "text_overhead": chobo.TEXT_OVERHEAD},
            VECTORS["limits"],
        )

    def test_tigerbeetle(self) -> None:
        v = VECTORS["tigerbeetle"]
        self.assertEqual(tb.MAX_EVENTS, v["max_events"])
        self.assertEqual(tb.DEFAULT_TIMEOUT_MS, v["default_timeout_ms"])
        self.assertEqual(
            {"linked": tb.ACCOUNT_LINKED, "debits_must_not_exceed_credits": tb.ACCOUNT_DEBITS_MUST_NOT_EXCEED_CREDITS,
             "credits_must_not_exceed_debits": tb.ACCOUNT_CREDITS_MUST_NOT_EXCEED_DEBITS},
            v["account_flags"],
        )
        self.assertEqual(
            {"linked": tb.TRANSFER_LINKED, "pending": tb.TRANSFER_PENDING, "post_pending": tb.TRANSFER_POST_PENDING,
             "void_pending": tb.TRANSFER_VOID_PENDING},
            v["transfer_flags"],
        )
        self.assertEqual(ids.hex_id(ids.never_id()), v["never_id"])
        self.assertEqual(tb.UNBOUNDED, int(v["unbounded"]))

    def test_postgres(self) -> None:
        v = VECTORS["postgres"]
        self.assertEqual(postgres.MAX_ATTEMPTS, v["max_attempts"])
        self.assertGreaterEqual(len(v["backoff_ms"]), 8)
        self.assertEqual([postgres.backoff(n) for n in range(len(v["backoff_ms"]))], v["backoff_ms"])
        self.assertEqual(
            {"serialization_failure": postgres.SERIALIZATION_FAILURE, "deadlock_detected": postgres.DEADLOCK_DETECTED,
             "in_failed_transaction": postgres.IN_FAILED_TRANSACTION, "bounds_changed": postgres.BOUNDS_CHANGED},
            v["sqlstates"],
        )
        self.assertEqual(sorted(s for s in v["sqlstates"].values() if postgres.retryable(s)), sorted(v["retryable"]))


def record_of(v: Json) -> tb.Transfer:
    """A record the file writes, as a lookup answers it."""
    return tb.Transfer(
        int(v["id"], 16), debit_account_id=int(v["debit_account_id"], 16), credit_account_id=int(v["credit_account_id"], 16),
        amount=int(v["amount"]), pending_id=int(v["pending_id"], 16), user_data_128=int(v["user_data_128"], 16),
        user_data_64=int(v["user_data_64"]), timeout=v["timeout"], ledger=v["ledger"], code=v["code"], flags=v["flags"],
    )


class CallsTest(unittest.TestCase):
    def test_every_call_of_every_book(self) -> None:
        """Every call of every test book sends what the Go implementation sends."""
        self.assertGreaterEqual(len(VECTORS["books"]), 20)
        calls = 0
        for b in VECTORS["books"]:
            d = def_of(b["def"])
            for i, c in enumerate(b["calls"]):
                calls += 1
                where = f"{b['case']}, call {i} ({c['op']} of {d.transfers[c['kind']].name}, tenant {c['tenant']!r})"
                self.replay(d, c, where)
        self.assertGreater(calls, 500)

    def replay(self, d: tb.Def, c: Json, where: str) -> None:
        op = c["op"]
        tenant, kind = c["tenant"], c["kind"]
        if op in ("do", "hold"):
            vals = [value(v) for v in c.get("values", [])]
            if c.get("error"):
                with self.assertRaises(chobo.ChoboError, msg=where):
                    tb.plan(d, tenant, kind, op, vals)
                return
            p = tb.plan(d, tenant, kind, op, vals)
            got = {"same_account": p.same_account, "accounts": [account_of(self, a) for a in p.accounts],
                   "openings": [transfer_of(self, t) for t in p.openings], "chain": chain_of(self, p.chain)}
            self.assertEqual(got, c["plan"], where)
        elif op in ("post", "void"):
            key, amounts = c.get("key", []), [int(a) for a in c.get("amounts", [])]
            if "found" not in c:
                chain = tb.finish(d, tenant, kind, op, key, amounts)
            else:
                # A hold laid out by another version: ended as its records say.
                found = {r.id: r for r in (record_of(x) for x in c["found"])}
                h = tb.hold_of(d, tenant, kind, tb.lookups(d, tenant, kind, key), found)
                assert h is not None and h != "other", where
                chain = tb.finish_of(d, tenant, kind, op, key, amounts, h[0])
            self.assertEqual(chain_of(self, chain), c["chain"], where)
        elif op == "status":
            chain = tb.status_chain(d, tenant, kind, c.get("key", []), int(c["void_id"], 16), int(c["fail_id"], 16))
            self.assertEqual(chain_of(self, chain), c["chain"], where)
        elif op == "lookups":
            self.assertEqual([ids.hex_id(x) for x in tb.lookups(d, tenant, kind, c.get("key", []))],
                             c.get("ids", []), where)
        else:
            self.fail(f"{where}: no such operation")


def _status_numbers() -> dict[str, int]:
    """The status numbers of create_transfers, by name, from this runtime's own table."""
    out: dict[str, int] = {}
    for n in [0xFFFFFFFF, *range(256)]:
        out[tb.transfer_status(n)] = n
    return out


class ReadersTest(unittest.TestCase):
    numbers = _status_numbers()

    def statuses(self, names: list[str]) -> list[int]:
        for s in names:
            self.assertIn(s, self.numbers, f"no status {s}")
        return [self.numbers[s] for s in names]

    def test_read(self) -> None:
        self.assertGreaterEqual(len(VECTORS["reads"]), 100)
        for i, r in enumerate(VECTORS["reads"]):
            chain = [ChainEvent(Transfer(0), e["role"], 0, e["reason"]) for e in r["chain"]]
            where = f"read {i}: {', '.join(r['statuses'])}"
            statuses = self.statuses(r["statuses"])
            err = r.get("error")
            if err is not None:
                with self.assertRaises(chobo.ChoboError, msg=where) as cm:
                    tb.read(chain, statuses)
                self.assertEqual(cm.exception.code, "CHOBO_UNEXPECTED", where)
                if err["kind"] == "count":
                    self.assertIn("statuses for a chain", str(cm.exception), where)
                else:
                    self.assertIn(f"answered {err['status']} for event {err['event']} ", str(cm.exception), where)
                continue
            want = chobo.Result(r["outcome"], r.get("reason") if r["outcome"] == "refused" else None)
            self.assertEqual(tb.read(chain, statuses), want, where)

    def test_read_status(self) -> None:
        self.assertGreaterEqual(len(VECTORS["read_statuses"]), 50)
        for i, r in enumerate(VECTORS["read_statuses"]):
            where = f"status read {i}: {', '.join(r['statuses'])}"
            if r.get("error") is not None:
                with self.assertRaises(chobo.ChoboError, msg=where):
                    tb.read_status(self.statuses(r["statuses"]))
                continue
            self.assertEqual(tb.read_status(self.statuses(r["statuses"])), r["state"], where)


if __name__ == "__main__":
    unittest.main()
