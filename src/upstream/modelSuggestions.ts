// A model the upstream does not have: the 404 names what it does have that the
// client probably meant. `qwen2.5-coder` (Ollama reads it as `:latest`) when only
// `qwen2.5-coder:7b` is pulled gets that tag; a misspelt or partial name gets the
// nearest installed names. One wrapper around the adapter covers every call that
// takes a model (chat, which serves chat, responses and messages; completions;
// embeddings), and /v1/models/{id} uses the same suggestions.

import { editDistance } from '../shared/editDistance.ts';
import { NotFoundError, ProxyError } from '../shared/errors.ts';
import type { Upstream } from '../shared/ports.ts';

/** At most this many names in a message. */
const MAX_NAMES = 5;
/** How long the 404 may wait for the list of models. */
const LIST_TIMEOUT_MS = 2000;

export interface ModelSuggestions {
  /** Installed tags of the model asked for (`qwen2.5-coder:7b` for `qwen2.5-coder`). */
  tags: string[];
  /** Otherwise: installed names close to the one asked for. */
  similar: string[];
}

/** `qwen2.5-coder:7b` → `qwen2.5-coder`; a `library/` namespace and case do not count. */
function baseName(name: string): string {
  const colon = name.lastIndexOf(':');
  const slash = name.lastIndexOf('/');
  const base = colon > slash ? name.slice(0, colon) : name;
  return base.toLowerCase().replace(/^(registry\.ollama\.ai\/)?library\//, '');
}

export function suggestModels(asked: string, installed: readonly string[]): ModelSuggestions {
  const wanted = baseName(asked);
  const others = installed.filter((name) => name !== asked);
  const tags = others.filter((name) => baseName(name) === wanted).slice(0, MAX_NAMES);
  if (tags.length > 0) return { tags, similar: [] };
  const limit = Math.max(2, Math.floor(wanted.length / 4));
  const scored = others
    .map((name) => {
      const base = baseName(name);
      // A part of the other's name (`qwen-coder`, `llama3` for `llama3.2`) is as close as a typo.
      const contains = wanted.length >= 3 && (base.includes(wanted) || wanted.includes(base));
      return { name, score: contains ? 0 : editDistance(wanted, base, limit) };
    })
    .filter((entry) => entry.score <= limit)
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return { tags: [], similar: scored.slice(0, MAX_NAMES).map((entry) => entry.name) };
}

/** One sentence for the 404's message, or '' when nothing installed is close. */
export function suggestionSentence(asked: string, suggestions: ModelSuggestions): string {
  const quoted = (names: string[]) => names.map((name) => `"${name}"`).join(', ');
  if (suggestions.tags.length > 0) {
    return ` Installed tags of ${baseName(asked)}: ${quoted(suggestions.tags)}; ask for one of them by its full name.`;
  }
  if (suggestions.similar.length > 0) return ` Did you mean ${quoted(suggestions.similar)}?`;
  return '';
}

function isModelNotFound(error: unknown): error is ProxyError {
  return error instanceof ProxyError && error.code === 'model_not_found';
}

/** The same upstream, whose model 404s name the installed tags or the nearest names. */
export function withModelSuggestions(upstream: Upstream): Upstream {
  const explain = async (error: unknown, model: string): Promise<unknown> => {
    if (!isModelNotFound(error)) return error;
    const installed = await upstream
      .listModels(AbortSignal.timeout(LIST_TIMEOUT_MS))
      .then((models) => models.map((m) => m.id))
      .catch(() => undefined);
    if (installed === undefined) return error;
    const sentence = suggestionSentence(model, suggestModels(model, installed));
    if (sentence === '') return error;
    return new NotFoundError(`${error.message}${sentence}`, error.code, error.param, {
      cause: error.cause,
      hint: error.hint,
    });
  };
  const guarded = <A extends { model: string }, R>(call: (request: A, signal: AbortSignal) => Promise<R>) => {
    return async (request: A, signal: AbortSignal): Promise<R> => {
      try {
        return await call(request, signal);
      } catch (error) {
        throw await explain(error, request.model);
      }
    };
  };
  const wrapped: Upstream = {
    kind: upstream.kind,
    baseUrl: upstream.baseUrl,
    chat: guarded(upstream.chat.bind(upstream)),
    listModels: (signal) => upstream.listModels(signal),
    contextWindow: (model) => upstream.contextWindow(model),
  };
  if (upstream.embed) wrapped.embed = guarded(upstream.embed.bind(upstream));
  if (upstream.generate) wrapped.generate = guarded(upstream.generate.bind(upstream));
  return wrapped;
}
