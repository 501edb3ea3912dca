// The HTTP front door: routes, middleware, and the one error handler that writes
// OpenAI's error body. Thin: the work happens in the pipeline.

import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { requestId } from 'hono/request-id';
import { type PipelineDeps, recordRejectedRequest, runPipeline } from '../pipeline/runPipeline.ts';
import { chatRequestSchema } from '../shared/chatRequest.ts';
import { classifiedErrorFields, errorFields } from '../shared/errorFields.ts';
import { NotFoundError, RecordedFailure, toProxyError } from '../shared/errors.ts';
import type { Logger } from '../shared/ports.ts';
import { MODE_NAMES } from '../shared/types.ts';
import { createAccessGuard } from './accessGuard.ts';
import { anthropicErrorBody, speaksAnthropic } from './anthropicErrors.ts';
import { AUDIT_FORM_PATHS } from './auditRoutes.ts';
import { createAuthThrottle, noteTokenCheck } from './authThrottle.ts';
import { completionsRoutes } from './completionsRoute.ts';
import { embeddingsRoutes } from './embeddingsRoute.ts';
import { hasBearer, requireToken } from './guards.ts';
import { homeRoutes } from './homeRoute.tsx';
import type { InFlight } from './inFlight.ts';
import { messagesRoutes } from './messagesRoute.ts';
import { modelsRoutes } from './modelsRoute.ts';
import { nodeSseReplies } from './nodeSse.ts';
import { aggregateCompletion, newCompletionIdentity, sseChunks } from './openaiResponse.ts';
import { requestLog } from './requestLog.ts';
import { securityHeaders } from './responseHead.ts';
import { responsesRoutes } from './responsesRoute.ts';
import { ctxHeaders, type RouteEnv, readBody, replySse, requestFacts } from './routeKit.ts';

/** The API's own paths, asked for without their /v1 prefix. */
const API_WITHOUT_V1 = /^\/(chat\/completions|responses|messages|models|embeddings|completions)(\/|$)/;
export interface AppDeps {
  pipeline: PipelineDeps;
  authToken?: string | undefined;
  maxBodyBytes: number;
  logger: Logger;
  /** Extra routes mounted at the root (the audit browser and its API). */
  audit?: Hono | undefined;
  /** The requests in flight, for graceful shutdown (see inFlight.ts); absent: not tracked. */
  inFlight?: InFlight | undefined;
  /** How the client's address is found; the default asks the Node socket. */
  remoteAddress?: ((c: Context) => string | undefined) | undefined;
  /** The --host value, a Host name served besides the loopback names. */
  host?: string | undefined;
  /** --allowed-hosts: more Host names to serve (DNS-rebinding defence). */
  allowedHosts?: readonly string[] | undefined;
  /** --allowed-origins: browser origins that may call ctxproxy cross-site (CORS). */
  allowedOrigins?: readonly string[] | undefined;
  /** The clock the wrong-token lockouts are timed by (milliseconds); absent: `Date.now`. */
  now?: (() => number) | undefined;
}

/** Requests to these are audited even when turned away before the pipeline ran. */
const AUDITED_POSTS = new Set([
  '/v1/chat/completions',
  '/v1/responses',
  '/v1/messages',
  '/v1/embeddings',
  '/v1/completions',
]);

