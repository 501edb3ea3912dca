// The audit pages in a real browser (Debian's chromium through playwright-core)
// against a real server and the real SQLite store on a temp file: list, filter,
// detail, expanding a context block, and what is shown equals what was
// forwarded. Screenshots (laptop and phone) land in test-artifacts/.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type AuditStoreFull, openAuditStore } from '../../src/audit/store.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { shownText } from '../../src/ui/messageText.ts';
import { ARTIFACTS, LAPTOP, launchChromium, PHONE, type RunningServer, startServer } from './browserSupport.ts';
import { conversationOf, HOSTILE, makeSnapshot } from './snapshotFixtures.ts';
import { testApp } from './testApp.ts';

type ShownSegment = { source: string | null; text: string };

/** The expected view of a message, parsed here independently of src/ui. */
function expectedSegments(message: ChatMessage): ShownSegment[] {
  const text = shownText(message);
  const out: ShownSegment[] = [];
  const fence = /<(context(?:-update)?) source="([^"]*)"[^>]*>\n([\s\S]*?)\n<\/\1>/g;
  let last = 0;
  const pushText = (chunk: string) => {
    const trimmed = chunk.replace(/^\n+|\n+$/g, '');
    if (trimmed.trim() !== '') out.push({ source: null, text: trimmed });
  };
  for (const match of text.matchAll(fence)) {
    pushText(text.slice(last, match.index));
    out.push({ source: match[2] ?? '', text: match[3] ?? '' });
    last = match.index + match[0].length;
  }
  pushText(text.slice(last));
  return out;
}

async function shownMessages(page: Page): Promise<{ role: string; segments: ShownSegment[] }[]> {
  return page.$$eval('section.msg', (sections) =>
    sections.map((section) => ({
      role: section.getAttribute('data-role') ?? '',
      segments: [...section.querySelectorAll('.body > pre.msg-text, .body > details.ctx')].map((element) =>
        element.tagName === 'DETAILS'
          ? { source: element.getAttribute('data-source'), text: element.querySelector('pre')?.textContent ?? '' }
          : { source: null, text: element.textContent ?? '' },
      ),
    })),
  );
}

describe('the browser test setup', () => {
  it('fails, never skips, when chromium is missing, and says how to install it', async () => {
    await assert.rejects(launchChromium('/nonexistent/chromium'), /apt-get install -y chromium/);
  });
});

