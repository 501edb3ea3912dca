// The keyword pre-filter: one pass of an Aho-Corasick automaton (compiled to
// a DFA over ASCII) over the lower-cased text tells which rule keywords occur
// and where, so a rule whose keywords are absent never runs its regex, and
// one whose keywords are rare runs only on the lines around them.

const ALPHABET = 128;
/** Past this many hits of one keyword, its positions are dropped (rules using it then scan the whole text). */
const MAX_HITS_PER_KEYWORD = 256;

/**
 * Which hit positions a scan lists, by group: rules that share a keyword list share one group,
 * so their hits come out joined and in order, not joined and sorted once per rule.
 */
export interface ScanPlan {
  /** Per keyword id: the window groups whose hit ends it adds to. */
  windowGroups: readonly (readonly number[] | undefined)[];
  windowGroupCount: number;
  /** Per keyword id: the start groups whose hit starts it adds to. */
  startGroups: readonly (readonly number[] | undefined)[];
  startGroupCount: number;
}

export interface KeywordScan {
  /** 1 where keyword id occurs. */
  found: Uint8Array;
  /**
   * Per window group: the index just after each hit of its keywords, in text order; `null` when
   * one of them is too frequent for windows to help; undefined when none occurs.
   */
  ends: (number[] | null | undefined)[];
  /** Per start group: the index where each hit of its keywords starts, in order, every one. */
  starts: (number[] | undefined)[];
}

const NO_PLAN: ScanPlan = { windowGroups: [], windowGroupCount: 0, startGroups: [], startGroupCount: 0 };

export class KeywordIndex {
  private readonly ids = new Map<string, number>();
  /** Row offset of the next state, by state row offset + character class; ~offset where a keyword ends. */
  private readonly delta: Int32Array;
  /** log2 of a table row's length. */
  private readonly shift: number;
  /** Character class of each ASCII code; index 128 for any non-ASCII character. */
  private readonly classOf: Uint8Array;
  /** Keyword ids ending at each state, through fail links included. */
  private readonly out: number[][];

