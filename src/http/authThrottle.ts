// Slows down guessing the auth token. Each client address may get the token
// wrong a few times; after that it is locked out for a while that doubles with
// every further wrong token (1 s, 2 s, 4 s … up to a minute), and while locked
// every request from it is answered 429 without looking at its token, so
// neither a fast loop nor many parallel connections can test tokens faster.
// A right token clears the count. Memory is bounded: at most `maxClients`
// addresses, each forgotten after a quiet `forgetAfterMs`.
//
// The price: clients that share an address (everything on this machine is
// 127.0.0.1) share a lockout, so a local process guessing the token makes the
// user's own client wait too; the wait is bounded by `maxLockMs`.

import type { Context } from 'hono';
import { LRUCache } from 'lru-cache';

export interface AuthThrottleOptions {
  /** Wrong tokens allowed before the first lockout. */
  freeFailures?: number | undefined;
  firstLockMs?: number | undefined;
  maxLockMs?: number | undefined;
  maxClients?: number | undefined;
  forgetAfterMs?: number | undefined;
  now?: (() => number) | undefined;
}

interface ClientState {
  failures: number;
  lockedUntil: number;
}

export interface AuthThrottle {
  /** Milliseconds this address must still wait, or 0. */
  waitMs(address: string): number;
  /** After a token was checked: a wrong one counts, a right one clears the count. */
  record(address: string, tokenWasRight: boolean): void;
}

export function createAuthThrottle(options: AuthThrottleOptions = {}): AuthThrottle {
  const freeFailures = options.freeFailures ?? 5;
  const firstLockMs = options.firstLockMs ?? 1000;
  const maxLockMs = options.maxLockMs ?? 60_000;
  const now = options.now ?? Date.now;
  const clients = new LRUCache<string, ClientState>({
    max: options.maxClients ?? 4096,
    ttl: options.forgetAfterMs ?? 15 * 60_000,
    // The ttl counts from the last wrong token (set), not from the last look (get).
    updateAgeOnGet: false,
    ttlAutopurge: false,
  });
  return {
    waitMs(address) {
      const state = clients.get(address);
      return state ? Math.max(0, state.lockedUntil - now()) : 0;
    },
    record(address, tokenWasRight) {
      if (tokenWasRight) {
        clients.delete(address);
        return;
      }
      const state = clients.get(address) ?? { failures: 0, lockedUntil: 0 };
      state.failures += 1;
      const over = state.failures - freeFailures;
      if (over > 0) state.lockedUntil = now() + Math.min(maxLockMs, firstLockMs * 2 ** Math.min(over - 1, 30));
      clients.set(address, state);
    },
  };
}

/** What the token check of this request found; set where the token is compared, read by the access guard. */
export type TokenCheckVariables = { tokenCheck: 'right' | 'wrong' };

export function noteTokenCheck(c: Context, right: boolean): void {
  (c as Context<{ Variables: TokenCheckVariables }>).set('tokenCheck', right ? 'right' : 'wrong');
}

export function tokenCheckOf(c: Context): 'right' | 'wrong' | undefined {
  return (c as Context<{ Variables: TokenCheckVariables }>).get('tokenCheck');
}
