// The whole app (createApp) over app.request, with the real pipeline, a real
// SQLite audit log and the fake Ollama, for the access guard's tests.

import { type AppDeps, createApp } from '../../src/http/app.ts';
import { auditRoutes } from '../../src/http/auditRoutes.ts';
import type { LogFields, Logger } from '../../src/shared/ports.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

export const MODEL = 'llama3.2:3b';
/** What a client of the default start sends as `Host`. */
export const HOST = '127.0.0.1:4141';
export const JSON_HEADERS = { 'content-type': 'application/json' };

export const chatBody = (text = 'hello') =>
  JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: text }] });

export async function errorOf(response: Response): Promise<{ message: string; type: string; code: string | null }> {
  return ((await response.json()) as { error: { message: string; type: string; code: string | null } }).error;
}

export type LogLine = { level: string; event: string; fields: LogFields };
type Init = RequestInit & { headers?: Record<string, string> };

export interface GuardHarness {
  fake: FakeOllama;
  proxy: RunningProxy;
  /** An app over the same pipeline and store, with these deps; requests default to `Host: HOST`. */
  app(options?: Partial<AppDeps>): { logs: LogLine[]; request(route: string, init?: Init): Promise<Response> };
  snapshotCount(): Promise<number>;
  close(): Promise<void>;
}

export async function startGuardHarness(): Promise<GuardHarness> {
  const fake = await startFakeOllama();
  const proxy = await startProxy({ upstreamUrl: fake.url });
  return {
    fake,
    proxy,
    app(options = {}) {
      const logs: LogLine[] = [];
      const logger: Logger = {
        info: (event, fields = {}) => logs.push({ level: 'info', event, fields }),
        warn: (event, fields = {}) => logs.push({ level: 'warn', event, fields }),
        error: (event, fields = {}) => logs.push({ level: 'error', event, fields }),
      };
      const app = createApp({
        pipeline: proxy.deps,
        maxBodyBytes: 1024 * 1024,
        logger,
        remoteAddress: () => '127.0.0.1',
        audit: auditRoutes({ store: proxy.store, authToken: options.authToken }),
        ...options,
      });
      const request = async (route: string, init: Init = {}) =>
        app.request(route, { ...init, headers: { host: HOST, ...init.headers } });
      return { logs, request };
    },
    async snapshotCount() {
      await proxy.store.flush();
      return proxy.store.stats().snapshots;
    },
    async close() {
      await proxy.close();
      await fake.close();
    },
  };
}
