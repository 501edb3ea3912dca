// A linear pre-scan of a JSON body before JSON.parse: what every later step's
// work grows with is refused with a 400 naming the field, before any of that
// work starts: nesting depth, the length of every array, and, for each
// top-level field, how many strings and containers it holds and how long it
// is. JSON.parse itself recurses (100,000 levels can throw RangeError or,
// worse, succeed and make every later recursive step throw); zod, the field
// table's redaction walk, the token count and the upstream mapping each visit
// every value, so 10,000 tools or a 200,000-string enum would hold the event
// loop for seconds and keep hundreds of MB. The scan skips string bodies with
// indexOf, so a long string costs little; it does not validate (JSON.parse
// does that after).

import { BadRequestError } from '../shared/errors.ts';

export interface FieldLimits {
  /** Most items of this top-level array field (e.g. `messages`, `tools`). */
  maxItems?: number;
  /** Most strings (object keys included) and containers in the field, at any depth. */
  maxNodes?: number;
  /** Most characters of JSON text the field takes in the body. */
  maxChars?: number;
  /** The client's words: not counted in the body's `maxStructuredNodes`. */
  conversation?: boolean;
}

export interface JsonShapeLimits {
  /** Deepest nesting of objects and arrays, the body itself being depth 1. */
  maxDepth: number;
  /** Most items of any array below the top level (an enum, a list of examples, a message's parts). */
  maxNestedItems: number;
  /** Strings and containers of all structured (not conversation) fields together. */
  maxStructuredNodes: number;
  /** Every top-level field not listed in `fields`. */
  field: Required<FieldLimits>;
  /** Per top-level field name; what a name leaves out comes from `field`. */
  fields: Readonly<Record<string, FieldLimits>>;
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
/**
 * OpenAI documents at most 128 tools per request; Codex and Claude Code send
 * 20-60 (more with many MCP servers). Four times OpenAI's limit.
 */
export const MAX_TOOLS = 512;
/**
 * Any array inside a field: OpenAI's structured outputs allow 1,000 enum values
 * in a whole schema; ten times that in a single array.
 */
export const MAX_NESTED_ITEMS = 10_000;
/**
 * Strings and containers in one structured field (all tools together, one
 * response_format): 60 real tools with schemas of a few KB each are ~10,000.
 * Each string is a redactor call, so this bounds the field table's walk.
 */
export const MAX_FIELD_NODES = 100_000;
/** All structured fields together: twice one field's, so spreading a body over many fields gains nothing. */
export const MAX_STRUCTURED_NODES = 2 * MAX_FIELD_NODES;
/** JSON text of one structured field: 60 tools of a few KB are ~200 KB. */
export const MAX_FIELD_CHARS = 4 * 1024 * 1024;

/** The client's own words (a pasted file can be long): bounded by the body limit and the message scan's deadline. */
const CONVERSATION: FieldLimits = { maxNodes: 1_000_000, maxChars: Number.POSITIVE_INFINITY, conversation: true };

export const defaultJsonShapeLimits: JsonShapeLimits = {
  maxDepth: MAX_JSON_DEPTH,
  maxNestedItems: MAX_NESTED_ITEMS,
  maxStructuredNodes: MAX_STRUCTURED_NODES,
  field: { maxItems: MAX_NESTED_ITEMS, maxNodes: MAX_FIELD_NODES, maxChars: MAX_FIELD_CHARS, conversation: false },
  fields: {
    messages: { ...CONVERSATION, maxItems: MAX_MESSAGES },
    input: { ...CONVERSATION, maxItems: MAX_MESSAGES },
    prompt: CONVERSATION,
    suffix: CONVERSATION,
    instructions: CONVERSATION,
    system: CONVERSATION,
    tools: { maxItems: MAX_TOOLS },
  },
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

/** The top-level field being scanned: where it began and what it holds so far. */
interface FieldScan {
  name: string;
  start: number;
  nodes: number;
  limits: Required<FieldLimits>;
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

function limitsOf(name: string, limits: JsonShapeLimits): Required<FieldLimits> {
  const own = Object.hasOwn(limits.fields, name) ? limits.fields[name] : undefined;
  return { ...limits.field, ...own };
}

/** Throws a BadRequestError (400) naming the field when the body is past one of `limits`. */
export function checkJsonShape(text: string, limits: JsonShapeLimits = defaultJsonShapeLimits): void {
  const frames: Frame[] = [];
  let field: FieldScan | undefined;
  let structuredNodes = 0;
  const length = text.length;
  // Counts a string or container against the top-level field it is in; the first one opens the field.
  const countNode = (at: number) => {
    const body = frames[0];
    if (!body || body.array) return;
    if (!field) field = { name: body.key, start: at, nodes: 0, limits: limitsOf(body.key, limits) };
    field.nodes++;
    if (!field.limits.conversation && ++structuredNodes > limits.maxStructuredNodes) {
      throw new BadRequestError(
        `The request's fields other than the conversation hold more than ${limits.maxStructuredNodes} strings, objects and arrays together (the limit was passed in "${field.name}"); send fewer or smaller tools or schemas.`,
        'fields_too_large',
        field.name,
      );
    }
    if (field.nodes > field.limits.maxNodes) {
      throw new BadRequestError(
        `"${field.name}" holds more than ${field.limits.maxNodes} strings, objects and arrays; ctxproxy accepts at most ${field.limits.maxNodes} in one field. Send fewer or smaller tools or schemas.`,
        'field_too_large',
        field.name,
      );
    }
  };
  const endField = (end: number) => {
    if (!field) return;
    if (end - field.start > field.limits.maxChars) {
      throw new BadRequestError(
        `"${field.name}" takes ${end - field.start} characters of JSON; ctxproxy accepts at most ${field.limits.maxChars} in one field. Send fewer or smaller tools or schemas.`,
        'field_too_large',
        field.name,
      );
    }
    field = undefined;
  };
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = frames[frames.length - 1];
      const isKey = top !== undefined && !top.array && top.expectKey;
      if (isKey) top.key = end - i - 1 <= 200 ? text.slice(i + 1, end) : '(long key)';
      // A top-level key names the field; every other string is one of the field's nodes.
      if (!(isKey && frames.length === 1)) {
        countNode(i);
        if (frames.length === 1) endField(end + 1);
      }
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      const name = childName(frames[frames.length - 1]);
      countNode(i);
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
      if (frames.length === 1) endField(i + 1);
    } else if (c === 44 /* , */) {
      const top = frames[frames.length - 1];
      if (!top) continue;
      if (!top.array) {
        top.expectKey = true;
        continue;
      }
      top.index++;
      const max = frames.length === 2 ? (field?.limits.maxItems ?? limits.maxNestedItems) : limits.maxNestedItems;
      if (top.index >= max) tooManyItems(frames, max);
    } else if (c === 58 /* : */) {
      const top = frames[frames.length - 1];
      if (top && !top.array) top.expectKey = false;
    }
  }
}

function tooManyItems(frames: readonly Frame[], max: number): never {
  const top = frames[frames.length - 1] as Frame;
  if (frames.length === 2) {
    throw new BadRequestError(
      `"${top.name}" has more than ${max} items; ctxproxy accepts at most ${max}.${top.name === 'messages' || top.name === 'input' ? ' Start a new conversation or drop old turns.' : ''}`,
      `too_many_${top.name.replace(/\W/g, '_').slice(0, 40)}`,
      top.name,
    );
  }
  const path = pathOf(frames, 12, '.…');
  throw new BadRequestError(
    `"${path}" has more than ${max} items; ctxproxy accepts at most ${max} in any array inside a field.`,
    'too_many_items',
    path,
  );
}
