// Attacks from a web page, in a real browser (Debian's chromium through
// playwright-core), against the real server on a real socket with the fake
// Ollama behind it. The attacker's site `evil.test` is mapped to 127.0.0.1 with
// --host-resolver-rules and served by a tiny HTTP server of this test. The page:
//   (a) DNS rebinding: a page on http://evil.test:PORT (PORT = ctxproxy's) whose
//       name now resolves to 127.0.0.1 reads /api/audit/snapshots and runs a chat,
//       both same-origin in the browser's eyes;
//   (b) a no-cors POST with a Blob body (no Content-Type) to http://127.0.0.1:PORT;
//   (c) navigator.sendBeacon;
//   (d) a form POST (enctype text/plain, crafted to be valid JSON).
// None may reach the model, read data or leave text in the audit log; each is
// refused, logged and counted. The audit pages' own sign-in still works.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import type { LogFields } from '../../src/shared/ports.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { until } from '../support/poll.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';
import { CHROMIUM } from '../ui/browserSupport.ts';

const MODEL = 'llama3.2:3b';
const PRIVATE = 'PRIVATE-CONVERSATION-4c1d';
const ATTACK = 'ATTACKER-TEXT-93be';
const TOKEN = 'correct horse battery staple';

/** The attacker's page: its script runs each attack against `target` and reports what it could see. */
const ATTACK_PAGE = `<!doctype html><html><body>
<iframe name="sink" id="sink"></iframe>
<form id="form" method="post" enctype="text/plain" target="sink"></form>
</body></html>`;

/** (b), (c) and (d), as the attacker's page runs them (plain browser JavaScript). */
const CROSS_SITE_ATTACKS = `async ({ target, body, attack }) => {
  const noCors = await fetch(target, { method: 'POST', mode: 'no-cors', body: new Blob([body]) }).then(
    (r) => r.type,
    (e) => 'error ' + e.message,
  );
  const beacon = navigator.sendBeacon(target, new Blob([body]));
  const form = document.getElementById('form');
  form.action = target;
  const field = document.createElement('input');
  // text/plain encodes name=value: this pair makes the body valid JSON.
  field.name = '{"model":"llama3.2:3b","messages":[{"role":"user","content":"' + attack;
  field.value = '"}]}';
  form.appendChild(field);
  form.submit();
  return { noCors, beacon };
}`;

