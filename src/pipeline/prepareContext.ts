// Everything before the forward: select the mode, collect, redact, budget,
// assemble. Returns the exact messages to send and what the snapshot records.

import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { budgetRequest, countedTexts, suspectTruncation } from '../budget/index.ts';
import { BadRequestError } from '../shared/errors.ts';
import { parseWindow } from '../shared/parseWindow.ts';
import type {
  BudgetReport,
  ChatMessage,
  ContextPart,
  ModeName,
  Plan,
  Snapshot,
  SnapshotReply,
  SourceReport,
} from '../shared/types.ts';
import { collectContext } from './collect.ts';
import { locateParts } from './contextParts.ts';
import { findState, historyKeysInSlices, keysAfterReply, newConversationId } from './conversations.ts';
import { planTurn } from './planTurn.ts';
import { redactItems, redactMessages } from './redactStage.ts';
import { lastUserText, selectMode } from './selectMode.ts';
import type { PipelineDeps, PipelineInput } from './types.ts';

export interface PreparedContext {
  model: string;
  messages: ChatMessage[];
  modeUsed: ModeName;
  numCtx?: number | undefined;
  estimatedPromptTokens?: number | undefined;
  /** The estimate before calibration, which calibration compares with the model's count. */
  rawPromptTokens?: number | undefined;
  suspectTruncation: (estimated: number, actual: number) => boolean;
  snapshotFields: Partial<Snapshot>;
  /** Called with the reply once the upstream answered: keeps this turn's state for the next. */
  remember?: ((reply: SnapshotReply) => void) | undefined;
}

export async function prepareContext(
  input: PipelineInput,
  deps: PipelineDeps,
  /** The snapshot this request writes: carried context names it in later turns. */
  snapshotId?: string,
): Promise<PreparedContext> {
  const selection = selectMode({
    headerMode: input.headers.mode,
    model: input.request.model,
    messages: input.request.messages,
    serverMode: deps.settings.mode,
    looksLikeStackTrace: deps.looksLikeStackTrace,
  });
  const workspace = resolveWorkspace(input.headers.workspace, deps.settings);
  const counts: Record<string, number> = {};

  const plan = deps.plans[selection.mode];
  const [clientMessages, collected, window] = await Promise.all([
    deps.settings.redactMessages ? redactMessages(selection.messages, deps.redactor, counts) : selection.messages,
    collectContext(
      deps.sources,
      plan,
      {
        workspace,
        messages: selection.messages,
        // Bounded: sources parse it (traces, paths); the message itself is forwarded whole.
        lastUserText: parseWindow(lastUserText(selection.messages)),
        now: new Date(deps.now()),
      },
      { logger: deps.logger, now: deps.now, signal: input.signal },
    ),
    discoverWindow(deps, selection.model),
  ]);
  const redacted = await redactItems(collected.items, deps.redactor, collected.reports, deps.logger);
  for (const [rule, n] of Object.entries(redacted.counts)) counts[rule] = (counts[rule] ?? 0) + n;

  // The conversation is found by the client's history as sent (see conversations.ts).
  const keys = await historyKeysInSlices(workspace, input.request.messages);
  const ratio = deps.calibration?.get(selection.model)?.ratio ?? 1;
  // Counted ahead in slices that yield, so the synchronous budget below only looks counts up.
  const counter = await deps.tokenCounter
    .withRatio(ratio)
    .prepare(
      [...countedTexts(clientMessages, input.request.tools), ...redacted.items.map((item) => item.text)],
      input.signal,
    );
  const count = (text: string) => deps.tokenCounter.count(text);
  const turn = planTurn({
    messages: clientMessages,
    items: redacted.items,
    plan,
    plans: deps.plans,
    found: findState(deps.conversations, keys),
    count,
    snapshotId,
    newConversationId: () => newConversationId(keys, snapshotId ?? input.requestId),
    budget: (messages, items) =>
      budgetRequest({
        messages,
        tools: input.request.tools,
        items,
        requested: plan,
        plans: deps.plans as Record<ModeName, Plan>,
        window: window.tokens,
        maxTokens: input.request.max_completion_tokens ?? input.request.max_tokens,
        safetyRatio: deps.settings.safetyRatio,
        historyOverflow: deps.settings.historyOverflow,
        counter,
      }),
  });
  const { budget, messages } = turn;
  const parts = locateParts(messages, turn.parts, count);

  const warnings = [...budget.warnings, ...turn.warnings];
  if (window.assumed) warnings.push(`context window of ${selection.model} unknown; assumed ${window.tokens} tokens`);
  if (redacted.dropped.length > 0) {
    warnings.push(`dropped ${redacted.dropped.length} context item(s) that could not be scanned for secrets`);
  }
  const failed = collected.reports.filter((r) => r.status !== 'ok').map((r) => `${r.source} ${r.status}`);
  if (failed.length > 0) warnings.push(`context source(s) skipped: ${failed.join(', ')}`);

  const numCtx = deps.upstream.kind === 'ollama' ? stickyNumCtx(deps, selection.model, budget.numCtx) : undefined;
  const block = parts.find((part) => part.kind === 'block');
  const fields: Partial<Snapshot> = {
    // The model that ran: a `+mode` suffix is the mode's business, not the model's.
    model: selection.model,
    modeAsked: selection.modeAsked,
    modeUsed: budget.modeUsed,
    downgradeReason: budget.downgrade?.reason,
    workspace,
    conversationId: turn.conversationId,
    forwarded: messages,
    contextBlock: block ? (messages[block.message]?.content as string) : undefined,
    sources: annotateReports(collected.reports, parts, budget.report.perEntry),
    redactions: counts,
    budget: accountedBudget(budget.report, parts, numCtx),
    warnings,
    timings: { totalMs: 0, collectMs: collected.ms },
  };
  const next = turn.next;
  return {
    model: selection.model,
    messages,
    modeUsed: budget.modeUsed,
    numCtx,
    estimatedPromptTokens: budget.estimatedPromptTokens,
    rawPromptTokens: budget.rawEstimatedPromptTokens,
    suspectTruncation,
    snapshotFields: fields,
    remember: next
      ? (reply) => {
          for (const key of keysAfterReply(keys, reply)) deps.conversations.set(key, next);
        }
      : undefined,
  };
}

