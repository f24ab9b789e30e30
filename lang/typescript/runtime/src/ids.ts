// The ids chobo gives accounts, holds and transfers, the same in every
// backend and language (docs/formats.md, "Ids"): a key always names the
// same 128-bit number, so that a retry from any client, in any language,
// names the same transfer.
//
//   id = the first 16 bytes, big-endian, of
//        SHA-256(enc("chobo/1") ‖ enc(role) ‖ enc(part 1) ‖ …)
//   enc(s) = the length of s in UTF-8 as a big-endian uint32 ‖ s in UTF-8
//
// Zero and 2^128 - 1 are not valid TigerBeetle ids; they become 1 and
// 2^128 - 2.

import { createHash } from "node:crypto";

const ID_MAX = (1n << 128n) - 1n;

/** digest hashes a role and its parts as the scheme says. */
export function digest(role: string, parts: readonly string[]): Buffer {
  // One buffer hashed at once: a hash update a part costs more than the
  // hashing itself for ids this short.
  const all = ["chobo/1", role, ...parts];
  let size = 0;
  for (const s of all) {
    size += 4 + Buffer.byteLength(s, "utf8");
  }
  const buf = Buffer.allocUnsafe(size);
  let at = 0;
  for (const s of all) {
    const n = buf.write(s, at + 4, "utf8");
    buf.writeUInt32BE(n, at);
    at += 4 + n;
  }
  return createHash("sha256").update(buf).digest();
}

/** sum is the id of a role and its parts. */
export function sum(role: string, ...parts: string[]): bigint {
  const d = digest(role, parts);
  const id = (d.readBigUInt64BE(0) << 64n) | d.readBigUInt64BE(8);
  if (id === 0n) {
    return 1n;
  }
  return id === ID_MAX ? ID_MAX - 1n : id;
}

/** hex writes an id as 32 lowercase hex digits, as ids are hashed into other ids. */
export function hex(id: bigint): string {
  return id.toString(16).padStart(32, "0");
}

export function accountId(book: string, tenant: string, kind: string, args: readonly string[]): bigint {
  return sum("account", book, tenant, kind, ...args);
}

/** transferId names the event at pos of the chain an operation sends; 0 is the hold itself. */
export function transferId(book: string, tenant: string, kind: string, op: string, key: readonly string[], pos: number): bigint {
  return sum("transfer", book, tenant, kind, op, ...key, String(pos));
}

export function floorId(account: bigint): bigint {
  return sum("floor", hex(account));
}

export function roomId(account: bigint): bigint {
  return sum("room", hex(account));
}

/** shortfallId names the account that records what a floor or room owes. */
export function shortfallId(helper: bigint): bigint {
  return sum("shortfall", hex(helper));
}

export function sinkId(book: string, tenant: string, unit: string): bigint {
  return sum("sink", book, tenant, unit);
}

export function openingId(helper: bigint): bigint {
  return sum("opening", hex(helper));
}

/** sha256 is the SHA-256 of a string's UTF-8. */
export function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** neverId names a transfer chobo never makes: the key guard of a do or hold voids it. */
export function neverId(): bigint {
  return sum("never");
}

export function kindId(book: string, tenant: string, kind: string): bigint {
  return sum("kind", book, tenant, kind);
}

export function contentId(book: string, tenant: string, kind: string, op: string, definition: string, content: string): bigint {
  return sum("content", book, tenant, kind, op, definition, content);
}

/** ledgerOf is the 32-bit ledger of a unit: 1 when the hash starts with four zero bytes. */
export function ledgerOf(unit: string, scale: number): number {
  return digest("ledger", [unit, String(scale)]).readUInt32BE(0) || 1;
}

/** codeOf is the 16-bit code of an account kind, a transfer kind or a sink. */
export function codeOf(book: string, category: "account" | "transfer" | "sink", name: string): number {
  return digest("code", [book, category, name]).readUInt16BE(0) || 1;
}
