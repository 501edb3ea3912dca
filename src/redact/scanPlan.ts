// Groups the rules' keyword lists for the keyword pass: rules with the same
// keywords (the assignment family shares one list of 95) share one list of
// hits, which the pass builds in text order, instead of each rule joining and
// sorting its keywords' hits again.

import type { ScanPlan } from './keywordIndex.ts';
import type { RuleGroups } from './scanRules.ts';

/**
 * Distinct id lists get one group each (each list its own when not `share`); `of[i]` is the group
 * of `lists[i]`, -1 when it has none.
 */
function groupLists(lists: readonly (readonly number[] | undefined)[], size: number, share: boolean) {
  const byKey = new Map<string, number>();
  const of = new Int32Array(lists.length).fill(-1);
  const membersOf: number[][] = Array.from({ length: size }, () => []);
  lists.forEach((ids, i) => {
    if (!ids) return;
    const key = share ? [...new Set(ids)].sort((a, b) => a - b).join(',') : String(i);
    let group = byKey.get(key);
    if (group === undefined) {
      group = byKey.size;
      byKey.set(key, group);
      for (const id of new Set(ids)) membersOf[id]!.push(group);
    }
    of[i] = group;
  });
  return { of, count: byKey.size, byKeyword: membersOf.map((groups) => (groups.length > 0 ? groups : undefined)) };
}

/**
 * `keywordIds[i]`: the keyword ids of rule i; `line[i]`: it scans line windows around them;
 * `startIds[i]`: the ids of the literals every match of rule i starts with, if known; `share`
 * false gives each rule its own groups (bench/redact's ablation).
 */
export function scanPlan(
  keywordIds: readonly (readonly number[])[],
  line: readonly boolean[],
  startIds: readonly (readonly number[] | undefined)[],
  size: number,
  share = true,
): { plan: ScanPlan; groups: Omit<RuleGroups, 'oneLine'> } {
  const windows = groupLists(
    keywordIds.map((ids, i) => (line[i] ? ids : undefined)),
    size,
    share,
  );
  const starts = groupLists(startIds, size, share);
  return {
    plan: {
      windowGroups: windows.byKeyword,
      windowGroupCount: windows.count,
      startGroups: starts.byKeyword,
      startGroupCount: starts.count,
    },
    groups: { keywords: keywordIds, window: windows.of, start: starts.of },
  };
}
