// The repository map's ranking in the CPU pool (src/shared/cpuPool.ts): the
// packed index in (its array transferred, not copied), the order of the files
// out, by the same code as inline (repoMap.ts).

import { type RankOrder, type RepoMapOptions, rankPacked } from './repoMap.ts';

export function rankFiles(data: Int32Array, rels: string, options: RepoMapOptions): RankOrder {
  return rankPacked(data, rels, options);
}
