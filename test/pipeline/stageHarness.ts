// The pipeline built as the server builds it (createPipelineDeps: the real
// stages, the real redactor, plans, token counter and sources on a real git
// repository), with fakes only for the I/O at its edges: the upstream (a
// scripted model that records what it was sent), the audit store (in memory),
// the clock and the ids. Each stage test drives runPipeline through these deps.

import { createPipelineDeps } from '../../src/pipeline/defaultDeps.ts';
import { type PipelineDeps, type PipelineSettings, runPipeline } from '../../src/pipeline/runPipeline.ts';
import type { PipelineResult, PipelineStages } from '../../src/pipeline/types.ts';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import type { ChatRequest } from '../../src/shared/chatRequest.ts';
import { RecordedFailure } from '../../src/shared/errors.ts';
import type { Upstream, UpstreamRequest } from '../../src/shared/ports.ts';
import type { Calibration, Redactor, Snapshot, UpstreamEvent } from '../../src/shared/types.ts';
import { type MemoryAuditStore, memoryAuditStore } from '../support/memoryAuditStore.ts';

/** What the scripted model does with the next chat. */
export interface Script {
  /** Streamed as one delta each. */
  deltas?: string[];
  promptTokens?: number;
  /** Thrown by chat() itself: the upstream refused at once. */
  refuse?: Error;
  /** Thrown by the stream after the deltas. */
  failMidStream?: Error;
}

export interface ScriptedUpstream extends Upstream {
  /** Every chat request, with the signal the pipeline gave it. */
  readonly sent: { request: UpstreamRequest; signal: AbortSignal; inFlightWritten: boolean }[];
  script: Script;
  window: number | undefined;
}

function scriptedUpstream(store: MemoryAuditStore): ScriptedUpstream {
  const upstream: ScriptedUpstream = {
    kind: 'ollama',
    baseUrl: 'http://127.0.0.1:11434',
    sent: [],
    script: {},
    window: 32768,
    async chat(request, signal) {
      // Was the request's record on the store before the model saw the prompt?
      const inFlightWritten = store.list({ outcome: 'in_flight' }).length > 0;
      upstream.sent.push({ request, signal, inFlightWritten });
      const script = upstream.script;
      if (script.refuse) throw script.refuse;
      return (async function* (): AsyncGenerator<UpstreamEvent> {
        for (const content of script.deltas ?? ['Hello', ' there']) yield { type: 'delta', content };
        if (script.failMidStream) throw script.failMidStream;
        const usage = { promptTokens: script.promptTokens ?? 100, completionTokens: 2, totalTokens: 0 };
        yield { type: 'done', finishReason: 'stop', usage };
      })();
    },
    listModels: async () => [],
    contextWindow: async () => upstream.window,
  };
  return upstream;
}

let sharedRedactor: Promise<Redactor> | undefined;

export interface HarnessOptions {
  workspace: string;
  settings?: Partial<PipelineSettings>;
  stages?: Partial<PipelineStages>;
  overrides?: Partial<Omit<PipelineDeps, 'stages'>>;
}

export interface Harness {
  deps: PipelineDeps;
  upstream: ScriptedUpstream;
  store: MemoryAuditStore;
  calibrations: Map<string, Calibration>;
  /** The fake clock, in ms; each read advances it by 5 ms. */
  clock: { now: number };
  /** Sends one chat request and reads the answer to its end. */
  chat(
    request: Partial<ChatRequest>,
    headers?: { mode?: string; workspace?: string },
    signal?: AbortSignal,
  ): Promise<{ result: PipelineResult; reply: string; snapshot: Snapshot }>;
}

let ids = 0;

/** How much longer the real sources may take in these tests than on a user's machine. */
const SOURCE_DEADLINE_SCALE = 10;

export async function pipelineHarness(options: HarnessOptions): Promise<Harness> {
  sharedRedactor ??= createRedactor();
  const redactor = await sharedRedactor;
  const store = memoryAuditStore();
  const calibrations = new Map<string, Calibration>();
  const upstream = scriptedUpstream(store);
  const clock = { now: Date.parse('2026-03-04T09:30:00Z') };
  const deps = await createPipelineDeps({
    settings: {
      workspace: options.workspace,
      mode: 'off',
      redactMessages: true,
      allowedRoots: [],
      historyOverflow: 'drop-oldest',
      safetyRatio: 0.75,
      models: {},
      ...options.settings,
    },
    upstream,
    store: {
      ...store,
      getCalibration: (model) => calibrations.get(model),
      saveCalibration: (model, value) => calibrations.set(model, value),
    },
    stages: options.stages,
    overrides: {
      redactor,
      now: () => {
        clock.now += 5;
        return clock.now;
      },
      newId: () => `s_test${++ids}`,
      ...options.overrides,
    },
  });
  // The real sources' deadlines (0.5–5 s) are for a user's machine. At load 40 a source took longer, and a
  // test about what was collected saw a timeout and less context instead (a deep request that then fit its
  // window, a diff missing). Tests of a deadline bring their own sources (overrides.sources), which keep theirs.
  if (!options.overrides?.sources) {
    deps.sources = deps.sources.map((source) => ({ ...source, timeoutMs: source.timeoutMs * SOURCE_DEADLINE_SCALE }));
  }
  return {
    deps,
    upstream,
    store,
    calibrations,
    clock,
    async chat(request, headers = {}, signal = new AbortController().signal) {
      const result = await runPipeline(
        {
          request: { model: 'qwen2.5-coder:7b', messages: [], ...request } as ChatRequest,
          headers,
          requestId: `req-${ids}`,
          signal,
        },
        deps,
      ).catch((error: unknown) => {
        // A failure comes as a value naming the snapshot that recorded it; the tests look at the error.
        if (!(error instanceof RecordedFailure)) throw new Error(`not a recorded failure: ${String(error)}`);
        savedSnapshot(store, error.snapshotId);
        throw error.failure;
      });
      let reply = '';
      for await (const event of result.events) if (event.type === 'delta') reply += event.content ?? '';
      return { result, reply, snapshot: savedSnapshot(store, result.snapshotId) };
    },
  };
}

/** The snapshot as the store holds it; throws when none was written. */
export function savedSnapshot(store: MemoryAuditStore, id: string): Snapshot {
  const snapshot = store.get(id);
  if (!snapshot) throw new Error(`no snapshot ${id} in the store`);
  return snapshot;
}

/** The one snapshot the store holds (a request that failed returns no id). */
export function onlySnapshot(store: MemoryAuditStore): Snapshot {
  const rows = store.list({});
  if (rows.length !== 1) throw new Error(`expected one snapshot, found ${rows.length}`);
  return savedSnapshot(store, (rows[0] as { id: string }).id);
}

export function text(message: { content?: unknown } | undefined): string {
  const content = message?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}
