import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { codeOf, hex, ledgerOf, sum } from "../src/ids.ts";
import { content } from "../src/tigerbeetle.ts";

// vectors.json is written by chobo's Go tests (tests/typescript_test.go)
// from the Go implementation: the same ids in both languages.
interface Vectors {
  ids: { role: string; parts: string[]; hex: string }[];
  ledgers: { unit: string; scale: number; ledger: number }[];
  codes: { book: string; category: "account" | "transfer" | "sink"; name: string; code: number }[];
  contents: { values: (string | { amount: string })[]; json: string }[];
}

const vectors: Vectors = JSON.parse(readFileSync(new URL("../../test/vectors.json", import.meta.url), "utf8"));

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
    const values = v.values.map((x) => (typeof x === "string" ? x : BigInt(x.amount)));
    assert.equal(content(values), v.json);
  }
});

test("zero and 2^128 - 1 are never ids", () => {
  assert.equal(hex(1n), "00000000000000000000000000000001");
});
