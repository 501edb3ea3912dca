// Fills the corpus templates (test/fixtures/secrets/planted/*.tmpl) with
// freshly generated secrets and scores a redactor on them and on the clean
// files: recall, preservation of the text around secrets, clean files changed.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redactor } from '../../src/shared/types.ts';
import type { Rng } from './secretGen.ts';
import { type Planted, SECRET_KINDS } from './secretKinds.ts';

export const FIXTURES = join(import.meta.dirname, '../fixtures/secrets');

export interface PlantedSpan extends Planted {
  kind: string;
  start: number;
  end: number;
}

export interface FilledTemplate {
  name: string;
  /** The path the redactor is told, so path-aware rules apply. */
  path: string;
  text: string;
  planted: PlantedSpan[];
}

function applyFilter(text: string, filter: string | undefined): string {
  if (!filter) return text;
  if (filter === 'json') return text.replaceAll('\n', '\\n');
  const indent = /^(diff-)?indent(\d+)$/.exec(filter);
  if (indent) return text.replaceAll('\n', `\n${indent[1] ? '+' : ''}${' '.repeat(Number(indent[2]))}`);
  if (filter === 'diff') return text.replaceAll('\n', '\n+');
  // A shell string continued with a trailing backslash on every line.
  if (filter === 'backslash') return text.replaceAll('\n', '\\\n');
  throw new Error(`unknown template filter |${filter}`);
}

/** `{{kind}}` gets a fresh value; `{{kind@label}}` reuses one value per label; `{{kind|filter}}` reshapes it. */
export function fillTemplate(name: string, template: string, rng: Rng): FilledTemplate {
  const shared = new Map<string, Planted>();
  const planted: PlantedSpan[] = [];
  let text = '';
  let at = 0;
  for (const marker of template.matchAll(/\{\{([a-z0-9-]+)(@[a-z0-9]+)?(?:\|([a-z0-9-]+))?\}\}/g)) {
    const [all, kind, label, filter] = marker;
    const make = SECRET_KINDS[kind!];
    if (!make) throw new Error(`${name}: unknown secret kind ${kind}`);
    const key = label ? `${kind}${label}` : undefined;
    const value = (key && shared.get(key)) || make(rng);
    if (key) shared.set(key, value);
    text += template.slice(at, marker.index);
    const inserted = applyFilter(value.text, filter);
    planted.push({
      kind: kind!,
      text: inserted,
      secrets: value.secrets,
      start: text.length,
      end: text.length + inserted.length,
    });
    text += inserted;
    at = marker.index + all.length;
  }
  text += template.slice(at);
  const base = name.replace(/\.tmpl$/, '');
  const path = base.includes('.') ? base : `.${base}`;
  return { name, path, text, planted };
}

export function loadPlanted(rng: Rng): FilledTemplate[] {
  const dir = join(FIXTURES, 'planted');
  return readdirSync(dir)
    .filter((n) => n.endsWith('.tmpl'))
    .sort()
    .map((n) => fillTemplate(n, readFileSync(join(dir, n), 'utf8'), rng));
}

/** Clean files end in `.fixture` so that the linter and type checker leave their bytes alone. */
export function loadClean(): { name: string; text: string }[] {
  const dir = join(FIXTURES, 'clean');
  return readdirSync(dir)
    .sort()
    .filter((file) => file.endsWith('.fixture'))
    .map((file) => ({ name: file.replace(/\.fixture$/, ''), text: readFileSync(join(dir, file), 'utf8') }));
}

export interface Score {
  secrets: number;
  removed: number;
  recall: number;
  aroundChars: number;
  aroundKept: number;
  preservation: number;
  cleanFiles: number;
  cleanChanged: number;
  cleanChangedRate: number;
  missed: { file: string; kind: string }[];
  changedClean: string[];
  kinds: number;
}

export async function scoreCorpus(redactor: Redactor, rng: Rng): Promise<Score> {
  let secrets = 0;
  let removed = 0;
  let aroundChars = 0;
  let aroundKept = 0;
  const missed: Score['missed'] = [];
  const kinds = new Set<string>();
  for (const file of loadPlanted(rng)) {
    const result = await redactor.redact(file.text, { path: file.path });
    for (const span of file.planted) {
      kinds.add(span.kind);
      secrets++;
      if (span.secrets.every((s) => !result.text.includes(s))) removed++;
      else missed.push({ file: file.name, kind: span.kind });
    }
    // Preservation: characters outside every planted value that no finding covers.
    const inSecret = new Uint8Array(file.text.length);
    for (const span of file.planted) inSecret.fill(1, span.start, span.end);
    const masked = new Uint8Array(file.text.length);
    for (const finding of result.findings) masked.fill(1, finding.start, finding.end);
    for (let i = 0; i < file.text.length; i++) {
      if (inSecret[i]) continue;
      aroundChars++;
      if (!masked[i]) aroundKept++;
    }
  }
  const clean = loadClean();
  const changedClean: string[] = [];
  for (const file of clean) {
    const result = await redactor.redact(file.text, { path: file.name });
    if (result.text !== file.text) changedClean.push(file.name);
  }
  return {
    secrets,
    removed,
    recall: removed / secrets,
    aroundChars,
    aroundKept,
    preservation: aroundKept / aroundChars,
    cleanFiles: clean.length,
    cleanChanged: changedClean.length,
    cleanChangedRate: changedClean.length / clean.length,
    missed,
    changedClean,
    kinds: kinds.size,
  };
}
