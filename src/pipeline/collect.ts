// Stage 2, collect: run the plan's sources in parallel, each under its own
// timeout, and ask the model's window meanwhile. A source that fails or times
// out is reported and skipped; the request goes on.

import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { type CpuPool, sharedCpuPool, taskModule } from '../shared/cpuPool.ts';
import { messageText } from '../shared/messageText.ts';
import { PARSE_EDGE_CHARS, parseWindow } from '../shared/parseWindow.ts';
import type { Logger } from '../shared/ports.ts';
import { analyseQuestion } from '../shared/question.ts';
import type { Question } from '../shared/questionTypes.ts';
import type { ChatMessage, CollectInput, ContextItem, ContextSource, Plan, SourceReport } from '../shared/types.ts';
import { notARepositoryWarning } from '../sources/git/gitPresence.ts';
import { lastUserText } from './selectMode.ts';
import type { Collected, PipelineDeps, Prepared } from './types.ts';

export async function collect(
  { input, selected }: Pick<Prepared, 'input' | 'selected'>,
  deps: PipelineDeps,
): Promise<Collected> {
  const chosen = sourcesToRun(deps.sources, selected.plan);
  // No source to run (mode off): no question to analyse either. The budget then has no item to rank
  // by it, and parses the latest question itself if it ever has one (budgetRequest's `terms`).
  const question = chosen.length > 0 ? await questionOffLoop(selected.messages) : undefined;
  const [collected, window] = await Promise.all([
    question === undefined
      ? { items: [], reports: [], ms: 0 }
      : collectContext(
          chosen,
          selected.plan,
          {
            workspace: selected.workspace,
            messages: selected.messages,
            // Bounded: sources parse it (traces, paths); the message itself is forwarded whole.
            lastUserText: parseWindow(lastUserText(selected.messages)),
            question,
            now: new Date(deps.now()),
          },
          { logger: deps.logger, now: deps.now, signal: input.signal },
        ),
    discoverWindow(deps, selected.model),
  ]);
  return {
    ...collected,
    question,
    window,
    warnings: workspaceWarnings(selected.workspace, collected.reports),
  };
}

/**
 * User turns the question reads, at most: the latest and the earlier ones analyseQuestion looks back over
 * (16), with room to spare. Only user turns count there, so the others need not be sent.
 */
const QUESTION_TURNS = 32;
/** Parsed text above which the question is analysed in the CPU pool (a full 128K window takes ~30-100 ms). */
const QUESTION_POOL_ABOVE_CHARS = PARSE_EDGE_CHARS;
const questionTask = taskModule('questionTask', import.meta.url);

/**
 * analyseQuestion's answer; when the user turns it reads hold long texts, computed in the CPU pool on
 * just those turns (as text), so no other request waits behind the parse. A pool that fails does not
 * fail the request: the question is then analysed here.
 */
export async function questionOffLoop(
  messages: readonly ChatMessage[],
  pool: CpuPool | undefined = sharedCpuPool(),
): Promise<Question> {
  const turns: ChatMessage[] = [];
  let chars = 0;
  for (let i = messages.length - 1; i >= 0 && turns.length < QUESTION_TURNS; i--) {
    const message = messages[i] as ChatMessage;
    if (message.role !== 'user') continue;
    const text = messageText(message);
    turns.unshift({ role: 'user', content: text });
    chars += Math.min(text.length, 2 * PARSE_EDGE_CHARS);
  }
  if (!pool || chars <= QUESTION_POOL_ABOVE_CHARS) return analyseQuestion(messages);
  try {
    return await pool.run<Question>({ module: questionTask, name: 'analyseQuestion', args: [turns] }, 10_000);
  } catch {
    return analyseQuestion(messages);
  }
}

/**
 * Every request says when the workspace has no git to go on, whatever the mode: not a repository,
 * or one git was refused for (the git source's report holds the reason, in the proxy's words).
 */
function workspaceWarnings(workspace: string, reports: readonly SourceReport[]): string[] {
  const missing = notARepository(workspace);
  if (missing) return [missing];
  const refused = reports.find((r) => r.source === 'git')?.skipped.find((s) => s.path === 'git');
  return refused ? [`git cannot read the workspace: ${refused.reason}`] : [];
}

/**
 * How long one look for a repository (stats up the tree from the workspace) answers for its
 * workspace: a `git init` or a removed `.git` shows in the warning within this much.
 */
const REPOSITORY_CHECK_MS = 1000;
/** Workspaces whose answer is kept (X-Ctx-Workspace can name others than the server's own). */
const REPOSITORY_CHECKS_KEPT = 64;
const repositoryChecks = new Map<string, { warning: string | undefined; at: number }>();

/** notARepositoryWarning, looked up at most once a REPOSITORY_CHECK_MS per workspace (by the real clock: a fact of the disk). */
function notARepository(workspace: string): string | undefined {
  const now = performance.now();
  const known = repositoryChecks.get(workspace);
  if (known && now - known.at < REPOSITORY_CHECK_MS) return known.warning;
  const warning = notARepositoryWarning(workspace);
  repositoryChecks.delete(workspace);
  if (repositoryChecks.size >= REPOSITORY_CHECKS_KEPT) {
    repositoryChecks.delete(repositoryChecks.keys().next().value as string);
  }
  repositoryChecks.set(workspace, { warning, at: now });
  return warning;
}

