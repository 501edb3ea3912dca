// Stage 3, redact: every collected item and (by default) the client's own
// messages pass through the one redactor. Fail closed: an item whose scan
// throws is dropped, never forwarded; a client message that cannot be scanned
// fails the request.

import { RedactionTimeoutError } from '../redact/createRedactor.ts';
import { BadRequestError, ProxyError } from '../shared/errors.ts';
import type { Logger } from '../shared/ports.ts';
import type { ChatMessage, ContentPart, ContextItem, Redactor, SourceReport } from '../shared/types.ts';
import { addCounts, type RedactionCounts } from './redactionCounts.ts';
import { mapInSlices } from './slices.ts';
import type { PipelineDeps, Redacted, RedactInput } from './types.ts';

export type { RedactionCounts };

/**
 * The collection arrives as a promise: the client's messages are scanned while
 * the sources still run (neither needs the other), the items once they are in.
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
  items: ContextItem[];
  counts: RedactionCounts;
  /** Keys of items dropped because their scan failed. */
  dropped: string[];
}

export async function redactItems(
  items: ContextItem[],
  redactor: Redactor,
  reports: SourceReport[],
  logger: Logger,
): Promise<RedactedItems> {
  const counts: RedactionCounts = {};
  const dropped: string[] = [];
  const results = await Promise.all(
    items.map(async (item) => {
      try {
        const text = await redactor.redact(item.text, { path: item.path });
        const title = await redactor.redact(item.title, { path: item.path });
        for (const finding of [...text.findings, ...title.findings]) {
          counts[finding.ruleId] = (counts[finding.ruleId] ?? 0) + 1;
        }
        return { ...item, text: text.text, title: title.text };
      } catch (error) {
        dropped.push(item.key);
        logger.warn('redact.item_dropped', { key: item.key, chars: item.text.length, error: (error as Error)?.name });
        const report = reports.find((r) => r.source === item.source);
        report?.skipped.push({ path: item.path ?? item.key, reason: 'dropped: the secret scan failed' });
        return undefined;
      }
    }),
  );
  return { items: results.filter((item): item is ContextItem => item !== undefined), counts, dropped };
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
