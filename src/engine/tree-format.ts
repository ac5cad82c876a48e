// The binary legal-move tree: one flat Uint8Array, so a worker can transfer it without cloning.
//
//   header: u8 magic 0xD7, u8 version 1, u32le leaf count                        (6 bytes)
//   node:   u16le n, then n u16le move codes (ascending = UCI string order),
//           then n u32le absolute byte offsets of the child nodes; a leaf is n = 0.
// The root node follows the header; an empty root (n = 0, leaf count 0) is a forced pass.
// Move codes are the 15-bit codes of squares.ts (from, to, promotion).

import { codeToUci, uciToCode } from './squares.js';
import type { LegalMoveTreeJson } from './types.js';

export const TREE_MAGIC = 0xd7;
export const TREE_VERSION = 1;
export const HEADER_SIZE = 6;

const u16 = (b: Uint8Array, at: number): number => b[at] | (b[at + 1] << 8);
const u32 = (b: Uint8Array, at: number): number => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;

function check(bytes: Uint8Array): void {
  if (bytes.length < HEADER_SIZE + 2 || bytes[0] !== TREE_MAGIC || bytes[1] !== TREE_VERSION) {
    throw new TypeError('not a legal-move tree (bad magic or version)');
  }
}

export function treeLeafCount(bytes: Uint8Array): number {
  check(bytes);
  return u32(bytes, 2);
}

/**
 * The wire JSON text, written directly from the bytes (keys already in order) as ASCII into one
 * reused scratch buffer, then decoded once: one flat string per tree, no rope of small strings for
 * the collector and no flattening when the text is later encoded or written.
 */
export function treeToJson(bytes: Uint8Array): string {
  check(bytes);
  // A node of n children takes 2 + 6n bytes and writes at most 2 + 9n characters (`{`, n keys of
  // at most 8, n - 1 commas, `}`): never more than 1.5 times its bytes.
  const need = Math.ceil(bytes.length * 1.5);
  let out = jsonOut;
  if (out.length < need) {
    out = new Uint8Array(need);
    if (need <= KEEP_MAX) jsonOut = out; // a rare giant tree's scratch is not kept
  }
  const len = nodeJson(bytes, HEADER_SIZE, out, 0);
  return ascii.decode(out.subarray(0, len));
}

/** Scratch for treeToJson, kept up to KEEP_MAX bytes. */
let jsonOut = new Uint8Array(1 << 16);
const KEEP_MAX = 1 << 20;
/** The JSON is pure ASCII, where latin1 decoding is a byte-for-byte copy. */
const ascii = new TextDecoder('latin1');
/** The promotion suffix letters b n q r by promotion rank (see squares.ts). */
const PROMO_CHAR = [0, 98, 110, 113, 114];

function nodeJson(b: Uint8Array, at: number, out: Uint8Array, p: number): number {
  const n = u16(b, at);
  out[p++] = 123; // {
  const moves = at + 2;
  const offs = moves + 2 * n;
  for (let i = 0; i < n; i++) {
    if (i > 0) out[p++] = 44; // ,
    // The key "e2e4": from the code's file-major squares (file * 8 + rank) and promotion rank.
    const code = u16(b, moves + 2 * i);
    const from = code >> 9;
    const to = (code >> 3) & 63;
    out[p] = 34;
    out[p + 1] = 97 + (from >> 3);
    out[p + 2] = 49 + (from & 7);
    out[p + 3] = 97 + (to >> 3);
    out[p + 4] = 49 + (to & 7);
    p += 5;
    const promo = code & 7;
    if (promo !== 0) out[p++] = PROMO_CHAR[promo];
    out[p] = 34;
    out[p + 1] = 58;
    p = nodeJson(b, u32(b, offs + 4 * i), out, p + 2);
  }
  out[p] = 125; // }
  return p + 1;
}

export function treeToObject(bytes: Uint8Array): LegalMoveTreeJson {
  check(bytes);
  return nodeObject(bytes, HEADER_SIZE);
}

function nodeObject(b: Uint8Array, at: number): LegalMoveTreeJson {
  const n = u16(b, at);
  const obj: LegalMoveTreeJson = {};
  const moves = at + 2;
  const offs = moves + 2 * n;
  for (let i = 0; i < n; i++) obj[codeToUci(u16(b, moves + 2 * i))] = nodeObject(b, u32(b, offs + 4 * i));
  return obj;
}

/**
 * Whether `moves` is exactly one root-to-leaf path. Only exact lower-case UCI matches: a prefix,
 * an extension, another order or a missing promotion suffix is not a path. The forced-pass tree
 * has no paths, so even [] is rejected there (nothing is submitted for a forced pass).
 */
export function treeHasPath(bytes: Uint8Array, moves: readonly string[]): boolean {
  check(bytes);
  if (moves.length === 0) return false;
  let at = HEADER_SIZE;
  for (const uci of moves) {
    if (typeof uci !== 'string') return false;
    const code = uciToCode(uci);
    if (code < 0) return false;
    const n = u16(bytes, at);
    // Binary search: the codes of a node are ascending.
    let lo = 0;
    let hi = n - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = u16(bytes, at + 2 + 2 * mid);
      if (c === code) {
        found = mid;
        break;
      }
      if (c < code) lo = mid + 1;
      else hi = mid - 1;
    }
    if (found < 0) return false;
    at = u32(bytes, at + 2 + 2 * n + 4 * found);
  }
  return u16(bytes, at) === 0;
}

/** Every root-to-leaf path, in key order. */
export function treePaths(bytes: Uint8Array): string[][] {
  check(bytes);
  const out: string[][] = [];
  if (u16(bytes, HEADER_SIZE) === 0) return out;
  const walk = (at: number, prefix: string[]): void => {
    const n = u16(bytes, at);
    if (n === 0) {
      out.push(prefix.slice());
      return;
    }
    for (let i = 0; i < n; i++) {
      prefix.push(codeToUci(u16(bytes, at + 2 + 2 * i)));
      walk(u32(bytes, at + 2 + 2 * n + 4 * i), prefix);
      prefix.pop();
    }
  };
  walk(HEADER_SIZE, []);
  return out;
}
