// GET / for a person who opens the base URL in a browser: what this is, the
// base URL to paste into a client, whether the upstream answers, the models,
// and the way to the audit log.

import { Layout } from './layout.tsx';

export interface HomeProps {
  baseUrl: string;
  upstream: { url: string; kind: string; reachable: boolean } | undefined;
  models: string[] | undefined;
  signedIn: boolean;
}

export function HomePage({ baseUrl, upstream, models, signedIn }: HomeProps) {
  return (
    <Layout title="ctxproxy" signedIn={signedIn}>
      <h1>ctxproxy</h1>
      <p>
        A privacy-first context proxy for local models. Point any OpenAI client at the base URL below: each chat request
        reaches the model with your repository's context, secrets masked, fitted to the model's window, and logged in
        the <a href="/audit">audit log</a> exactly as the model saw it.
      </p>
      <h2>Base URL</h2>
      <p>
        <code class="base-url">{baseUrl}</code>{' '}
        <span class="muted small">(any API key works unless a token is set)</span>
      </p>
      <h2>Upstream</h2>
      {upstream === undefined ? (
        <p class="muted">Shown to signed-in users only: this proxy was started with an auth token.</p>
      ) : upstream.reachable ? (
        <p>
          <span class="badge ok">answers</span> {upstream.kind} at <code>{upstream.url}</code>
        </p>
      ) : (
        <p>
          <span class="badge error">does not answer</span> {upstream.kind} at <code>{upstream.url}</code>
          {upstream.kind === 'ollama' ? (
            <span>
              {' '}
              — start it with <code>ollama serve</code>.
            </span>
          ) : null}
        </p>
      )}
      <h2>Models</h2>
      {models === undefined ? (
        <p class="muted">Not listed: the upstream did not answer, or a token is needed.</p>
      ) : models.length === 0 ? (
        <p class="muted">
          The upstream has no models; pull one, e.g. <code>ollama pull qwen2.5-coder:7b</code>.
        </p>
      ) : (
        <ul class="models">
          {models.map((name) => (
            <li>
              <code>{name}</code>
            </li>
          ))}
        </ul>
      )}
      <p class="muted small">
        Add <code>+quick</code>, <code>+deep</code>, <code>+debug</code>, <code>+git-aware</code> or <code>+off</code>{' '}
        to a model name to pick a mode. Endpoints: <code>/v1/chat/completions</code>, <code>/v1/responses</code>,{' '}
        <code>/v1/completions</code>, <code>/v1/embeddings</code>, <code>/v1/models</code>, <code>/healthz</code>.
      </p>
      <p>
        <a href="/audit">Open the audit log →</a>
      </p>
    </Layout>
  );
}
