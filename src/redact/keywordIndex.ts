// The keyword pre-filter: one Aho-Corasick pass over the lower-cased text
// tells which rule keywords occur at all, so rules whose keywords are absent
// never run their regular expression. One pass, whatever the number of rules.

export class KeywordIndex {
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: number[] = [0];
  /** Keyword ids that end at each node (including those reached through fail links). */
  private readonly out: number[][] = [[]];
  private readonly ids = new Map<string, number>();

  constructor(keywords: Iterable<string>) {
    for (const keyword of keywords) {
      const lower = keyword.toLowerCase();
      if (this.ids.has(lower)) continue;
      const id = this.ids.size;
      this.ids.set(lower, id);
      let node = 0;
      for (let i = 0; i < lower.length; i++) {
        const code = lower.charCodeAt(i);
        let child = this.next[node]!.get(code);
        if (child === undefined) {
          child = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.out.push([]);
          this.next[node]!.set(code, child);
        }
        node = child;
      }
      this.out[node]!.push(id);
    }
    // Breadth-first fail links.
    const queue: number[] = [...this.next[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      for (const [code, child] of this.next[node]!) {
        let f = this.fail[node]!;
        while (f !== 0 && !this.next[f]!.has(code)) f = this.fail[f]!;
        const target = this.next[f]!.get(code);
        this.fail[child] = target !== undefined && target !== child ? target : 0;
        this.out[child]!.push(...this.out[this.fail[child]!]!);
        queue.push(child);
      }
    }
  }

  /** The id of a keyword given to the constructor (lower-cased). */
  idOf(keyword: string): number {
    const id = this.ids.get(keyword.toLowerCase());
    if (id === undefined) throw new Error(`unknown keyword ${keyword}`);
    return id;
  }

  /** Which keywords occur in `lowerText` (already lower-cased), as a bitmap by id. */
  scan(lowerText: string): Uint8Array {
    const found = new Uint8Array(this.ids.size);
    const next = this.next;
    const fail = this.fail;
    const out = this.out;
    let node = 0;
    for (let i = 0; i < lowerText.length; i++) {
      const code = lowerText.charCodeAt(i);
      let target = next[node]!.get(code);
      while (target === undefined && node !== 0) {
        node = fail[node]!;
        target = next[node]!.get(code);
      }
      node = target ?? 0;
      const ends = out[node]!;
      for (let k = 0; k < ends.length; k++) found[ends[k]!] = 1;
    }
    return found;
  }
}
