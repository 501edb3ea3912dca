// The whole way through: a real ctxproxy (real sources on a real git repo, the
// real redactor, the real SQLite store) in front of the fake Ollama, driven by
// the openai client; then the audit page of that request, opened in chromium
// from the response's X-Ctx-Snapshot-Id, must show exactly the messages the
// fake Ollama received, context folded per source, the secret masked.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { snapshotPagePath } from '../../src/http/auditRoutes.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';
import { ARTIFACTS, LAPTOP, launchChromium } from './browserSupport.ts';

const MODEL = 'qwen2.5-coder:7b';
// Built at run time so no secret scanner flags this file; shaped like an AWS access key id.
const FAKE_KEY = ['AKIA', 'Z3QX7YB2', 'LMNOPQRS'].join('');

type Segment = { source: string | null; text: string };

/** Independent of src/ui: fences cut out of the received text, surrounding newlines dropped. */
function segmentsOf(text: string): Segment[] {
  const out: Segment[] = [];
  const pushText = (chunk: string) => {
    const trimmed = chunk.replace(/^\n+|\n+$/g, '');
    if (trimmed.trim() !== '') out.push({ source: null, text: trimmed });
  };
  let last = 0;
  for (const match of text.matchAll(/<(context(?:-update)?) source="([^"]*)"[^>]*>\n([\s\S]*?)\n<\/\1>/g)) {
    pushText(text.slice(last, match.index));
    out.push({ source: match[2] ?? '', text: match[3] ?? '' });
    last = match.index + match[0].length;
  }
  pushText(text.slice(last));
  return out;
}

