// Optional semantic retrieval (`--embed-model`, issue 23 point 6): the
// index's chunks embedded by the upstream's embedding model in the
// background, the vectors stored in the same database (store.ts), and a
// question's nearest chunks by cosine similarity.
//
// The text of a chunk is read again through the guard (the index stores no
// text), and the embedder redacts it before it leaves the process. A chunk
// whose file changed since it was indexed is left for the re-index (its
// chunks, and their vectors, are replaced). Bounded: at most maxVectors
// vectors, a question's scan reads them in pages and yields between pages.

import type { Embedder } from '../../deps.ts';
import type { ChunkHit, IndexStore } from './store.ts';

export interface VectorOptions {
  /** Chunks sent in one embedding call. */
  batch: number;
  /** Characters of a chunk sent at most (its head): embedding models read a few thousand tokens. */
  maxChars: number;
  /** Vectors stored at most; past it the rest of the chunks rank by words only (said in the report). */
  maxVectors: number;
  /** The nearest chunks a question adds at most, and the least similarity that counts. */
  topK: number;
  minSimilarity: number;
  /** How long a request waits for its question's vector. */
  questionTimeoutMs: number;
  /** How long one background batch may take. */
  batchTimeoutMs: number;
  /** After a failed batch (the model missing, the upstream down), embedding pauses this long. */
  retryMs: number;
}

export const defaultVectorOptions: VectorOptions = {
  batch: 16,
  maxChars: 2_000,
  maxVectors: 20_000,
  topK: 3,
  minSimilarity: 0.5,
  questionTimeoutMs: 3_000,
  batchTimeoutMs: 60_000,
  retryMs: 60_000,
};

export interface NearChunk extends ChunkHit {
  similarity: number;
}

/** A unit-length copy (cosine similarity is then a dot product); undefined for an empty or zero vector. */
export function unitVector(values: readonly number[]): Float32Array | undefined {
  let norm = 0;
  for (const value of values) norm += value * value;
  norm = Math.sqrt(norm);
  if (!(norm > 0) || !Number.isFinite(norm)) return undefined;
  return Float32Array.from(values, (value) => value / norm);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ChunkVectors {
  #running: Promise<void> | undefined;
  #retryAt = 0;
  #failed: string | undefined;
  /** Chunks whose file changed since indexing: left for the re-index. */
  readonly #skip = new Set<number>();
  #closed = false;

  constructor(
    private readonly store: IndexStore,
    private readonly embedder: Embedder,
    /** The chunk's text as it is on disk now; undefined when the file changed since it was indexed. */
    private readonly chunkText: (chunk: ChunkHit) => string | undefined,
    /** Resolves when the background may go on (no request collecting). */
    private readonly idle: () => Promise<void>,
    private readonly options: VectorOptions = defaultVectorOptions,
  ) {
    store.useEmbedModel(embedder.model);
  }

  #capped = false;

  /**
   * Why semantic ranking is partial now (embedding running, failed, or at its limit), with the counts;
   * undefined when every chunk that can have a vector has one.
   */
  partial(): { vectors: number; chunks: number; why: string } | undefined {
    if (!this.#failed && !this.#capped && !this.#running) return undefined;
    const counts = this.store.vectorCounts();
    const why = this.#failed
      ? `embedding failed: ${this.#failed}`
      : this.#capped
        ? `at its limit of ${this.options.maxVectors}`
        : counts.vectors < counts.chunks
          ? 'embedding in the background'
          : undefined;
    return why ? { ...counts, why } : undefined;
  }

  /** Embeds the chunks without a vector in the background, a batch at a time; one run at a time. */
  run(): Promise<void> {
    if (this.#closed || this.#running || Date.now() < this.#retryAt) return this.#running ?? Promise.resolve();
    this.#running = this.#loop().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #loop(): Promise<void> {
    for (let after = 0; !this.#closed; ) {
      this.#capped = this.store.vectorCounts().vectors >= this.options.maxVectors;
      if (this.#capped) return;
      await this.idle();
      if (this.#closed) return;
      const chunks = this.store
        .chunksWithoutVector(after, this.options.batch * 4)
        .filter((chunk) => !this.#skip.has(chunk.id));
      if (chunks.length === 0) return;
      const batch: { id: number; text: string; path: string }[] = [];
      for (const chunk of chunks) {
        after = chunk.id;
        const text = this.chunkText(chunk);
        if (text === undefined || text.trim() === '') this.#skip.add(chunk.id);
        else batch.push({ id: chunk.id, text: text.slice(0, this.options.maxChars), path: chunk.rel });
        if (batch.length >= this.options.batch) break;
      }
      if (batch.length === 0) continue;
      let vectors: number[][];
      try {
        vectors = await this.embedder.embed(batch, AbortSignal.timeout(this.options.batchTimeoutMs));
        if (vectors.length !== batch.length) throw new Error('the upstream returned another number of vectors');
      } catch (error) {
        // Said in the report; tried again later (the model may be pulled, the upstream restarted).
        this.#failed = (error instanceof Error ? error.message : String(error)).slice(0, 200);
        this.#retryAt = Date.now() + this.options.retryMs;
        return;
      }
      this.#failed = undefined;
      if (this.#closed) return;
      const stored: { id: number; vec: Float32Array }[] = [];
      batch.forEach((entry, i) => {
        const vec = unitVector(vectors[i] ?? []);
        if (vec) stored.push({ id: entry.id, vec });
        else this.#skip.add(entry.id);
      });
      this.store.putVectors(stored);
    }
  }

  /** The chunks nearest to the question (its text redacted and embedded), most similar first. */
  async nearest(question: string, accept: (rel: string) => boolean): Promise<NearChunk[]> {
    const [raw] = await this.embedder.embed(
      [{ text: question.slice(0, this.options.maxChars) }],
      AbortSignal.timeout(this.options.questionTimeoutMs),
    );
    const query = unitVector(raw ?? []);
    if (!query) return [];
    const best: NearChunk[] = [];
    for (let after = 0; ; ) {
      const page = this.store.vectorsAfter(after, 500);
      if (page.length === 0) break;
      for (const row of page) {
        after = row.id;
        if (row.vec.length !== query.length || !accept(row.rel)) continue;
        const similarity = dot(row.vec, query);
        if (similarity < this.options.minSimilarity) continue;
        best.push({ rel: row.rel, size: row.size, mtime: row.mtime, start: row.start, end: row.end, similarity });
        best.sort((a, b) => b.similarity - a.similarity);
        if (best.length > this.options.topK) best.pop();
      }
      // A page at a time: other requests run between pages.
      await turn();
    }
    return best;
  }

  /** A file was re-indexed: its chunks are new, the skipped ones may be embedded again. */
  forget(): void {
    this.#skip.clear();
  }

  close(): void {
    this.#closed = true;
  }
}