/** The budget's report with the context counted as sent: carried parts included, parts by part. */
function accountedBudget(report: BudgetReport, parts: ContextPart[], numCtx: number | undefined): BudgetReport {
  const contextTokens = parts.reduce((sum, part) => sum + part.tokens, 0);
  // The budget counted carried parts as conversation (they were in the messages it fitted).
  const carried = parts.filter((part) => part.carried).reduce((sum, part) => sum + part.tokens, 0);
  return {
    ...report,
    conversationTokens: Math.max(0, report.conversationTokens - carried),
    contextTokens,
    numCtx,
    parts,
  };
}

const DEFAULT_WINDOW = 8192;

/**
 * Ollama reloads a model whenever num_ctx changes. Once a model ran with a
 * window, later smaller requests keep that window (never above the model's
 * maximum, which the budget already respected), so the model stays loaded.
 */
function stickyNumCtx(deps: PipelineDeps, model: string, numCtx: number): number {
  const loaded = deps.loadedNumCtx;
  if (!loaded) return numCtx;
  const chosen = Math.max(numCtx, loaded.get(model) ?? 0);
  loaded.set(model, chosen);
  return chosen;
}

/** The config file's per-model window wins; else the upstream's answer; else a cautious default. */
async function discoverWindow(deps: PipelineDeps, model: string): Promise<{ tokens: number; assumed: boolean }> {
  const configured = deps.settings.models[model]?.window;
  if (configured) return { tokens: configured, assumed: false };
  const reported = await deps.upstream.contextWindow(model).catch(() => undefined);
  return reported ? { tokens: reported, assumed: false } : { tokens: DEFAULT_WINDOW, assumed: true };
}

/** Adds the tokens each source sent new in this request, and what was trimmed, to its report. */
function annotateReports(
  reports: SourceReport[],
  parts: ContextPart[],
  perEntry: BudgetReport['perEntry'],
): SourceReport[] {
  const trimmed = perEntry.flatMap((entry) => entry.trimmed);
  const fresh = parts.filter((part) => !part.carried).flatMap((part) => part.sources);
  return reports.map((report) => {
    const tokens = fresh.filter((s) => s.source === report.source).reduce((sum, s) => sum + s.tokens, 0);
    const cut = trimmed.filter((line) => line.startsWith(`${report.source}.`));
    return { ...report, tokens, ...(cut.length > 0 ? { trimmed: cut } : {}) };
  });
}

/** `X-Ctx-Workspace` is accepted only inside the configured workspace or allowed roots. */
function resolveWorkspace(
  header: string | undefined,
  settings: { workspace: string; allowedRoots: readonly string[] },
): string {
  if (!header) return settings.workspace;
  let real: string;
  try {
    real = realpathSync(path.resolve(settings.workspace, header));
    if (!statSync(real).isDirectory()) throw new Error('not a directory');
  } catch {
    throw new BadRequestError(`X-Ctx-Workspace "${header}" is not a directory.`, 'invalid_workspace');
  }
  const roots = [settings.workspace, ...settings.allowedRoots].map((root) => {
    try {
      return realpathSync(root);
    } catch {
      return root;
    }
  });
  const inside = roots.some((root) => real === root || real.startsWith(`${root}${path.sep}`));
  if (!inside) {
    throw new BadRequestError(
      `X-Ctx-Workspace "${header}" is outside the allowed roots; add it to "allowedRoots" in ctxproxy.config.json.`,
      'workspace_not_allowed',
    );
  }
  return real;
}
