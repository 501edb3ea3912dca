// What ran during each late turn of the event loop that bench/index/run.ts recorded (BENCH_INDEX_LATE)
// while a --cpu-prof profile was taken: the profile's samples inside each late window, by function of
// ours (inclusive) and by function (self). See README.md.
//
//   BENCH_INDEX_LATE=/tmp/late.json node --cpu-prof --cpu-prof-dir=/tmp/prof --expose-gc --import tsx bench/index/run.ts
//   node --import tsx bench/index/lateTurns.ts /tmp/late.json /tmp/prof/CPU.*.0.001.cpuprofile

import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [lateFile, profileFile] = process.argv.slice(2);
if (!lateFile || !profileFile) throw new Error('usage: lateTurns.ts LATE.json PROFILE.cpuprofile');
const turns = JSON.parse(fs.readFileSync(lateFile, 'utf8')) as [number, number][];
const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const name = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(src|bench|node_modules)\//, '$1/')}`;
const ours = (node: ProfileNode) => /\/(src|bench)\//.test(node.callFrame.url);

// Sample times on the monotonic clock, in µs.
const times: number[] = [];
let t = profile.startTime;
for (const delta of profile.timeDeltas) {
  t += delta;
  times.push(t);
}

const top = (counts: Map<string, number>, n: number) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, ms]) => `    ${ms.toFixed(0).padStart(5)} ms  ${key}`)
    .join('\n');

for (const [end, lateness] of [...turns].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
  const start = end - (lateness + 10) * 1000;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const at = times[i] ?? 0;
    if (at < start || at > end) continue;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const id = profile.samples[i] ?? 0;
    const node = byId.get(id);
    if (!node) continue;
    self.set(name(node), (self.get(name(node)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let up: number | undefined = id; up !== undefined; up = parent.get(up)) {
      const frame = byId.get(up);
      if (!frame || !ours(frame) || seen.has(name(frame))) continue;
      seen.add(name(frame));
      inclusive.set(name(frame), (inclusive.get(name(frame)) ?? 0) + ms);
    }
  }
  console.log(`\nlate by ${lateness.toFixed(0)} ms, ${((start - profile.startTime) / 1e6).toFixed(1)} s into the run`);
  console.log(`  ours, inclusive:\n${top(inclusive, 8)}`);
  console.log(`  self:\n${top(self, 5)}`);
}
