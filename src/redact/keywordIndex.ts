// The keyword pre-filter: one pass of an Aho-Corasick automaton (compiled to
// a DFA over ASCII) over the text tells which rule keywords occur, so a rule
// whose keywords are absent never runs its regex, and where the literals a
// rule's matches start with occur, so such a rule is tried only there.

const ALPHABET = 128;
/** log2 of a table row's length (one column per ASCII code). */
const SHIFT = 7;

/** Which hit positions a scan lists: per keyword id, the lists (by number) its hit starts go to. */
export interface ScanPlan {
  starts: readonly (readonly number[] | undefined)[];
  listCount: number;
}

export interface KeywordScan {
  /** 1 where keyword id occurs. */
  found: Uint8Array;
  /** Per list of the plan: the index where each hit of its keywords starts, in text order; undefined when none. */
  starts: (number[] | undefined)[];
}

const NO_PLAN: ScanPlan = { starts: [], listCount: 0 };

export class KeywordIndex {
  private readonly ids = new Map<string, number>();
  /**
   * Row offset of the next state (state << SHIFT), by row offset + character code; stored as
   * ~offset when a keyword ends in that state, so the scan learns it from the value it loads anyway.
   */
  private readonly delta: Int32Array;
  /** Keyword ids ending at each state, through fail links included. */
  private readonly out: number[][];
  /** Length of each keyword, by id. */
  private readonly lengths: number[] = [];

  constructor(keywords: Iterable<string>) {
    const next: Map<number, number>[] = [new Map()];
    const out: number[][] = [[]];
    for (const keyword of keywords) {
      const lower = keyword.toLowerCase();
      if (this.ids.has(lower)) continue;
      for (let i = 0; i < lower.length; i++) {
        const code = lower.charCodeAt(i);
        // Code 0 is where non-ASCII characters go (back to the root), so no keyword may hold it.
        if (code === 0 || code >= ALPHABET) throw new Error(`keyword ${keyword} is not printable ASCII`);
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
    // Breadth-first: fail links, then the full transition table (a DFA) of state numbers.
    const fail = new Int32Array(next.length);
    const delta = new Int32Array(next.length << SHIFT);
    for (const [code, child] of next[0]!) delta[code] = child;
    const queue: number[] = [...next[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      out[node]!.push(...out[fail[node]!]!);
      const row = node << SHIFT;
      const failRow = fail[node]! << SHIFT;
      // Where the node has no child, it moves as its fail state does (that row is complete: it is shallower).
      delta.copyWithin(row, failRow, failRow + ALPHABET);
      for (const [code, child] of next[node]!) {
        fail[child] = node === 0 ? 0 : delta[failRow + code]!;
        delta[row + code] = child;
        queue.push(child);
      }
    }
    // Case folding in the table (upper-case letters move like lower-case ones, so the text is scanned
    // as it is), and states stored as row offsets, marked where a keyword ends.
    for (let state = 0; state < next.length; state++) {
      const row = state << SHIFT;
      for (let code = 65; code <= 90; code++) delta[row + code] = delta[row + code + 32]!;
      for (let code = 0; code < ALPHABET; code++) {
        const target = delta[row + code]!;
        delta[row + code] = out[target]!.length > 0 ? ~(target << SHIFT) : target << SHIFT;
      }
    }
    this.delta = delta;
    this.out = out;
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

  /** Reused by every scan (a fresh array per item was most of the pass's garbage). */
  private readonly result: KeywordScan = { found: new Uint8Array(0), starts: [] };

  /**
   * Which keywords occur in `text` (case-insensitively), and, per list of `plan`, where its keywords'
   * hits start. The result is reused: it is valid until the next call (read it before any `await`).
   */
  scan(text: string, plan: ScanPlan = NO_PLAN): KeywordScan {
    const result = this.result;
    if (result.found.length !== this.ids.size) result.found = new Uint8Array(this.ids.size);
    else result.found.fill(0);
    const found = result.found;
    const starts = result.starts;
    starts.length = 0;
    starts.length = plan.listCount;
    const startLists = plan.starts;
    const lengths = this.lengths;
    const delta = this.delta;
    const out = this.out;
    const length = text.length;
    let state = 0;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      // Non-ASCII goes to column 0, which leads back to the root (no keyword holds code 0).
      const next = delta[state + (code < ALPHABET ? code : 0)]!;
      if (next >= 0) {
        state = next;
        continue;
      }
      state = ~next;
      const ending = out[state >> SHIFT]!;
      for (let k = 0; k < ending.length; k++) {
        const id = ending[k]!;
        found[id] = 1;
        const lists = startLists[id];
        if (lists === undefined) continue;
        const at = i + 1 - lengths[id]!;
        for (let g = 0; g < lists.length; g++) {
          const list = starts[lists[g]!];
          if (list === undefined) starts[lists[g]!] = [at];
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
    return result;
  }
}
