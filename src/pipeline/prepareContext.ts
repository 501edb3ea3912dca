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
  ContextItem,
  ModeName,
  Plan,
  Snapshot,
  SourceReport,
} from '../shared/types.ts';
import { attachToMessage, buildAttachment, buildContextBlock, placeContext } from './assemble.ts';
import { collectContext } from './collect.ts';
import { type ConversationState, changedItems, conversationId, itemHash } from './conversations.ts';
import { redactItems, redactMessages } from './redactStage.ts';
import type { PipelineDeps, PipelineInput } from './runPipeline.ts';
import { lastUserIndex, lastUserText, selectMode } from './selectMode.ts';

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
}

export async function prepareContext(input: PipelineInput, deps: PipelineDeps): Promise<PreparedContext> {
  const selection = selectMode({
    headerMode: input.headers.mode,
    model: input.request.model,
    messages: input.request.messages as ChatMessage[],
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

  // The first turn of a conversation freezes its context block; later turns
  // carry the block in their prefix and add only what changed since.
  const id = conversationId(workspace, selection.messages);
  const existing = deps.conversations.get(id);
  const latest = lastUserIndex(clientMessages);
  if (existing) {
    for (const index of existing.attachments.keys())
      if (index >= clientMessages.length) existing.attachments.delete(index);
    existing.attachments.delete(latest);
  }
  const base = existing ? placeContext(clientMessages, existing) : clientMessages;
  const candidates = existing ? changedItems(existing, redacted.items) : redacted.items;

  const ratio = deps.calibration?.get(selection.model)?.ratio ?? 1;
  // Counted ahead in slices that yield, so the synchronous budget below only looks counts up.
  const counter = await deps.tokenCounter
    .withRatio(ratio)
    .prepare([...countedTexts(base, input.request.tools), ...candidates.map((item) => item.text)], input.signal);
  const budget = budgetRequest({
    messages: base,
    tools: input.request.tools,
    items: candidates,
    requested: plan,
    plans: deps.plans as Record<ModeName, Plan>,
    window: window.tokens,
    maxTokens: input.request.max_completion_tokens ?? input.request.max_tokens,
    safetyRatio: deps.settings.safetyRatio,
    historyOverflow: deps.settings.historyOverflow,
    counter,
  });

  const hashes = new Map(redacted.items.map((item) => [item.key, itemHash(item)]));
  let messages: ChatMessage[];
  let state: ConversationState;
  if (existing) {
    state = existing;
    const attachment = buildAttachment(budget.items);
    messages = budget.messages;
    if (attachment && latest >= 0) {
      state.attachments.set(latest, attachment);
      messages = attachToLastUser(messages, attachment);
    }
  } else {
    state = { id, contextBlock: buildContextBlock(budget.items), known: new Map(), attachments: new Map(), turns: 0 };
    messages = placeContext(budget.messages, { contextBlock: state.contextBlock, attachments: new Map() });
  }
  for (const item of budget.items) state.known.set(item.key, hashes.get(item.key) ?? itemHash(item));
  state.turns += 1;
  deps.conversations.set(state);

  const warnings = [...budget.warnings];
  if (window.assumed) warnings.push(`context window of ${selection.model} unknown; assumed ${window.tokens} tokens`);
  if (redacted.dropped.length > 0) {
    warnings.push(`dropped ${redacted.dropped.length} context item(s) that could not be scanned for secrets`);
  }
  const failed = collected.reports.filter((r) => r.status !== 'ok').map((r) => `${r.source} ${r.status}`);
  if (failed.length > 0) warnings.push(`context source(s) skipped: ${failed.join(', ')}`);

  const numCtx = deps.upstream.kind === 'ollama' ? stickyNumCtx(deps, selection.model, budget.numCtx) : undefined;
  const fields: Partial<Snapshot> = {
    // The model that ran: a `+mode` suffix is the mode's business, not the model's.
    model: selection.model,
    modeAsked: selection.modeAsked,
    modeUsed: budget.modeUsed,
    downgradeReason: budget.downgrade?.reason,
    workspace,
    conversationId: id,
    forwarded: messages,
    contextBlock: state.contextBlock || undefined,
    sources: annotateReports(collected.reports, budget.items, budget.report.perEntry, deps),
    redactions: counts,
    budget: { ...budget.report, numCtx },
    warnings,
    timings: { totalMs: 0, collectMs: collected.ms },
  };
  return {
    model: selection.model,
    messages,
    modeUsed: budget.modeUsed,
    numCtx,
    estimatedPromptTokens: budget.estimatedPromptTokens,
    rawPromptTokens: budget.rawEstimatedPromptTokens,
    suspectTruncation,
    snapshotFields: fields,
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

function attachToLastUser(messages: ChatMessage[], attachment: string): ChatMessage[] {
  const index = lastUserIndex(messages);
  if (index < 0) return messages;
  const copy = [...messages];
  copy[index] = attachToMessage(messages[index] as ChatMessage, attachment);
  return copy;
}

/** Adds tokens and what was trimmed to each source's report. */
function annotateReports(
  reports: SourceReport[],
  items: ContextItem[],
  perEntry: BudgetReport['perEntry'],
  deps: PipelineDeps,
): SourceReport[] {
  const trimmed = perEntry.flatMap((entry) => entry.trimmed);
  return reports.map((report) => {
    const own = items.filter((item) => item.source === report.source);
    const tokens = own.reduce((sum, item) => sum + deps.tokenCounter.count(item.text), 0);
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
