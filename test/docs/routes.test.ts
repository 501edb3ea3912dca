// docs/api.md against the server: the route table names every route the app
// really has, and nothing it lacks; every X-Ctx-* header the sources use is in
// the headers table; the request-field and stored-header tables are the ones
// src/pipeline/fieldPolicy.ts decides by.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../src/http/app.ts';
import { auditRoutes } from '../../src/http/auditRoutes.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';
import { fieldTable, storedHeaderTable } from './fieldTables.ts';
import { codeSpans, ROOT, readDoc, tableRows } from './markdown.ts';

const PAGE = 'docs/api.md';

/** `GET /v1/models/{id}` and Hono's `:id{.+}` → `GET /v1/models/:id`; a trailing slash is the same route. */
function normalize(route: string): string {
  return route
    .replace(/(:\w+)\{[^}]*\}/g, '$1')
    .replace(/\{(\w+)\}/g, ':$1')
    .replace(/(.)\/$/, '$1');
}

/** The routes a table cell names: `GET /a`, `/b` (the method carries over), `POST /c`. */
function routesOf(cell: string): string[] {
  let method = '';
  return codeSpans(cell).map((span) => {
    const [first = '', second] = span.split(' ');
    if (second !== undefined) method = first;
    return normalize(`${method} ${second ?? first}`);
  });
}

function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe('docs/api.md', () => {
  const page = readDoc(PAGE);
  let fake: FakeOllama;
  let proxy: RunningProxy;

  before(async () => {
    fake = await startFakeOllama();
    proxy = await startProxy({ upstreamUrl: fake.url });
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  it('lists every route the server has, and only those', () => {
    // The app as `serve` builds it: the API, the home page, /healthz and the audit browser.
    const app = createApp({
      pipeline: proxy.deps,
      maxBodyBytes: 1024 * 1024,
      logger: silentLogger,
      audit: auditRoutes({
        store: proxy.store,
        conversation: (id) => proxy.store.conversation(id),
        authToken: 't0ken-for-docs',
      }),
    });
    const served = new Set(
      app.routes.filter((route) => route.method !== 'ALL').map((route) => normalize(`${route.method} ${route.path}`)),
    );
    const documented = new Set(tableRows(page, '| route | does', PAGE).flatMap((row) => routesOf(row[0] ?? '')));
    assert.ok(served.size > 10, `routes were found (${served.size})`);
    assert.deepEqual([...served].filter((r) => !documented.has(r)).sort(), [], `${PAGE} lists these routes`);
    assert.deepEqual(
      [...documented].filter((r) => !served.has(r)).sort(),
      [],
      `the server has these routes of ${PAGE}`,
    );
  });

  it('names every X-Ctx header the sources use', () => {
    const used = new Set<string>();
    for (const file of sourceFiles()) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\b(x-ctx-[a-z-]+[a-z])\b/gi))
        used.add(m[1]?.toLowerCase() ?? '');
    }
    const documented = new Set(
      tableRows(page, '| header | direction', PAGE)
        .flatMap((row) => codeSpans(row[0] ?? ''))
        .map((h) => h.toLowerCase()),
    );
    assert.ok(used.size >= 4, `headers were found (${[...used]})`);
    assert.deepEqual([...used].filter((h) => !documented.has(h)).sort(), []);
  });

  it('shows the request-field and stored-header tables that fieldPolicy.ts decides by', () => {
    assert.ok(page.includes(fieldTable()), `${PAGE} must hold this table:\n${fieldTable()}`);
    assert.ok(page.includes(storedHeaderTable()), `${PAGE} must hold this table:\n${storedHeaderTable()}`);
  });
});
