// A linear pre-scan of a JSON body before JSON.parse: nesting depth and the
// length of the messages array are refused with a 400 naming the field, before
// any work scales with them. JSON.parse itself recurses (100,000 levels can
// throw RangeError or, worse, succeed and make every later recursive step
// throw), and a body of a hundred thousand tiny messages is slow to parse and
// far slower to validate, redact and count. The scan skips string bodies with
// indexOf, so a long string costs little; it does not validate (JSON.parse
// does that after).

import { BadRequestError } from '../shared/errors.ts';

export interface JsonShapeLimits {
  /** Deepest nesting of objects and arrays, the body itself being depth 1. */
  maxDepth: number;
  /** Most items of a top-level array field, by field name (e.g. `messages`). */
  maxItems: Readonly<Record<string, number>>;
}

/**
 * Deep enough for any real tool schema (OpenAI's own limit on a function's
 * parameters is 5 levels of nesting for strict schemas; ~20 is seen in the wild),
 * shallow enough that every recursive step after parsing stays far from the stack limit.
 */
export const MAX_JSON_DEPTH = 64;
/**
 * Every message costs at least 5 tokens of template overhead, so 10,000 messages
 * are already 50,000 tokens before any text: past what ctxproxy's drop-oldest
 * trimming is for, and the bound that keeps validation, redaction and counting
 * of one request in the tens of milliseconds.
 */
export const MAX_MESSAGES = 10_000;

export const defaultJsonShapeLimits: JsonShapeLimits = {
  maxDepth: MAX_JSON_DEPTH,
  maxItems: { messages: MAX_MESSAGES, input: MAX_MESSAGES },
};

interface Frame {
  array: boolean;
  /** This container's name in its parent: a key, or an index. */
  name: string;
  /** Arrays: index of the current item. */
  index: number;
  /** Objects: the next string is a key. */
  expectKey: boolean;
  key: string;
}

const QUOTE = 34;
const BACKSLASH = 92;

/** Index of the quote closing the string that opens at `start` (or the text's end). */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    let slashes = 0;
    for (let b = quote - 1; text.charCodeAt(b) === BACKSLASH; b--) slashes++;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** The path of a frame list as a field name: `tools.0.function.parameters.properties…`. */
function pathOf(frames: readonly Frame[], shown: number, more = ''): string {
  const names = frames.slice(1, shown + 1).map((frame) => frame.name);
  return `${names.join('.')}${frames.length > shown + 1 ? more : ''}` || 'body';
}

function childName(parent: Frame | undefined): string {
  if (!parent) return '';
  return parent.array ? String(parent.index) : parent.key;
}

/** Throws a BadRequestError (400) when the body nests too deep or a listed array is too long. */
export function checkJsonShape(text: string, limits: JsonShapeLimits = defaultJsonShapeLimits): void {
  const frames: Frame[] = [];
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = frames[frames.length - 1];
      if (top && !top.array && top.expectKey) top.key = end - i - 1 <= 200 ? text.slice(i + 1, end) : '(long key)';
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      const name = childName(frames[frames.length - 1]);
      frames.push({ array: c === 91, name, index: 0, expectKey: c === 123, key: '' });
      if (frames.length > limits.maxDepth) {
        throw new BadRequestError(
          `The request body nests deeper than ${limits.maxDepth} levels (at ${pathOf(frames, 8, '.…')}); flatten it.`,
          'json_too_deep',
          // The field the client wrote (tools.0.function.parameters), not the path down to the limit.
          pathOf(frames, 4),
        );
      }
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      frames.pop();
    } else if (c === 44 /* , */) {
      const top = frames[frames.length - 1];
      if (!top) continue;
      if (!top.array) {
        top.expectKey = true;
        continue;
      }
      top.index++;
      if (frames.length === 2) {
        const max = limits.maxItems[top.name];
        if (max !== undefined && top.index >= max) {
          throw new BadRequestError(
            `"${top.name}" has more than ${max} items; ctxproxy accepts at most ${max}. Start a new conversation or drop old turns.`,
            `too_many_${top.name}`,
            top.name,
          );
        }
      }
    } else if (c === 58 /* : */) {
      const top = frames[frames.length - 1];
      if (top && !top.array) top.expectKey = false;
    }
  }
}
