// Applies fieldPolicy.ts to a client's request before anything else sees it:
// fields not in the table, or not forwarded to this upstream kind and not
// stored, are dropped; every string of a `redact` field (object keys included)
// goes through the redactor; images are rebuilt from their bytes. Fail closed:
// a field holding a string that cannot be scanned is dropped whole.

import type { ChatRequest } from '../shared/chatRequest.ts';
import type { Redactor } from '../shared/types.ts';
import { forwardedTo, ruleFor, type UpstreamKind } from './fieldPolicy.ts';
import { normalizeImage } from './images.ts';

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

async function cleanField(value: unknown, path: string, walk: Walk): Promise<Cleaned> {
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
    case 'redact': {
      const counts: Record<string, number> = {};
      try {
        const out = await redactDeep(value, walk.redactor, counts, 0);
        for (const [rule, n] of Object.entries(counts)) walk.counts[rule] = (walk.counts[rule] ?? 0) + n;
        return out;
      } catch {
        walk.unscannable.add(path);
        return DROP;
      }
    }
  }
}

/** An object's keys or an array's elements, each by its own rule. */
async function walkContainer(value: unknown, path: string, walk: Walk): Promise<Cleaned> {
  if (Array.isArray(value)) {
    const items = await Promise.all(value.map((item) => cleanField(item, `${path}[]`, walk)));
    return items.filter((item) => item !== DROP);
  }
  if (value === null || typeof value !== 'object') return DROP;
  const entries = await Promise.all(
    Object.entries(value).map(
      async ([key, child]) => [key, await cleanField(child, path === '' ? key : `${path}.${key}`, walk)] as const,
    ),
  );
  // fromEntries defines own properties, so a `__proto__` key cannot reach the prototype.
  return Object.fromEntries(entries.filter(([, child]) => child !== DROP && child !== undefined));
}

/** Every string at any depth, object keys included; throws when one cannot be scanned. */
async function redactDeep(
  value: unknown,
  redactor: Redactor,
  counts: Record<string, number>,
  depth: number,
): Promise<unknown> {
  if (depth > MAX_DEPTH) throw new Error('too deep to scan');
  if (typeof value === 'string') {
    const result = await redactor.redact(value);
    for (const finding of result.findings) counts[finding.ruleId] = (counts[finding.ruleId] ?? 0) + 1;
    return result.text;
  }
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return Promise.all(value.map((item) => redactDeep(item, redactor, counts, depth + 1)));
  if (typeof value === 'object') {
    const entries = await Promise.all(
      Object.entries(value).map(
        async ([key, child]) =>
          [
            await redactDeep(key, redactor, counts, depth + 1),
            await redactDeep(child, redactor, counts, depth + 1),
          ] as const,
      ),
    );
    return Object.fromEntries(entries);
  }
  // undefined, functions, symbols: not JSON, nothing to forward.
  return undefined;
}
