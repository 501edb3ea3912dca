// Guessing the auth token (issue 24, item 7): an address that keeps sending
// wrong tokens is answered 429 with Retry-After, whatever the channel (the API,
// the audit API, the audit sign-in form, /healthz), and while it waits even the
// right token is not looked at; after the wait the right token works again. The
// real server, with a token; the fake Ollama. The lockouts are timed by a clock
// the test steps, so a slow machine cannot let a guess through early or late.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const TOKEN = 'the-right-token-5d1f';
let fake: FakeOllama;
let proxy: RunningProxy;
/** The server's clock for lockouts, in milliseconds: it moves only when a test moves it. */
let clock = 1_000_000;

before(async () => {
  fake = await startFakeOllama();
  proxy = await startProxy({ upstreamUrl: fake.url, authToken: TOKEN, now: () => clock });
});
after(async () => {
  await proxy.close();
  await fake.close();
});

const models = (token: string) => fetch(`${proxy.baseURL}/models`, { headers: { authorization: `Bearer ${token}` } });

/** Each channel a token can be tried on, with a wrong guess. */
const GUESSES: Record<string, (guess: string) => Promise<Response>> = {
  api: (guess) => models(guess),
  'audit api': (guess) => fetch(`${proxy.url}/api/audit/snapshots`, { headers: { authorization: `Bearer ${guess}` } }),
  'sign-in form': (guess) =>
    fetch(`${proxy.url}/audit/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: proxy.url,
        'sec-fetch-site': 'same-origin',
      },
      body: new URLSearchParams({ token: guess, next: '/audit' }),
    }),
  healthz: (guess) => fetch(`${proxy.url}/healthz`, { headers: { authorization: `Bearer ${guess}` } }),
};

/** Lets a lockout run out (the clock moves by its Retry-After), then clears the count with the right token. */
async function waitOut(): Promise<void> {
  for (;;) {
    const response = await models(TOKEN);
    await response.body?.cancel();
    if (response.status === 200) return;
    clock += Number(response.headers.get('retry-after') ?? 1) * 1000;
  }
}

/** A wrong guess on the API: its status and Retry-After. */
async function wrongGuess(): Promise<{ status: number; retryAfter: number }> {
  const response = await models('wrong');
  await response.body?.cancel();
  return { status: response.status, retryAfter: Number(response.headers.get('retry-after')) };
}

describe('wrong auth tokens', () => {
  for (const [channel, guess] of Object.entries(GUESSES)) {
    // 300 on the API (the loop), fewer elsewhere: the point there is that the channel counts.
    const count = channel === 'api' ? 300 : 40;
    test(`are slowed down on the ${channel}: ${count} guesses in a row get a handful of answers`, async () => {
      await waitOut();
      const statuses: number[] = [];
      for (let i = 0; i < count; i++) {
        const response = await guess(`wrong-${i}`);
        await response.body?.cancel();
        statuses.push(response.status);
      }
      // Five free, and the sixth, which starts the first lockout; while it lasts no guess is looked at.
      assert.deepEqual(
        statuses.map((status) => (status === 429 ? 'refused' : 'checked')),
        [...Array(6).fill('checked'), ...Array(count - 6).fill('refused')],
      );
    });
  }

  test('each lockout that runs out lets one guess through, and the next lasts twice as long, up to a minute', async () => {
    await waitOut();
    for (let i = 0; i < 6; i++) assert.notEqual((await wrongGuess()).status, 429, `free guess ${i + 1}`);
    const lockouts: number[] = [];
    for (;;) {
      const { status, retryAfter } = await wrongGuess();
      assert.equal(status, 429);
      if (lockouts.length === 8) break;
      lockouts.push(retryAfter);
      clock += retryAfter * 1000 - 1;
      assert.equal((await wrongGuess()).status, 429, 'a millisecond before the end, still refused');
      clock += 1;
      assert.equal((await wrongGuess()).status, 401, 'once it ran out, one guess is looked at');
    }
    assert.deepEqual(lockouts, [1, 2, 4, 8, 16, 32, 60, 60]);
  });

  test('while an address waits the right token gets 429 too, with Retry-After and OpenAI error shape; then works', async () => {
    await waitOut();
    for (let i = 0; i < 6; i++) await (await models(`wrong-${i}`)).body?.cancel();
    const locked = await models(TOKEN);
    assert.equal(locked.status, 429);
    const retryAfter = Number(locked.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    const body = (await locked.json()) as { error: { type: string; code: string; message: string } };
    assert.equal(body.error.type, 'rate_limit_error');
    assert.equal(body.error.code, 'too_many_auth_failures');
    clock += retryAfter * 1000;
    const after = await models(TOKEN);
    assert.equal(after.status, 200, 'the right token works once the wait is over');
    await after.body?.cancel();
    // The right token cleared the count: one wrong guess is answered again, not refused.
    const single = await models('one-typo');
    assert.equal(single.status, 401);
    await single.body?.cancel();
  });
});
