// Who may talk to the proxy. With --auth-token, every client must send it as a
// bearer token; without one, only clients on this machine are served.

import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { AuthError, ProxyError } from '../shared/errors.ts';

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

/** Without a token, everything (API, audit pages, health) is for clients on this machine only. */
export function loopbackOnly(remoteAddress: (c: Parameters<Middleware>[0]) => string | undefined): Middleware {
  return async (c, next) => {
    if (!isLoopbackAddress(remoteAddress(c))) {
      throw new ProxyError(
        403,
        'ctxproxy serves only clients on this machine unless it is started with --auth-token.',
        'authentication_error',
        'forbidden',
      );
    }
    await next();
  };
}
