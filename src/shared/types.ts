// Plain data that passes between the pipeline's stages. Stage folders import
// only from here (and the other files of shared/), never from each other.

import type { z } from 'zod';
import type { chatMessageSchema, contentPartSchema, toolCallSchema, toolDefinitionSchema } from './chatRequest.ts';
import type { Question } from './questionTypes.ts';

export const MODE_NAMES = ['off', 'quick', 'git-aware', 'deep', 'debug'] as const;
export type ModeName = (typeof MODE_NAMES)[number];
export type ModeRequest = ModeName | 'auto';

// ---- OpenAI chat shapes (what clients send and what we forward) ----------

// Inferred from the request schema, so what we accept and what we handle cannot drift.
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type ContentPart = z.infer<typeof contentPartSchema>;
export type ImagePart = Extract<ContentPart, { type: 'image_url' }>;
export type ToolCall = z.infer<typeof toolCallSchema>;
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/**
 * A model's correction of the local token estimate: actual / estimated prompt
 * tokens over `samples` answers. The budget stage computes it, the audit store keeps it.
 */
export interface Calibration {
  ratio: number;
  samples: number;
}

// ---- Upstream --------------------------------------------------------------

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

/** One step of an upstream answer, already independent of Ollama's or OpenAI's wire shape. */
export type UpstreamEvent =
  | {
      type: 'delta';
      content?: string | undefined;
      reasoning?: string | undefined;
      toolCalls?: ToolCall[] | undefined;
    }
  | {
      type: 'done';
      finishReason: FinishReason;
      usage?: Usage | undefined;
    };

export interface UpstreamModel {
  id: string;
  created: number;
  ownedBy: string;
}

// ---- Context ----------------------------------------------------------------

/** How an item may be trimmed: heads for code, tails for logs, hunks for diffs. */
export type ItemKind = 'text' | 'code' | 'log' | 'diff' | 'tree';

/**
 * A part of an item's text the budget keeps or drops whole, in line indices of `text` (both ends
 * included): a diff's file `header` and its `hunk`s, a stack trace's failing `frame`, a `lines` range.
 * Set by the source that built the text (it knows where its parts begin), so nothing parses it again.
 */
export interface Segment {
  kind: 'header' | 'hunk' | 'frame' | 'lines';
  start: number;
  end: number;
}

export interface ContextItem {
  /** Unique key, namespaced by its source: `git.status`, `instructions.project.CLAUDE.md`. */
  key: string;
  /** The source namespace that produced it: `git`, `instructions`, `files` … */
  source: string;
  /** Human label shown in the fence, usually a path or a short title. */
  title: string;
  text: string;
  /** Higher wins when two items claim the same key, and survives trimming longer. */
  priority: number;
  kind: ItemKind;
  /** Workspace-relative path when the item is (part of) a file. */
  path?: string | undefined;
  /** True when the source itself already cut the text (and said so in it). */
  truncated?: boolean | undefined;
  /**
   * Why the source chose this item, in one short phrase for the audit page ("defines
   * parseConfig, named in the question", "changed in the work tree"). Built from paths,
   * symbol names and matched terms only, never from the item's text, so it holds no secret.
   */
  why?: string | undefined;
  /** The parts of `text` to trim by, in order (diffs: each file's header, then its hunks). */
  segments?: readonly Segment[] | undefined;
  /**
   * contentHash(text) (shared/contentHash.ts), computed once by the redact stage and reused by every
   * cache keyed by the text. Whoever changes `text` sets it again (contentHash.ts's withText).
   */
  hash?: string | undefined;
}

declare const redactedBrand: unique symbol;

/**
 * An item the redact stage has scanned (text, title and why), with its hash. Only
 * pipeline/redactStage.ts makes them: the stages after it take these, never what collect produced.
 */
export type RedactedItem = ContextItem & { readonly hash: string; readonly [redactedBrand]: true };

export interface SkippedPath {
  path: string;
  reason: string;
}

export interface SourceResult {
  items: ContextItem[];
  /** Files the source chose not to read (binary, too large, never-read, outside the workspace …). */
  skipped?: SkippedPath[] | undefined;
}

