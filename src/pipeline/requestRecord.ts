// One request's audit record, from arrival to close, for every route that
// writes one (chat, responses, messages, completions, embeddings, and a
// request turned away at the door). The only code that writes a snapshot:
//
//   open(facts)        the record exists (an id, the time) before any work, so whatever fails is recorded
//   admit(cleaned)     what passed the door: the client's headers redacted, the model, findings, warnings
//   describe(fields)   what the stages decided (they return fields; they never touch the record)
//   inFlight()         written (outcome `in_flight`) before the upstream sees the prompt: a crash or a
//                      SIGKILL mid-answer still leaves it in the log (marked `interrupted` at the next start)
//   tap(events)        follows the answer as the client reads it (reply, usage, first token), then closes
//   fail(error)        closes with the error; returns the failure as a value that carries the snapshot id
//   close(outcome)     the reply and the error redacted and capped, handed to the store (never throws)
//
// When the store cannot write, the answer still goes out with a warning, or,
// under --require-audit, the request is refused before anything is sent.

import { setImmediate } from 'node:timers/promises';
import { AuditUnavailableError, type ProxyError, RecordedFailure, toProxyError } from '../shared/errors.ts';
import type { AuditStore, AuditWrite, Logger } from '../shared/ports.ts';
import type { ModeRequest, Redactor, Snapshot, SnapshotReply, UpstreamEvent, Usage } from '../shared/types.ts';
import { addCounts } from './redactionCounts.ts';
import { storedErrorMessage, storedHeaders, storedReply, storedText } from './storedText.ts';

/** What a record needs of the pipeline's deps (PipelineDeps has all of it). */
export interface RecordDeps {
  store: AuditStore;
  logger: Logger;
  now: () => number;
  newId: () => string;
  redactor: Redactor;
  settings: { workspace: string; mode: ModeRequest; requireAudit?: boolean | undefined };
}

/** What is known when the request arrives: nothing of it is stored until it is redacted. */
export interface ArrivalFacts {
  requestId: string;
  /** The server made the id up (the client sent none): stored as it is, never scanned. */
  requestIdMinted?: boolean | undefined;
  userAgent?: string | undefined;
  /** The model as the client named it: stored (redacted) only if the request fails before admit names it. */
  model: string;
  stream: boolean;
  /** What the routes without context record: `off`, whatever was asked. Default: the server's mode. */
  modeAsked?: ModeRequest | undefined;
  /** Aborted when the client goes away: the upstream is then aborted too. */
  signal: AbortSignal;
  /**
   * The question asked, read only when the request is refused before anything was forwarded: it is
   * then stored (redacted) so the audit list can show what was asked.
   */
  question?: (() => string) | undefined;
}

/** A refused request's question as stored: enough to recognise it in the list. */
const QUESTION_BYTES = 8_000;

/** What the request brought past the door. */
export interface Cleaned {
  /** The model that goes upstream, as the field table or the redactor left it. */
  model?: string | undefined;
  /** Findings outside the messages (headers, tool schemas, options), by rule id. */
  counts?: Record<string, number> | undefined;
  warnings?: readonly string[] | undefined;
}

/** What an answer that ended well offers the owners of what follows it (conversation state, calibration). */
export interface Answered {
  reply: Readonly<SnapshotReply>;
  usage: Usage | undefined;
  /** Adds a warning to the record before it closes. */
  warn(text: string): void;
}

export interface TapHooks {
  /** When the upstream asked: first-token and upstream times count from here. */
  startedAt: number;
  /** An answer that ended well, before its last frames leave (the client may send its next turn at once). */
  beforeLastFrames?: ((answered: Answered) => void) | undefined;
  /** An answer that ended well, after its last frames left and before the record closes. */
  afterAnswer?: ((answered: Answered) => void) | undefined;
}

export class RequestRecord {
  readonly #deps: RecordDeps;
  readonly #snapshot: Snapshot;
  readonly #facts: ArrivalFacts;
  readonly #started: number;
  readonly #upstreamAbort = new AbortController();
  readonly #onClientGone: () => void;
  #headersStored = false;
  #closed = false;

