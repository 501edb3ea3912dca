// What the routes added for issue 17 (responses, embeddings, completions, models,
// home) share: reading the body, the X-Ctx-* headers, and answering with SSE
// (written straight into Node's response by nodeSse.ts, see there for why).
// Kept apart from app.ts so the chat route stays as it is.

import type { Context } from 'hono';
import type { RequestIdVariables } from 'hono/request-id';
import type { z } from 'zod';
import type { PipelineDeps, PipelineHeaders } from '../pipeline/runPipeline.ts';
import { BadRequestError } from '../shared/errors.ts';
import { describeIssues } from '../shared/zodIssues.ts';
import type { AccessGuardVariables } from './accessGuard.ts';
import { snapshotPagePath } from './auditRoutes.ts';
import type { InFlight } from './inFlight.ts';
import { nodeRequestOf, nodeResponseOf } from './nodeServerInternals.ts';
import type { SseReplyVariables } from './nodeSse.ts';
import { sseStream } from './openaiResponse.ts';
import { readJsonBody } from './readJsonBody.ts';

export type RouteEnv = {
  Variables: RequestIdVariables & AccessGuardVariables & MintedIdVariables & SseReplyVariables;
};

/** Set when the request id is the server's own (app.ts mints one when the client sends none). */
export type MintedIdVariables = { requestIdMinted: boolean };

/** What the pipeline watches for this request: the client leaving, or shutdown ending it. */
export function requestSignal(c: Context<RouteEnv>, inFlight: InFlight | undefined): AbortSignal {
  return inFlight?.signalOf(c.req.raw, nodeResponseOf(c)) ?? c.req.raw.signal;
}

const SSE_HEADERS = {
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

/**
 * Answers with `chunks` as the SSE body. Under @hono/node-server the body is left
 * to nodeSseReplies, which writes it into Node's response under this response's
 * head once every middleware has set its headers; elsewhere it is a web stream.
 */
export function replySse(
  c: Context<RouteEnv>,
  headers: Record<string, string>,
  chunks: AsyncGenerator<string, void, undefined>,
): Response {
  if (nodeResponseOf(c) === undefined) return c.body(sseStream(chunks), 200, { ...headers, ...SSE_HEADERS });
  c.set('sseChunks', chunks);
  return c.body(null, 200, { ...headers, ...SSE_HEADERS });
}

/** Header values must be one line of visible ASCII. */
function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?').slice(0, 1000);
}
