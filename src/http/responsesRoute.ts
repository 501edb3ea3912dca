// POST /v1/responses: the OpenAI Responses API on the chat pipeline (same
// context, redaction, budget and audit as /v1/chat/completions), for the AI
// SDK's default `openai` provider and Codex CLI. Works with either upstream
// kind, since both speak chat. Responses are remembered in memory (bounded)
// for `previous_response_id` unless the client sent `store: false`.

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
}

export function responsesRoutes(deps: ResponsesRouteDeps): Hono<RouteEnv> {
  const app = new Hono<RouteEnv>();
  const memory = deps.responseMemory ?? new ResponseMemory();

  app.post('/v1/responses', async (c) => {
    const body = await readBody(c, deps.maxBodyBytes, responsesRequestSchema);
    const run = await runResponses({ body, ...requestFacts(c, deps.inFlight) }, deps.pipeline, memory);
    const shell = newResponseShell(body, deps.pipeline.now());
    const remember = (done: ResponseDone) => {
      if (body.store === false) return;
      const history: ChatMessage[] = itemsToMessages(done.output, memory, run.history);
      memory.remember(shell.id, { history }, done.output);
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
