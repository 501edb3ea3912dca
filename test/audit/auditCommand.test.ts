import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openAuditStore } from '../../src/audit/store.ts';
import type { AuditStoreFull } from '../../src/audit/types.ts';
import { parseDuration, parseSince, runAuditCommand } from '../../src/cli/auditCommand.ts';
import type { Snapshot } from '../../src/shared/types.ts';
import { contextBlock, makeSnapshot, type TempDir, tempDir } from './fixtures.ts';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const DAY = 86_400_000;

describe('ctxproxy audit', () => {
  let temp: TempDir;
  let store: AuditStoreFull;
  let first: Snapshot;
  let second: Snapshot;

  async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runAuditCommand(args, {
      store,
      out: (text) => {
        out += text;
      },
      err: (text) => {
        err += text;
      },
      now: () => NOW,
    });
    return { code, out, err };
  }

  beforeEach(async () => {
    temp = tempDir();
    store = openAuditStore({ path: temp.path(), now: () => NOW });
    first = makeSnapshot({
      id: 's_old',
      createdAt: NOW - 40 * DAY,
      modeAsked: 'auto',
      modeUsed: 'quick',
      forwarded: [{ role: 'user', content: 'Why does the parser reject tabs?' }],
      reply: { content: 'Because of the tokenizer.' },
      usage: { promptTokens: 900, completionTokens: 12 },
    });
    second = makeSnapshot({
      id: 's_new',
      createdAt: NOW - 2 * 3_600_000,
      modeAsked: 'debug',
      modeUsed: 'debug',
      contextBlock: contextBlock(600, 'cli'),
      outcome: 'error',
      error: { status: 502, type: 'upstream_error', code: 'upstream_unavailable', message: 'Ollama is not running' },
      reply: { content: 'partial \u001b[31mred\u001b[0m answer', reasoning: 'thinking it over' },
    });
    second.forwarded = [
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: second.contextBlock ?? '' },
      { role: 'user', content: 'TypeError: x is undefined\n    at main (src/app.ts:3:1)' },
    ];
    store.save(first);
    store.save(second);
    await store.flush();
  });
  afterEach(async () => {
    await store.close();
    temp.cleanup();
  });

  it('list prints a table, newest first', async () => {
    const { code, out, err } = await run('list');
    assert.equal(code, 0);
    assert.equal(err, '');
    const lines = out.trimEnd().split('\n');
    assert.match(
      lines[0] ?? '',
      /^ID\s+TIME \(UTC\)\s+MODEL\s+WORKSPACE\s+MODE\s+TOKENS IN\/OUT\s+MS\s+OUTCOME\s+QUESTION$/,
    );
    assert.match(
      lines[1] ?? '',
      /^s_new\s+2026-11-29 10:00:00Z\s+qwen2\.5-coder:7b\s+\S+\s+debug\s+1100\/42\s+813\s+error\s+TypeError: x is undefined at main/,
    );
    assert.match(
      lines[2] ?? '',
      /^s_old\s+2026-10-20 12:00:00Z .* auto→quick\s+900\/12 .* ok\s+Why does the parser reject tabs\?$/,
    );
    assert.equal(lines.length, 3);
  });

  it('list --json --limit 1 gives the summaries', async () => {
    const { code, out } = await run('list', '--json', '--limit', '1');
    assert.equal(code, 0);
    assert.deepEqual(
      JSON.parse(out).map((s: { id: string }) => s.id),
      ['s_new'],
    );
  });

  it('show prints the facts, the sources, each message, the block, the reply and timings, safely', async () => {
    const { code, out } = await run('show', 's_new');
    assert.equal(code, 0);
    for (const expected of [
      'snapshot s_new',
      'outcome      error: 502 upstream_error/upstream_unavailable: Ollama is not running',
      'SOURCE  STATUS',
      'files   timeout',
      'skipped .env (never-read)',
      'aws-access-key-id ×1',
      '── message 1/3 · system ──\nBe brief.',
      '── message 2/3 · system ──\n[context block, ',
      '── message 3/3 · user ──\nTypeError: x is undefined',
      '── context block (',
      '── reply ──\n[reasoning]\nthinking it over\n[answer]\npartial \uFFFD[31mred\uFFFD[0m answer',
      'total 813 ms · collect 30 ms · first token 200 ms · upstream 780 ms',
    ]) {
      assert.ok(out.includes(expected), `missing: ${expected}\n---\n${out}`);
    }
    assert.ok(!out.includes('\u001b'), 'escape sequences from the reply are not printed raw');
    assert.equal(out.split('M src/module1.ts // cli').length, 2, 'the context block is printed once');
  });

  it('show --json prints the snapshot as saved', async () => {
    const { code, out } = await run('show', 's_old', '--json');
    assert.equal(code, 0);
    assert.deepStrictEqual(JSON.parse(out), first);
  });

  it('show of an unknown id exits 1 and says so', async () => {
    const { code, out, err } = await run('show', 'nope');
    assert.equal(code, 1);
    assert.equal(out, '');
    assert.match(err, /no snapshot with id 'nope'/);
  });

  it('search finds by question and reply, including operator-like text', async () => {
    const byReply = await run('search', 'tokenizer');
    assert.equal(byReply.code, 0);
    assert.match(byReply.out, /^s_old/m);
    assert.doesNotMatch(byReply.out, /^s_new/m);
    const hostile = await run('search', '"undefined', 'main(', 'src/app.ts:3:1');
    assert.equal(hostile.code, 0);
    assert.match(hostile.out, /^s_new/m);
    const none = await run('search', 'zebra');
    assert.equal(none.out, "no snapshot matches 'zebra'\n");
    const json = await run('search', 'parser', '--json');
    assert.deepEqual(
      JSON.parse(json.out).map((s: { id: string }) => s.id),
      ['s_old'],
    );
  });

  it('export writes one JSON line per snapshot, oldest first, with --since as a duration or a date', async () => {
    const all = await run('export');
    assert.equal(all.code, 0);
    const lines = all.out.trimEnd().split('\n');
    assert.deepStrictEqual(
      lines.map((line) => JSON.parse(line)),
      [first, second],
    );
    const recent = await run('export', '--since', '7d', '--format', 'jsonl');
    assert.deepEqual(
      recent.out
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).id),
      ['s_new'],
    );
    const byDate = await run('export', '--since=2026-11-01');
    assert.equal(byDate.out.trimEnd().split('\n').length, 1);
  });

  it('prune deletes what is older than the cutoff and reports sizes', async () => {
    const { code, out } = await run('prune', '--older-than', '30d', '--yes');
    assert.equal(code, 0);
    assert.match(out, /^deleted 1 snapshot; .*audit\.db: \d+\.\d\d MB → \d+\.\d\d MB\n$/);
    assert.equal(store.get('s_old'), undefined);
    assert.ok(store.get('s_new'));
  });

  it('prune without --yes outside a terminal says how many would go, deletes nothing and says to add --yes', async () => {
    const { code, err } = await run('prune', '--older-than', '0d');
    assert.equal(code, 2);
    assert.match(err, /^audit prune: 2 snapshots to delete \(older than 0d\) of 2 in .*audit\.db\n/);
    assert.match(
      err,
      /audit prune: this deletes 2 snapshots \(older than 0d\) from .*audit\.db; add --yes to confirm\n$/,
    );
    assert.equal(store.stats().snapshots, 2);
  });

  it('prune says how many snapshots it will delete before it deletes them', async () => {
    const { code, out, err } = await run('prune', '--older-than', '30d', '--yes');
    assert.equal(code, 0);
    assert.match(err, /^audit prune: 1 snapshot to delete \(older than 30d\) of 2 in .*audit\.db\n$/);
    assert.match(out, /^deleted 1 snapshot;/);
    const none = await run('prune', '--older-than', '1y', '--yes');
    assert.equal(none.code, 0);
    assert.match(none.err, /0 snapshots to delete \(older than 1y\) of 1/);
    assert.equal(none.out, 'nothing to delete\n');
  });

  it('takes age units that cannot be confused, and refuses `m` naming the choices', async () => {
    assert.equal(parseDuration('4w'), 28 * DAY);
    assert.equal(parseDuration('6mo'), 180 * DAY);
    assert.equal(parseDuration('1y'), 365 * DAY);
    assert.equal(parseDuration('90min'), 90 * 60_000);
    assert.equal(parseDuration('6m'), undefined);
    for (const args of [
      ['prune', '--older-than', '6m', '--yes'],
      ['export', '--since', '6m'],
    ]) {
      const { code, err } = await run(...args);
      assert.equal(code, 2, args.join(' '));
      assert.match(
        err,
        /'6m' is ambiguous \('m' could be minutes or months\).*s, min, h, d, w, mo, y.*min for minutes, mo for months/,
      );
    }
    const months = await run('prune', '--older-than', '2mo', '--yes');
    assert.equal(months.out, 'nothing to delete\n', 'the oldest is 40 days old, younger than 2 months');
    const month = await run('prune', '--older-than', '1mo', '--yes');
    assert.match(month.out, /^deleted 1 snapshot;/, 'the 40-day-old snapshot is older than a month');
  });

  it('prune in a terminal asks first, and deletes only on yes', async () => {
    const questions: string[] = [];
    const prune = async (answer: boolean) => {
      let err = '';
      const code = await runAuditCommand(['prune', '--older-than', '30d'], {
        store,
        out: () => {},
        err: (text) => {
          err += text;
        },
        now: () => NOW,
        confirm: async (question) => {
          questions.push(question);
          return answer;
        },
      });
      return { code, err };
    };
    const declined = await prune(false);
    assert.equal(declined.code, 1);
    assert.match(declined.err, /nothing deleted/);
    assert.equal(store.stats().snapshots, 2);
    const accepted = await prune(true);
    assert.equal(accepted.code, 0);
    assert.equal(store.get('s_old'), undefined);
    assert.match(questions[0] ?? '', /^Delete 1 snapshot \(older than 30d\) from .*audit\.db\? \[y\/N\] $/);
  });

  it('exits 2 with a message naming the option on bad usage', async () => {
    const cases: [string[], RegExp][] = [
      [[], /missing command/],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['toString'], /unknown command 'toString'/],
      [['list', '--limit', 'ten'], /--limit: expected a whole number from 1 to 1000, got 'ten'/],
      [['list', '--limit', '0'], /--limit/],
      [['list', '--colour'], /audit list: .*--colour/],
      [['show'], /missing ID/],
      [['search'], /missing TEXT/],
      [['export', '--format', 'csv'], /--format: only 'jsonl'/],
      [['export', '--since', 'yesterday'], /--since: expected an ISO date .* got 'yesterday'/],
      [['prune'], /--older-than/],
      [['prune', '--older-than', '30 days'], /--older-than: expected a duration/],
      [['prune', '--max-db-mb=-5'], /--max-db-mb: expected a positive number/],
    ];
    for (const [args, message] of cases) {
      const { code, out, err } = await run(...args);
      assert.equal(code, 2, args.join(' '));
      assert.equal(out, '', args.join(' '));
      assert.match(err, message, args.join(' '));
    }
    assert.equal(store.stats().snapshots, 2, 'a bad prune deleted nothing');
  });

  it('parses durations and --since values', () => {
    assert.equal(parseDuration('30d'), 30 * DAY);
    assert.equal(parseDuration('12h'), 12 * 3_600_000);
    assert.equal(parseDuration('1.5h'), 5_400_000);
    assert.equal(parseDuration('90'), undefined);
    assert.equal(parseSince('7d', NOW), NOW - 7 * DAY);
    assert.equal(parseSince('2026-11-01T00:00:00Z', NOW), Date.parse('2026-11-01T00:00:00Z'));
    assert.equal(parseSince('Nov 1', NOW), undefined);
  });
});
