// The diff keeper on git's output as it streams: each file kept up to its
// limit with a note, the next file kept again, the same answer however the
// pipe cuts the stream into chunks, a line too long to carry dropped, and a
// stop once the total or the read limit is passed.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffKeeper } from '../../../src/sources/git/diffKeeper.ts';

const fileDiff = (name: string, lines: number, width = 20) =>
  `diff --git a/${name} b/${name}\nindex 1..2 100644\n--- a/${name}\n+++ b/${name}\n@@ -1 +1,${lines} @@\n${Array.from(
    { length: lines },
    (_, i) => `+${String(i).padStart(width, 'x')}\n`,
  ).join('')}`;

function feed(text: string, chunkSizes: number[], limits = { fileBytes: 400, keepBytes: 10_000, readBytes: 1e9 }) {
  const keeper = diffKeeper(limits);
  const data = Buffer.from(text);
  let at = 0;
  let i = 0;
  let going = true;
  while (at < data.length && going) {
    const size = chunkSizes[i++ % chunkSizes.length] ?? 1;
    going = keeper.push(data.subarray(at, at + size));
    at += size;
  }
  return { ...keeper.result(!going), going };
}

const text = fileDiff('big.log', 200) + fileDiff('small.js', 2) + fileDiff('mid.txt', 10);

test('a file past its limit keeps whole lines and a note; the files after it are kept', () => {
  const { text: kept, cut } = feed(text, [text.length]);
  assert.equal(cut, true);
  const [big, small, mid] = kept.split(/(?=^diff --git )/m);
  assert.ok(big && Buffer.byteLength(big) <= 400 + 80, `${big?.length}`);
  assert.match(big ?? '', /\n\+x+\d+\n… the rest of this file's changes was not read \(over 400 bytes\)\n$/);
  assert.equal(small, fileDiff('small.js', 2));
  assert.equal(mid, fileDiff('mid.txt', 10));
});

test('the same answer whatever the chunk sizes', () => {
  const whole = feed(text, [text.length]);
  for (const sizes of [[1], [7], [13, 1, 64], [4096], [11, 12]]) {
    assert.deepEqual(feed(text, sizes), whole, `chunks of ${sizes.join(',')}`);
  }
});

test('a line too long to carry is dropped to its end; the next file is kept', () => {
  const long = `diff --git a/min.js b/min.js\n@@ -1 +1 @@\n+${'z'.repeat(200_000)}\n`;
  const all = long + fileDiff('after.js', 3);
  const { text: kept } = feed(all, [65536], { fileBytes: 1000, keepBytes: 10_000, readBytes: 1e9 });
  assert.ok(kept.startsWith('diff --git a/min.js b/min.js\n@@ -1 +1 @@\n… the rest'));
  assert.ok(kept.endsWith(fileDiff('after.js', 3)));
  assert.doesNotMatch(kept, /zzz/);
});

test('past the total kept, or the bytes read, the keeper asks to stop', () => {
  const total = feed(text, [50], { fileBytes: 10_000, keepBytes: 300, readBytes: 1e9 });
  assert.equal(total.going, false);
  assert.equal(total.cut, true);
  assert.ok(Buffer.byteLength(total.text) <= 300 + 80);
  assert.ok(total.text.endsWith('\n'), 'whole lines only');
  const read = feed(text, [100], { fileBytes: 10_000, keepBytes: 10_000, readBytes: 1000 });
  assert.equal(read.going, false);
  assert.equal(read.cut, true);
  assert.ok(Buffer.byteLength(read.text) <= 1000 && read.text.endsWith('\n'));
});
