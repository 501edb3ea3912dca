// Applies fieldPolicy.ts to a client's request before anything else sees it:
// fields not in the table, or not forwarded to this upstream kind and not
// stored, are dropped; every string of a `redact` field (object keys included)
// goes through the redactor; images are rebuilt from their bytes. Fail closed:
// a field holding a string that cannot be scanned is dropped whole.

import { LRUCache } from 'lru-cache';
import type { ChatRequest } from '../shared/chatRequest.ts';
import { TEXT_CACHE_BYTES } from '../shared/textCaches.ts';
import type { Redactor } from '../shared/types.ts';
import { forwardedTo, ruleFor, type UpstreamKind } from './fieldPolicy.ts';
import { normalizeImage } from './images.ts';
import { mapInSlices } from './slices.ts';

export interface CleanedRequest {
  request: ChatRequest;
  /** Findings by rule id, to add to the snapshot's redaction report. */
  counts: Record<string, number>;
  /** How many fields were dropped because the table does not list them. */
  unknownFields: number;
  /** Table paths of fields dropped because a string in them could not be scanned. */
  unscannable: string[];
}

/** Deeper JSON than this in a `redact` field is dropped rather than walked. */
const MAX_DEPTH = 64;
const DROP: unique symbol = Symbol('drop');
type Cleaned = unknown | typeof DROP;

interface Walk {
  kind: UpstreamKind;
  redactor: Redactor;
  counts: Record<string, number>;
  unknownFields: number;
  unscannable: Set<string>;
}

export async function cleanRequest(
  request: ChatRequest,
  options: { kind: UpstreamKind; redactor: Redactor },
): Promise<CleanedRequest> {
  const walk: Walk = { ...options, counts: {}, unknownFields: 0, unscannable: new Set() };
  const cleaned = await walkContainer(request, '', walk);
  return {
    // zod already checked the shape; the table keeps model and messages, which it requires.
    request: (cleaned === DROP ? {} : cleaned) as ChatRequest,
    counts: walk.counts,
    unknownFields: walk.unknownFields,
    unscannable: [...walk.unscannable],
  };
}

export function fieldWarnings(cleaned: CleanedRequest): string[] {
  const warnings: string[] = [];
  // Counted, never named: an unknown key is client text that was not scanned.
  if (cleaned.unknownFields > 0)
    warnings.push(`ignored ${cleaned.unknownFields} request field(s) that ctxproxy does not forward`);
  if (cleaned.unscannable.length > 0)
    warnings.push(`dropped ${cleaned.unscannable.join(', ')}: could not be scanned for secrets`);
  return warnings;
}

/** The cleaned request's fields other than the ones the pipeline rewrites, as the field table forwards them. */
export function upstreamParams(request: ChatRequest, kind: UpstreamKind): Record<string, unknown> {
  const { model: _model, messages: _messages, tools: _tools, stream: _stream, ...params } = request;
  return Object.fromEntries(
    Object.entries(params).filter(([key]) => {
      const rule = ruleFor(key);
      return rule !== undefined && forwardedTo(rule, kind);
    }),
  );
}

/**
 * Synchronous unless a string in the field must go through the redactor (or, below it, a container
 * holds such a field): most fields of a chat (role, content, stream, the sampling options) are only
 * looked up in the table, and a promise for each cost every request a chain of microtasks.
 */
function cleanField(value: unknown, path: string, walk: Walk): Cleaned | Promise<Cleaned> {
  const rule = ruleFor(path);
  if (!rule) {
    walk.unknownFields += 1;
    return DROP;
  }
  if (rule.treatment === 'drop' || !(rule.store || forwardedTo(rule, walk.kind))) return DROP;
  switch (rule.treatment) {
    case 'walk':
      return walkContainer(value, path, walk);
    case 'content':
      if (typeof value === 'string' || value === null) return value;
      return Array.isArray(value) ? walkContainer(value, path, walk) : DROP;
    case 'pass':
      if (value === null || typeof value === 'boolean') return value;
      if (typeof value === 'number') return Number.isFinite(value) ? value : DROP;
      return typeof value === 'string' && rule.values?.includes(value) ? value : DROP;
    case 'image':
      return normalizeImage(value);
    case 'redact':
      return redactInto(value, path, walk);
  }
}

async function redactInto(value: unknown, path: string, walk: Walk): Promise<Cleaned> {
  try {
    const { out, counts } = await redactField(value, walk.redactor);
    for (const [rule, n] of Object.entries(counts)) walk.counts[rule] = (walk.counts[rule] ?? 0) + n;
    return out;
  } catch {
    walk.unscannable.add(path);
    return DROP;
  }
}

/** Lists up to this long are walked at once (a promise per element costs more than the walk). */
const SLICED_ABOVE_ITEMS = 256;

