// Starts the real ctxproxy server on a real socket (127.0.0.1, a free port), through
// the same createServer() as `ctxproxy serve`, built from real parts: the Ollama adapter pointed at the fake Ollama, a real
// SQLite file, the real redactor and the real sources on a real directory.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import type { AuditStoreFull, AuditStoreOptions } from '../../src/audit/store.ts';
import { createServer } from '../../src/cli/serveCommand.ts';
import { type Settings, settingsSchema } from '../../src/config/options.ts';
import type { PipelineDeps, PipelineSettings } from '../../src/pipeline/runPipeline.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import type { Logger, Upstream } from '../../src/shared/ports.ts';
import type { ContextSource, Snapshot } from '../../src/shared/types.ts';

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
  /** The clock of the wrong-token lockouts; the real one when absent. */
  now?: () => number;
}

export interface RunningProxy {
  url: string;
  baseURL: string;
  store: AuditStoreFull;
  dbPath: string;
  deps: PipelineDeps;
  client(options?: { apiKey?: string; maxRetries?: number }): OpenAI;
  /** The snapshot a response's `X-Ctx-Snapshot-Id` names, once the audit queue is written. */
  snapshotOf(response: Response): Promise<Snapshot>;
  close(): Promise<void>;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'ctxproxy-test-'));
  const workspace = options.workspace ?? scratch;
  const dbPath = options.dbPath ?? path.join(scratch, 'audit.db');
  const settings: Settings = settingsSchema.parse({
    host: '127.0.0.1',
    port: 0,
    workspace,
    db: dbPath,
    upstream: options.upstreamUrl,
    upstreamTimeoutMs: options.firstByteTimeoutMs ?? 30_000,
    mode: 'off',
    maxBodyBytes: options.maxBodyBytes ?? 10 * 1024 * 1024,
    // Tests close with requests still open: end them at once, as a second signal would.
    shutdownGraceMs: 0,
    ...(options.authToken ? { authToken: options.authToken } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  });
  // The pipeline's settings as given, without the schema's checks (tests pass their own windows, ratios…).
  Object.assign(settings, options.settings);
  const running = await createServer({
    settings,
    logger: options.logger ?? silentLogger,
    warm: options.warm,
    overrides: {
      ...(options.upstream ? { upstream: options.upstream } : {}),
      ...(options.sources ? { sources: options.sources } : {}),
    },
    auditOptions: options.auditOptions,
    now: options.now,
  });
  const { url, store } = running;
  return {
    url,
    baseURL: `${url}/v1`,
    store,
    dbPath,
    deps: running.pipeline,
    client: (clientOptions = {}) =>
      new OpenAI({
        baseURL: `${url}/v1`,
        apiKey: clientOptions.apiKey ?? 'unused',
        maxRetries: clientOptions.maxRetries ?? 0,
      }),
    async snapshotOf(response) {
      await store.flush();
      const snapshot = store.get(response.headers.get('x-ctx-snapshot-id') ?? '');
      assert.ok(snapshot, 'the response names a stored snapshot');
      return snapshot;
    },
    async close() {
      await running.close();
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
