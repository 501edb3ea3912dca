// The env source: where the user works and when. Cheap enough not to memoize.

import type { ContextSource } from '../shared/types.ts';
import type { SourceDeps } from './deps.ts';
import { wants } from './deps.ts';

// Building an Intl.DateTimeFormat is slow next to using one; keep one set per time zone.
const formatters = new Map<string, Record<'date' | 'weekday' | 'time' | 'wall', Intl.DateTimeFormat>>();

function formattersFor(timeZone: string) {
  let set = formatters.get(timeZone);
  if (!set) {
    set = {
      date: new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }),
      weekday: new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long' }),
      time: new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
      wall: new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
      }),
    };
    formatters.set(timeZone, set);
  }
  return set;
}

/**
 * `GMT+01:00` from the zone's wall clock. Computed rather than asked of Intl's
 * `longOffset`, which ICU builds spell differently (Node: `GMT+00:00`, Deno: `GMT`).
 */
function utcOffset(wall: Intl.DateTimeFormat, now: Date): string {
  const part = (type: string) => Number(wall.formatToParts(now).find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'));
  const minutes = Math.round((asUtc - Math.floor(now.getTime() / 60_000) * 60_000) / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `GMT${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export function describeEnvironment(workspace: string, now: Date, deps: SourceDeps): string {
  const timeZone = deps.timeZone;
  const f = formattersFor(timeZone);
  const offset = utcOffset(f.wall, now);
  return [
    `Working directory: ${workspace}`,
    `OS: ${deps.platform}`,
    `Shell: ${deps.shell ?? 'unknown'}`,
    `Date: ${f.date.format(now)} (${f.weekday.format(now)})`,
    `Time: ${f.time.format(now)} ${timeZone} (${offset})`,
  ].join('\n');
}

export function createEnvSource(deps: SourceDeps): ContextSource {
  return {
    name: 'env',
    timeoutMs: 500,
    async collect(input) {
      if (!wants(input.wanted, 'env.info')) return { items: [] };
      const text = describeEnvironment(input.workspace, input.now, deps);
      return {
        items: [
          {
            key: 'env.info',
            source: 'env',
            title: 'environment',
            text,
            priority: 50,
            kind: 'text',
            why: 'working directory, OS, shell, date and time',
          },
        ],
      };
    },
  };
}
