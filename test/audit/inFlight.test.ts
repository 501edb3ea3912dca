// The store's side of "nothing that reached the model goes unrecorded" and
// "the audit store never fails a chat", on this runtime's driver (better-sqlite3
// under Node, node:sqlite under Deno): in-flight records on disk at once,
// rows of dead writers marked interrupted at open, a full database held in the
// queue and written once it can grow again.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { chooseSqlDriver } from '../../src/audit/defaultDriver.ts';
import type { SqlDriver, SqlDriverFactory } from '../../src/audit/driver.ts';
import { openAuditStore } from '../../src/audit/store.ts';
import type { Logger } from '../../src/shared/ports.ts';
import { makeSnapshot, type TempDir, tempDir } from './fixtures.ts';
import { openRaw, queryRaw } from './rawDatabase.ts';

function recordingLogger(): Logger & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    info: (event) => events.push(event),
    warn: (event) => events.push(event),
    error: (event) => events.push(event),
  };
}

/** Above Linux's largest pid_max (2^22): no process has it. */
const DEAD_PID = 4_194_304 + 17;

/** As if the process that wrote these rows had been killed: their writer's pid is one no process has. */
function writtenByDeadProcess(path: string, sql: string): void {
  const raw = openRaw(path);
  raw.prepare(sql).run(DEAD_PID);
  raw.close();
}

const countRows = (path: string, table: string) => Number(queryRaw(path, `SELECT count(*) AS n FROM ${table}`)[0]?.n);

/** The record's outcome on disk, from `snapshots` or, while in flight, `in_flight`. */
const outcomeOf = (path: string, id: string) =>
  queryRaw(
    path,
    'SELECT outcome FROM snapshots WHERE id = ? UNION ALL SELECT outcome FROM in_flight WHERE id = ?',
    id,
    id,
  )[0]?.outcome;

