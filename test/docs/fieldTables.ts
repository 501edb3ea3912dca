// The tables of docs/api.md that src/pipeline/fieldPolicy.ts decides: written
// from the code, so the page can be compared with them (test/docs/routes.test.ts)
// and a changed rule shows the row to paste.

import { type FieldRule, REQUEST_FIELDS, STORED_HEADERS } from '../../src/pipeline/fieldPolicy.ts';

const yes = (value: boolean) => (value ? 'yes' : '—');

function treatment(rule: FieldRule): string {
  return rule.treatment === 'pass' && rule.values ? `pass (${rule.values.join(', ')})` : rule.treatment;
}

/** Every chat-completions field but the containers (`walk`), then the catch-all row. */
export function fieldTable(): string {
  const rows = Object.entries(REQUEST_FIELDS)
    .filter(([, rule]) => rule.treatment !== 'walk')
    .map(
      ([field, rule]) =>
        `| \`${field}\` | ${yes(rule.forwardToOllama)} | ${yes(rule.forwardToOpenAI)} | ${yes(rule.store)} | ${treatment(rule)} | ${rule.note ?? ''} |`,
    );
  return [
    '| field | to Ollama | to OpenAI kind | stored | treatment | note |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '| any other field | — | — | — | drop | counted in a warning, never named |',
  ].join('\n');
}

export function storedHeaderTable(): string {
  const rows = Object.entries(STORED_HEADERS).map(
    ([header, rule]) => `| \`${header}\` | redacted | ${rule.storeMaxBytes} bytes | ${rule.note ?? ''} |`,
  );
  return ['| header | stored | cap | note |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
