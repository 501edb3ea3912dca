// Text the audit log keeps besides the forwarded messages: headers
// (STORED_HEADERS in fieldPolicy.ts) and error messages that can quote the
// request, cut to a byte cap first, so an oversized header neither grows the log
// nor slows the scan, then redacted; and the model's reply, redacted whole once
// it is complete. Text that cannot be scanned is not kept.

import type { Redactor, SnapshotReply } from '../shared/types.ts';
import { STORED_ERROR_MESSAGE_MAX_BYTES, STORED_HEADERS } from './fieldPolicy.ts';

const ELLIPSIS = '…';
const ELLIPSIS_BYTES = 3;

/** At most `maxBytes` of UTF-8, cut between characters, with `…` when cut. */
export function capUtf8(text: string, maxBytes: number): string {
  if (utf8PrefixEnd(text, maxBytes) === text.length) return text;
  return `${text.slice(0, utf8PrefixEnd(text, maxBytes - ELLIPSIS_BYTES))}${ELLIPSIS}`;
}

/**
 * The end of the longest prefix of whole characters that fits in `maxBytes` of UTF-8, sized from the
 * code units (a lone surrogate is encoded as U+FFFD, 3 bytes): it walks at most `maxBytes` units, never
 * the rest of a hostile message, and allocates nothing.
 */
function utf8PrefixEnd(text: string, maxBytes: number): number {
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    let size = 3;
    let units = 1;
    if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      size = 4;
      units = 2;
    }
    if (used + size > maxBytes) break;
    used += size;
    i += units;
  }
  return i;
}

/** Capped and redacted; undefined when absent or when the scan fails (fail closed). */
export async function storedText(
  text: string | undefined,
  maxBytes: number,
  redactor: Redactor,
  counts: Record<string, number>,
): Promise<string | undefined> {
  if (text === undefined) return undefined;
  if (text === '') return text;
  try {
    const result = await redactor.redact(capUtf8(text, maxBytes));
    for (const finding of result.findings) counts[finding.ruleId] = (counts[finding.ruleId] ?? 0) + 1;
    return result.text;
  } catch {
    return undefined;
  }
}

export interface StoredHeaders {
  userAgent: string | undefined;
  requestId: string;
}

export async function storedHeaders(
  headers: { userAgent?: string | undefined; requestId: string },
  redactor: Redactor,
  counts: Record<string, number>,
): Promise<StoredHeaders> {
  const limit = (name: string) => STORED_HEADERS[name]?.storeMaxBytes ?? 0;
  const [userAgent, requestId] = await Promise.all([
    storedText(headers.userAgent, limit('user-agent'), redactor, counts),
    storedText(headers.requestId, limit('x-request-id'), redactor, counts),
  ]);
  return { userAgent, requestId: requestId ?? '' };
}

export function storedErrorMessage(
  message: string,
  redactor: Redactor,
  counts: Record<string, number>,
): Promise<string> {
  return storedText(message, STORED_ERROR_MESSAGE_MAX_BYTES, redactor, counts).then(
    (text) => text ?? '(error message withheld: it could not be scanned for secrets)',
  );
}

const REPLY_WITHHELD = '(withheld: it could not be scanned for secrets)';

/**
 * The model's answer as the audit log keeps it: its text, its reasoning, and each
 * tool call's id, name and arguments, each redacted as one assembled text. A
 * stream's pieces are joined before this runs, so a secret the model sent across
 * two chunks is one string here and is caught. A part that cannot be scanned is
 * replaced by a note (fail closed). The client got the model's bytes as they came.
 */
export async function storedReply(
  reply: SnapshotReply,
  redactor: Redactor,
  counts: Record<string, number>,
): Promise<SnapshotReply> {
  const scan = async (text: string): Promise<string> => {
    if (text === '') return text;
    try {
      const result = await redactor.redact(text);
      for (const finding of result.findings) counts[finding.ruleId] = (counts[finding.ruleId] ?? 0) + 1;
      return result.text;
    } catch {
      return REPLY_WITHHELD;
    }
  };
  const stored: SnapshotReply = { ...reply, content: await scan(reply.content) };
  if (reply.reasoning !== undefined) stored.reasoning = await scan(reply.reasoning);
  if (reply.toolCalls) {
    stored.toolCalls = [];
    for (const call of reply.toolCalls) {
      stored.toolCalls.push({
        ...call,
        id: await scan(call.id),
        function: { name: await scan(call.function.name), arguments: await scan(call.function.arguments) },
      });
    }
  }
  return stored;
}
