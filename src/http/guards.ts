// The token checks. With --auth-token, every API client must send it as a
// bearer token; without one, accessGuard.ts serves only clients on this machine.

import type { MiddlewareHandler } from 'hono';
import { AuthError } from '../shared/errors.ts';
import { sameSecret } from '../shared/sameSecret.ts';
import { noteTokenCheck } from './authThrottle.ts';

type Middleware = MiddlewareHandler;

/** Whether the request carries `Authorization: Bearer <authToken>`. */
export function hasBearer(header: string | undefined, authToken: string): boolean {
  const token = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim();
  return token !== undefined && sameSecret(token, authToken);
}

/** With --auth-token: every API client must send it as a bearer token. */
export function requireBearer(authToken: string): Middleware {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    if (!token) throw new AuthError('This ctxproxy requires a token: send "Authorization: Bearer <token>".');
    const right = sameSecret(token, authToken);
    noteTokenCheck(c, right);
    if (!right) throw new AuthError('The bearer token is not the one ctxproxy was started with.');
    await next();
  };
}
