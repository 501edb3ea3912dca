// Audit sign-in sessions: a random id per sign-in, kept in memory with an expiry,
// revoked by sign-out and by a restart. (Today's cookie was an HMAC of the token
// and a constant: the same value forever, still valid after sign-out.)

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIT_SESSION_COOKIE, type AuditRoutesDeps } from '../../src/http/auditRoutes.ts';
import { memoryAuditStore } from '../support/memoryAuditStore.ts';
import { makeSnapshot } from '../ui/snapshotFixtures.ts';
import { testApp } from '../ui/testApp.ts';

const TOKEN = 'correct horse battery staple';

function protectedApp(options: Partial<AuditRoutesDeps> = {}) {
  return testApp({ store: memoryAuditStore([makeSnapshot({ id: 's1' })]), authToken: TOKEN, ...options });
}

async function signIn(app: ReturnType<typeof protectedApp>): Promise<{ cookie: string; setCookie: string }> {
  const response = await app.request('/audit/login', {
    method: 'POST',
    body: new URLSearchParams({ token: TOKEN, next: '/audit' }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(response.status, 303);
  const setCookie = response.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0] ?? '', setCookie };
}

const apiStatus = async (app: ReturnType<typeof protectedApp>, cookie: string) =>
  (await app.request('/api/audit/snapshots', { headers: { cookie } })).status;

describe('audit sign-in sessions', () => {
  it('gives every sign-in its own random id, with Max-Age 12 h, HttpOnly and SameSite=Strict', async () => {
    const app = protectedApp();
    const first = await signIn(app);
    const second = await signIn(app);
    assert.notEqual(first.cookie, second.cookie);
    assert.match(first.cookie, new RegExp(`^${AUDIT_SESSION_COOKIE}=[A-Za-z0-9_-]{43}$`));
    assert.match(first.setCookie, /Max-Age=43200/);
    assert.match(first.setCookie, /HttpOnly/);
    assert.match(first.setCookie, /SameSite=Strict/);
    assert.equal(await apiStatus(app, first.cookie), 200);
    assert.equal(await apiStatus(app, second.cookie), 200);
  });

  it('sign-out revokes the session on the server, not just in the browser', async () => {
    const app = protectedApp();
    const { cookie } = await signIn(app);
    const other = await signIn(app);
    const out = await app.request('/audit/logout', { method: 'POST', headers: { cookie } });
    assert.equal(out.status, 303);
    // A copy of the cookie kept from before sign-out is worth nothing now.
    assert.equal(await apiStatus(app, cookie), 401);
    assert.equal((await app.request('/audit/s1', { headers: { cookie } })).status, 302);
    // Other sessions are untouched.
    assert.equal(await apiStatus(app, other.cookie), 200);
  });

  it('expires a session after its lifetime', async () => {
    let now = 1_000_000;
    const app = protectedApp({ sessionTtlMs: 60_000, now: () => now });
    const { cookie, setCookie } = await signIn(app);
    assert.match(setCookie, /Max-Age=60/);
    now += 59_000;
    assert.equal(await apiStatus(app, cookie), 200);
    now += 2_000;
    assert.equal(await apiStatus(app, cookie), 401);
  });

  it('a restart (a new app) signs everybody out', async () => {
    const { cookie } = await signIn(protectedApp());
    assert.equal(await apiStatus(protectedApp(), cookie), 401);
  });
});
