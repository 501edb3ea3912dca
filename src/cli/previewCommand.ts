// `ctxproxy preview [--mode M] [--model NAME] [--json] "question"`: the exact
// messages that would be forwarded, and the source report. Calls no model.

import { parseArgs } from 'node:util';
import { type PipelineDeps, prepare } from '../pipeline/runPipeline.ts';
import { snapshotFields } from '../pipeline/snapshot.ts';
import type { ChatRequest } from '../shared/chatRequest.ts';
import { messageText } from '../shared/messageText.ts';
import type { ChatMessage } from '../shared/types.ts';
import { safeJson, safeText } from './terminalText.ts';

const NO_MODEL = '(no --model)';
/**
 * The longest a preview waits for the workspace's indexes. A server builds them once and keeps them; a
 * preview that did not wait would answer as a server that just started, not as the one the user runs.
 */
const PREVIEW_SETTLE_MS = 60_000;
/** The window assumed without --model: the pipeline's own default for a model it cannot ask about. */
const PREVIEW_DEFAULT_WINDOW = 8192;

export async function runPreviewCommand(
  args: string[],
  io: { pipeline: PipelineDeps; out: (s: string) => void; err: (s: string) => void },
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    io.err(`ctxproxy preview: ${(error as Error).message}\n`);
    return 2;
  }
  const question = parsed.positionals.join(' ').trim();
  if (!question) {
    io.err('ctxproxy preview: give the question to preview, e.g. ctxproxy preview "what did I change?"\n');
    return 2;
  }
  // Without --model there is no model to ask for its window: budget with a stated default instead.
  const model = parsed.values.model ?? NO_MODEL;
  const pipeline =
    parsed.values.model === undefined
      ? {
          ...io.pipeline,
          settings: {
            ...io.pipeline.settings,
            models: { ...io.pipeline.settings.models, [NO_MODEL]: { window: PREVIEW_DEFAULT_WINDOW } },
          },
        }
      : io.pipeline;
  if (!(await settled(pipeline, PREVIEW_SETTLE_MS))) {
    io.err(
      `ctxproxy preview: the workspace's indexes were still building after ${PREVIEW_SETTLE_MS / 1000} s; this preview shows what a server that just started would forward\n`,
    );
  }
  const request = { model, messages: [{ role: 'user', content: question }] } as ChatRequest;
  const prepared = await prepare(
    {
      request,
      headers: { mode: parsed.values.mode },
      requestId: 'preview',
      signal: new AbortController().signal,
    },
    pipeline,
  );
  const modelLine =
    parsed.values.model === undefined
      ? `none given: assumed a window of ${PREVIEW_DEFAULT_WINDOW} tokens (pass --model NAME to use its window)`
      : parsed.values.model;
  const fields = snapshotFields(prepared);
  const { modeUsed, request: forwarded } = prepared.assembled;
  if (parsed.values.json) {
    io.out(
      `${safeJson(
        {
          model: parsed.values.model ?? null,
          assumedWindow: parsed.values.model === undefined ? PREVIEW_DEFAULT_WINDOW : undefined,
          modeAsked: fields.modeAsked,
          modeUsed,
          downgradeReason: fields.downgradeReason,
          numCtx: forwarded.numCtx,
          messages: forwarded.messages,
          sources: fields.sources,
          budget: fields.budget,
          redactions: fields.redactions,
          warnings: fields.warnings,
        },
        2,
      )}\n`,
    );
    return 0;
  }

  const lines: string[] = [];
  lines.push(`model     ${modelLine}`);
  lines.push(`mode      ${modeUsed} (asked ${fields.modeAsked})`);
  if (fields.downgradeReason) lines.push(`downgrade ${fields.downgradeReason}`);
  if (fields.budget) {
    const b = fields.budget;
    lines.push(
      `budget    window ${b.window}, usable ${b.usable}, conversation ${b.conversationTokens}, context ${b.contextTokens}, reserve ${b.reserve}${forwarded.numCtx ? `, num_ctx ${forwarded.numCtx}` : ''}`,
    );
  }
  const redactions = Object.entries(fields.redactions ?? {});
  if (redactions.length > 0) lines.push(`redacted  ${redactions.map(([rule, n]) => `${rule}×${n}`).join(', ')}`);
  for (const warning of fields.warnings ?? []) lines.push(`warning   ${warning}`);
  lines.push('', 'sources:');
  for (const report of fields.sources ?? []) {
    const tokens = report.tokens === undefined ? '' : `  ~${report.tokens} tokens`;
    lines.push(
      `  ${report.source.padEnd(13)} ${report.status.padEnd(7)} ${String(report.ms).padStart(5)} ms  ${report.items} items  ${report.chars} chars${tokens}${report.error ? `  (${report.error})` : ''}`,
    );
    for (const skipped of report.skipped) lines.push(`      skipped ${skipped.path}: ${skipped.reason}`);
    for (const trimmed of report.trimmed ?? []) lines.push(`      trimmed ${trimmed}`);
  }
  lines.push('', 'forwarded messages:');
  for (const message of forwarded.messages) lines.push('', `── ${message.role} ──`, renderContent(message));
  // Names and text from the workspace (a file named with an escape sequence) are shown, never obeyed.
  io.out(`${safeText(lines.join('\n'))}\n`);
  return 0;
}

/** Whether the indexes of the configured workspace were ready within `ms` (true when there are none). */
async function settled(pipeline: PipelineDeps, ms: number): Promise<boolean> {
  if (!pipeline.settle) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const done = pipeline.settle(pipeline.settings.workspace).then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([done, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: { mode: { type: 'string' }, model: { type: 'string' }, json: { type: 'boolean' } },
  });
}

function renderContent(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (!message.content) return message.tool_calls ? JSON.stringify(message.tool_calls, null, 2) : '';
  return messageText(message, () => '[image]');
}
