// The pipeline's inputs, dependencies and result, and the plain data each stage
// hands the next: in a module of their own so that runPipeline.ts and the stages
// import them without importing each other.

import type { TokenCounter } from '../budget/index.ts';
import type { ChatRequest } from '../shared/chatRequest.ts';
import type { AuditStore, Logger, Upstream, UpstreamRequest } from '../shared/ports.ts';
import type { Question } from '../shared/question.ts';
import type {
  Calibration,
  ChatMessage,
  ContextItem,
  ContextPart,
  ContextSource,
  ModeName,
  ModeRequest,
  Plan,
  RedactedItem,
  Redactor,
  SourceReport,
  UpstreamEvent,
} from '../shared/types.ts';
import type { ConversationCache } from './conversations.ts';
import type { Turn } from './planTurn.ts';
import type { RequestRecord } from './requestRecord.ts';
import type { ModeSelection } from './selectMode.ts';
import type { SentFigures } from './sentFigures.ts';

export interface PipelineSettings {
  workspace: string;
  mode: ModeRequest;
  redactMessages: boolean;
  allowedRoots: readonly string[];
  historyOverflow: 'drop-oldest' | 'error';
  safetyRatio: number;
  models: Readonly<Record<string, { window: number }>>;
  /** Windows from the workspace's config file: they may lower the upstream's, never raise it. */
  workspaceModels?: Readonly<Record<string, { window: number }>> | undefined;
  /** Refuse (503) rather than answer a request the audit log cannot record. */
  requireAudit?: boolean | undefined;
  /** More never-read globs, on top of rules/never-read.json. */
  neverRead?: readonly string[] | undefined;
  /** Semantic retrieval: the upstream's embedding model; unset, off. */
  embedModel?: string | undefined;
}

export interface PipelineDeps {
  /** The stages runPipeline calls in order; defaultDeps.ts sets the real ones, any can be replaced. */
  stages: PipelineStages;
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
  /** What `X-Ctx-Workspace` is checked against: the real file system in the server. */
  fs: WorkspaceFs;
  logger: Logger;
  now: () => number;
  newId: () => string;
  /**
   * Resolves once the workspace's indexes (symbols, retrieval) are built and current: a one-shot `preview`
   * waits for them (bounded), so it forwards what a warm server forwards.
   */
  settle?: ((workspace: string) => Promise<void>) | undefined;
  /** Lets go of what the sources hold open (file watchers, background index builds); the server calls it on stop. */
  close?: (() => void) | undefined;
}

export interface WorkspaceFs {
  /** The canonical path (symlinks resolved); throws when it does not exist. */
  realpath(path: string): string;
  isDirectory(path: string): boolean;
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
  /** The server made the id up (the client sent none): it holds none of the client's text. */
  requestIdMinted?: boolean | undefined;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** What the route's own mapping left out (another API's hosted tools …): the snapshot and X-Ctx-Warning say it. */
  warnings?: string[] | undefined;
}

export interface PipelineResult {
  snapshotId: string;
  modeUsed: ModeName;
  warnings: string[];
  /** The upstream's answer. Iterate it to the end; stopping early aborts the upstream. */
  events: AsyncIterable<UpstreamEvent>;
  /** The budget's count of the prompt forwarded (context included), before the upstream reports its own. */
  estimatedPromptTokens: number;
}

// ── What each stage hands the next ──────────────────────────────────────────

/** select: the mode, the model without its `+mode` suffix, the messages without `/mode` lines, the workspace. */
export interface Selected extends ModeSelection {
  workspace: string;
  /** The plan of the selected mode, before any downgrade. */
  plan: Plan;
}

/** collect: the plan's items and each source's report, and the model's window (both asked in parallel). */
export interface Collected {
  items: ContextItem[];
  /** The question the sources answered (shared/question.ts); the budget ranks by the same analysis. */
  question?: Question | undefined;
  reports: SourceReport[];
  ms: number;
  window: { tokens: number; assumed: boolean };
  /** What the snapshot must say about the workspace itself (not a git repository, git refused). */
  warnings?: string[] | undefined;
}