export interface CollectInput {
  workspace: string;
  /** The client's messages, already stripped of any `/mode` line. */
  messages: ChatMessage[];
  /** Text of the last user message. */
  lastUserText: string;
  /** The question, analysed once for every source (shared/question.ts). */
  question: Question;
  mode: ModeName;
  /** Item keys (or key prefixes such as `git.`) the plan wants; sources skip the rest. */
  wanted: string[];
  now: Date;
}

export interface ContextSource {
  /** Namespace: every item key starts with `${name}.`. */
  name: string;
  timeoutMs: number;
  collect(input: CollectInput, signal: AbortSignal): Promise<SourceResult>;
}

export interface SourceReport {
  source: string;
  status: 'ok' | 'failed' | 'timeout';
  ms: number;
  items: number;
  chars: number;
  /** In a snapshot: raw tokens of this source's fences in the forwarded messages, carried ones included. */
  tokens?: number | undefined;
  /** The part of `tokens` an earlier turn first sent and this request repeats. */
  carriedTokens?: number | undefined;
  error?: string | undefined;
  skipped: SkippedPath[];
  trimmed?: string[] | undefined;
}

// ---- Plans (rules/modes/*.json) -----------------------------------------

export interface PlanEntry {
  /** An item key or key prefix (`git.status`, `instructions.`). */
  items: string;
  weight: number;
  /** Upper bound for everything this entry admits, in tokens. */
  cap: number;
}

export interface Plan {
  mode: ModeName;
  description: string;
  entries: PlanEntry[];
}

// ---- Redaction -----------------------------------------------------------

export interface RedactionFinding {
  ruleId: string;
  start: number;
  end: number;
}

/**
 * A candidate a rule found and left alone, and why (src/redact/classifyValue.ts): the audit can say
 * why a value was kept. The range is the rule's match (key and value); never the value itself.
 */
export interface KeptValue {
  ruleId: string;
  start: number;
  end: number;
  /** What the value is: `reference`, `placeholder`, `public`, `secret-name`, `documentation`. */
  kind: string;
  evidence: string;
}

export interface RedactResult {
  text: string;
  /** Ranges in the original text; never the secret itself. */
  findings: RedactionFinding[];
  /** Candidates left alone, with the evidence; absent from redactors that do not report them. */
  kept?: KeptValue[] | undefined;
}

export interface Redactor {
  /** `hash`: contentHash(text) when the caller has it already (a context item's), so it is not computed again. */
  redact(text: string, options?: { path?: string | undefined; hash?: string | undefined }): Promise<RedactResult>;
  /** Files that are secrets by nature are never opened. */
  isNeverRead(relativePath: string): boolean;
}

// ---- Audit ---------------------------------------------------------------

/**
 * `in_flight`: written when the request went upstream, replaced when it ends;
 * `interrupted`: still in flight when its process died (marked at the next start).
 */
export type Outcome = 'ok' | 'error' | 'aborted' | 'in_flight' | 'interrupted';

export interface SnapshotReply {
  content: string;
  reasoning?: string | undefined;
  toolCalls?: ToolCall[] | undefined;
  finishReason?: FinishReason | undefined;
}

/** Tokens of the forwarded request, counted by one counter over exactly what was sent. */
export interface SentTokens {
  /** The whole request: every message (context included), the tool schemas, the reply priming. */
  promptTokens: number;
  /** The same request with the context taken out (the client's messages as forwarded). */
  conversationTokens: number;
  /** The context parts, carried ones included: the sum of `parts[].tokens`. */
  contextTokens: number;
}

