import assert from "node:assert/strict";
import { test } from "node:test";
import { codeOf, hex, ledgerOf, sum } from "../src/ids.ts";
import { content } from "../src/tigerbeetle.ts";
import { value, vectors } from "./vectors.ts";

test("ids are the Go implementation's", () => {
  assert.ok(vectors.ids.length >= 10);
  for (const v of vectors.ids) {
    assert.equal(hex(sum(v.role, ...v.parts)), v.hex, `${v.role} ${JSON.stringify(v.parts)}`);
  }
});

test("ledgers and codes are the Go implementation's", () => {
  for (const v of vectors.ledgers) {
    assert.equal(ledgerOf(v.unit, v.scale), v.ledger, v.unit);
  }
  for (const v of vectors.codes) {
    assert.equal(codeOf(v.book, v.category, v.name), v.code, v.name);
  }
});

test("contents are the bytes Go hashes", () => {
  for (const v of vectors.contents) {
    assert.equal(content(v.values.map(value)), v.json);
  }
});

test("zero and 2^128 - 1 are never ids", () => {
  assert.equal(hex(1n), "00000000000000000000000000000001");
});