const DEFAULT_WINDOW = 8192;

/**
 * The user's per-model window wins; else the upstream's answer, lowered (never raised) by the
 * workspace's; else the workspace's; else a cautious default.
 */
export async function discoverWindow(deps: PipelineDeps, model: string): Promise<Collected['window']> {
  const configured = deps.settings.models[model]?.window;
  if (configured) return { tokens: configured, assumed: false };
  const reported = await deps.upstream.contextWindow(model).catch((error: unknown) => {
    // The request goes on under an assumed window (the snapshot's warning says so); the log says why.
    deps.logger.warn('window.lookup_failed', { error: (error as Error)?.name ?? 'Error', code: failureCode(error) });
    return undefined;
  });
  const ceiling = deps.settings.workspaceModels?.[model]?.window;
  if (reported && ceiling) return { tokens: Math.min(reported, ceiling), assumed: false };
  if (reported || ceiling) return { tokens: (reported || ceiling) as number, assumed: false };
  return { tokens: DEFAULT_WINDOW, assumed: true };
}

/** The innermost `code` along an error's cause chain (the socket's ECONNRESET, not our 502's): never a message. */
function failureCode(error: unknown): string | undefined {
  let found: string | undefined;
  for (let at = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string') found = code;
  }
  return found;
}

export interface CollectResult {
  items: ContextItem[];
  reports: SourceReport[];
  ms: number;
}

/** Namespaces the plan draws from: `git.status` and `git.` both need the `git` source. */
export function sourcesForPlan(plan: Plan): Set<string> {
  return new Set(plan.entries.map((entry) => entry.items.split('.')[0] ?? entry.items));
}

/** The sources the plan draws from. */
function sourcesToRun(sources: readonly ContextSource[], plan: Plan): ContextSource[] {
  if (plan.entries.length === 0) return [];
  const needed = sourcesForPlan(plan);
  return sources.filter((source) => needed.has(source.name));
}

/** Runs `chosen` (sourcesToRun's answer: at least one). */
async function collectContext(
  chosen: readonly ContextSource[],
  plan: Plan,
  input: Omit<CollectInput, 'wanted' | 'mode'>,
  options: { logger: Logger; now: () => number; signal: AbortSignal },
): Promise<CollectResult> {
  // The sources start on a turn of the event loop of their own, not in the one that chose the mode
  // (which parsed the message too). They start together: they share one parse of its mentions
  // (Workspace.named keeps it until the current task ends).
  await setImmediate();
  const started = options.now();
  const wanted = plan.entries.map((entry) => entry.items);
  const outcomes = await Promise.all(
    chosen.map((source) => runOne(source, { ...input, wanted, mode: plan.mode }, options)),
  );
  const items = dedupeKeys(
    outcomes.flatMap((outcome) => outcome.items),
    options.logger,
  );
  return { items, reports: outcomes.map((outcome) => outcome.report), ms: options.now() - started };
}

async function runOne(
  source: ContextSource,
  input: CollectInput,
  options: { now: () => number; signal: AbortSignal; logger: Logger },
): Promise<{ items: ContextItem[]; report: SourceReport }> {
  const started = options.now();
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal.reason);
  options.signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), source.timeoutMs);
  });
  const base = { source: source.name, items: 0, chars: 0, skipped: [] };
  try {
    const result = await Promise.race([source.collect(input, controller.signal), timeout]);
    const ms = options.now() - started;
    if (result === 'timeout') {
      controller.abort(new Error('timeout'));
      options.logger.warn('source.timeout', { source: source.name, ms });
      return {
        items: [],
        report: { ...base, status: 'timeout', ms, error: `no answer within ${source.timeoutMs} ms` },
      };
    }
    const items = result.items.filter((item) => item.key.startsWith(`${source.name}.`));
    const chars = items.reduce((sum, item) => sum + item.text.length, 0);
    return {
      items,
      report: { ...base, status: 'ok', ms, items: items.length, chars, skipped: result.skipped ?? [] },
    };
  } catch (error) {
    const ms = options.now() - started;
    const message = error instanceof Error ? error.message : String(error);
    options.logger.warn('source.failed', { source: source.name, ms, error: (error as Error)?.name ?? 'Error' });
    return { items: [], report: { ...base, status: 'failed', ms, error: message.slice(0, 300) } };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}

/** Keys are unique: on a clash the higher priority wins, and the clash is logged. */
export function dedupeKeys(items: ContextItem[], logger: Logger): ContextItem[] {
  const byKey = new Map<string, ContextItem>();
  for (const item of items) {
    const existing = byKey.get(item.key);
    if (existing) {
      logger.warn('context.key_clash', { key: item.key, kept: Math.max(existing.priority, item.priority) });
      if (existing.priority >= item.priority) continue;
    }
    byKey.set(item.key, item);
  }
  return [...byKey.values()];
}
