import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AMOUNT_MAX, ChoboError, MAX_TENANT, MAX_TEXTS, TEXT_OVERHEAD, argsOf, checkAmount, checkArity, checkSize, checkText, field, parseHoldState,
  parseOutcome, withTimeout,
} from "../src/chobo.ts";
import { vectors } from "./vectors.ts";

function fails(f: () => unknown, code: string, ...parts: string[]): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof ChoboError, `not a ChoboError: ${String(e)}`);
    assert.equal(e.code, code);
    for (const p of parts) {
      assert.ok(e.message.includes(p), `${JSON.stringify(e.message)} does not say ${JSON.stringify(p)}`);
    }
    return true;
  });
}

test("amounts run from 0 to 2^63 - 1, as bigints", () => {
  assert.equal(checkAmount("t.do", "qty", 0n), 0n);
  assert.equal(checkAmount("t.do", "qty", AMOUNT_MAX), 9223372036854775807n);
  fails(() => checkAmount("t.do", "qty", -1n), "CHOBO_BAD_ARGUMENT", "t.do", "qty", "-1");
  fails(() => checkAmount("t.do", "qty", AMOUNT_MAX + 1n), "CHOBO_BAD_ARGUMENT", "9223372036854775808");
  fails(() => checkAmount("t.do", "qty", 3), "CHOBO_BAD_ARGUMENT", "must be a bigint", "the number 3");
  fails(() => checkAmount("t.do", "qty", undefined), "CHOBO_BAD_ARGUMENT", "got nothing");
  fails(() => checkAmount("t.do", "qty", "3"), "CHOBO_BAD_ARGUMENT", 'the string "3"');
});

test("strings must be Unicode text without NUL", () => {
  for (const ok of ["", "sku-1", "在庫", "😀", "tab\there", "\u{10FFFF}"]) {
    assert.equal(checkText("t.do", "sku", ok), ok);
  }
  fails(() => checkText("t.do", "sku", "a\u0000b"), "CHOBO_BAD_ARGUMENT", "NUL", "index 1");
  fails(() => checkText("t.do", "sku", "a\uD800"), "CHOBO_BAD_ARGUMENT", "lone surrogate", "U+D800", "index 1");
  fails(() => checkText("t.do", "sku", "\uDC00x"), "CHOBO_BAD_ARGUMENT", "U+DC00", "index 0");
  fails(() => checkText("t.do", "sku", "\uDBFF\uDBFF\uDC00"), "CHOBO_BAD_ARGUMENT", "U+DBFF", "index 0");
  fails(() => checkText("t.do", "sku", 7n), "CHOBO_BAD_ARGUMENT", "must be a string", "the bigint 7n");
  fails(() => checkText("t.do", "sku", null), "CHOBO_BAD_ARGUMENT", "null");
});

test("arguments come in an object, and only its own properties count", () => {
  fails(() => argsOf("t.do", "arguments", null, ["sku"]), "CHOBO_BAD_ARGUMENT", "must be an object", "null");
  fails(() => argsOf("t.do", "arguments", ["a"], ["sku"]), "CHOBO_BAD_ARGUMENT", "an array");
  fails(() => argsOf("t.do", "key", "o-1", ["sku"]), "CHOBO_BAD_ARGUMENT", "the key must be an object");
  const a = argsOf("t.do", "arguments", JSON.parse('{"__proto__": "x", "sku": "s"}'), ["__proto__", "sku"]);
  assert.equal(field(a, "__proto__"), "x");
  assert.equal(field(a, "sku"), "s");
  assert.equal(field(a, "toString"), undefined);
  assert.equal(field({}, "__proto__"), undefined);
});

