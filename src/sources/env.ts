// The env source: where the user works and when. Cheap enough not to memoize.

import type { ContextSource } from '../shared/types.ts';
import type { SourceDeps } from './deps.ts';
import { wants } from './deps.ts';

// Building an Intl.DateTimeFormat costs ~0.1 ms; keep one set per time zone.
const formatters = new Map<string, Record<'date' | 'weekday' | 'time' | 'offset', Intl.DateTimeFormat>>();

function formattersFor(timeZone: string) {
  let set = formatters.get(timeZone);
  if (!set) {
    set = {
      date: new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }),
      weekday: new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long' }),
      time: new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
      offset: new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }),
    };
    formatters.set(timeZone, set);
  }
  return set;
}

export function describeEnvironment(workspace: string, now: Date, deps: SourceDeps): string {
  const timeZone = deps.timeZone;
  const f = formattersFor(timeZone);
  const offset = f.offset.formatToParts(now).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
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
      return { items: [{ key: 'env.info', source: 'env', title: 'environment', text, priority: 50, kind: 'text' }] };
    },
  };
}