export function createApp(deps: AppDeps): Hono<RouteEnv> {
  const app = new Hono<RouteEnv>();
  const { upstream } = deps.pipeline;
  const remoteAddress = deps.remoteAddress ?? ((c: Context) => getConnInfo(c).remote.address);

  const access = createAccessGuard({
    host: deps.host,
    allowedHosts: deps.allowedHosts,
    allowedOrigins: deps.allowedOrigins,
    remoteClientsAllowed: deps.authToken !== undefined,
    remoteAddress,
    authThrottle: deps.authToken === undefined ? undefined : createAuthThrottle({ now: deps.now }),
    formPaths: AUDIT_FORM_PATHS,
    logger: deps.logger,
  });
  // Middleware, outermost first. Every answer's head is Hono's response as the inner ones leave it;
  // a stream is written under that head by nodeSseReplies, which the count and the log must outlast.
  app.use(
    requestId({
      limitLength: 100,
      // A minted id is not the client's text: the audit stores it without a secret scan (run.ts).
      generator: (c) => {
        c.set('requestIdMinted', true);
        return crypto.randomUUID();
      },
    }),
  );
  // One log line per API call (the terminal shows it; see shared/logText.ts).
  app.use('/v1/*', requestLog(deps.logger));
  if (deps.inFlight) app.use(deps.inFlight.middleware);
  app.use(nodeSseReplies());
  app.use(securityHeaders());
  if (deps.inFlight) app.use(deps.inFlight.refuseWhileStopping);
  // For every route, including the ones mounted later: who may talk to ctxproxy at all.
  app.use('*', ...access.middleware);
  // The audit pages check the token themselves (a sign-in cookie, or the bearer header).
  if (deps.authToken) app.use('/v1/*', requireToken(deps.authToken));

  app.get('/healthz', async (c) => {
    // With a token, a caller without it learns only that ctxproxy is up (not where the upstream is).
    if (deps.authToken) {
      const header = c.req.header('authorization');
      const right = hasBearer(header, deps.authToken);
      // A wrong token here would tell right from wrong by the answer's size: it counts as a guess.
      if (header !== undefined) noteTokenCheck(c, right);
      if (!right) return c.json({ status: 'ok' });
    }
    const reachable = await upstream
      .listModels(AbortSignal.timeout(2000))
      .then(() => true)
      .catch(() => false);
    const { writable, queued, dropped, reason } = deps.pipeline.store.health();
    return c.json({
      // Still alive either way; `degraded` says the audit log is not being written (see `audit.reason`).
      status: writable ? 'ok' : 'degraded',
      upstream: { url: upstream.baseUrl, kind: upstream.kind, reachable },
      audit: { writable, queued, dropped, reason: reason ?? null },
      refused: access.refusals(),
    });
  });

  app.get('/v1/models', async (c) => {
    const models = await upstream.listModels(c.req.raw.signal);
    // Each model also under `name+mode`, so a client with only a model picker can choose a mode.
    const data = models.flatMap((model) =>
      [model.id, ...MODE_NAMES.map((mode) => `${model.id}+${mode}`)].map((id) => ({
        id,
        object: 'model',
        created: model.created,
        owned_by: model.ownedBy,
      })),
    );
    return c.json({ object: 'list', data });
  });

  app.post('/v1/chat/completions', async (c) => {
    const request = await readBody(c, deps.maxBodyBytes, chatRequestSchema);
    const result = await runPipeline({ request, ...requestFacts(c, deps.inFlight) }, deps.pipeline);
    const headers = ctxHeaders(result.snapshotId, result.modeUsed, result.warnings);
    const identity = newCompletionIdentity(request.model, deps.pipeline.now());
    if (request.stream !== true) return c.json(await aggregateCompletion(result.events, identity), 200, headers);
    const chunks = sseChunks(result.events, identity, {
      includeUsage: request.stream_options?.include_usage === true,
    });
    return replySse(c, headers, chunks);
  });

  // Issue 17's endpoints, each in its own file.
  app.route('/', modelsRoutes({ upstream }));
  app.route('/', responsesRoutes(deps));
  app.route('/', messagesRoutes(deps));
  app.route('/', embeddingsRoutes(deps));
  app.route('/', completionsRoutes(deps));
  app.route('/', homeRoutes({ upstream, authToken: deps.authToken }));

  if (deps.audit) app.route('/', deps.audit);

  app.notFound((c) => {
    const url = new URL(c.req.url);
    // A client whose base URL lacks /v1 asks for /chat/completions: say what to set.
    const hint = API_WITHOUT_V1.test(url.pathname)
      ? ` The API is under /v1: set the client's base URL to ${url.origin}/v1.`
      : '';
    throw new NotFoundError(`No route ${c.req.method} ${url.pathname}.${hint}`, 'not_found', null);
  });

  app.onError(async (error, c) => {
    // A failure the pipeline recorded comes as a value naming its snapshot; any other error has none.
    let snapshotId = error instanceof RecordedFailure ? error.snapshotId : undefined;
    const failure = toProxyError(error);
    if (failure.status >= 500) {
      const unforeseen = failure.code === 'internal_error';
      deps.logger.error(unforeseen ? 'http.unhandled' : 'http.server_error', {
        requestId: c.get('requestId'),
        status: failure.status,
        ...(unforeseen ? errorFields(snapshotId ? failure : error) : classifiedErrorFields(failure)),
        hint: failure.hint,
      });
    } else if (failure.hint !== undefined) {
      // The client's mistake, but the person at the terminal may be the one who can fix it.
      deps.logger.warn('http.client_error', {
        requestId: c.get('requestId'),
        status: failure.status,
        errorCode: failure.code ?? undefined,
        hint: failure.hint,
      });
    }
    // A request turned away before the pipeline ran (bad JSON, too large, no token) is audited too;
    // one the access guard refused is not: it may be a hostile page's, and its text is not worth keeping.
    const refusedAtDoor = c.get('accessRefused') !== undefined;
    if (!refusedAtDoor && !snapshotId && c.req.method === 'POST' && AUDITED_POSTS.has(c.req.path)) {
      snapshotId = await recordRejectedRequest(deps.pipeline, {
        requestId: c.get('requestId'),
        userAgent: c.req.header('user-agent'),
        error: failure,
      });
    }
    if (snapshotId) c.header('X-Ctx-Snapshot-Id', snapshotId);
    // Anthropic clients (Claude Code) read only Anthropic's error body; the status is the same.
    const body = speaksAnthropic(c.req.path) ? anthropicErrorBody(failure) : failure.toBody();
    return c.json(body, failure.status as 400);
  });

  return app;
}
