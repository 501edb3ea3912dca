// docs/configuration.md against the code: every setting has one row whose flag,
// variable and default are the ones the code has; every environment variable
// the sources read is named on the page; every config example on the page is
// accepted by the settings schema. (Who may set what: test/config/settingOwners.test.ts.)

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { OPTION_SPECS } from '../../src/config/optionSpecs.ts';
import { settingsSchema } from '../../src/config/options.ts';
import { codeSpans, fencedBlocks, ROOT, readDoc, tableRows } from './markdown.ts';

const PAGE = 'docs/configuration.md';
const MB = 1024 * 1024;

/** How the page writes a default the schema holds. */
function written(value: unknown): string | undefined {
  if (value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'true' : 'off';
  if (typeof value === 'number') return value >= MB && value % MB === 0 ? `${value / MB} MB` : String(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length === 0) return 'none';
  return undefined;
}

function schemaDefault(key: string): unknown {
  const field = settingsSchema.shape[key as keyof typeof settingsSchema.shape];
  const parsed = field.safeParse(undefined);
  return parsed.success ? parsed.data : Symbol.for('required');
}

/** Every .ts file under src/. */
function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe('docs/configuration.md', () => {
  const page = readDoc(PAGE);
  const rows = tableRows(page, '| setting | flag', PAGE);

  it('has one row per setting, with the flag and the variable the code has', () => {
    const keys = Object.keys(settingsSchema.shape).sort();
    assert.deepEqual(rows.map((row) => row[0]).sort(), keys, 'the first column is every setting key, once');
    for (const [key = '', flag = '', env = ''] of rows) {
      const spec = OPTION_SPECS.find((s) => s.key === key);
      const flags = codeSpans(flag).map((span) => span.split(' ')[0]);
      assert.deepEqual(flags, spec ? [`--${spec.flag}`] : [], `${key}: the flag`);
      const envs = codeSpans(env).filter((span) => span.startsWith('CTXPROXY_'));
      assert.deepEqual(envs, spec?.env ? [spec.env] : [], `${key}: the variable`);
    }
  });

  it("gives each setting's default as the schema has it", () => {
    for (const [key = '', , , cell = ''] of rows) {
      const value = schemaDefault(key);
      if (typeof value === 'symbol') continue; // workspace and db: derived at start-up, described in words
      const expected = written(value);
      if (expected === undefined) continue; // a record (models): its example is checked below
      assert.ok(cell.includes(expected), `${key}: the default column "${cell}" says ${expected}`);
    }
  });

  it('names every environment variable the sources read', () => {
    const read = new Set<string>();
    for (const file of sourceFiles()) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\b(CTXPROXY_[A-Z_]+|OLLAMA_HOST|XDG_CONFIG_HOME)\b/g)) {
        read.add(m[1] ?? '');
      }
    }
    assert.ok(read.size > 10, `variables were found (${read.size})`);
    const missing = [...read].filter((name) => !page.includes(`\`${name}\``)).sort();
    assert.deepEqual(missing, [], `${PAGE} names these variables`);
  });

  it('shows config files the schema accepts', () => {
    const examples = fencedBlocks(page).filter((block) => block.lang === 'json');
    assert.ok(examples.length > 0, 'the page shows a config file');
    for (const { body } of examples) {
      const parsed = settingsSchema.partial().safeParse(JSON.parse(body));
      assert.ok(parsed.success, `${body}\n${parsed.error?.message}`);
    }
  });
});
