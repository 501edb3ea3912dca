// GET /v1/models/{id}: one model in OpenAI's shape, also under its `+mode`
// names, as GET /v1/models lists them. An unknown id is a 404 in OpenAI's shape.

import { Hono } from 'hono';
import { NotFoundError } from '../shared/errors.ts';
import type { Upstream } from '../shared/ports.ts';
import { MODE_NAMES } from '../shared/types.ts';
import { suggestionSentence, suggestModels } from '../upstream/modelSuggestions.ts';
import type { RouteEnv } from './routeKit.ts';

export function modelsRoutes(deps: { upstream: Upstream }): Hono<RouteEnv> {
  const app = new Hono<RouteEnv>();
  // Ollama names may hold slashes (`hf.co/org/model:tag`), so the id takes the rest of the path.
  app.get('/v1/models/:id{.+}', async (c) => {
    const id = c.req.param('id');
    const models = await deps.upstream.listModels(c.req.raw.signal);
    const names = (name: string) => [name, ...MODE_NAMES.map((mode) => `${name}+${mode}`)];
    const model = models.find((m) => names(m.id).includes(id));
    const plus = id.lastIndexOf('+');
    if (!model && plus > 0 && models.some((m) => m.id === id.slice(0, plus))) {
      throw new NotFoundError(
        `The model "${id}" does not exist here: "${id.slice(plus + 1)}" is not a mode; use one of +${MODE_NAMES.join(', +')}.`,
      );
    }
    if (!model) {
      const bare = plus > 0 ? id.slice(0, plus) : id;
      const suggestion = suggestionSentence(
        bare,
        suggestModels(
          bare,
          models.map((m) => m.id),
        ),
      );
      const hint = deps.upstream.kind === 'ollama' ? ` Pull it with \`ollama pull ${bare}\`, or` : '';
      throw new NotFoundError(
        `The model "${id}" does not exist here.${suggestion}${hint} see GET /v1/models for the names (each also with +${MODE_NAMES.join(', +')}).`,
      );
    }
    return c.json({ id, object: 'model', created: model.created, owned_by: model.ownedBy });
  });
  return app;
}
