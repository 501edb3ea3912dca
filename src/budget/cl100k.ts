// cl100k token counts from a compact rank table. gpt-tokenizer's encoder holds
// its 100,256 ranks as a Map of JavaScript strings, an array of them for
// decoding, the 2.2 MB source text of the module that lists them and a merge
// cache of up to 100,000 pieces: about 15 MB of a process's memory, in the
// server and again in the CPU pool's worker. Counting needs none of that:
// only whether a byte sequence is a token and its rank. Here the tokens' bytes
// sit in one buffer, found through an open-addressed hash table of their
// indexes (about 2 MB, outside the JavaScript heap), read once from the
// package's own `.tiktoken` file (base64 bytes and rank, a line each).
//
// The counts are gpt-tokenizer 4.0's `countTokens(text, { disallowedSpecial:
// new Set() })`, step for step: the same pre-tokenizer pattern (its source),
// a piece that is a token whole counts 1 (looked up by its string there: a
// piece holding a lone surrogate never is), any other piece is merged over
// its UTF-8 bytes (lone surrogates as U+FFFD, as TextEncoder writes them),
// always merging the leftmost pair of the lowest rank, and counts its parts.
// Special-token strings are text, as there. One quirk is kept on purpose:
// gpt-tokenizer finds a merge's pair by decoding its bytes when they are UTF-8,
// and its decoder drops a leading byte-order mark, so a pair that starts with
// one has the rank of the rest (none when nothing is left), and its eight
// tokens that start with one are never found whole. test/budget/cl100k.test.ts
// checks the table against the package's and the counts on a varied corpus.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CL100K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/esm/encodingParams/constants';

interface RankTable {
  /** Every token's bytes, one after another, in rank order. */
  bytes: Uint8Array;
  /** Where token `i`'s bytes start in `bytes` (`i + 1`: where they end). */
  starts: Uint32Array;
  /** The rank of token `i` (the file lists them in rank order, but its numbers are what count). */
  ranks: Uint32Array;
  /** Open addressing: token index + 1 at the slot its hash picks, or the next free one; 0 is empty. */
  slots: Int32Array;
  mask: number;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

let table: RankTable | undefined;

/** The table, read on the first count (a command that never counts never reads it). */
function rankTable(): RankTable {
  table ??= readTable(readFileSync(createRequire(import.meta.url).resolve('gpt-tokenizer/data/cl100k_base.tiktoken')));
  return table;
}

function readTable(file: Buffer): RankTable {
  // Decoded straight into one buffer (a token's bytes are shorter than its base64), then copied to size.
  const all = Buffer.alloc(file.length);
  const startList: number[] = [];
  const rankList: number[] = [];
  let at = 0;
  for (let from = 0; from < file.length; ) {
    let end = file.indexOf(0x0a, from);
    if (end < 0) end = file.length;
    const space = file.indexOf(0x20, from);
    if (space > from && space < end) {
      startList.push(at);
      at += all.write(file.toString('latin1', from, space), at, 'base64');
      rankList.push(Number(file.toString('latin1', space + 1, end)));
    }
    from = end + 1;
  }
  const bytes = new Uint8Array(all.subarray(0, at));
  const starts = Uint32Array.from([...startList, at]);
  const count = startList.length;
  // A load of under 0.4: probes stay short.
  let size = 1;
  while (size < count * 2.5) size <<= 1;
  const slots = new Int32Array(size);
  const mask = size - 1;
  for (let i = 0; i < count; i++) {
    if (startsWithBom(bytes, starts[i] as number, starts[i + 1] as number)) continue;
    let slot = hashBytes(bytes, starts[i] as number, starts[i + 1] as number) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = i + 1;
  }
  return { bytes, starts, ranks: Uint32Array.from(rankList), slots, mask };
}

function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let hash = FNV_OFFSET;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ (bytes[i] as number), FNV_PRIME);
  return hash >>> 0;
}

/** Whether `bytes[from..to)` is UTF-8 that starts with a byte-order mark (a pair gpt-tokenizer looks up without it). */
function startsWithBom(bytes: Uint8Array, from: number, to: number): boolean {
  return (
    to - from >= 3 &&
    bytes[from] === 0xef &&
    bytes[from + 1] === 0xbb &&
    bytes[from + 2] === 0xbf &&
    isUtf8(bytes, from, to)
  );
}

/** Well-formed UTF-8: no overlong form, surrogate or code point past U+10FFFF. */
function isUtf8(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; ) {
    const lead = bytes[i] as number;
    let extra: number;
    let min: number;
    let point: number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    if (lead >= 0xc2 && lead <= 0xdf) [extra, min, point] = [1, 0x80, lead & 0x1f];
    else if ((lead & 0xf0) === 0xe0) [extra, min, point] = [2, 0x800, lead & 0x0f];
    else if (lead >= 0xf0 && lead <= 0xf4) [extra, min, point] = [3, 0x10000, lead & 0x07];
    else return false;
    if (i + extra >= to) return false;
    for (let k = 1; k <= extra; k++) {
      const next = bytes[i + k] as number;
      if ((next & 0xc0) !== 0x80) return false;
      point = (point << 6) | (next & 0x3f);
    }
    if (point < min || (point >= 0xd800 && point <= 0xdfff) || point > 0x10ffff) return false;
    i += extra + 1;
  }
  return true;
}

/** A merge's look-up of a pair: as `rankOf`, but past a leading byte-order mark of UTF-8 bytes (see the top). */
function pairRankOf(t: RankTable, bytes: Uint8Array, from: number, to: number): number {
  if (!startsWithBom(bytes, from, to)) return rankOf(t, bytes, from, to);
  return to - from === 3 ? -1 : rankOf(t, bytes, from + 3, to);
}

