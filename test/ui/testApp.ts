// The audit routes mounted the way the main app mounts them, behind the main
// app's security headers and with an onError that writes OpenAI's error body as
// the main app's does (src/http/app.ts), so the tests see what a client would.

import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type AuditRoutesDeps, auditRoutes } from '../../src/http/auditRoutes.ts';
import { securityHeaders } from '../../src/http/responseHead.ts';
import { toProxyError } from '../../src/shared/errors.ts';

export function testApp(deps: AuditRoutesDeps): Hono {
  const app = new Hono();
  app.use(securityHeaders());
  app.route('/', auditRoutes(deps));
  app.onError((error, c) => {
    const failure = toProxyError(error);
    return c.json(failure.toBody(), failure.status as ContentfulStatusCode);
  });
  return app;
}