test("an argument with a property its call does not take is refused, naming it and where it belongs", () => {
  // The amount of a partial post, put in its key, would otherwise be left out and the whole hold posted.
  fails(() => argsOf("reserve.post", "key", { ref: "H", amt: 4n }, ["ref"], ["amt"]), "CHOBO_BAD_ARGUMENT",
    "reserve.post: the key has amt, which is not part of reserve's key; give amounts as the second argument: post(key, { amt })");
  fails(() => argsOf("reserve.post", "amounts", { amt: 4n, ref: "H" }, ["amt"], ["ref"]), "CHOBO_BAD_ARGUMENT",
    "reserve.post: the amounts have ref, which is not an amount of reserve; ref is part of the key, the first argument");
  fails(() => argsOf("reserve.void", "key", { ref: "H", amt: 4n }, ["ref"]), "CHOBO_BAD_ARGUMENT", "the key has amt, which is not part of reserve's key");
  fails(() => argsOf("reserve.hold", "arguments", { ref: "H", qty: 4n, 数: 1n }, ["ref", "qty"]), "CHOBO_BAD_ARGUMENT", "the arguments have 数, which reserve.hold does not take");
  fails(() => argsOf("postgres", "options", { tenant: "", resendMS: 0 }, ["tenant", "resendMs"]), "CHOBO_BAD_ARGUMENT", "postgres: the options have resendMS, which postgres does not take; it takes tenant, resendMs");
  fails(() => argsOf("balance.shelf", "account", { sku: "A", "odd name": "x" }, ["sku"]), "CHOBO_BAD_ARGUMENT", 'the account has "odd name", which is not a parameter of the account shelf');
  // Own properties only, enumerable or not; what an object inherits is not its argument.
  fails(() => argsOf("t.do", "arguments", Object.defineProperty({ sku: "s" }, "qty", { value: 1n }), ["sku"]), "CHOBO_BAD_ARGUMENT", "qty");
  assert.equal(field(argsOf("t.do", "arguments", Object.create({ extra: 1 }, { sku: { value: "s", enumerable: true } }), ["sku"]), "sku"), "s");
  assert.deepEqual(argsOf("t.do", "arguments", { 注文: "o-1" }, ["注文", "sku"]), { 注文: "o-1" });
});

test("a call with more positional arguments than its method takes is refused", () => {
  checkArity("reserve.post", 2, ["key", "amounts?"]);
  checkArity("reserve.post", 1, ["key", "amounts?"]);
  fails(() => checkArity("reserve.post", 3, ["key", "amounts?"]), "CHOBO_BAD_ARGUMENT", "reserve.post: got 3 arguments; post(key, amounts?) takes at most 2");
  fails(() => checkArity("balance.shoppers", 1, []), "CHOBO_BAD_ARGUMENT", "shoppers() takes none");
});

test("outcomes and states are read strictly", () => {
  assert.equal(parseOutcome("done_before"), "done_before");
  assert.throws(() => parseOutcome("ok"), ChoboError);
  assert.equal(parseHoldState(null), null);
  assert.equal(parseHoldState("expired"), "expired");
  assert.throws(() => parseHoldState("gone"), ChoboError);
});

test("a request that does not answer in time fails with CHOBO_TIMEOUT", async () => {
  await assert.rejects(withTimeout(new Promise(() => {}), 20, "lookup"), (e: unknown) => e instanceof ChoboError && e.code === "CHOBO_TIMEOUT" && e.message.includes("lookup"));
  assert.equal(await withTimeout(Promise.resolve(4), 1000, "x"), 4);
});

test("the text limits are the Go implementation's, and counted in UTF-8 bytes", () => {
  assert.deepEqual({ max_tenant: MAX_TENANT, max_texts: MAX_TEXTS, text_overhead: TEXT_OVERHEAD }, vectors.limits);
  checkSize("t.do", "t".repeat(MAX_TENANT), ["x".repeat(MAX_TEXTS - TEXT_OVERHEAD), 3n]);
  fails(() => checkSize("t.do", "t".repeat(MAX_TENANT + 1), []), "CHOBO_BAD_ARGUMENT", "t.do", "the tenant is 257 bytes");
  fails(() => checkSize("t.do", "在".repeat(86), []), "CHOBO_BAD_ARGUMENT", "258 bytes");
  fails(() => checkSize("t.do", "", ["x".repeat(MAX_TEXTS - TEXT_OVERHEAD + 1)]), "CHOBO_BAD_ARGUMENT", "take 2049 bytes");
  fails(() => checkSize("t.do", "", ["a", "b", "é".repeat(1012)]), "CHOBO_BAD_ARGUMENT", "take 2050 bytes");
});
