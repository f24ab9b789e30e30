"""The argument checks and answers every client shares, by hand: what the
vectors cannot hold are the values a caller passes that are not chobo's."""

from __future__ import annotations

import unittest
from collections.abc import Callable

from vectors import VECTORS  # first: it puts the sources on the path

from chobo import chobo, ids
from chobo import tigerbeetle as tb
from chobo.chobo import (
    AMOUNT_MAX,
    MAX_TENANT,
    MAX_TEXTS,
    TEXT_OVERHEAD,
    ChoboCancelledError,
    ChoboError,
    check_amount,
    check_keywords,
    check_size,
    check_text,
    parse_hold_state,
    parse_outcome,
)


class ChecksTest(unittest.TestCase):
    def fails(self, f: Callable[[], object], code: str, *parts: str) -> None:
        with self.assertRaises(ChoboError) as cm:
            f()
        self.assertEqual(cm.exception.code, code)
        for p in parts:
            self.assertIn(p, str(cm.exception))

    def test_amounts(self) -> None:
        """Amounts run from 0 to 2^63 - 1, as ints, and a bool is none."""
        self.assertEqual(check_amount("t.do", "qty", 0), 0)
        self.assertEqual(check_amount("t.do", "qty", AMOUNT_MAX), 9223372036854775807)
        self.fails(lambda: check_amount("t.do", "qty", -1), "CHOBO_BAD_ARGUMENT", "t.do", "qty", "-1")
        self.fails(lambda: check_amount("t.do", "qty", AMOUNT_MAX + 1), "CHOBO_BAD_ARGUMENT", "9223372036854775808")
        self.fails(lambda: check_amount("t.do", "qty", True), "CHOBO_BAD_ARGUMENT", "must be an int", "True")
        self.fails(lambda: check_amount("t.do", "qty", 3.0), "CHOBO_BAD_ARGUMENT", "a float")
        self.fails(lambda: check_amount("t.do", "qty", "3"), "CHOBO_BAD_ARGUMENT", "the string '3'")
        self.fails(lambda: check_amount("t.do", "qty", None), "CHOBO_BAD_ARGUMENT", "got None")

    def test_texts(self) -> None:
        """Strings must be Unicode text without NUL: a surrogate has no UTF-8."""
        for ok in ["", "sku-1", "在庫", "😀", "tab\there", "\U0010ffff"]:
            self.assertEqual(check_text("t.do", "sku", ok), ok)
        self.fails(lambda: check_text("t.do", "sku", "a\x00b"), "CHOBO_BAD_ARGUMENT", "NUL", "index 1")
        self.fails(lambda: check_text("t.do", "sku", "a\ud800"), "CHOBO_BAD_ARGUMENT", "lone surrogate", "U+D800",
                   "index 1")
        self.fails(lambda: check_text("t.do", "sku", "\udc00x"), "CHOBO_BAD_ARGUMENT", "U+DC00", "index 0")
        # Python never pairs surrogates: an escaped pair is two of them, not one character.
        self.fails(lambda: check_text("t.do", "sku", "\ud83d\ude00"), "CHOBO_BAD_ARGUMENT", "U+D83D", "index 0")
        self.fails(lambda: check_text("t.do", "sku", 7), "CHOBO_BAD_ARGUMENT", "must be a string", "the int 7")
        self.fails(lambda: check_text("t.do", "sku", b"x"), "CHOBO_BAD_ARGUMENT", "a bytes")

    def test_sizes(self) -> None:
        """The text limits are counted in UTF-8 bytes."""
        check_size("t.do", "t" * MAX_TENANT, ["x" * (MAX_TEXTS - TEXT_OVERHEAD), 3])
        self.fails(lambda: check_size("t.do", "t" * (MAX_TENANT + 1), []), "CHOBO_BAD_ARGUMENT", "t.do",
                   "the tenant is 257 bytes")
        self.fails(lambda: check_size("t.do", "在" * 86, []), "CHOBO_BAD_ARGUMENT", "258 bytes")
        self.fails(lambda: check_size("t.do", "", ["x" * (MAX_TEXTS - TEXT_OVERHEAD + 1)]), "CHOBO_BAD_ARGUMENT",
                   "take 2049 bytes")
        self.fails(lambda: check_size("t.do", "", ["a", "b", "é" * 1012]), "CHOBO_BAD_ARGUMENT", "take 2050 bytes")
        self.assertEqual(VECTORS["limits"]["max_tenant"], MAX_TENANT)

    def test_keywords(self) -> None:
        """Keywords an operation does not take are refused, each named."""
        check_keywords("t.do", {})
        self.fails(lambda: check_keywords("t.do", {"qtty": 3}), "CHOBO_BAD_ARGUMENT",
                   "t.do: the operation takes no argument named 'qtty'")
        self.fails(lambda: check_keywords("t.do", {"a": 1, "b": 2}), "CHOBO_BAD_ARGUMENT", "no arguments named 'a', 'b'")

    def test_cancelled(self) -> None:
        """A call cancelled while out is of unknown outcome, and a cancellation."""
        import asyncio

        e = ChoboCancelledError("t.do")
        self.assertIsInstance(e, ChoboError)
        self.assertIsInstance(e, asyncio.CancelledError)
        self.assertEqual(e.code, "CHOBO_OUTCOME_UNKNOWN")
        self.assertTrue(str(e).startswith("chobo: t.do: the call was cancelled after it was sent"), str(e))

    def test_outcomes(self) -> None:
        """Outcomes and states are read strictly."""
        self.assertEqual(parse_outcome("done_before"), "done_before")
        self.fails(lambda: parse_outcome("ok"), "CHOBO_UNEXPECTED", "the string 'ok'")
        self.assertIsNone(parse_hold_state(None))
        self.assertEqual(parse_hold_state("expired"), "expired")
        self.fails(lambda: parse_hold_state("gone"), "CHOBO_UNEXPECTED")
        self.assertEqual(chobo.refused("short"), chobo.Result("refused", "short"))
        self.assertNotEqual(chobo.DONE, chobo.DONE_BEFORE)


class IdsTest(unittest.TestCase):
    def test_never_zero_or_max(self) -> None:
        """Zero and 2^128 - 1 are never ids; ids are written in 32 digits."""
        self.assertEqual(ids.hex_id(1), "00000000000000000000000000000001")
        self.assertEqual(len(ids.hex_id(ids.ID_MAX - 1)), 32)

    def test_bool_is_not_an_amount_in_a_chain(self) -> None:
        """A bool passed for an amount would hash as True; the planner refuses it."""
        d = tb.Def(
            book="b", units=(tb.Unit("pcs", 0),),
            accounts=(tb.AccountKind("stock", 0, 0, False, None, None), tb.AccountKind("out", 0, 0, True, None, None)),
            transfers=(tb.TransferKind("t", "0123456789abcdef", (tb.Param("id", False), tb.Param("qty", True)), (0,),
                                       False, 0, (tb.Move(1, 0, tb.Side(0, ()), tb.Side(1, ())),), (1,)),),
        )
        self.assertEqual(len(tb.plan(d, "", 0, "do", ["o-1", 3]).chain), 1)
        with self.assertRaises(ChoboError):
            tb.plan(d, "", 0, "do", ["o-1", True])
        with self.assertRaises(ChoboError):
            tb.plan(d, "", 0, "hold", ["o-1", 3])
        self.assertEqual(tb.definition_tag("0000000000000000"), 1)
        self.assertEqual(tb.definition_tag("0123456789abcdef"), 0x0123456789ABCDEF)


if __name__ == "__main__":
    unittest.main()
