// Everything before the forward: select the mode, collect, redact, budget,
// assemble. Returns the exact messages to send and what the snapshot records.

import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { BadRequestError } from '../shared/errors.ts';
import type { ChatMessage, ContextItem, ModeName, Snapshot } from '../shared/types.ts';
import { buildAttachment, buildContextBlock, placeContext } from './assemble.ts';
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
  const fields: Partial<Snapshot> = { modeAsked: selection.modeAsked, modeUsed: selection.mode, workspace };
  const counts: Record<string, number> = {};

  const clientMessages = deps.settings.redactMessages
    ? await redactMessages(selection.messages, deps.redactor, counts)
    : selection.messages;

  const plan = deps.plans[selection.mode];
  const collected = await collectContext(
    deps.sources,
    plan,
    {
      workspace,
      messages: selection.messages,
      lastUserText: lastUserText(selection.messages),
      now: new Date(deps.now()),
    },
    { logger: deps.logger, now: deps.now, signal: input.signal },
  );
  const redacted = await redactItems(collected.items, deps.redactor, collected.reports, deps.logger);
  for (const [rule, n] of Object.entries(redacted.counts)) counts[rule] = (counts[rule] ?? 0) + n;

  const conversation = conversationId(workspace, selection.messages);
  const state = nextConversationState(deps, conversation, clientMessages, redacted.items);
  const messages = placeContext(clientMessages, state);

  const warnings: string[] = [];
  if (redacted.dropped.length > 0)
    warnings.push(`dropped ${redacted.dropped.length} context item(s) that could not be scanned for secrets`);
  const failed = collected.reports.filter((r) => r.status !== 'ok').map((r) => `${r.source} ${r.status}`);
  if (failed.length > 0) warnings.push(`context source(s) skipped: ${failed.join(', ')}`);

  Object.assign(fields, {
    conversationId: conversation,
    forwarded: messages,
    contextBlock: state.contextBlock || undefined,
    sources: collected.reports,
    redactions: counts,
    warnings,
    timings: { totalMs: 0, collectMs: collected.ms },
  } satisfies Partial<Snapshot>);
  return {
    model: selection.model,
    messages,
    modeUsed: selection.mode,
    suspectTruncation: () => false,
    snapshotFields: fields,
  };
}

/**
 * The first turn of a conversation freezes its context block; later turns add
 * only what changed, as an attachment to the newest user message.
 */
function nextConversationState(
  deps: PipelineDeps,
  id: string,
  messages: ChatMessage[],
  items: ContextItem[],
): ConversationState {
  const latest = lastUserIndex(messages);
  const existing = deps.conversations.get(id);
  if (!existing) {
    const state: ConversationState = {
      id,
      contextBlock: buildContextBlock(items),
      known: new Map(items.map((item) => [item.key, itemHash(item)])),
      attachments: new Map(),
      turns: 1,
    };
    deps.conversations.set(state);
    return state;
  }
  // History the client no longer sends (edited or cut) takes its attachments with it.
  for (const index of existing.attachments.keys()) if (index >= messages.length) existing.attachments.delete(index);
  const changed = changedItems(existing, items);
  if (changed.length > 0 && latest >= 0) {
    const previous = existing.attachments.get(latest);
    const attachment = buildAttachment(changed);
    existing.attachments.set(latest, previous ? `${previous}\n\n${attachment}` : attachment);
    for (const item of changed) existing.known.set(item.key, itemHash(item));
  }
  existing.turns += 1;
  return existing;
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