  private constructor(facts: ArrivalFacts, deps: RecordDeps) {
    this.#deps = deps;
    this.#facts = facts;
    this.#started = deps.now();
    const kept = { requestId: '', model: '', stream: facts.stream };
    this.#snapshot = emptySnapshot(kept, deps, this.#started, facts.modeAsked ?? deps.settings.mode);
    this.#onClientGone = () => this.#upstreamAbort.abort(facts.signal.reason);
    facts.signal.addEventListener('abort', this.#onClientGone, { once: true });
  }

  static open(facts: ArrivalFacts, deps: RecordDeps): RequestRecord {
    return new RequestRecord(facts, deps);
  }

  get id(): string {
    return this.#snapshot.id;
  }

  /** The record's warnings as they grow (X-Ctx-Warning reads them when the answer's head goes out). */
  get warnings(): string[] {
    return this.#snapshot.warnings;
  }

  /** Findings by rule id outside the messages and the context; the routes' own redaction adds to them. */
  get counts(): Record<string, number> {
    return this.#snapshot.redactions;
  }

  /** Aborted when the client goes away or the answer is given up: pass it to the upstream. */
  get upstreamSignal(): AbortSignal {
    return this.#upstreamAbort.signal;
  }

  /** Under --require-audit a store already known not to write refuses the request before any work. */
  refuseIfAuditDown(): void {
    if (!this.#deps.settings.requireAudit) return;
    const health = this.#deps.store.health();
    if (!health.writable) throw new AuditUnavailableError(health.reason ?? 'unknown reason');
  }

  /** The headers redacted, then what the door cleaned. */
  async admit(cleaned: Cleaned = {}): Promise<void> {
    await this.#storeHeaders();
    if (cleaned.model !== undefined) this.#snapshot.model = cleaned.model;
    if (cleaned.counts) addCounts(this.#snapshot.redactions, cleaned.counts);
    if (cleaned.warnings) this.#snapshot.warnings.push(...cleaned.warnings);
  }

  /** The fields the stages decided (snapshot.ts's snapshotFields, or a route's own). */
  describe(fields: Partial<Snapshot>): void {
    const { warnings, ...rest } = fields;
    Object.assign(this.#snapshot, rest);
    // The stages' warnings first, then the door's; the same array, so whoever holds it sees what follows.
    if (warnings) this.#snapshot.warnings.unshift(...warnings);
  }

  warn(text: string): void {
    this.#snapshot.warnings.push(text);
  }

  /** The in-flight record, written before the prompt goes upstream; not on disk: a warning, or a 503 under --require-audit. */
  async inFlight(): Promise<void> {
    const snapshot = this.#snapshot;
    // A copy: the record keeps changing while the answer streams.
    const record: Snapshot = {
      ...snapshot,
      outcome: 'in_flight',
      timings: { ...snapshot.timings, totalMs: this.#deps.now() - this.#started },
      warnings: [...snapshot.warnings],
      reply: { content: '' },
    };
    let result: AuditWrite;
    try {
      result = await this.#deps.store.saveInFlight(record);
    } catch (error) {
      this.#deps.logger.error('audit.save_failed', { id: snapshot.id, error: (error as Error)?.name });
      result = { written: false, reason: 'the audit store failed' };
    }
    if (result.written) return;
    if (this.#deps.settings.requireAudit) throw new AuditUnavailableError(result.reason);
    snapshot.warnings.push(`audit log not written (${result.reason})`);
  }

  /** Follows the answer to its end (or its failure, or the client leaving), then closes the record. */
  async *tap(events: AsyncIterable<UpstreamEvent>, hooks: TapHooks): AsyncGenerator<UpstreamEvent> {
    const snapshot = this.#snapshot;
    const reply = snapshot.reply;
    let outcome: Snapshot['outcome'] = 'aborted';
    let failure: ProxyError | undefined;
    try {
      for await (const event of events) {
        if (event.type === 'delta') {
          snapshot.timings.firstTokenMs ??= this.#deps.now() - hooks.startedAt;
          if (event.content) reply.content += event.content;
          if (event.reasoning) reply.reasoning = (reply.reasoning ?? '') + event.reasoning;
          if (event.toolCalls?.length) reply.toolCalls = [...(reply.toolCalls ?? []), ...event.toolCalls];
        } else {
          reply.finishReason = event.finishReason;
          snapshot.usage = event.usage;
          outcome = 'ok';
        }
        yield event;
      }
    } catch (error) {
      failure = toProxyError(error);
      outcome = this.#facts.signal.aborted ? 'aborted' : 'error';
      throw new RecordedFailure(failure, snapshot.id);
    } finally {
      // Stopping early (the client left, or the consumer gave up) must stop the model too.
      if (outcome !== 'ok') this.#upstreamAbort.abort(new Error('client went away'));
      this.#release();
      snapshot.timings.upstreamMs = this.#deps.now() - hooks.startedAt;
      const answered: Answered = { reply, usage: snapshot.usage, warn: (text) => this.warn(text) };
      if (outcome === 'ok') this.#hook('beforeLastFrames', hooks.beforeLastFrames, answered);
      // A stream's frames of this turn leave at its end (http/nodeSse.ts), the last ones too: what
      // follows only completes the audit, so it waits for them instead of holding the answer's bytes
      // back. The in-flight record went to disk before the prompt went upstream, unless the audit
      // could not write and was not required (the request then carries a warning).
      if (snapshot.stream) await setImmediate();
      if (outcome === 'ok') this.#hook('afterAnswer', hooks.afterAnswer, answered);
      await this.close(outcome, failure);
    }
  }

  /** Closes the record of a request that failed before its answer began; the failure, with its snapshot id. */
  async fail(error: unknown): Promise<RecordedFailure> {
    if (error instanceof RecordedFailure) return error;
    const failure = toProxyError(error);
    if (!this.#closed) {
      this.#release();
      if (this.#snapshot.model === '') {
        this.#snapshot.model =
          (await storedText(this.#facts.model, 200, this.#deps.redactor, this.#snapshot.redactions)) ?? '';
      }
      if (this.#snapshot.forwarded.length === 0 && this.#facts.question) {
        const asked = this.#facts.question();
        this.#snapshot.question = await storedText(
          asked,
          QUESTION_BYTES,
          this.#deps.redactor,
          this.#snapshot.redactions,
        );
      }
      await this.close(this.#facts.signal.aborted ? 'aborted' : 'error', failure);
    }
    return new RecordedFailure(failure, this.#snapshot.id);
  }

  /**
   * Completes the record (outcome, total time, the reply redacted, the error redacted and capped: a
   * message can quote the request) and hands it to the store, which never throws on the request's path.
   */
  async close(outcome: Snapshot['outcome'], failure?: ProxyError): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#release();
    const snapshot = this.#snapshot;
    const { redactor, store, logger } = this.#deps;
    // A request turned away before admit still keeps who sent it (redacted).
    await this.#storeHeaders().catch(() => {});
    snapshot.outcome = outcome;
    snapshot.timings.totalMs = this.#deps.now() - this.#started;
    // A new object: the conversation memory may hold the reply as the model sent it, for the next turn.
    snapshot.reply = await storedReply(snapshot.reply, redactor, snapshot.redactions);
    if (failure) {
      const message = await storedErrorMessage(failure.message, redactor, snapshot.redactions);
      snapshot.error = { status: failure.status, type: failure.type, code: failure.code, message };
    }
    try {
      store.save(snapshot);
    } catch (error) {
      logger.error('audit.save_failed', { id: snapshot.id, error: (error as Error)?.name });
    }
    logger.info('request.done', {
      id: snapshot.id,
      requestId: snapshot.requestId,
      mode: snapshot.modeUsed,
      outcome,
      status: failure?.status,
      ms: snapshot.timings.totalMs,
      promptTokens: snapshot.usage?.promptTokens,
      completionTokens: snapshot.usage?.completionTokens,
    });
  }

  /** The client's headers, capped and redacted; a minted id is stored as it is, with no scan. */
  async #storeHeaders(): Promise<void> {
    if (this.#headersStored) return;
    this.#headersStored = true;
    const { requestId, requestIdMinted, userAgent } = this.#facts;
    const minted = requestIdMinted === true;
    const stored = await storedHeaders(
      { userAgent, requestId: minted ? '' : requestId },
      this.#deps.redactor,
      this.#snapshot.redactions,
    );
    Object.assign(this.#snapshot, stored);
    if (minted) this.#snapshot.requestId = requestId;
  }

  #release(): void {
    this.#facts.signal.removeEventListener('abort', this.#onClientGone);
  }

  /** What follows an answer is a refinement: it must never cost the request its record. */
  #hook(name: string, hook: ((answered: Answered) => void) | undefined, answered: Answered): void {
    try {
      hook?.(answered);
    } catch (error) {
      this.#deps.logger.error('pipeline.after_answer_failed', {
        id: this.id,
        hook: name,
        error: (error as Error)?.name,
      });
    }
  }
}

export interface RequestFacts {
  requestId: string;
  model: string;
  stream: boolean;
  userAgent?: string | undefined;
}

/** Nothing the client chose is in it yet: that is kept only once the field table and the redactor passed it. */
export function emptySnapshot(
  facts: RequestFacts,
  deps: Pick<RecordDeps, 'newId' | 'settings'>,
  started: number,
  modeAsked: ModeRequest = deps.settings.mode,
): Snapshot {
  return {
    id: deps.newId(),
    requestId: facts.requestId,
    createdAt: started,
    model: facts.model,
    modeAsked,
    modeUsed: 'off',
    workspace: deps.settings.workspace,
    userAgent: facts.userAgent,
    stream: facts.stream,
    forwarded: [],
    sources: [],
    redactions: {},
    reply: { content: '' },
    timings: { totalMs: 0 },
    outcome: 'error',
    warnings: [],
  };
}
