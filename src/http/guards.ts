// The token checks. With --auth-token, every API client must send it, as a
// bearer token or, as Anthropic clients do, in `x-api-key`; without one,
// accessGuard.ts serves only clients on this machine. One reading of the
// `Authorization` header for the API, /healthz, the home page and the audit API.
//
// Why not hono's `bearer-auth`: it takes only RFC 6750's token characters (a
// token with a space, which CTXPROXY_AUTH_TOKEN may have, would get 400 before
// it is compared) and reads one header, where Anthropic clients send `x-api-key`.

import type { MiddlewareHandler } from 'hono';
import { AuthError } from '../shared/errors.ts';
import { sameSecret } from '../shared/sameSecret.ts';
import { noteTokenCheck } from './authThrottle.ts';

/** The token of `Authorization: Bearer <token>`, if the header has that form. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim();
}

/** Whether the request carries `Authorization: Bearer <authToken>`. */
export function hasBearer(header: string | undefined, authToken: string): boolean {
  const token = bearerToken(header);
  return token !== undefined && sameSecret(token, authToken);
}

/**
 * With --auth-token: every API client must send it, as `Authorization: Bearer`
 * (OpenAI clients, ANTHROPIC_AUTH_TOKEN) or `x-api-key` (ANTHROPIC_API_KEY).
 * A client that sends both passes when either is the token.
 */
export function requireToken(authToken: string): MiddlewareHandler {
  return async (c, next) => {
    const bearer = bearerToken(c.req.header('authorization'));
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
