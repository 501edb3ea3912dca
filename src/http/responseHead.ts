// The security headers of every answer: the API's JSON and streams, the audit
// and home pages, errors, refusals and CORS preflights alike. Hono's own
// secure-headers sets them on the response after the route and every inner
// middleware ran; nothing else names them. A stream written straight into
// Node's response takes its head from that same response (nodeSse.ts), so it
// carries them too.

import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { CONTENT_SECURITY_POLICY } from '../ui/pageAssets.ts';

export function securityHeaders(): MiddlewareHandler {
  const hono = secureHeaders({
    // The pages' policy on every answer: it is what a browser shown any of them should enforce.
    contentSecurityPolicy: CONTENT_SECURITY_POLICY,
    // No framing anywhere, as the policy's frame-ancestors says (SAMEORIGIN is hono's default).
    xFrameOptions: 'DENY',
    // ctxproxy speaks plain HTTP on loopback; HSTS there means nothing, and behind a TLS proxy it is that proxy's call.
    strictTransportSecurity: false,
  });
  return async (c, next) => {
    await hono(c, next);
    // Prompts, replies and the audit log are private: never stored by a cache. A route may say
    // otherwise (SSE's `no-cache`); set before the route, Hono would let this one win over it.
    if (!c.res.headers.has('cache-control')) c.res.headers.set('Cache-Control', 'no-store');
  };
}
