import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIT_SESSION_COOKIE } from '../../src/http/auditRoutes.ts';
import { memoryAuditStore } from '../support/memoryAuditStore.ts';
import { makeSnapshot } from './snapshotFixtures.ts';
import { testApp } from './testApp.ts';

const TOKEN = 'correct horse battery staple';

function protectedApp() {
  return testApp({ store: memoryAuditStore([makeSnapshot({ id: 's1' })]), authToken: TOKEN });
}

function login(app: ReturnType<typeof protectedApp>, token: string, next = '/audit/s1') {
  return app.request('/audit/login', {
    method: 'POST',
    body: new URLSearchParams({ token, next }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

function cookieFrom(response: Response): string {
  const header = response.headers.get('set-cookie') ?? '';
  return header.split(';')[0] ?? '';
}

describe('audit access with an auth token', () => {
  it('sends a page visitor without the cookie to the login form, remembering where they were going', async () => {
    const response = await protectedApp().request('/audit/s1?x=1');
    assert.equal(response.status, 302);
    assert.equal(response.headers.get('location'), `/audit/login?next=${encodeURIComponent('/audit/s1?x=1')}`);
    const form = await protectedApp().request('/audit/login?next=%2Faudit%2Fs1');
    assert.equal(form.status, 200);
    assert.match(await form.text(), /<input type="hidden" name="next" value="\/audit\/s1"/);
  });

  it('sets an HttpOnly, SameSite=Strict, Path=/ cookie for the right token and redirects back', async () => {
    const app = protectedApp();
    const response = await login(app, TOKEN);
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), '/audit/s1');
    const setCookie = response.headers.get('set-cookie') ?? '';
    assert.match(setCookie, new RegExp(`^${AUDIT_SESSION_COOKIE}=`));
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    assert.match(setCookie, /Path=\//);
    assert.ok(
      !setCookie.includes(encodeURIComponent(TOKEN)) && !setCookie.includes(TOKEN),
      'the token is not the cookie',
    );

    const page = await app.request('/audit/s1', { headers: { cookie: cookieFrom(response) } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Sign out/);
    const api = await app.request('/api/audit/snapshots', { headers: { cookie: cookieFrom(response) } });
    assert.equal(api.status, 200);
  });

  it('refuses a wrong token with 401 and no cookie', async () => {
    const response = await login(protectedApp(), `${TOKEN}!`);
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('set-cookie'), null);
    assert.match(await response.text(), /That token is not the one/);
  });

  it('ignores a forged cookie', async () => {
    const response = await protectedApp().request('/audit', {
      headers: { cookie: `${AUDIT_SESSION_COOKIE}=${TOKEN}` },
    });
    assert.equal(response.status, 302);
  });

  it('redirects only to its own pages after sign-in', async () => {
    for (const next of ['https://evil.example/', '//evil.example/audit', '/v1/models', '/audit\\..\\x']) {
      const response = await login(protectedApp(), TOKEN, next);
      assert.equal(response.headers.get('location'), '/audit', next);
    }
  });

  it('takes the bearer token on the API and answers 401 without it', async () => {
    const app = protectedApp();
    const missing = await app.request('/api/audit/snapshots');
    assert.equal(missing.status, 401);
    const body = (await missing.json()) as { error: { type: string } };
    assert.equal(body.error.type, 'authentication_error');
    const wrong = await app.request('/api/audit/snapshots/s1', { headers: { authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
    const right = await app.request('/api/audit/snapshots/s1', { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(right.status, 200);
  });

  it('signs out by clearing the cookie', async () => {
    const app = protectedApp();
    const cookie = cookieFrom(await login(app, TOKEN));
    const response = await app.request('/audit/logout', { method: 'POST', headers: { cookie } });
    assert.equal(response.status, 303);
    assert.match(response.headers.get('set-cookie') ?? '', /Max-Age=0/);
  });
});

describe('audit access without a token', () => {
  it('serves pages and API directly and has no login', async () => {
    const app = testApp({ store: memoryAuditStore([makeSnapshot({ id: 's1' })]) });
    assert.equal((await app.request('/audit/s1')).status, 200);
    assert.equal((await app.request('/api/audit/snapshots')).status, 200);
    const login = await app.request('/audit/login');
    assert.equal(login.status, 302);
    assert.equal(login.headers.get('location'), '/audit');
    assert.doesNotMatch(await (await app.request('/audit')).text(), /Sign out/);
  });
});
