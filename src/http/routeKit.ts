// What the routes added for issue 17 (responses, embeddings, completions, models,
// home) share: reading the body, the X-Ctx-* headers, and writing SSE straight
// into Node's response (see nodeSse.ts for why). Kept apart from app.ts so the
// chat route stays as it is.

import type { Context } from 'hono';
import type { RequestIdVariables } from 'hono/request-id';
import type { z } from 'zod';
import type { PipelineDeps, PipelineHeaders } from '../pipeline/runPipeline.ts';
import { BadRequestError } from '../shared/errors.ts';
import { describeIssues } from '../shared/zodIssues.ts';
import type { AccessGuardVariables } from './accessGuard.ts';
import { snapshotPagePath } from './auditRoutes.ts';
import type { InFlight } from './inFlight.ts';
import { nodeRequestOf, nodeResponseOf, RESPONSE_ALREADY_SENT } from './nodeServerInternals.ts';
import { writeSse } from './nodeSse.ts';
import { sseStream } from './openaiResponse.ts';
import { readJsonBody } from './readJsonBody.ts';

export type RouteEnv = { Variables: RequestIdVariables & AccessGuardVariables & MintedIdVariables };

/** Set when the request id is the server's own (app.ts mints one when the client sends none). */
export type MintedIdVariables = { requestIdMinted: boolean };

/** What the pipeline watches for this request: the client leaving, or shutdown ending it. */
export function requestSignal(c: Context<RouteEnv>, inFlight: InFlight | undefined): AbortSignal {
  return inFlight?.signalOf(c.req.raw, nodeResponseOf(c)) ?? c.req.raw.signal;
}

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** Reads the JSON body under the size limit and validates it; a bad body is one 400 naming the fields. */
export async function readBody<S extends z.ZodType>(
  c: Context<RouteEnv>,
  maxBodyBytes: number,
  schema: S,
): Promise<z.infer<S>> {
  const json = await readJsonBody(c.req.raw, maxBodyBytes, nodeRequestOf(c));
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new BadRequestError(`Invalid request: ${describeIssues(parsed.error)}`, 'invalid_request');
  return parsed.data;
}

/** The request headers the pipeline reads: the mode, the workspace, and the client (stored capped and redacted). */
/** What every API route takes from the app. */
export interface RouteDeps {
  pipeline: PipelineDeps;
  maxBodyBytes: number;
  inFlight?: InFlight | undefined;
}

/** The request as the pipeline sees it: its X-Ctx-* headers, its id, and the signal that ends it. */
export function requestFacts(
  c: Context<RouteEnv>,
  inFlight: InFlight | undefined,
): { headers: PipelineHeaders; requestId: string; requestIdMinted: boolean; signal: AbortSignal } {
  return {
    headers: pipelineHeaders(c),
    requestId: c.get('requestId'),
    requestIdMinted: c.get('requestIdMinted') === true,
    signal: requestSignal(c, inFlight),
  };
}

/** What the calls without context (embeddings, legacy completions) take: the id, the client, the signal. */
export function callFacts(
  c: Context<RouteEnv>,
  inFlight: InFlight | undefined,
): { requestId: string; requestIdMinted: boolean; userAgent: string | undefined; signal: AbortSignal } {
  return {
    requestId: c.get('requestId'),
    requestIdMinted: c.get('requestIdMinted') === true,
    userAgent: c.req.header('user-agent'),
    signal: requestSignal(c, inFlight),
  };
}

export function pipelineHeaders(c: Context<RouteEnv>): PipelineHeaders {
  return {
    mode: c.req.header('x-ctx-mode'),
    workspace: c.req.header('x-ctx-workspace'),
    userAgent: c.req.header('user-agent'),
  };
}

/** X-Ctx-Snapshot-Id (and its page), the mode used, and any warnings. */
export function ctxHeaders(snapshotId: string, modeUsed: string, warnings: string[] = []): Record<string, string> {
  const headers: Record<string, string> = {
    'X-Ctx-Snapshot-Id': snapshotId,
    Link: `<${snapshotPagePath(snapshotId)}>; rel="describedby"`,
    'X-Ctx-Mode': modeUsed,
  };
  if (warnings.length > 0) headers['X-Ctx-Warning'] = headerSafe(warnings.join('; '));
  return headers;
}

/** Streams `chunks` as the SSE body (Node's response when there is one, a web stream elsewhere). */
export async function replySse(
  c: Context<RouteEnv>,
  headers: Record<string, string>,
  chunks: AsyncGenerator<string, void, undefined>,
): Promise<Response> {
  const outgoing = nodeResponseOf(c);
  if (!outgoing) return c.body(sseStream(chunks), 200, { ...headers, ...SSE_HEADERS });
  // Node's response bypasses Hono's, so the headers middleware set (the request id, CORS) are named here.
  // Never read c.res on this path: Hono would then rebuild the returned RESPONSE_ALREADY_SENT into a
  // new Response, and @hono/node-server (2.1.9) would write a second head for it.
  const all = { 'X-Request-Id': c.get('requestId'), ...c.get('corsHeaders'), ...headers, ...SSE_HEADERS };
  await writeSse(outgoing, all, chunks);
  return RESPONSE_ALREADY_SENT;
}

/** Header values must be one line of visible ASCII. */
function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?').slice(0, 1000);
}
