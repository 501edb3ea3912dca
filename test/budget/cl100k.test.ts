// The compact cl100k counter (src/budget/cl100k.ts) must give gpt-tokenizer's
// counts exactly: the budget fits prompts into windows by them. Checked two
// ways: its table holds the bytes gpt-tokenizer holds for every rank, and its
// counts equal `countTokens(text, { disallowedSpecial: new Set() })` on this
// repository's own files (code, prose, JSON, YAML) and on seeded random texts
// of every character class the pre-tokenizer tells apart (letters of many
// scripts, digits, punctuation, whitespace and line breaks, emoji with
// modifiers and joiners, combining marks, lone surrogates, special-token
// strings, long runs).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import bpeRanks from 'gpt-tokenizer/esm/bpeRanks/cl100k_base';
import { cl100kTokenBytes, countCl100k } from '../../src/budget/cl100k.ts';

const reference = (text: string) => countTokens(text, { disallowedSpecial: new Set<string>() });
const root = fileURLToPath(new URL('../../', import.meta.url));

function repositoryTexts(): string[] {
  const texts: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const file = path.join(folder, name);
      const stat = statSync(file);
      if (stat.isDirectory()) walk(file);
      else if (stat.size < 256 * 1024 && /\.(ts|tsx|js|mjs|json|md|ya?ml|toml|sql|txt)$/.test(name)) {
        // Pieces of a few KB, as the budget counts them (boundedCount.ts).
        const text = readFileSync(file, 'utf8');
        for (let at = 0; at < text.length; at += 4000) texts.push(text.slice(at, at + 4000));
      }
    }
  };
  for (const folder of ['src', 'test', 'docs', 'rules', 'bench']) walk(path.join(root, folder));
  return texts;
}

/** A deterministic generator (mulberry32), so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const PALETTE: string[][] = [
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'],
  [...'0123456789', '٣', '½', 'Ⅻ'],
  [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'],
  [' ', '  ', '\t', '\n', '\r\n', '\r', '\u00a0', '\u3000', '\u2028'],
  [...'éüßñçøåÆŒ', ...'αβγδεΩλ', ...'абвгдЖЩ', ...'日本語中文漢字', ...'한국어', ...'עבריתالعربية', ...'हिन्दी'],
  ['😀', '👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', '\u0301', '\u200d', '\ufffd', '\ufeff'],
  [
    '\ufeff',
    '\ufeffusing',
    '\ufeff//',
    '\ufeff#',
    '\ufeff\n',
    '\ud800',
    '\udc00',
    '\ud83d',
    "'s",
    "'LL",
    "'ve",
    '<|endoftext|>',
    '<|im_start|>',
    '<|fim_middle|>',
  ],
];

function randomText(next: () => number): string {
  let text = '';
  const length = Math.floor(next() * 200);
  for (let i = 0; i < length; i++) {
    const group = PALETTE[Math.floor(next() * PALETTE.length)] as string[];
    const pick = group[Math.floor(next() * group.length)] as string;
    // Now and then a run: the merge's longest inputs.
    text += next() < 0.03 ? pick.repeat(1 + Math.floor(next() * 80)) : pick;
  }
  return text;
}

describe('the compact cl100k counter', () => {
  test('holds the bytes gpt-tokenizer holds for every rank', () => {
    const ours = cl100kTokenBytes();
    const theirs = bpeRanks as (string | number[])[];
    assert.equal(ours.size, theirs.length);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const keepingBom = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    for (const [rank, value] of theirs.entries()) {
      const bytes = ours.get(rank);
      assert.ok(bytes, `rank ${rank} missing`);
      if (typeof value === 'string') {
        // gpt-tokenizer finds it by this string, we by these bytes: the same only if they round-trip.
        assert.deepEqual(Buffer.from(bytes), Buffer.from(value, 'utf8'), `rank ${rank}`);
        assert.equal(decoder.decode(bytes), value, `rank ${rank}`);
      } else {
        assert.deepEqual([...bytes], value, `rank ${rank}`);
        // Bytes, not a string, there: not UTF-8, or UTF-8 after a byte-order mark its decoder drops (the quirk
        // cl100k.ts keeps).
        const bom = value[0] === 0xef && value[1] === 0xbb && value[2] === 0xbf;
        if (!bom) assert.throws(() => keepingBom.decode(bytes), TypeError, `rank ${rank} is UTF-8`);
      }
    }
  });

  test("counts this repository's files as gpt-tokenizer does", () => {
    const texts = repositoryTexts();
    assert.ok(texts.length > 500, `only ${texts.length} texts`);
    let tokens = 0;
    for (const text of texts) {
      const expected = reference(text);
      tokens += expected;
      if (countCl100k(text) !== expected) assert.equal(countCl100k(text), expected, JSON.stringify(text.slice(0, 200)));
    }
    assert.ok(tokens > 500_000, `only ${tokens} tokens`);
  });

  test('counts random texts of every character class as gpt-tokenizer does', () => {
    const next = seeded(28);
    for (let i = 0; i < 2500; i++) {
      const text = randomText(next);
      assert.equal(countCl100k(text), reference(text), `text ${i}: ${JSON.stringify(text)}`);
    }
  });

  test('counts the edges as gpt-tokenizer does', () => {
    for (const text of [
      '',
      'a',
      '\ud800',
      'x\ud83d',
      '\ufeff',
      '\ufeffusing System;',
      '\ufeff\n\n// x',
      ' \ufeff\ufeff\ufeff',
      '\udc00y',
      '<|endoftext|>',
      'text <|endoftext|> and <|im_end|>',
      ' '.repeat(300),
      '\n'.repeat(100),
      'z'.repeat(300),
      '9'.repeat(50),
      '😀'.repeat(80),
      'a\u0301'.repeat(60),
      Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 7919) % 256)).toString('base64'),
    ]) {
      assert.equal(countCl100k(text), reference(text), JSON.stringify(text.slice(0, 80)));
    }
  });
});
