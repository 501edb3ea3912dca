// GET / : a browser (Accept: text/html) gets the home page; anything else gets
// the same facts as JSON. With --auth-token, the upstream and the models are
// shown only to a client that sends the token.

import { Hono } from 'hono';
import type { Upstream } from '../shared/ports.ts';
import { HomePage } from '../ui/homePage.tsx';
import { hasBearer } from './guards.ts';
import type { RouteEnv } from './routeKit.ts';

export function homeRoutes(deps: { upstream: Upstream; authToken?: string | undefined }): Hono<RouteEnv> {
  const app = new Hono<RouteEnv>();
  app.get('/', async (c) => {
    const baseUrl = `${new URL(c.req.url).origin}/v1`;
    const trusted = deps.authToken === undefined || hasBearer(c.req.header('authorization'), deps.authToken);
    let models: string[] | undefined;
    let upstream: { url: string; kind: string; reachable: boolean } | undefined;
    if (trusted) {
      models = await deps.upstream
        .listModels(AbortSignal.any([c.req.raw.signal, AbortSignal.timeout(2000)]))
        .then((list) => list.map((model) => model.id))
        .catch(() => undefined);
      upstream = { url: deps.upstream.baseUrl, kind: deps.upstream.kind, reachable: models !== undefined };
    }
    // no-store, the CSP and the rest: responseHead.ts, on every answer.
    c.header('Vary', 'Accept');
    if (!wantsHtml(c.req.header('accept'))) {
      return c.json({
        name: 'ctxproxy',
        base_url: baseUrl,
        upstream: upstream ?? null,
        models: models ?? null,
        audit: '/audit',
      });
    }
    return c.html(<HomePage baseUrl={baseUrl} upstream={upstream} models={models} signedIn={false} />);
  });
  return app;
}

// Browsers list text/html first; API clients and curl (any type) get JSON.
function wantsHtml(accept: string | undefined): boolean {
  return accept !== undefined && /\btext\/html\b/i.test(accept);
}