/** What the stages after redact know of the collection: everything but the items, which they get redacted. */
export type CollectedFacts = Omit<Collected, 'items'>;

/** An item whose scan failed (fail closed): what names it, none of its text. */
export type DroppedItem = Pick<ContextItem, 'key' | 'source' | 'path'>;

/** redact: the client's messages (unless the settings keep them as sent) and the items, masked. */
export interface Redacted {
  messages: ChatMessage[];
  /** The only items the later stages see: scanned, their text, title and why masked. */
  items: RedactedItem[];
  /** Items dropped because their scan failed (fail closed). */
  dropped: DroppedItem[];
  /** Findings by rule id, messages' first. */
  counts: Record<string, number>;
}

/** budget: this turn fitted to the window (planTurn), and the history keys it was found and is kept under. */
export interface Budgeted {
  turn: Turn;
  keys: string[];
  /** The model's calibration ratio the budget counted with (1 when none was learned). */
  ratio: number;
}

/** assemble: the exact request for the upstream and the context it carries, part by part. */
export interface Assembled {
  request: UpstreamRequest;
  modeUsed: ModeName;
  parts: ContextPart[];
  /** The request's tokens counted on what it sends (sentFigures.ts): what the snapshot reports. */
  figures: SentFigures;
}

/** Everything up to the forward: what `ctxproxy preview` prints and the snapshot describes. */
export interface Prepared {
  input: PipelineInput;
  /** The snapshot this request writes: carried context names it in later turns (absent in previews). */
  snapshotId?: string | undefined;
  selected: Selected;
  /** Without its items: the stages after redact read `redacted.items`. */
  collected: CollectedFacts;
  redacted: Redacted;
  budgeted: Budgeted;
  assembled: Assembled;
}

/** What the request brought past the door: its fields cleaned by the field table, and what that found. */
export interface Admitted {
  request: ChatRequest;
  /** Findings in the headers and the cleaned fields, by rule id. */
  counts: Record<string, number>;
  warnings: string[];
}

/** One request on its way: the record it writes whatever happens (it also holds the abort that stops the upstream). */
export interface Run {
  input: PipelineInput;
  record: RequestRecord;
}

/** forward: the upstream's answer as it streams, and when it was asked. */
export interface Forwarded {
  events: AsyncIterable<UpstreamEvent>;
  startedAt: number;
}

/** The collection as a promise, so that redact scans the client's messages while the sources still run. */
export type RedactInput = Pick<Prepared, 'input' | 'selected'> & { collected: Promise<Collected> };

/**
 * The pipeline's stages, in the order runPipeline calls them. Each takes the
 * earlier stages' results it needs, by name, and `deps` for its I/O.
 */
export interface PipelineStages {
  select(so: Pick<Prepared, 'input'>, deps: PipelineDeps): Promise<Selected>;
  collect(so: Pick<Prepared, 'input' | 'selected'>, deps: PipelineDeps): Promise<Collected>;
  redact(so: RedactInput, deps: PipelineDeps): Promise<Redacted>;
  budget(
    so: Pick<Prepared, 'input' | 'snapshotId' | 'selected' | 'collected' | 'redacted'>,
    deps: PipelineDeps,
  ): Promise<Budgeted>;
  assemble(so: Omit<Prepared, 'assembled'>, deps: PipelineDeps): Promise<Assembled>;
  forward(so: { run: Run; prepared: Prepared }, deps: PipelineDeps): Promise<Forwarded>;
  /** Follows the answer to its end, then writes the snapshot (reply, usage, outcome). */
  record(so: { run: Run; prepared: Prepared; forwarded: Forwarded }, deps: PipelineDeps): AsyncIterable<UpstreamEvent>;
}
