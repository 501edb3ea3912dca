import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { OVERLAP_CHARS, PIECE_CHARS, pieces, WHOLE_SCAN_MAX } from '../../src/redact/pieces.ts';

describe('scanning large texts in pieces', () => {
  it('covers the text with pieces that overlap by at least OVERLAP_CHARS', () => {
    for (const text of [
      'x'.repeat(1_000_000),
      'short line\n'.repeat(60_000),
      `${'y'.repeat(300_000)}\n${'z\n'.repeat(100_000)}`,
    ]) {
      const list = pieces(text);
      assert.equal(list[0]?.start, 0);
      assert.equal(list.at(-1)?.end, text.length);
      for (let i = 1; i < list.length; i++) {
        const previous = list[i - 1]!;
        const piece = list[i]!;
        assert.ok(piece.start > previous.start, 'progress');
        assert.ok(previous.end >= piece.start + OVERLAP_CHARS, 'overlap');
        assert.ok(piece.end - piece.start <= PIECE_CHARS + 2 * OVERLAP_CHARS, 'bounded');
      }
    }
  });

  it('masks secrets on both sides of every cut in a text far larger than one piece', async () => {
    const redactor = await createRedactor();
    const key = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const pem = [
      '-----BEGIN RSA PRIVATE KEY-----',
      ...Array.from(
        { length: 25 },
        (_, i) => `MIIEowIBAAKCAQEA${String(i).padStart(2, '0')}x7Yk2mQ9vL3pR8tW1zB6nC4sD0fG5hJ2kL7mN9pQ3rS6tV8w`,
      ),
      '-----END RSA PRIVATE KEY-----',
    ].join('\n');
    // Filler of one long line and of short lines, secrets placed across the cut points.
    const filler = 'lorem ipsum dolor sit amet '.repeat(1_000);
    const parts: string[] = [];
    for (let i = 0; i < 12; i++)
      parts.push(filler, `\nexport GITHUB_TOKEN=${key}\n`, 'q'.repeat(PIECE_CHARS - 200), `\n${pem}\n`);
    const text = parts.join('');
    assert.ok(text.length > WHOLE_SCAN_MAX * 4);
    const result = await redactor.redact(text);
    assert.equal(result.text.includes(key), false, 'no token left');
    assert.equal(result.text.includes('MIIEowIBAAKCAQEA07'), false, 'no key body left');
    assert.equal((result.text.match(/BEGIN RSA PRIVATE KEY/g) ?? []).length, 12, 'markers kept');
  });
});
