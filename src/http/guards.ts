// The token checks. With --auth-token, every API client must send it, as a
// bearer token or, as Anthropic clients do, in `x-api-key`; without one,
// accessGuard.ts serves only clients on this machine.

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

/**
 * With --auth-token: every API client must send it, as `Authorization: Bearer`
 * (OpenAI clients, ANTHROPIC_AUTH_TOKEN) or `x-api-key` (ANTHROPIC_API_KEY).
 * A client that sends both passes when either is the token.
 */
export function requireBearer(authToken: string): Middleware {
  return async (c, next) => {
    const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1]?.trim();
    const apiKey = c.req.header('x-api-key')?.trim();
    const given = [bearer, apiKey].filter((token): token is string => token !== undefined && token !== '');
    if (given.length === 0)
      throw new AuthError(
        'This ctxproxy requires a token: send "Authorization: Bearer <token>" (or "x-api-key: <token>").',
      );
    const right = given.some((token) => sameSecret(token, authToken));
    noteTokenCheck(c, right);
    if (!right) throw new AuthError('The token is not the one ctxproxy was started with.');
    await next();
  };
}
