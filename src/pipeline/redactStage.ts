// Stage 3, redact: every collected item and (by default) the client's own
// messages pass through the one redactor. Fail closed: an item whose scan
// throws is dropped, never forwarded; a client message that cannot be scanned
// fails the request.

import { RedactionTimeoutError } from '../redact/createRedactor.ts';
import { contentHash } from '../shared/contentHash.ts';
import { BadRequestError, ProxyError } from '../shared/errors.ts';
import type { Logger } from '../shared/ports.ts';
import type {
  ChatMessage,
  ContentPart,
  ContextItem,
  RedactedItem,
  Redactor,
  RedactResult,
  Segment,
  SourceReport,
} from '../shared/types.ts';
import { addCounts, type RedactionCounts } from './redactionCounts.ts';
import { mapInSlices } from './slices.ts';
import type { DroppedItem, PipelineDeps, Redacted, RedactInput } from './types.ts';

export type { RedactionCounts };

/**
 * The collection arrives as a promise: the client's messages are scanned while
 * the sources still run (neither needs the other), the items once they are in.
 * What comes out is the only form of the items the later stages get (RedactedItem).
 */
export async function redact({ selected, collected }: RedactInput, deps: PipelineDeps): Promise<Redacted> {
  const counts: RedactionCounts = {};
  const [messages, redacted] = await Promise.all([
    deps.settings.redactMessages ? redactMessages(selected.messages, deps.redactor, counts) : selected.messages,
    collected.then((c) => redactItems(c.items, deps.redactor, c.reports, deps.logger)),
  ]);
  return { messages, items: redacted.items, dropped: redacted.dropped, counts: addCounts(counts, redacted.counts) };
}

export interface RedactedItems {
  items: RedactedItem[];
  counts: RedactionCounts;
  /** Items dropped because their scan failed: what names them, none of their text. */
  dropped: DroppedItem[];
}

/**
 * Each item's text, title and why through the redactor (why repeats the question's terms, which may be a
 * secret). The text's contentHash is computed here, once: it keys the redactor's cache and, carried on
 * the item, the token counter's and the conversation's.
 */
export async function redactItems(
  items: readonly ContextItem[],
  redactor: Redactor,
  reports: SourceReport[],
  logger: Logger,
): Promise<RedactedItems> {
  const counts: RedactionCounts = {};
  const dropped: DroppedItem[] = [];
  const results = await Promise.all(
    items.map(async (item): Promise<RedactedItem | undefined> => {
      try {
        const hash = contentHash(item.text);
        const text = await redactor.redact(item.text, { path: item.path, hash });
        const title = await redactor.redact(item.title, { path: item.path });
        const why = item.why === undefined ? undefined : await redactor.redact(item.why, { path: item.path });
        for (const finding of [...text.findings, ...title.findings, ...(why?.findings ?? [])]) {
          counts[finding.ruleId] = (counts[finding.ruleId] ?? 0) + 1;
        }
        const changed = text.text !== item.text;
        return {
          ...item,
          text: text.text,
          title: title.text,
          ...(why !== undefined ? { why: why.text } : {}),
          segments: changed && item.segments ? maskedSegments(item.text, text, item.segments) : item.segments,
          hash: changed ? contentHash(text.text) : hash,
        } as RedactedItem;
      } catch (error) {
        dropped.push({ key: item.key, source: item.source, path: item.path });
        logger.warn('redact.item_dropped', { key: item.key, chars: item.text.length, error: (error as Error)?.name });
        const report = reports.find((r) => r.source === item.source);
        report?.skipped.push({ path: item.path ?? item.key, reason: 'dropped: the secret scan failed' });
        return undefined;
      }
    }),
  );
  return { items: results.filter((item) => item !== undefined), counts, dropped };
}

/**
 * The segments of the masked text. A mask holds no line break, so only a secret that spans lines (a
 * private key) moves the lines after it up, by the breaks it held. Undefined when the masked text
 * does not have the lines that accounting gives (the budget then trims by lines alone).
 */
function maskedSegments(
  original: string,
  result: RedactResult,
  segments: readonly Segment[],
): readonly Segment[] | undefined {
  // Line index where each finding starts, and how many line breaks it took away.
  const removed: { line: number; breaks: number }[] = [];
  let line = 0;
  let at = 0;
  for (const finding of [...result.findings].sort((a, b) => a.start - b.start)) {
    if (finding.start < at) continue;
    line += countBreaks(original, at, finding.start);
    const breaks = countBreaks(original, finding.start, finding.end);
    if (breaks > 0) removed.push({ line, breaks });
    line += breaks;
    at = finding.end;
  }
  const lines = countBreaks(original, 0, original.length) + 1;
  const gone = removed.reduce((sum, r) => sum + r.breaks, 0);
  if (lines - gone !== countBreaks(result.text, 0, result.text.length) + 1) return undefined;
  // A line inside a secret's lines lands on the secret's (first) line.
  const moved = (index: number) => {
    let shift = 0;
    for (const r of removed) {
      if (index <= r.line) break;
      shift += Math.min(r.breaks, index - r.line);
    }
    return index - shift;
  };
  return segments.map((segment) => ({ ...segment, start: moved(segment.start), end: moved(segment.end) }));
}

function countBreaks(text: string, from: number, to: number): number {
  let breaks = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) breaks++;
  return breaks;
}

export async function redactMessages(
  messages: ChatMessage[],
  redactor: Redactor,
  counts: RedactionCounts,
): Promise<ChatMessage[]> {
  const scan = async (text: string): Promise<string> => {
    let result: Awaited<ReturnType<Redactor['redact']>>;
    try {
      result = await redactor.redact(text);
    } catch (error) {
      // Too much text to scan within the deadline is the size of the request, not a fault of ours.
      if (error instanceof RedactionTimeoutError) {
        throw new BadRequestError(
          `A message of ${text.length} characters could not be scanned for secrets within ${error.timeoutMs} ms, so it was not forwarded; send less text.`,
          'message_too_large_to_scan',
          'messages',
        );
      }
      throw new ProxyError(
        500,
        'A message could not be scanned for secrets, so it was not forwarded.',
        'server_error',
        'redaction_failed',
        'messages',
        { cause: error },
      );
    }
    for (const finding of result.findings) counts[finding.ruleId] = (counts[finding.ruleId] ?? 0) + 1;
    return result.text;
  };
  // One message after another, in slices: a conversation of 10,000 turns must not hold other requests.
  return mapInSlices(messages, async (message) => {
    const copy: ChatMessage = { ...message };
    if (typeof message.content === 'string') copy.content = await scan(message.content);
    else if (Array.isArray(message.content)) {
      copy.content = await Promise.all(
        message.content.map(
          async (part): Promise<ContentPart> =>
            part.type === 'text' ? { type: 'text', text: await scan(part.text) } : part,
        ),
      );
    }
    if (message.tool_calls) {
      copy.tool_calls = await Promise.all(
        message.tool_calls.map(async (call) => ({
          ...call,
          function: { ...call.function, arguments: await scan(call.function.arguments) },
        })),
      );
    }
    return copy;
  });
}