describe('audit pages in a real browser', () => {
  let dir: string;
  let store: AuditStoreFull;
  let server: RunningServer;
  let browser: Browser;
  const conversation = conversationOf('conv-browser', 3);
  const failed = makeSnapshot({
    id: 'failed-1',
    outcome: 'error',
    model: 'llama3.2:3b',
    error: { status: 502, type: 'upstream_error', code: 'upstream_unavailable', message: 'Ollama is not running.' },
    reply: { content: '' },
    forwarded: [{ role: 'user', content: 'Summarize the open pull request' }],
  });
  const detailed = makeSnapshot({
    id: 'detail-1',
    modeAsked: 'deep',
    modeUsed: 'quick',
    downgradeReason: 'conversation plus context exceeded 80% of the window',
    warnings: ['git.diff trimmed to 3,000 tokens'],
  });
  const hostile = makeSnapshot({ id: 'hostile-1', model: 'qwen2.5-coder:7b', reply: { content: HOSTILE } });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ctxproxy-ui-'));
    store = openAuditStore({ path: join(dir, 'audit.db') });
    for (const snapshot of [...conversation, failed, hostile, detailed]) store.save(snapshot);
    await store.flush();
    server = await startServer(testApp({ store, conversation: (id) => store.conversation(id) }));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists, filters, opens a detail page and shows exactly the forwarded messages', async () => {
    const context = await browser.newContext({ viewport: LAPTOP });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${server.url}/audit`);
    assert.equal(await page.locator('table.list tbody tr').count(), 6);
    await page.screenshot({ path: join(ARTIFACTS, 'audit-list-laptop.png'), fullPage: true });

    // Filter through the form: choosing an outcome submits it (the inline script), the URL carries it.
    await page.selectOption('select[name="outcome"]', 'error');
    await page.waitForURL(/outcome=error/);
    const rows = page.locator('table.list tbody tr');
    assert.equal(await rows.count(), 1);
    assert.match((await rows.first().textContent()) ?? '', /Summarize the open pull request/);

    // Text search, submitted with the button (works without the script too).
    await page.goto(`${server.url}/audit`);
    await page.fill('input[name="text"]', 'crash');
    await page.click('form.filters button[type="submit"]');
    await page.waitForURL(/text=crash/);
    assert.equal(await rows.count(), 2, 'the two standalone snapshots whose question mentions a crash');

    await page.click(`a[href="/audit/${detailed.id}"]`);
    await page.waitForURL(`${server.url}/audit/${detailed.id}`);
    assert.match((await page.locator('.facts').textContent()) ?? '', /Downgraded: conversation plus context/);

    const shown = await shownMessages(page);
    assert.deepEqual(
      shown.map((message) => message.role),
      detailed.forwarded.map((message) => message.role),
    );
    shown.forEach((message, index) => {
      const forwarded = detailed.forwarded[index];
      assert.ok(forwarded);
      assert.deepEqual(message.segments, expectedSegments(forwarded), `message ${index + 1}`);
    });

    // Context is folded: closed until its summary is clicked, then its text is on screen.
    const gitBlock = page.locator('details.ctx[data-source="git.status"]');
    assert.equal(await gitBlock.locator('pre').isVisible(), false);
    await gitBlock.locator('summary').click();
    assert.equal(await gitBlock.locator('pre').isVisible(), true);
    assert.equal(await gitBlock.locator('pre').textContent(), 'branch main\nM src/server.ts\nM src/stable.ts');
    assert.equal(await page.locator('mark.redacted').first().textContent(), '[REDACTED:aws-access-key-id]');
    await page.screenshot({ path: join(ARTIFACTS, 'audit-detail-laptop.png'), fullPage: true });

    // "Expand all" exists only with the script, and opens every block.
    await page.click('button[data-toggle-all="open"]');
    assert.equal(await page.locator('details.ctx:not([open])').count(), 0);

    await page.goto(`${server.url}/audit/conversations/conv-browser?turn=3`);
    assert.match((await page.locator('.change[data-diff="Context block"]').textContent()) ?? '', /\+1 −1 lines/);
    await page.screenshot({ path: join(ARTIFACTS, 'audit-conversation-laptop.png'), fullPage: true });

    // The same page in the dark scheme (the stylesheet follows prefers-color-scheme).
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${server.url}/audit/${detailed.id}`);
    await page.click('button[data-toggle-all="open"]');
    await page.screenshot({ path: join(ARTIFACTS, 'audit-detail-laptop-dark.png'), fullPage: true });

    assert.deepEqual(problems, [], 'no script errors and no CSP violations');
    await context.close();
  });

  it('runs no script from snapshot text', async () => {
    const context = await browser.newContext({ viewport: LAPTOP });
    const page = await context.newPage();
    await page.goto(`${server.url}/audit/${hostile.id}`);
    assert.equal(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('pre.reply-text').textContent(), HOSTILE);
    await context.close();
  });

  it('works without JavaScript: filter, page, open a detail, unfold context', async () => {
    const context = await browser.newContext({ viewport: LAPTOP, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/audit?limit=2`);
    assert.equal(await page.locator('table.list tbody tr').count(), 2);
    await page.click('a[rel="next"]');
    await page.waitForURL(/before=/);
    assert.equal(await page.locator('table.list tbody tr').count(), 2, 'the second page');
    await page.goto(`${server.url}/audit`);
    await page.selectOption('select[name="mode"]', 'deep');
    await page.click('form.filters button[type="submit"]');
    await page.waitForURL(/mode=deep/);
    await page.click(`a[href="/audit/${detailed.id}"]`);
    await page.waitForURL(`${server.url}/audit/${detailed.id}`);
    assert.equal(
      await page.locator('button[data-toggle-all]').first().isVisible(),
      false,
      'script-only buttons stay hidden',
    );
    const block = page.locator('details.ctx[data-source="instructions.project"]');
    await block.locator('summary').click();
    assert.equal(await block.locator('pre').textContent(), '# Project rules\nUse node:test. Never log prompts.');
    await context.close();
  });

  it('signs in with the token through the form, and the cookie is out of the page’s reach', async () => {
    const token = 'browser-test-token';
    const guarded = await startServer(testApp({ store, authToken: token }));
    const context = await browser.newContext({ viewport: LAPTOP });
    try {
      const page = await context.newPage();
      await page.goto(`${guarded.url}/audit/${detailed.id}`);
      assert.match(page.url(), /\/audit\/login\?next=/);
      await page.fill('input[name="token"]', 'wrong');
      await page.click('button[type="submit"]');
      assert.match((await page.locator('[role="alert"]').textContent()) ?? '', /not the one/);
      await page.fill('input[name="token"]', token);
      await page.click('button[type="submit"]');
      await page.waitForURL(`${guarded.url}/audit/${detailed.id}`);
      assert.equal(await page.locator('section.msg').count(), detailed.forwarded.length);
      assert.equal(
        await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie),
        '',
      );
      await page.click('text=Sign out');
      await page.waitForURL(/\/audit\/login/);
      await page.goto(`${guarded.url}/audit`);
      assert.match(page.url(), /\/audit\/login/, 'signed out for real');
    } finally {
      await context.close();
      await guarded.close();
    }
  });

  it('reads well on a phone: the list becomes stacked rows', async () => {
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${server.url}/audit`);
    assert.equal(await page.locator('table.list thead').isVisible(), false);
    const scrollWidth = await page.locator('html').evaluate((html) => html.scrollWidth);
    assert.ok(scrollWidth <= PHONE.width, `no sideways scrolling (page is ${scrollWidth}px wide)`);
    await page.screenshot({ path: join(ARTIFACTS, 'audit-list-phone.png'), fullPage: true });
    await page.goto(`${server.url}/audit/${detailed.id}`);
    await page.locator('details.ctx[data-source="files.src/config.ts"] summary').click();
    const detailWidth = await page.locator('html').evaluate((html) => html.scrollWidth);
    assert.ok(detailWidth <= PHONE.width, `detail page fits (is ${detailWidth}px wide)`);
    await page.screenshot({ path: join(ARTIFACTS, 'audit-detail-phone.png'), fullPage: true });
    await context.close();
  });
});