async function startAttackerSite(): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(ATTACK_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium.`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--host-resolver-rules=MAP evil.test 127.0.0.1',
      // The worst case: a browser without Chrome's private/local-network blocks (Firefox, Safari, older Chrome).
      '--disable-features=PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,BlockInsecurePrivateNetworkRequests,LocalNetworkAccessChecks',
    ],
  });
}

describe('a hostile web page against ctxproxy, in a real browser', () => {
  let fake: FakeOllama;
  let proxy: RunningProxy;
  let attacker: { port: number; close(): Promise<void> };
  let browser: Browser;
  const logs: { event: string; fields: LogFields }[] = [];
  const record = (event: string, fields: LogFields = {}) => logs.push({ event, fields });

  before(async () => {
    fake = await startFakeOllama();
    proxy = await startProxy({ upstreamUrl: fake.url, logger: { info: record, warn: record, error: record } });
    attacker = await startAttackerSite();
    browser = await launch();
    // The user's own conversation, which the attacker is after.
    await proxy.client().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: PRIVATE }] });
    await proxy.store.flush();
  });
  after(async () => {
    await browser?.close();
    await attacker?.close();
    await proxy?.close();
    await fake?.close();
  });

  it('refuses the rebinding read, the no-cors POST, sendBeacon and the form POST', async () => {
    const port = new URL(proxy.url).port;
    const chatsBefore = fake.chats.length;
    const rowsBefore = proxy.store.stats().snapshots;
    const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: ATTACK }] });
    const context = await browser.newContext();
    try {
      // (a) After the rebinding, evil.test:PORT resolves to 127.0.0.1; the page itself was served while it
      // still pointed at the attacker, which the route below plays (later requests go to the network).
      const rebound = await context.newPage();
      await rebound.route(`http://evil.test:${port}/`, (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: ATTACK_PAGE }),
      );
      await rebound.goto(`http://evil.test:${port}/`);
      const stolen = await rebound.evaluate(async (chat) => {
        const read = await fetch('/api/audit/snapshots');
        const run = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: chat,
        });
        return {
          readStatus: read.status,
          readText: await read.text(),
          chatStatus: run.status,
          snapshotId: run.headers.get('x-ctx-snapshot-id'),
        };
      }, body);
      assert.equal(stolen.readStatus, 403);
      assert.doesNotMatch(stolen.readText, new RegExp(PRIVATE));
      assert.equal(stolen.chatStatus, 403);
      assert.equal(stolen.snapshotId, null);

      // (b), (c), (d) from the attacker's own site, at the real address.
      const page = await context.newPage();
      await page.goto(`http://evil.test:${attacker.port}/`);
      const target = `${proxy.url}/v1/chat/completions`;
      const outcome = (await page.evaluate(
        `(${CROSS_SITE_ATTACKS})(${JSON.stringify({ target, body, attack: ATTACK })})`,
      )) as { noCors: string; beacon: boolean };
      // Opaque, or (with Cross-Origin-Resource-Policy: same-origin on every answer) blocked outright.
      assert.ok(
        outcome.noCors === 'opaque' || outcome.noCors.startsWith('error'),
        `the page learns nothing from a no-cors answer (${outcome.noCors})`,
      );

      // Every attempt arrives and is refused: 2 by Host (a), 3 by Origin (b, c, d).
      const refusals = async () => {
        const health = (await (await fetch(`${proxy.url}/healthz`)).json()) as {
          refused?: { total: number; host: number; origin: number };
        };
        return health.refused;
      };
      await until(async () => ((await refusals())?.total ?? 0) >= 5, 'five refusals to be counted');
      const counted = await refusals();
      assert.equal(counted?.host, 2);
      assert.equal(counted?.origin, 3);
      const logged = logs.filter((line) => line.event === 'http.refused').map((line) => line.fields.reason);
      assert.deepEqual(logged.sort(), ['host', 'host', 'origin', 'origin', 'origin']);

      assert.equal(fake.chats.length, chatsBefore, 'nothing reached the model');
      await proxy.store.flush();
      assert.equal(proxy.store.stats().snapshots, rowsBefore, 'no audit row for any attempt');
      for (const file of [proxy.dbPath, `${proxy.dbPath}-wal`]) {
        if (existsSync(file)) assert.ok(!readFileSync(file).includes(ATTACK), `${file} holds no attacker text`);
      }
      assert.ok(!JSON.stringify(logs).includes(ATTACK), 'the log holds no attacker text');
    } finally {
      await context.close();
    }
  });

  it("keeps the audit pages' own sign-in form, links and sign-out working", async () => {
    const locked = await startProxy({ upstreamUrl: fake.url, authToken: TOKEN });
    await locked
      .client({ apiKey: TOKEN })
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'a question' }] });
    await locked.store.flush();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${locked.url}/audit`);
      assert.match(page.url(), /\/audit\/login/);
      await page.fill('input[name="token"]', TOKEN);
      await Promise.all([page.waitForURL(`${locked.url}/audit`), page.click('button[type="submit"]')]);
      // Links inside the audit pages (the pages' CSP allows no script fetches).
      await Promise.all([page.waitForURL(/\/audit\/s_/), page.click('a[href^="/audit/s_"]')]);
      const api = await page.goto(`${locked.url}/api/audit/snapshots`);
      assert.equal(api?.status(), 200);
      await page.goto(`${locked.url}/audit`);
      // Sign-out revokes the session; the old cookie no longer opens the API.
      const [cookie] = await context.cookies(locked.url);
      assert.ok(cookie);
      await Promise.all([page.waitForURL(/\/audit\/login/), page.click('form[action="/audit/logout"] button')]);
      const reused = await fetch(`${locked.url}/api/audit/snapshots`, {
        headers: { cookie: `${cookie.name}=${cookie.value}` },
      });
      assert.equal(reused.status, 401);
    } finally {
      await context.close();
      await locked.close();
    }
  });
});
