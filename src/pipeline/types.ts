// The pipeline's inputs, dependencies and result: the types every stage entry and front door
// shares, in a module of their own so that runPipeline.ts and the stages it calls import them
// without importing each other.

import type { TokenCounter } from '../budget/index.ts';
import type { ChatRequest } from '../shared/chatRequest.ts';
import type { AuditStore, Logger, Upstream } from '../shared/ports.ts';
import type {
  Calibration,
  ContextSource,
  ModeName,
  ModeRequest,
  Plan,
  Redactor,
  UpstreamEvent,
} from '../shared/types.ts';
import type { ConversationCache } from './conversations.ts';

export interface PipelineSettings {
  workspace: string;
  mode: ModeRequest;
  redactMessages: boolean;
  allowedRoots: readonly string[];
  historyOverflow: 'drop-oldest' | 'error';
  safetyRatio: number;
  models: Readonly<Record<string, { window: number }>>;
  /** Refuse (503) rather than answer a request the audit log cannot record. */
  requireAudit?: boolean | undefined;
}

export interface PipelineDeps {
  upstream: Upstream;
  store: AuditStore;
  sources: readonly ContextSource[];
  redactor: Redactor;
  plans: Readonly<Record<ModeName, Plan>>;
  looksLikeStackTrace: (text: string) => boolean;
  conversations: ConversationCache;
  /** The largest num_ctx sent per model in this process (see stickyNumCtx); absent: none kept. */
  loadedNumCtx?: Map<string, number> | undefined;
  /** The estimator; the pipeline derives a per-model calibrated counter from it. */
  tokenCounter: TokenCounter;
  /** Where each model's calibration is kept between requests (the audit store). */
  calibration?: {
    get(model: string): Calibration | undefined;
    set(model: string, value: Calibration): void;
  };
  settings: PipelineSettings;
  logger: Logger;
  now: () => number;
  newId: () => string;
}

/** The request headers the pipeline reads. */
export interface PipelineHeaders {
  mode?: string | undefined;
  workspace?: string | undefined;
  userAgent?: string | undefined;
}

export interface PipelineInput {
  request: ChatRequest;
  headers: PipelineHeaders;
  requestId: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export interface PipelineResult {
  snapshotId: string;
  modeUsed: ModeName;
  warnings: string[];
  /** The upstream's answer. Iterate it to the end; stopping early aborts the upstream. */
  events: AsyncIterable<UpstreamEvent>;
}