  /**
   * `options` turn off the pass's tricks, for bench/redact's ablation only (the scan's result is the same):
   * `classes: false` keeps one table column per ASCII character; `quiet: false` handles every hit.
   */
  constructor(
    keywords: Iterable<string>,
    private readonly options: { classes?: boolean; quiet?: boolean } = {},
  ) {
    const next: Map<number, number>[] = [new Map()];
    const out: number[][] = [[]];
    for (const keyword of keywords) {
      const lower = keyword.toLowerCase();
      if (this.ids.has(lower)) continue;
      for (let i = 0; i < lower.length; i++) {
        if (lower.charCodeAt(i) >= ALPHABET) throw new Error(`keyword ${keyword} is not ASCII`);
      }
      const id = this.ids.size;
      this.ids.set(lower, id);
      this.lengths.push(lower.length);
      let node = 0;
      for (let i = 0; i < lower.length; i++) {
        const code = lower.charCodeAt(i);
        let child = next[node]!.get(code);
        if (child === undefined) {
          child = next.length;
          next.push(new Map());
          out.push([]);
          next[node]!.set(code, child);
        }
        node = child;
      }
      out[node]!.push(id);
    }
    // Breadth-first: fail links, then the full transition table (a DFA).
    const fail = new Int32Array(next.length);
    const delta = new Int32Array(next.length * ALPHABET);
    for (const [code, child] of next[0]!) delta[code] = child;
    const queue: number[] = [...next[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      out[node]!.push(...out[fail[node]!]!);
      for (let code = 0; code < ALPHABET; code++) {
        const child = next[node]!.get(code);
        if (child === undefined) {
          delta[node * ALPHABET + code] = delta[fail[node]! * ALPHABET + code]!;
        } else {
          fail[child] = node === 0 ? 0 : delta[fail[node]! * ALPHABET + code]!;
          delta[node * ALPHABET + code] = child;
          queue.push(child);
        }
      }
    }
    // Case folding in the table: upper-case letters move like lower-case ones,
    // so the text is scanned as it is, without a lower-cased copy.
    for (let state = 0; state < next.length; state++) {
      for (let code = 65; code <= 90; code++) delta[state * ALPHABET + code] = delta[state * ALPHABET + code + 32]!;
    }
    // Characters whose columns are the same in every state are one class (most characters of a text
    // appear in no keyword and lead back to the root): the table shrinks from 128 columns to a few
    // dozen, so the states a scan visits stay in the processor's cache. Non-ASCII gets the all-root column.
    // Columns are compared by a hash first, so building the classes stays linear in the table's size.
    const classOf = new Uint8Array(ALPHABET + 1);
    const representative: number[] = [];
    const target = (state: number, code: number) => (code < ALPHABET ? delta[state * ALPHABET + code]! : 0);
    const byHash = new Map<number, number[]>();
    for (let code = 0; code <= ALPHABET; code++) {
      let hash = 0;
      for (let state = 0; state < next.length; state++) hash = (Math.imul(hash, 31) + target(state, code)) | 0;
      let cls = -1;
      if (options.classes !== false) {
        for (const candidate of byHash.get(hash) ?? []) {
          const other = representative[candidate]!;
          let same = true;
          for (let state = 0; state < next.length && same; state++) same = target(state, code) === target(state, other);
          if (same) {
            cls = candidate;
            break;
          }
        }
      }
      if (cls === -1) {
        cls = representative.length;
        representative.push(code);
        byHash.set(hash, [...(byHash.get(hash) ?? []), cls]);
      }
      classOf[code] = cls;
    }
    // Each state is stored as its row's offset (state × 2^shift, rows padded to a power of two so
    // that the scan finds a state's number with a shift), so the scan adds the class and loads.
    // A transition into a state where some keyword ends is stored as ~offset (negative): the scan
    // loop learns "a keyword ends here" from the value it loads anyway, not from a second table.
    const shift = Math.ceil(Math.log2(representative.length));
    const table = new Int32Array(next.length << shift);
    for (let state = 0; state < next.length; state++) {
      for (let cls = 0; cls < representative.length; cls++) {
        const code = representative[cls]!;
        const target = code < ALPHABET ? delta[state * ALPHABET + code]! : 0;
        table[(state << shift) + cls] = out[target]!.length > 0 ? ~(target << shift) : target << shift;
      }
    }
    this.delta = table;
    this.shift = shift;
    this.classOf = classOf;
    this.out = out;
    this.seenIn = new Int32Array(out.length);
  }

  get size(): number {
    return this.ids.size;
  }

  /** The id of a keyword given to the constructor (case-insensitive). */
  idOf(keyword: string): number {
    const id = this.ids.get(keyword.toLowerCase());
    if (id === undefined) throw new Error(`unknown keyword ${keyword}`);
    return id;
  }

  /**
   * Per state: 1 when none of the keywords ending there has a group in `plan` (its hits are not
   * listed, only its presence counts: `.` and `-` for the whole-text rules hit 40,000 times a MB).
   */
  private quietStatesFor(plan: ScanPlan): Uint8Array {
    let quiet = this.quietByPlan.get(plan);
    if (!quiet) {
      quiet = Uint8Array.from(this.out, (ids) =>
        this.options.quiet !== false &&
        ids.length > 0 &&
        ids.every((id) => !plan.windowGroups[id] && !plan.startGroups[id])
          ? 1
          : 0,
      );
      this.quietByPlan.set(plan, quiet);
    }
    return quiet;
  }
  private readonly quietByPlan = new WeakMap<ScanPlan, Uint8Array>();
  /** The scan in which each state was last handled (quiet states only). */
  private readonly seenIn: Int32Array;
  private epoch = 0;
  private nextEpoch(): number {
    if (this.epoch === 0x7fffffff) {
      this.seenIn.fill(0);
      this.epoch = 0;
    }
    return ++this.epoch;
  }

  /** Reused by every scan (a fresh 3 KiB array per item was most of the pass's garbage). */
  private readonly result: KeywordScan = { found: new Uint8Array(0), ends: [], starts: [] };
  /** Hits of each keyword in the current scan, for the MAX_HITS_PER_KEYWORD cap. */
  private hits = new Int32Array(0);
  /** Length of each keyword, by id. */
  private readonly lengths: number[] = [];
  /** Keyword ids the last scan found, so the next one resets only those. */
  private readonly touched: number[] = [];

  /**
   * Which keywords occur in `text` (case-insensitively), and, per group of `plan`, where their hits
   * end (windows: while every keyword of the group has at most MAX_HITS_PER_KEYWORD) and start (all).
   * The result is reused: it is valid until the next call (read it before any `await`).
   */
  scan(text: string, plan: ScanPlan = NO_PLAN): KeywordScan {
    const result = this.result;
    if (result.found.length !== this.ids.size) {
      result.found = new Uint8Array(this.ids.size);
      this.hits = new Int32Array(this.ids.size);
    } else {
      result.found.fill(0);
    }
    const found = result.found;
    const hits = this.hits;
    const touched = this.touched;
    for (let t = 0; t < touched.length; t++) hits[touched[t]!] = 0;
    touched.length = 0;
    const ends = result.ends;
    const starts = result.starts;
    ends.length = 0;
    ends.length = plan.windowGroupCount;
    starts.length = 0;
    starts.length = plan.startGroupCount;
    const windowGroups = plan.windowGroups;
    const startGroups = plan.startGroups;
    const lengths = this.lengths;
    const delta = this.delta;
    const shift = this.shift;
    const quiet = this.quietStatesFor(plan);
    // A state that `quiet` marks is handled once per scan: its keywords' later hits add nothing.
    const epoch = this.nextEpoch();
    const seen = this.seenIn;
    const classOf = this.classOf;
    const nonAscii = classOf[ALPHABET]!;
    const out = this.out;
    const length = text.length;
    let state = 0;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      // Non-ASCII resets to the root (no keyword ends there).
      const next = delta[state + (code < ALPHABET ? classOf[code]! : nonAscii)]!;
      if (next >= 0) {
        state = next;
        continue;
      }
      state = ~next;
      const row = state >> shift;
      if (quiet[row] === 1) {
        if (seen[row] === epoch) continue;
        seen[row] = epoch;
      }
      const ending = out[row]!;
      for (let k = 0; k < ending.length; k++) {
        const id = ending[k]!;
        if (found[id] === 0) {
          found[id] = 1;
          touched.push(id);
        }
        const count = ++hits[id]!;
        const windows = windowGroups[id];
        if (windows !== undefined) {
          for (let g = 0; g < windows.length; g++) {
            const group = windows[g]!;
            const list = ends[group];
            if (count > MAX_HITS_PER_KEYWORD) ends[group] = null;
            else if (list === undefined) ends[group] = [i + 1];
            else if (list !== null) list.push(i + 1);
          }
        }
        const startsIn = startGroups[id];
        if (startsIn !== undefined) {
          const at = i + 1 - lengths[id]!;
          for (let g = 0; g < startsIn.length; g++) {
            const group = startsIn[g]!;
            const list = starts[group];
            if (list === undefined) starts[group] = [at];
            else {
              // Hits come by their end: a longer keyword can start before a shorter one that ended
              // first. Nearly in order, so an insertion from the back is cheap.
              let j = list.length;
              list.push(at);
              while (j > 0 && list[j - 1]! > at) {
                list[j] = list[j - 1]!;
                j--;
              }
              list[j] = at;
            }
          }
        }
      }
    }
    return result;
  }
}
