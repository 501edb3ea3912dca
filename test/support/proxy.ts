// Starts the real ctxproxy server on a real socket (127.0.0.1, a free port),
// built from real parts: the Ollama adapter pointed at the fake Ollama, a real
// SQLite file, the real redactor and the real sources on a real directory.

import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import OpenAI from 'openai';
import { type AuditStoreFull, type AuditStoreOptions, openAuditStore } from '../../src/audit/store.ts';
import { createApp } from '../../src/http/app.ts';
import { auditRoutes } from '../../src/http/auditRoutes.ts';
import { createPipelineDeps } from '../../src/pipeline/defaultDeps.ts';
import type { PipelineDeps, PipelineSettings } from '../../src/pipeline/runPipeline.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import type { Logger, Upstream } from '../../src/shared/ports.ts';
import type { ContextSource } from '../../src/shared/types.ts';
import { createOllamaUpstream } from '../../src/upstream/ollamaUpstream.ts';

export interface ProxyOptions {
  upstreamUrl: string;
  /** The repository to collect from; a fresh empty directory when absent. */
  workspace?: string;
  settings?: Partial<PipelineSettings>;
  authToken?: string;
  maxBodyBytes?: number;
  upstream?: Upstream;
  sources?: ContextSource[];
  firstByteTimeoutMs?: number;
  /** The audit database; a file in a scratch folder when absent. */
  dbPath?: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** Where the server logs; silent when absent. */
  logger?: Logger;
  /** Compile the redaction and tokenizer regexes in the background, as the server does (off: saves CPU in tests). */
  warm?: boolean;
  /** More audit store options (a driver wrapper, a queue limit). */
  auditOptions?: Omit<AuditStoreOptions, 'path'>;
}

export interface RunningProxy {
  url: string;
  baseURL: string;
  store: AuditStoreFull;
  dbPath: string;
  deps: PipelineDeps;
  client(options?: { apiKey?: string; maxRetries?: number }): OpenAI;
  close(): Promise<void>;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'ctxproxy-test-'));
  const workspace = options.workspace ?? scratch;
  const dbPath = options.dbPath ?? path.join(scratch, 'audit.db');
  const store = openAuditStore({ ...options.auditOptions, path: dbPath });
  const deps = await createPipelineDeps({
    upstream:
      options.upstream ??
      createOllamaUpstream({ baseUrl: options.upstreamUrl, firstByteTimeoutMs: options.firstByteTimeoutMs ?? 30_000 }),
    store,
    settings: {
      workspace,
      mode: 'off',
      redactMessages: true,
      allowedRoots: [],
      historyOverflow: 'drop-oldest',
      safetyRatio: 0.75,
      models: {},
      ...options.settings,
    },
    overrides: options.sources ? { sources: options.sources } : {},
    warm: options.warm,
  });
  const app = createApp({
    pipeline: deps,
    authToken: options.authToken,
    maxBodyBytes: options.maxBodyBytes ?? 10 * 1024 * 1024,
    logger: options.logger ?? silentLogger,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    audit: auditRoutes({ store, conversation: (id) => store.conversation(id), authToken: options.authToken }),
  });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    store,
    dbPath,
    deps,
    client: (clientOptions = {}) =>
      new OpenAI({
        baseURL: `${url}/v1`,
        apiKey: clientOptions.apiKey ?? 'unused',
        maxRetries: clientOptions.maxRetries ?? 0,
      }),
    async close() {
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** Reads an SSE body into its `data:` payloads, in order. */
export async function readSse(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const line = frame.split('\n').find((l) => l.startsWith('data: '));
      if (!line) throw new Error(`SSE frame without data: ${JSON.stringify(frame)}`);
      return line.slice('data: '.length);
    });
}
