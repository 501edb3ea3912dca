// The token checks. With --auth-token, every API client must send it as a
// bearer token; without one, accessGuard.ts serves only clients on this machine.

import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { AuthError } from '../shared/errors.ts';

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return plain === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

export function tokensMatch(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

type Middleware = MiddlewareHandler;

/** Whether the request carries `Authorization: Bearer <authToken>`. */
export function hasBearer(header: string | undefined, authToken: string): boolean {
  const token = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim();
  return token !== undefined && tokensMatch(token, authToken);
}

/** With --auth-token: every API client must send it as a bearer token. */
export function requireBearer(authToken: string): Middleware {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    if (!token) throw new AuthError('This ctxproxy requires a token: send "Authorization: Bearer <token>".');
    if (!tokensMatch(token, authToken))
      throw new AuthError('The bearer token is not the one ctxproxy was started with.');
    await next();
  };
}