export interface BudgetReport {
  window: number;
  usable: number;
  reserve: number;
  /** Raw estimator tokens of the forwarded messages without their context (see SentTokens). */
  conversationTokens: number;
  /** Raw estimator tokens of the context as forwarded, carried parts included. */
  contextTokens: number;
  /** Raw estimator tokens of the whole forwarded request (absent in snapshots written before it was recorded). */
  promptTokens?: number | undefined;
  /**
   * The same three figures through the model's calibration (`ratio`: the upstream's own counts over the
   * estimator's, 1 when none was learned): the units the budget fitted in.
   */
  calibrated?: (SentTokens & { ratio: number }) | undefined;
  numCtx?: number | undefined;
  /** The reply limit forwarded (num_predict / max_tokens) when the client asked for one: at most what it asked. */
  outputLimit?: number | undefined;
  /**
   * Per plan entry: `budget`, what this turn's fit allowed (calibrated tokens); `used`, the raw tokens of the
   * entry's items as forwarded, carried ones included; `trimmed`, the item keys the fit trimmed or dropped.
   */
  perEntry: { items: string; budget: number; used: number; trimmed: string[] }[];
  /** Every piece of context in the forwarded messages, carried or new; their tokens sum to contextTokens. */
  parts?: ContextPart[] | undefined;
  /** Items the sources collected that this request did not send, each with the reason. */
  leftOut?: LeftOutItem[] | undefined;
  /** Why the request ran in the mode it asked for ("auto: a stack trace in the question"); a downgrade is said apart. */
  modeReason?: string | undefined;
  /** Some text was too long or too unbroken to count exactly in bounded time, so the counts are estimates. */
  estimated?: boolean | undefined;
}

/** One source's share of a context part: its fences, framing excluded. */
export interface ContextPartSource {
  source: string;
  /** Item keys, in the order they appear. */
  keys: string[];
  chars: number;
  tokens: number;
  /** The same items one by one (absent in snapshots written before they were recorded). */
  items?: ContextPartItem[] | undefined;
}

/** One item as it was forwarded, and why its source chose it: a row of the audit page's "why" table. */
export interface ContextPartItem {
  key: string;
  title: string;
  path?: string | undefined;
  /** ContextItem.why: paths, symbol names and matched terms only, never the item's text. */
  why?: string | undefined;
  /** Its fence as forwarded. */
  chars: number;
  tokens: number;
  /** Its text was cut (by its source's size cap or by the budget); the text says where. */
  trimmed?: boolean | undefined;
}

/** A collected item the request did not send. */
export interface LeftOutItem {
  key: string;
  source: string;
  title: string;
  path?: string | undefined;
  why?: string | undefined;
  /** "over budget: needs ~1,200 tokens", "already in the client's messages", "not in the quick plan" … */
  reason: string;
}

/** A context block or a `<context-update>` attachment as it was forwarded. */
export interface ContextPart {
  kind: 'block' | 'update';
  /** Index of the forwarded message that holds it. */
  message: number;
  /** True when an earlier turn first sent it and this request repeats it. */
  carried: boolean;
  /** The turn of the conversation (1-based) that first sent it, and its snapshot. */
  fromTurn: number;
  fromSnapshot?: string | undefined;
  /** The whole part: fences plus the preamble and separators. */
  chars: number;
  tokens: number;
  sources: ContextPartSource[];
}

export interface Snapshot {
  id: string;
  requestId: string;
  createdAt: number;
  model: string;
  modeAsked: ModeRequest;
  modeUsed: ModeName;
  downgradeReason?: string | undefined;
  workspace: string;
  userAgent?: string | undefined;
  stream: boolean;
  conversationId?: string | undefined;
  /** Exactly the messages sent upstream, after enrichment and redaction. */
  forwarded: ChatMessage[];
  /**
   * A request refused before anything was forwarded: its last user message, redacted and capped,
   * so the list can say what was asked. Absent when something was forwarded (the question is in it).
   */
  question?: string | undefined;
  /** The fenced context block that was forwarded, if any (stored once by hash). */
  contextBlock?: string | undefined;
  sources: SourceReport[];
  redactions: Record<string, number>;
  budget?: BudgetReport | undefined;
  reply: SnapshotReply;
  usage?: Usage | undefined;
  timings: {
    totalMs: number;
    collectMs?: number | undefined;
    firstTokenMs?: number | undefined;
    upstreamMs?: number | undefined;
  };
  outcome: Outcome;
  error?: { status: number; type: string; code: string | null; message: string } | undefined;
  warnings: string[];
}

export interface SnapshotSummary {
  id: string;
  createdAt: number;
  model: string;
  modeAsked: ModeRequest;
  modeUsed: ModeName;
  outcome: Outcome;
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
  totalMs: number;
  question: string;
  /** The workspace the request was about. */
  workspace?: string | undefined;
  conversationId?: string | undefined;
  /** Why a failed or refused request failed: its status and message (redacted, as stored). */
  error?: { status: number; message: string } | undefined;
}