describe('in-flight records and a database that cannot take writes', () => {
  let temp: TempDir;
  beforeEach(() => {
    temp = tempDir();
  });
  afterEach(() => temp.cleanup());

  it('writes an in-flight record before answering, and the final save replaces it', async () => {
    const store = openAuditStore({ path: temp.path() });
    const snapshot = makeSnapshot({ id: 'req-1', outcome: 'in_flight' });
    assert.deepEqual(await store.saveInFlight(snapshot), { written: true });
    assert.equal(outcomeOf(temp.path(), 'req-1'), 'in_flight', 'on disk, no flush needed');
    store.save({ ...snapshot, outcome: 'ok' });
    await store.flush();
    assert.equal(outcomeOf(temp.path(), 'req-1'), 'ok');
    assert.equal(countRows(temp.path(), 'snapshots'), 1);
    assert.equal(countRows(temp.path(), 'in_flight'), 0, 'the final version took its in-flight row away');
    await store.close();
  });

  it('the final version reads back what was sent, also when another record shares its messages with another block', async () => {
    const store = openAuditStore({ path: temp.path() });
    const sent = makeSnapshot({ id: 'req-1', outcome: 'in_flight' });
    await store.saveInFlight(sent);
    // The final version keeps the in-flight row's messages (the same array); the next record is given
    // the same array with another block: its messages must not be stored as references to the first's.
    store.save({ ...sent, outcome: 'ok' });
    const other = { ...sent, id: 'req-2', contextBlock: `${sent.contextBlock ?? ''} and more` };
    await store.saveInFlight(other);
    store.save({ ...other, outcome: 'ok' });
    await store.close();
    const reopened = openAuditStore({ path: temp.path() });
    assert.deepEqual(reopened.get('req-1'), { ...sent, outcome: 'ok' });
    assert.deepEqual(reopened.get('req-2'), { ...other, outcome: 'ok' });
    await reopened.close();
  });

  it('moves the in-flight records of a process that is gone to the log as interrupted at open, byte for byte, and leaves a live one alone', async () => {
    const writer = openAuditStore({ path: temp.path() });
    const dead = makeSnapshot({ id: 'dead', outcome: 'in_flight' });
    await writer.saveInFlight(makeSnapshot({ id: 'mine', outcome: 'in_flight' }));
    await writer.saveInFlight(dead);
    await writer.close();
    writtenByDeadProcess(temp.path(), "UPDATE in_flight SET writer_pid = ? WHERE id = 'dead'");

    const logger = recordingLogger();
    const next = openAuditStore({ path: temp.path(), logger });
    assert.deepStrictEqual(next.get('dead'), { ...dead, outcome: 'interrupted' }, 'its messages and block as sent');
    assert.equal(next.get('mine')?.outcome, 'in_flight', 'this process is alive');
    assert.deepEqual(
      next.list({ outcome: 'interrupted' }).map((summary) => summary.id),
      ['dead'],
    );
    assert.deepEqual(
      next.list({}).map((summary) => summary.id),
      ['mine', 'dead'],
      'a request in flight is listed with the rest, newest first',
    );
    assert.equal(countRows(temp.path(), 'in_flight'), 1, 'only the live one is left in flight');
    assert.ok(logger.events.includes('audit.interrupted'));
    next.settleInFlight('aborted');
    assert.equal(outcomeOf(temp.path(), 'mine'), 'aborted', 'a shutdown settles its own rows');
    assert.equal(countRows(temp.path(), 'in_flight'), 0);
    await next.close();
  });

  it('marks a row left in flight in `snapshots` by a version before the in-flight table', async () => {
    const writer = openAuditStore({ path: temp.path() });
    const old = makeSnapshot({ id: 'old' });
    writer.save(old);
    await writer.close();
    writtenByDeadProcess(temp.path(), "UPDATE snapshots SET outcome = 'in_flight', writer_pid = ? WHERE id = 'old'");
    const next = openAuditStore({ path: temp.path() });
    assert.deepStrictEqual(next.get('old'), { ...old, outcome: 'interrupted' });
    await next.close();
  });

  it('an in-flight record is one row with its messages and block, nothing else written; the final version chains them', async () => {
    const store = openAuditStore({ path: temp.path() });
    const short = makeSnapshot({
      id: 'short',
      outcome: 'in_flight',
      contextBlock: undefined,
      forwarded: [{ role: 'user', content: 'question number 1' }],
    });
    const long = makeSnapshot({
      id: 'long',
      outcome: 'in_flight',
      forwarded: [
        { role: 'user', content: `first ${'x'.repeat(3000)}` },
        { role: 'assistant', content: 'answer' },
        { role: 'user', content: 'second' },
      ],
    });
    await Promise.all([store.saveInFlight(short), store.saveInFlight(long)]);
    assert.equal(countRows(temp.path(), 'in_flight'), 2);
    for (const table of ['snapshots', 'message_nodes', 'blobs']) {
      assert.equal(countRows(temp.path(), table), 0, `nothing in ${table} before the prompts leave`);
    }
    assert.deepStrictEqual(store.get('short'), short);
    assert.deepStrictEqual(store.get('long'), long);

    const final = { ...short, outcome: 'ok' as const, reply: { content: 'hi', finishReason: 'stop' as const } };
    store.save(final);
    await store.flush();
    const head = queryRaw(temp.path(), 'SELECT messages_head FROM snapshots WHERE id = ?', 'short')[0];
    assert.equal(typeof head?.messages_head, 'string', 'the final version chains its messages');
    assert.equal(countRows(temp.path(), 'message_nodes'), 1);
    assert.equal(countRows(temp.path(), 'in_flight'), 1, 'the long one is still in flight');
    assert.deepStrictEqual(store.get('short'), final);
    await store.close();

    // Cut off in flight: the row of a writer that is gone reads back with its messages and its block.
    const writer = openAuditStore({ path: temp.path() });
    const cut = makeSnapshot({ id: 'cut', outcome: 'in_flight', forwarded: [{ role: 'user', content: 'cut off' }] });
    await writer.saveInFlight(cut);
    await writer.close();
    writtenByDeadProcess(temp.path(), 'UPDATE in_flight SET writer_pid = ?');
    const next = openAuditStore({ path: temp.path() });
    assert.deepStrictEqual(next.get('cut'), { ...cut, outcome: 'interrupted' });
    assert.deepStrictEqual(next.get('long'), { ...long, outcome: 'interrupted' });
    assert.equal(countRows(temp.path(), 'in_flight'), 0);
    await next.close();
  });

  it('a block the log holds already is not written again in flight; prune keeps it, and a crash still reads back as sent', async () => {
    const writer = openAuditStore({ path: temp.path() });
    const earlier = makeSnapshot({ id: 'earlier', createdAt: 1 });
    writer.save(earlier);
    await writer.flush();
    const again = makeSnapshot({ id: 'again', outcome: 'in_flight', contextBlock: earlier.contextBlock });
    const fresh = makeSnapshot({ id: 'fresh', outcome: 'in_flight', contextBlock: `${earlier.contextBlock} and more` });
    await writer.saveInFlight(again);
    await writer.saveInFlight(fresh);
    const carried = (id: string) => queryRaw(temp.path(), 'SELECT context_block FROM in_flight WHERE id = ?', id)[0];
    assert.equal(carried('again')?.context_block, null, 'in `blobs` already');
    assert.equal(carried('fresh')?.context_block, fresh.contextBlock);
    assert.deepStrictEqual(writer.get('again'), again);
    writer.prune({ olderThanMs: 0 });
    assert.equal(writer.get('earlier'), undefined, 'pruned');
    assert.deepStrictEqual(writer.get('again'), again, 'its block kept for the request in flight');
    await writer.close();
    writtenByDeadProcess(temp.path(), 'UPDATE in_flight SET writer_pid = ?');
    const next = openAuditStore({ path: temp.path() });
    assert.deepStrictEqual(next.get('again'), { ...again, outcome: 'interrupted' });
    assert.deepStrictEqual(next.get('fresh'), { ...fresh, outcome: 'interrupted' });
    await next.close();
  });

  it('holds writes while the database is full, says why, and writes them when it can grow', async () => {
    // SQLite's max_page_count makes the file unable to grow: the SQLITE_FULL a full disk gives.
    const base = chooseSqlDriver();
    let connection: SqlDriver | undefined;
    const driver: SqlDriverFactory = {
      name: base.name,
      errorKind: base.errorKind,
      open(path, options) {
        connection = base.open(path, options);
        return connection;
      },
    };
    const logger = recordingLogger();
    const store = openAuditStore({ path: temp.path(), driver, logger });
    connection?.pragma('max_page_count', Number(connection.pragma('page_count')));

    const big = 'a long question that needs new pages '.repeat(300);
    const first = makeSnapshot({ id: 'full-1', forwarded: [{ role: 'user', content: big }] });
    assert.deepEqual(await store.saveInFlight(first), { written: false, reason: 'disk full' });
    const second = makeSnapshot({ id: 'full-2', forwarded: [{ role: 'user', content: `${big}2` }] });
    assert.deepEqual(await store.saveInFlight(second), { written: false, reason: 'disk full' }, 'from the state');
    assert.deepEqual(store.health(), { writable: false, queued: 2, dropped: 0, reason: 'disk full' });
    assert.equal(logger.events.filter((event) => event === 'audit.degraded').length, 1, 'logged once');
    assert.equal(store.get('full-2')?.id, 'full-2', 'queued snapshots stay readable');

    connection?.pragma('max_page_count', 1_073_741_823);
    await store.flush({ waitMs: 5000 });
    assert.deepEqual(store.health(), { writable: true, queued: 0, dropped: 0 });
    assert.ok(logger.events.includes('audit.recovered'));
    await store.close();
    assert.equal(outcomeOf(temp.path(), 'full-1'), first.outcome);
    assert.equal(outcomeOf(temp.path(), 'full-2'), second.outcome);
  });

  it('writes in-flight records larger than one transaction in slices, and a waiter in a later slice still hears "written"', async () => {
    const store = openAuditStore({ path: temp.path() });
    const large = (id: string) =>
      makeSnapshot({
        id,
        outcome: 'in_flight',
        forwarded: [{ role: 'user', content: `${id} ${'x'.repeat(900_000)}` }],
      });
    const results = await Promise.all(['b1', 'b2', 'b3'].map((id) => store.saveInFlight(large(id))));
    assert.deepEqual(results, [{ written: true }, { written: true }, { written: true }]);
    for (const id of ['b1', 'b2', 'b3']) assert.equal(outcomeOf(temp.path(), id), 'in_flight', `${id} on disk`);
    assert.equal(store.health().queued, 0);
    await store.close();
  });

  it('an in-flight write does not also carry the finished snapshots queued before it; their timer writes them', async () => {
    // The finished one's timer waits a second, not the default 50 ms: on a loaded machine 50 ms can pass
    // before the in-flight write's turn, and the timer's write would come first (no longer "on the way").
    const store = openAuditStore({ path: temp.path(), writeDelayMs: 1000 });
    store.save(makeSnapshot({ id: 'finished' }));
    assert.deepEqual(await store.saveInFlight(makeSnapshot({ id: 'next', outcome: 'in_flight' })), { written: true });
    assert.equal(outcomeOf(temp.path(), 'next'), 'in_flight', 'the waited record is on disk');
    assert.equal(outcomeOf(temp.path(), 'finished'), undefined, 'the finished one was not written on the way');
    const deadline = Date.now() + 10_000;
    while (store.health().queued > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(outcomeOf(temp.path(), 'finished'), 'ok', 'written by its timer, without a flush or a read');
    await store.close();
  });

  it('search finds a request by its question once it ends or is marked, never twice, and not while in flight', async () => {
    const writer = openAuditStore({ path: temp.path() });
    const asking = (id: string) =>
      makeSnapshot({
        id,
        outcome: 'in_flight',
        forwarded: [{ role: 'user', content: `walrus ${id}` }],
        reply: { content: '' },
      });
    const ended = asking('ended');
    const cut = asking('cut');
    await writer.saveInFlight(ended);
    await writer.saveInFlight(cut);
    assert.deepEqual(writer.search('walrus'), [], 'in-flight rows are not indexed');
    writer.save({ ...ended, outcome: 'ok', reply: { content: 'an answer about walruses' } });
    assert.deepEqual(
      writer.search('walrus').map((summary) => summary.id),
      ['ended'],
    );
    await writer.close();
    writtenByDeadProcess(temp.path(), "UPDATE in_flight SET writer_pid = ? WHERE id = 'cut'");

    const next = openAuditStore({ path: temp.path() });
    assert.deepEqual(
      next
        .search('walrus')
        .map((summary) => summary.id)
        .sort(),
      ['cut', 'ended'],
      'marked interrupted',
    );
    assert.deepEqual(
      next.search('walruses').map((summary) => summary.id),
      ['ended'],
    );
    next.prune({ olderThanMs: 0 });
    assert.deepEqual(next.search('walrus'), [], 'pruned rows leave the index');
    await next.close();
  });

  it('a flush that meets a lock leaves the retry to the queue, which writes once the lock goes', async () => {
    const store = openAuditStore({ path: temp.path() });
    const holder = openRaw(temp.path());
    holder.exec('BEGIN IMMEDIATE');
    try {
      store.save(makeSnapshot({ id: 'after-lock' }));
      await store.flush();
      assert.deepEqual(store.health(), { writable: false, queued: 1, dropped: 0, reason: 'database locked' });
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const deadline = Date.now() + 5000;
    while (store.health().queued > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(outcomeOf(temp.path(), 'after-lock'), 'ok', 'written without another flush');
    await store.close();
  });
});
