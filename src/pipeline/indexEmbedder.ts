// Semantic retrieval's embedder (`--embed-model`): texts of the workspace go
// to the upstream's embedding model (`/api/embed` on Ollama, `/embeddings` on
// an OpenAI-compatible server), so each is redacted first, by the same
// redactor as the context: the text leaves the process. A redaction that
// fails (a timeout, a rule error) rejects the whole call: nothing is sent.

import type { Upstream } from '../shared/ports.ts';
import type { Redactor } from '../shared/types.ts';
import type { Embedder } from '../sources/deps.ts';

export function redactingEmbedder(model: string, upstream: Upstream, redactor: Redactor): Embedder | undefined {
  const embed = upstream.embed?.bind(upstream);
  if (!embed) return undefined;
  return {
    model,
    async embed(texts, signal) {
      const redacted = await Promise.all(
        texts.map(async (entry) => (await redactor.redact(entry.text, { path: entry.path })).text),
      );
      const answer = await embed({ model, input: redacted }, signal);
      return answer.embeddings;
    },
  };
}