/** An object's keys or an array's elements, each by its own rule. */
function walkContainer(value: unknown, path: string, walk: Walk): Cleaned | Promise<Cleaned> {
  if (Array.isArray(value)) {
    // A long list (10,000 messages) is walked in slices, so other requests run in between.
    if (value.length > SLICED_ABOVE_ITEMS) {
      return mapInSlices(value, async (item) => cleanField(item, `${path}[]`, walk)).then((done) =>
        done.filter((item) => item !== DROP),
      );
    }
    const items = value.map((item) => cleanField(item, `${path}[]`, walk));
    return whenSettled(items, (done) => done.filter((item) => item !== DROP));
  }
  if (value === null || typeof value !== 'object') return DROP;
  const entries = Object.entries(value);
  const children = entries.map(([key, child]) => cleanField(child, path === '' ? key : `${path}.${key}`, walk));
  return whenSettled(children, (done) =>
    // fromEntries defines own properties, so a `__proto__` key cannot reach the prototype.
    Object.fromEntries(
      entries.map(([key], i) => [key, done[i]] as const).filter(([, child]) => child !== DROP && child !== undefined),
    ),
  );
}

/** `then` of the values, at once when none is a promise. */
function whenSettled<T>(values: (Cleaned | Promise<Cleaned>)[], then: (done: Cleaned[]) => T): T | Promise<T> {
  return values.some((value) => value instanceof Promise) ? Promise.all(values).then(then) : then(values);
}

/**
 * `value` with every string in it (at any depth, object keys included) redacted and its findings
 * added to `counts`: for the fields of the routes that do not build a chat request (legacy
 * completions' model and sampling options, embeddings' model). Throws when a string cannot be
 * scanned; the caller refuses the request then, so nothing unscanned is forwarded.
 */
export async function redactedValue<T>(value: T, redactor: Redactor, counts: Record<string, number>): Promise<T> {
  const { out, counts: found } = await redactField(value, redactor);
  for (const [rule, n] of Object.entries(found)) counts[rule] = (counts[rule] ?? 0) + n;
  return out as T;
}

type FieldMemo = LRUCache<string, { json: string; counts: Record<string, number> }>;
/** Per redactor: clients resend the same tool schemas every turn, thousands of strings each time. */
const memos = new WeakMap<Redactor, FieldMemo>();
/** Bytes of JSON held (a character a byte). */
const MEMO_MAX_CHARS = TEXT_CACHE_BYTES.fieldMemo;
/** One field's JSON, at most: a large client's tool schemas (a few hundred KB) are still remembered. */
const MEMO_MAX_ENTRY_CHARS = 1024 * 1024;

function newFieldMemo(): FieldMemo {
  return new LRUCache({
    maxSize: MEMO_MAX_CHARS,
    maxEntrySize: MEMO_MAX_ENTRY_CHARS,
    sizeCalculation: (entry, key) => Math.max(1, key.length + entry.json.length),
  });
}

async function redactField(
  value: unknown,
  redactor: Redactor,
): Promise<{ out: unknown; counts: Record<string, number> }> {
  if (value === null || typeof value !== 'object') {
    const counts: Record<string, number> = {};
    return { out: await redactDeep(value, redactor, counts), counts };
  }
  const memo = memos.get(redactor) ?? newFieldMemo();
  memos.set(redactor, memo);
  const key = JSON.stringify(value);
  const hit = memo.get(key);
  // A fresh copy each time: the caller may change what it gets.
  if (hit) return { out: JSON.parse(hit.json), counts: hit.counts };
  const counts: Record<string, number> = {};
  const out = await redactDeep(value, redactor, counts);
  const json = JSON.stringify(out);
  memo.set(key, { json, counts });
  return { out, counts };
}

/**
 * Every string at any depth, object keys included, redacted: each distinct
 * string is scanned once (an enum repeated across properties costs one scan),
 * its findings counted for every place it occurs. Throws when one cannot be
 * scanned or the value nests past MAX_DEPTH.
 */
async function redactDeep(value: unknown, redactor: Redactor, counts: Record<string, number>): Promise<unknown> {
  const occurrences = new Map<string, number>();
  collectStrings(value, occurrences, 0);
  const masked = new Map<string, string>();
  // A field holds up to http/jsonShape.ts's MAX_FIELD_NODES strings, each a redactor call.
  await mapInSlices(occurrences, async ([text, times]) => {
    const result = await redactor.redact(text);
    for (const finding of result.findings) counts[finding.ruleId] = (counts[finding.ruleId] ?? 0) + times;
    masked.set(text, result.text);
  });
  return rebuild(value, masked);
}

function collectStrings(value: unknown, into: Map<string, number>, depth: number): void {
  if (depth > MAX_DEPTH) throw new Error('too deep to scan');
  if (typeof value === 'string') into.set(value, (into.get(value) ?? 0) + 1);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into, depth + 1);
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      into.set(key, (into.get(key) ?? 0) + 1);
      collectStrings(child, into, depth + 1);
    }
  }
}

function rebuild(value: unknown, masked: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return masked.get(value);
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map((item) => rebuild(item, masked));
  if (typeof value === 'object') {
    // fromEntries defines own properties, so a `__proto__` key cannot reach the prototype.
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [masked.get(key) as string, rebuild(child, masked)] as const),
    );
  }
  // undefined, functions, symbols: not JSON, nothing to forward.
  return undefined;
}
