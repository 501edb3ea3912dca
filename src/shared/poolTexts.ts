// Large texts cross to a CPU pool worker once (cpuPool.ts). One request's
// 9 MB message goes to the pool four or five times (its question analysis, its
// cache key, its secret scan, its conversation keys, its token count), and each
// postMessage copies it on the event loop (5-15 ms each for 10 MB on a loaded
// core). Instead, a string above LARGE_TEXT_CHARS is sent with an id the first
// time and by its id afterwards; the worker keeps it until the pool says to
// forget it. Texts a task answers with (the parsed body's message, a redacted
// text) get an id the same way, so the next task that takes them sends nothing.
//
// A text's place is given by its path in the arguments (or the answer), never by
// a marker inside the data: a client's JSON cannot name a text it did not send.

export const LARGE_TEXT_CHARS = 256 * 1024;
/** Deep enough for a message's text (args → messages → message → content → part → text), bounded. */
const MAX_DEPTH = 6;
/** Arrays and objects looked into per walk, at most: a walk stays a fraction of what the copy it saves costs. */
const MAX_NODES = 20_000;

export type TextPath = (string | number)[];

/** A large text of a task's arguments: its id, and the text itself when the worker does not hold it yet. */
export interface SentText {
  path: TextPath;
  id: number;
  text?: string;
}

/** A large text of a task's answer, kept by the worker under `id` (the answer carries the text itself). */
export interface KeptText {
  path: TextPath;
  id: number;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Calls `visit` for each large string in plain arrays and objects, with its path. */
export function forEachLargeText(value: unknown, visit: (text: string, path: TextPath) => void): void {
  let nodes = 0;
  // One path, grown and shrunk on the way: copied only for a large text, not allocated per node.
  const path: TextPath = [];
  const walk = (node: unknown): void => {
    if (typeof node === 'string') {
      if (node.length >= LARGE_TEXT_CHARS) visit(node, [...path]);
      return;
    }
    if (node === null || typeof node !== 'object' || path.length >= MAX_DEPTH || ++nodes > MAX_NODES) return;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        walk(node[i]);
        path.pop();
      }
    } else if (isPlainObject(node)) {
      for (const key of Object.keys(node)) {
        if (key === '__proto__') continue;
        path.push(key);
        walk(node[key]);
        path.pop();
      }
    }
  };
  walk(value);
}

/**
 * `value` with the strings at `paths` replaced by '': only the arrays and objects on the way to them are
 * copied, everything else (and `value` itself) is left as it is.
 */
export function withoutTexts(value: unknown, paths: readonly TextPath[]): unknown {
  let copy = value;
  const copied = new Set<unknown>();
  for (const path of paths) {
    if (path.length === 0) return '';
    let parent = copy as Record<string | number, unknown>;
    if (!copied.has(parent)) {
      parent = shallowCopy(parent);
      copied.add(parent);
      copy = parent;
    }
    for (const key of path.slice(0, -1)) {
      let child = parent[key] as Record<string | number, unknown>;
      if (!copied.has(child)) {
        child = shallowCopy(child);
        copied.add(child);
        parent[key] = child;
      }
      parent = child;
    }
    parent[path[path.length - 1] as string | number] = '';
  }
  return copy;
}

function shallowCopy<T>(value: T): T {
  return (Array.isArray(value) ? [...value] : { ...value }) as T;
}

/** The string at `path` in `value`. */
export function textAt(value: unknown, path: TextPath): string | undefined {
  let node = value;
  for (const key of path) node = (node as Record<string | number, unknown> | undefined)?.[key];
  return typeof node === 'string' ? node : undefined;
}

/** Puts `text` at `path` in `value` (the worker's own copy of the arguments). */
export function putText(value: unknown, path: TextPath, text: string): void {
  let node = value as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1] as string | number] = text;
}

/**
 * The texts one worker holds, as the pool sees them: text → id, oldest use first, bounded by characters.
 * A long string's hash is its length in V8, so looking up a 10 MB text costs nothing unless another text
 * of the same length is held (then one comparison).
 */
export class HeldTexts {
  readonly #ids = new Map<string, number>();
  #chars = 0;
  #forgotten: number[] = [];

  constructor(private readonly maxChars: number) {}

  /** The id of a held text (now the most recently used), or undefined. */
  idOf(text: string): number | undefined {
    const id = this.#ids.get(text);
    if (id !== undefined) {
      this.#ids.delete(text);
      this.#ids.set(text, id);
    }
    return id;
  }

  /** Records that the worker holds `text` as `id`; the oldest texts past the bound are to be forgotten. */
  add(text: string, id: number): void {
    if (this.#ids.has(text)) {
      this.#forgotten.push(id);
      return;
    }
    this.#ids.set(text, id);
    this.#chars += text.length;
    for (const [held, heldId] of this.#ids) {
      if (this.#chars <= this.maxChars || held === text) break;
      this.#ids.delete(held);
      this.#chars -= held.length;
      this.#forgotten.push(heldId);
    }
  }

  /** Ids the worker should drop, once (sent with the next message). */
  takeForgotten(): number[] {
    const ids = this.#forgotten;
    this.#forgotten = [];
    return ids;
  }

  /** Forgets every text; the ids the worker should drop. */
  clear(): number[] {
    const ids = [...this.takeForgotten(), ...this.#ids.values()];
    this.#ids.clear();
    this.#chars = 0;
    return ids;
  }

  get size(): number {
    return this.#ids.size;
  }
}
