// The I/O the pipeline needs, as interfaces. main.ts builds the real ones;
// tests pass real fixtures or small doubles.

import type { ChatMessage, Snapshot, SnapshotSummary, ToolDefinition, UpstreamEvent, UpstreamModel } from './types.ts';

/** What the pipeline asks the upstream for: the client's request with our messages. */
export interface UpstreamRequest {
  /** Model name with any `+mode` suffix already stripped. */
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[] | undefined;
  /** The client's other fields (sampling, response_format …), as it sent them. */
  params: Record<string, unknown>;
  /** Ollama only: the window to load the model with. */
  numCtx?: number | undefined;
  /** Ollama only: force thinking off (quick mode). */
  think?: false | undefined;
}

export interface Upstream {
  readonly kind: 'ollama' | 'openai';
  readonly baseUrl: string;
  /**
   * Starts a streamed chat. Resolves once the upstream accepted the request,
   * so errors it answers at once (unknown model, unreachable) are thrown here
   * and can still become an HTTP status. Errors later are thrown by the iterator.
   * Aborting `signal` closes the upstream connection.
   */
  chat(request: UpstreamRequest, signal: AbortSignal): Promise<AsyncIterable<UpstreamEvent>>;
  listModels(signal?: AbortSignal): Promise<UpstreamModel[]>;
  /** The model's context window in tokens; undefined when the upstream does not say; rejects when the lookup failed. */
  contextWindow(model: string): Promise<number | undefined>;
  /** Embeddings (`/v1/embeddings`); absent when the upstream kind cannot do them. */
  embed?(request: EmbedRequest, signal: AbortSignal): Promise<EmbedResult>;
  /**
   * A raw text completion (`/v1/completions`), streamed like chat; absent when
   * the upstream kind cannot do them.
   */
  generate?(request: GenerateRequest, signal: AbortSignal): Promise<AsyncIterable<UpstreamEvent>>;
}

export interface EmbedRequest {
  model: string;
  input: string[];
  dimensions?: number | undefined;
}

export interface EmbedResult {
  embeddings: number[][];
  promptTokens?: number | undefined;
}

/** A prompt (and a suffix for fill-in-the-middle) sent as is: no chat template, no context. */
export interface GenerateRequest {
  model: string;
  prompt: string;
  suffix?: string | undefined;
  /** Sampling as the client set it: max_tokens, temperature, top_p, stop, seed, penalties. */
  params: Record<string, unknown>;
  /** Ollama only: the window the model is already loaded with, so autocomplete does not reload it. */
  numCtx?: number | undefined;
}

export interface SnapshotQuery {
  limit?: number | undefined;
  /** Cursor: return snapshots older than this one. */
  before?: string | undefined;
  model?: string | undefined;
  mode?: string | undefined;
  outcome?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
  text?: string | undefined;
}

/** Whether the audit log is being written: for /healthz, X-Ctx-Warning and --require-audit. */
export interface AuditHealth {
  writable: boolean;
  /** Writes waiting in memory (snapshots and calibration updates). */
  queued: number;
  /** Snapshots that could not be kept (the queue was full, or a write failed for good), since start. */
  dropped: number;
  /** Why the log is not being written ("database locked", "disk full" …), while not writable. */
  reason?: string | undefined;
}

/** Whether a snapshot is on disk now; when not, it stays queued and `reason` says why. */
export type AuditWrite = { written: true } | { written: false; reason: string };

export interface AuditStore {
  /** Queues the snapshot; the write happens off the response path. Saving an id again replaces it. */
  save(snapshot: Snapshot): void;
  /**
   * Queues the record of a request about to go upstream and writes it at once when the store is
   * healthy; when it is not, answers at once from the store's state (the snapshot stays queued).
   */
  saveInFlight(snapshot: Snapshot): Promise<AuditWrite>;
  health(): AuditHealth;
  get(id: string): Snapshot | undefined;
  list(query: SnapshotQuery): SnapshotSummary[];
  /** Writes everything queued. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export type LogFields = Record<string, string | number | boolean | undefined>;

/** Logs carry sizes, hashes, ids and rule ids; never prompt text or secrets. */
export interface Logger {
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}
