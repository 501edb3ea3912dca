import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fenceItem, splitContextFences } from '../../src/shared/contextFences.ts';
import type { ContextItem } from '../../src/shared/types.ts';
import { shownText, splitRedactions } from '../../src/ui/messageText.ts';

const item = (key: string, text: string, title = key): ContextItem => ({
  key,
  source: key.split('.')[0] ?? key,
  title,
  text,
  priority: 1,
  kind: 'text',
});

describe('splitContextFences', () => {
  it('reads the fences the assembler writes, titles and updates included', () => {
    // The assembler's own fence function, so a change in its format breaks this test, not the page.
    const text = [
      'preamble',
      fenceItem(item('git.status', 'M a.ts\nM b.ts')),
      fenceItem(item('files.src/a "b".ts', 'x < y', 'src/a > "b".ts')),
      fenceItem(item('stacktrace.frames', 'at main (a.ts:1)'), 'context-update'),
      'tail',
    ].join('\n\n');
    const segments = splitContextFences(text);
    assert.deepEqual(
      segments.map((segment) =>
        segment.kind === 'context' ? [segment.source, segment.update, segment.text] : segment.text,
      ),
      [
        'preamble\n\n',
        ['git.status', false, 'M a.ts\nM b.ts'],
        '\n\n',
        ['files.src/a "b".ts', false, 'x < y'],
        '\n\n',
        ['stacktrace.frames', true, 'at main (a.ts:1)'],
        '\n\ntail',
      ],
    );
  });

  it('leaves text without fences whole', () => {
    assert.deepEqual(splitContextFences('just a question'), [{ kind: 'text', text: 'just a question' }]);
  });
});

describe('splitRedactions', () => {
  it('finds each marker with its rule id', () => {
    assert.deepEqual(splitRedactions('key=[REDACTED:aws-access-key-id] and [REDACTED:@secretlint/x]'), [
      { kind: 'text', text: 'key=' },
      { kind: 'redacted', ruleId: 'aws-access-key-id', text: '[REDACTED:aws-access-key-id]' },
      { kind: 'text', text: ' and ' },
      { kind: 'redacted', ruleId: '@secretlint/x', text: '[REDACTED:@secretlint/x]' },
    ]);
  });
});

describe('shownText', () => {
  it('joins text parts and names images without their data', () => {
    const text = shownText({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(500)}` } },
      ],
    });
    assert.match(text, /^look\n\[image: data:image\/png;base64,A+…\]$/);
    assert.ok(text.length < 100);
  });
});

describe('shownText of a stored image', () => {
  it('shows its type, size and the start of its hash', () => {
    const text = shownText({
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: `sha256:${'ab'.repeat(32)}`, media_type: 'image/png', bytes: 8 } },
      ],
    });
    assert.equal(text, '[image: image/png, 8 bytes, sha256:abababababab…]');
  });
});
