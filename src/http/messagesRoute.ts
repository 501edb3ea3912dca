// POST /v1/messages and /v1/messages/count_tokens: Anthropic's Messages API on
// the chat pipeline (same context, redaction, budget, audit and modes as
// /v1/chat/completions), so Claude Code runs through ctxproxy on a local model.
// Errors come out in Anthropic's shape (app.ts's handler, anthropicErrors.ts).

import { Hono } from 'hono';
import { countMessageTokens, runMessages } from '../pipeline/messagesInput.ts';
import { countTokensRequestSchema, messagesRequestSchema } from '../shared/messagesRequest.ts';
import { aggregateMessage, messageEventStream, newMessageShell } from './messagesOutput.ts';
import { ctxHeaders, type RouteDeps, type RouteEnv, readBody, replySse, requestFacts } from './routeKit.ts';

export function messagesRoutes(deps: RouteDeps): Hono<RouteEnv> {
  const app = new Hono<RouteEnv>();

  app.post('/v1/messages', async (c) => {
    const body = await readBody(c, deps.maxBodyBytes, messagesRequestSchema);
    const run = await runMessages({ body, ...requestFacts(c, deps.inFlight) }, deps.pipeline);
    const headers = ctxHeaders(run.snapshotId, run.modeUsed, run.warnings);
    const shell = newMessageShell(body.model, run.estimatedPromptTokens);
    if (body.stream !== true) return c.json(await aggregateMessage(run.events, shell), 200, headers);
    return replySse(c, headers, messageEventStream(run.events, shell));
  });

  // What ctxproxy would forward, context included: that is what fills the model's window.
  app.post('/v1/messages/count_tokens', async (c) => {
    const body = await readBody(c, deps.maxBodyBytes, countTokensRequestSchema);
    const counted = await countMessageTokens({ body, ...requestFacts(c, deps.inFlight) }, deps.pipeline);
    return c.json({ input_tokens: counted.inputTokens }, 200, { 'X-Ctx-Mode': counted.modeUsed });
  });
  return app;
}
