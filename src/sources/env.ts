// The env source: where the user works and when. Cheap enough not to memoize.

import type { ContextSource } from '../shared/types.ts';
import type { SourceDeps } from './deps.ts';
import { wants } from './deps.ts';

function offsetLabel(now: Date, timeZone: string): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(now)
    .find((p) => p.type === 'timeZoneName');
  return part?.value ?? 'GMT';
}

export function describeEnvironment(workspace: string, now: Date, deps: SourceDeps): string {
  const timeZone = deps.timeZone;
  const date = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    now,
  );
  const weekday = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long' }).format(now);
  const time = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(now);
  return [
    `Working directory: ${workspace}`,
    `OS: ${deps.platform}`,
    `Shell: ${deps.shell ?? 'unknown'}`,
    `Date: ${date} (${weekday})`,
    `Time: ${time} ${timeZone} (${offsetLabel(now, timeZone)})`,
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