describe('audit page of a real proxied request', () => {
  let fake: FakeOllama;
  let repo: TempRepo;
  let proxy: RunningProxy;
  let browser: Browser;

  before(async () => {
    fake = await startFakeOllama();
    repo = makeRepo({
      files: {
        'CLAUDE.md': '# Rules\nUse node:test for tests.\n',
        'src/server.ts': 'export function start() {\n  return listen(4141);\n}\n',
        'src/config.ts': 'export const region = "eu-west-1";\n',
      },
      unstaged: { 'src/config.ts': `export const region = "eu-west-1";\nexport const accessKeyId = "${FAKE_KEY}";\n` },
    });
    proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'git-aware' } });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await proxy?.close();
    await fake?.close();
    repo?.cleanup();
  });

  it('shows what the fake Ollama received, source by source, with the secret masked', async () => {
    const { response } = await proxy
      .client()
      .chat.completions.create({
        model: MODEL,
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'What did I change in src/config.ts?' },
        ],
      })
      .withResponse();
    const snapshotId = response.headers.get('x-ctx-snapshot-id');
    assert.ok(snapshotId, 'the response names its snapshot');
    const received = fake.chats.at(-1)?.body.messages as { role: string; content: string }[];
    assert.ok(received.length >= 2);
    const receivedText = received.map((message) => message.content).join('\n');
    assert.ok(!receivedText.includes(FAKE_KEY), 'the secret never reached the model');

    const context = await browser.newContext({ viewport: LAPTOP });
    const page = await context.newPage();
    await page.goto(`${proxy.url}${snapshotPagePath(snapshotId)}`);
    const shown = await page.$$eval('section.msg', (sections) =>
      sections.map((section) => ({
        role: section.getAttribute('data-role') ?? '',
        segments: [...section.querySelectorAll('.body > pre.msg-text, .body > details.ctx')].map((element) =>
          element.tagName === 'DETAILS'
            ? { source: element.getAttribute('data-source'), text: element.querySelector('pre')?.textContent ?? '' }
            : { source: null, text: element.textContent ?? '' },
        ),
      })),
    );
    assert.deepEqual(
      shown,
      received.map((message) => ({ role: message.role, segments: segmentsOf(message.content) })),
    );
    assert.ok(
      shown.some((message) => message.segments.some((segment) => segment.source?.startsWith('git.'))),
      'git-aware mode forwarded git context',
    );

    const markers = receivedText.match(/\[REDACTED:[^\]]+\]/g) ?? [];
    assert.ok(markers.length > 0, 'the unstaged key was masked in the forwarded context');
    assert.equal(await page.locator('.forwarded mark.redacted').count(), markers.length);
    assert.ok(!(await page.content()).includes(FAKE_KEY), 'the page never shows the secret');

    await page.click('button[data-toggle-all="open"]');
    await page.screenshot({ path: join(ARTIFACTS, 'audit-e2e-detail-laptop.png'), fullPage: true });
    await page.goto(`${proxy.url}/audit`);
    assert.equal(await page.locator(`tr[data-href="${snapshotPagePath(snapshotId)}"]`).count(), 1);
    await context.close();
  });

  it('says, for every item the model saw, why it was chosen, its tokens and what became of it', async () => {
    const { response } = await proxy
      .client()
      .chat.completions.create({
        model: MODEL,
        messages: [
          { role: 'user', content: 'What does start in src/server.ts return, and what changed in src/config.ts?' },
        ],
      })
      .withResponse();
    const snapshot = await proxy.snapshotOf(response);
    const items = (snapshot.budget?.parts ?? []).flatMap((part) =>
      part.sources.flatMap((source) => source.items ?? []),
    );
    assert.ok(items.length >= 5, 'several items were sent');

    const context = await browser.newContext({ viewport: LAPTOP });
    const page = await context.newPage();
    await page.goto(`${proxy.url}${snapshotPagePath(snapshot.id)}`);
    const rows = await page.$$eval('table.why tbody tr', (trs) =>
      trs.map((tr) => ({
        key: tr.getAttribute('data-item'),
        state: tr.getAttribute('data-state'),
        why: tr.querySelector('td.why-text')?.textContent ?? '',
        tokens: tr.querySelector('td.num')?.textContent ?? '',
        sent: tr.querySelector('td[data-label="Sent?"]')?.textContent ?? '',
      })),
    );
    for (const item of items) {
      const row = rows.find((candidate) => candidate.key === item.key);
      assert.ok(row, `${item.key} has a row`);
      assert.equal(row.why, item.why ?? '(its source gave no reason)', `${item.key}: why`);
      assert.equal(row.tokens, item.tokens.toLocaleString('en-US'), `${item.key}: tokens`);
      assert.match(row.sent, /^sent new/, `${item.key}: sent`);
    }
    const named = rows.find((row) => row.key === 'files.named.src/config.ts');
    assert.equal(named?.why, 'named in the question');
    assert.ok(await page.locator('table.why').isVisible(), 'the table is on screen, not hidden');
    assert.match((await page.locator('.mode-reason').textContent()) ?? '', /Why: the server's --mode setting/);
    // Each context fence, unfolded, says why too.
    const fenceWhy = await page.$$eval('details.ctx[data-source="files.named.src/config.ts"] .why-line', (lines) =>
      lines.map((line) => line.textContent),
    );
    assert.deepEqual(fenceWhy, ['why: named in the question']);
    await page.locator('table.why').screenshot({ path: join(ARTIFACTS, 'audit-e2e-why-laptop.png') });
    await page.screenshot({ path: join(ARTIFACTS, 'audit-e2e-why-detail-laptop.png'), fullPage: true });
    await context.close();
  });

  it('shows a refused request in the list with its question, model and reason', async () => {
    const refused = await fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ctx-mode': 'turbo' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Why is the build slow?' }] }),
    });
    assert.equal(refused.status, 400);
    const id = refused.headers.get('x-ctx-snapshot-id') ?? '';
    await proxy.store.flush();
    const context = await browser.newContext({ viewport: LAPTOP });
    const page = await context.newPage();
    await page.goto(`${proxy.url}/audit`);
    const row = page.locator(`tr[data-href="${snapshotPagePath(id)}"]`);
    assert.equal(await row.locator('td[data-label="Model"]').textContent(), MODEL);
    assert.match((await row.locator('td.question').textContent()) ?? '', /^Why is the build slow\?/);
    const reason = row.locator('[data-refusal]');
    assert.match((await reason.textContent()) ?? '', /^refused: 400 X-Ctx-Mode "turbo" is not a mode/);
    assert.ok(await reason.isVisible());
    assert.equal(await row.locator('td[data-label="Workspace"]').getAttribute('title'), repo.dir);
    await page.screenshot({ path: join(ARTIFACTS, 'audit-e2e-list-refused-laptop.png'), fullPage: true });
    await context.close();
  });
});