/** The rank of the token `bytes[from..to)`, or -1 when those bytes are no token. */
function rankOf(t: RankTable, bytes: Uint8Array, from: number, to: number): number {
  const length = to - from;
  let slot = hashBytes(bytes, from, to) & t.mask;
  for (let entry = t.slots[slot] as number; entry !== 0; entry = t.slots[slot] as number) {
    const start = t.starts[entry - 1] as number;
    if ((t.starts[entry] as number) - start === length) {
      let same = true;
      for (let k = 0; k < length; k++) {
        if (t.bytes[start + k] !== bytes[from + k]) {
          same = false;
          break;
        }
      }
      if (same) return t.ranks[entry - 1] as number;
    }
    slot = (slot + 1) & t.mask;
  }
  return -1;
}

/** A piece's UTF-8 bytes, written into `scratch`; grown as needed (3 bytes a UTF-16 unit at most). */
let scratch = new Uint8Array(1024);

/**
 * Writes `piece` as UTF-8 into `scratch` and returns its length, negative when the piece holds a lone
 * surrogate (written as U+FFFD's bytes, as TextEncoder does).
 */
function utf8(piece: string): number {
  if (scratch.length < piece.length * 3) scratch = new Uint8Array(piece.length * 3);
  const out = scratch;
  let n = 0;
  let lone = false;
  for (let i = 0; i < piece.length; i++) {
    let c = piece.charCodeAt(i);
    if (c < 0x80) out[n++] = c;
    else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = i + 1 < piece.length ? piece.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          i++;
          out[n++] = 0xf0 | (c >> 18);
          out[n++] = 0x80 | ((c >> 12) & 0x3f);
          out[n++] = 0x80 | ((c >> 6) & 0x3f);
          out[n++] = 0x80 | (c & 0x3f);
          continue;
        }
        lone = true;
        c = 0xfffd;
      }
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return lone ? -n : n;
}

/** Part boundaries and pair ranks of one merge, reused (a piece is at most a few hundred bytes here). */
let starts = new Int32Array(1024);
let pairRanks = new Float64Array(1024);

/** How many tokens byte-pair merging makes of `scratch[0..length)`: gpt-tokenizer's `bytePairMerge`. */
function mergedParts(t: RankTable, length: number): number {
  if (starts.length < length + 1) {
    starts = new Int32Array(length + 1);
    pairRanks = new Float64Array(length + 1);
  }
  const bytes = scratch;
  const pairRank = (i: number, parts: number): number => {
    if (i + 2 >= parts) return Number.POSITIVE_INFINITY;
    const rank = pairRankOf(t, bytes, starts[i] as number, starts[i + 2] as number);
    return rank < 0 ? Number.POSITIVE_INFINITY : rank;
  };
  // `parts` boundaries: starts[0..parts), the last one is `length`.
  let parts = length + 1;
  for (let i = 0; i <= length; i++) starts[i] = i;
  for (let i = 0; i <= length; i++) pairRanks[i] = i < length - 1 ? pairRank(i, parts) : Number.POSITIVE_INFINITY;
  while (parts > 1) {
    let lowest = Number.POSITIVE_INFINITY;
    let at = -1;
    for (let i = 0; i < parts - 1; i++) {
      const rank = pairRanks[i] as number;
      if (rank < lowest) {
        lowest = rank;
        at = i;
      }
    }
    if (at === -1) break;
    // Boundary at + 1 goes, and pair rank `at` with it.
    starts.copyWithin(at + 1, at + 2, parts);
    pairRanks.copyWithin(at, at + 1, parts);
    parts--;
    pairRanks[at] = pairRank(at, parts);
    if (at > 0) pairRanks[at - 1] = pairRank(at - 1, parts);
  }
  return parts - 1;
}

/** Merged pieces' counts: code repeats its identifiers. Cleared when full, so it stays small. */
const mergedCounts = new Map<string, number>();
const MERGED_COUNTS_MAX = 8192;

/** The pre-tokenizer: gpt-tokenizer's pattern, in an object of our own (its `lastIndex` is ours to move). */
const split = new RegExp(CL100K_TOKEN_SPLIT_REGEX.source, CL100K_TOKEN_SPLIT_REGEX.flags);

/** The cl100k token count of `text`, every special-token string counted as text. */
export function countCl100k(text: string): number {
  const t = rankTable();
  split.lastIndex = 0;
  let count = 0;
  for (let match = split.exec(text); match !== null; match = split.exec(text)) {
    const piece = match[0];
    const length = utf8(piece);
    if (length > 0 && rankOf(t, scratch, 0, length) >= 0) {
      count++;
      continue;
    }
    const known = mergedCounts.get(piece);
    if (known !== undefined) {
      count += known;
      continue;
    }
    const parts = mergedParts(t, Math.abs(length));
    if (mergedCounts.size >= MERGED_COUNTS_MAX) mergedCounts.clear();
    mergedCounts.set(piece, parts);
    count += parts;
  }
  return count;
}

/** The table's bytes of each rank (tests compare it with gpt-tokenizer's own). */
export function cl100kTokenBytes(): Map<number, Uint8Array> {
  const t = rankTable();
  const byRank = new Map<number, Uint8Array>();
  for (let i = 0; i < t.ranks.length; i++) {
    byRank.set(t.ranks[i] as number, t.bytes.subarray(t.starts[i] as number, t.starts[i + 1] as number));
  }
  return byRank;
}
