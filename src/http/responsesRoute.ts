// POST /v1/responses: the OpenAI Responses API on the chat pipeline (same
// context, redaction, budget and audit as /v1/chat/completions), for the AI
// SDK's default `openai` provider and Codex CLI. Works with either upstream
// kind, since both speak chat. Responses are remembered in memory (bounded)
// for `previous_response_id` unless the client sent `store: false`, each bound
// to the workspace (and, with --auth-token, the token) of the request that made it.

import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { ResponseMemory } from '../pipeline/responseMemory.ts';
import { itemsToMessages, runResponses } from '../pipeline/responsesInput.ts';
import { responsesRequestSchema } from '../shared/responsesRequest.ts';
import type { ChatMessage } from '../shared/types.ts';
import { aggregateResponse, newResponseShell, type ResponseDone, responseEventStream } from './responsesOutput.ts';
import { ctxHeaders, type RouteDeps, type RouteEnv, readBody, replySse, requestFacts } from './routeKit.ts';

export interface ResponsesRouteDeps extends RouteDeps {
  /** Where responses are kept for previous_response_id; one per app by default. */
  responseMemory?: ResponseMemory | undefined;
  /** The server's token, if any: a stored response is then bound to the one presented. */
  authToken?: string | undefined;
}

export function responsesRoutes(deps: ResponsesRouteDeps): Hono<RouteEnv> {
  const app = new Hono<RouteEnv>();
  const memory = deps.responseMemory ?? new ResponseMemory();

  app.post('/v1/responses', async (c) => {
    const body = await readBody(c, deps.maxBodyBytes, responsesRequestSchema);
    const credential = deps.authToken === undefined ? undefined : digest(bearerOf(c.req.header('authorization')));
    const run = await runResponses({ body, ...requestFacts(c, deps.inFlight), credential }, deps.pipeline, memory);
    const shell = newResponseShell(body, deps.pipeline.now());
    const remember = (done: ResponseDone) => {
      if (body.store === false) return;
      const history: ChatMessage[] = itemsToMessages(done.output, memory, run.scope, run.history);
      memory.remember(shell.id, { history }, done.output, run.scope);
    };
    const headers = ctxHeaders(run.snapshotId, run.modeUsed, run.warnings);
    if (body.stream !== true) {
      const done = await aggregateResponse(run.events, shell);
      remember(done);
      return c.json(done.response, 200, headers);
    }
    return replySse(c, headers, responseEventStream(run.events, shell, remember));
  });
  return app;
}

function bearerOf(header: string | undefined): string {
  return /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
}

/** The memory keeps a digest, never the token itself. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
