// The audit's promise, checked for every snapshot a suite created: the stored
// forwarded messages are what the fake upstream received, byte for byte (role
// and text of every message), and the context account (budget.parts) covers
// every fence in them, source by source, chars and tokens, with nothing left
// over. The JSON API, the CLI rendering and the detail page say the same.
// Call it at the end of any integration suite that talks to the fake Ollama.

import assert from 'node:assert/strict';
import { formatSnapshot } from '../../src/cli/auditFormat.ts';
import type { ChatMessage, ContextPart, Snapshot } from '../../src/shared/types.ts';
import type { FakeOllama } from './fakeOllama.ts';
import type { RunningProxy } from './proxy.ts';

const FENCE = /<(context|context-update) source="([^"]*)"[^>]*>\n[\s\S]*?\n<\/\1>/g;

interface Fence {
  tag: string;
  key: string;
  text: string;
}

export interface AuditCheck {
  snapshots: number;
  parts: number;
  carried: number;
}

export async function assertAuditMatchesUpstream(proxy: RunningProxy, fake: FakeOllama): Promise<AuditCheck> {
  await proxy.store.flush();
  const snapshots = [...proxy.store.export()];
  const count = (text: string) => proxy.deps.tokenCounter.count(text);
  // Concurrent requests reach the upstream in any order: a snapshot claims the first unclaimed match.
  const claimed = new Set<number>();
  const result: AuditCheck = { snapshots: 0, parts: 0, carried: 0 };
  for (const snapshot of snapshots) {
    if (snapshot.forwarded.length === 0) continue;
    const expected = JSON.stringify(snapshot.forwarded.map(wire));
    const at = fake.chats.findIndex(
      (chat, index) =>
        !claimed.has(index) && JSON.stringify((chat.body.messages as ChatMessage[]).map(wire)) === expected,
    );
    if (at < 0) {
      // Only a request the upstream never answered may be missing there.
      assert.notEqual(
        snapshot.outcome,
        'ok',
        `snapshot ${snapshot.id}: the upstream received no such messages (${snapshot.forwarded.length} messages, user agent ${snapshot.userAgent}, model ${snapshot.model}) ${JSON.stringify(snapshot.forwarded).slice(0, 300)}`,
      );
      continue;
    }
    claimed.add(at);
    checkAccount(snapshot, count);
    await checkViews(proxy, snapshot);
    result.snapshots += 1;
    const parts = snapshot.budget?.parts ?? [];
    result.parts += parts.length;
    result.carried += parts.filter((part) => part.carried).length;
  }
  return result;
}

/** What a message looks like on Ollama's wire: role (exactly as recorded) and one text. */
function wire(message: ChatMessage): [string, string] {
  const role = message.role;
  if (typeof message.content === 'string') return [role, message.content];
  const texts = (message.content ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : []));
  return [role, texts.join('\n')];
}

function checkAccount(snapshot: Snapshot, count: (text: string) => number): void {
  const parts = snapshot.budget?.parts ?? [];
  const where = `snapshot ${snapshot.id} (mode ${snapshot.modeUsed})`;
  snapshot.forwarded.forEach((message, index) => {
    const [, text] = wire(message);
    const fences: Fence[] = [...text.matchAll(FENCE)].map((m) => ({
      tag: m[1] as string,
      key: m[2] as string,
      text: m[0],
    }));
    const here = parts.filter((part) => part.message === index);
    const accounted = here.flatMap((part) => part.sources.flatMap((source) => source.keys));
    assert.deepEqual(
      [...fences.map((f) => f.key)].sort(),
      [...accounted].sort(),
      `${where}, message ${index + 1}: every fence is accounted for, and nothing else`,
    );
    for (const part of here) checkPart(part, text, fences, count, `${where}, message ${index + 1}`);
  });
  const total = parts.reduce((sum, part) => sum + part.tokens, 0);
  assert.equal(snapshot.budget?.contextTokens ?? 0, total, `${where}: context tokens are the parts' sum`);
  if (snapshot.modeUsed === 'off') assert.deepEqual(parts, [], `${where}: mode off carries no context`);
}

function checkPart(part: ContextPart, text: string, fences: Fence[], count: (t: string) => number, where: string) {
  const tag = part.kind === 'block' ? 'context' : 'context-update';
  if (part.kind === 'block') assert.equal(text.length, part.chars, `${where}: the block is the whole message`);
  else assert.ok(text.length > part.chars, `${where}: the update follows the user's words`);
  const body = part.kind === 'block' ? text : text.slice(text.length - part.chars);
  assert.equal(count(body), part.tokens, `${where}: the part's tokens`);
  for (const source of part.sources) {
    const own = fences.filter((f) => f.tag === tag && source.keys.includes(f.key) && body.includes(f.text));
    assert.equal(own.length, source.keys.length, `${where}: ${source.source}'s fences are in the ${part.kind}`);
    const chars = own.reduce((sum, f) => sum + f.text.length, 0);
    const tokens = own.reduce((sum, f) => sum + count(f.text), 0);
    assert.equal(chars, source.chars, `${where}: ${source.source} chars`);
    assert.equal(tokens, source.tokens, `${where}: ${source.source} tokens`);
  }
}

/** The JSON API returns the stored snapshot; the CLI and the detail page name every part. */
async function checkViews(proxy: RunningProxy, snapshot: Snapshot): Promise<void> {
  const response = await fetch(`${proxy.url}/api/audit/snapshots/${encodeURIComponent(snapshot.id)}`);
  const api = (await response.json()) as Snapshot;
  assert.deepEqual(api.forwarded, snapshot.forwarded, `snapshot ${snapshot.id}: the JSON API's messages`);
  assert.deepEqual(api.budget?.parts, snapshot.budget?.parts, `snapshot ${snapshot.id}: the JSON API's parts`);
  const parts = snapshot.budget?.parts ?? [];
  const cli = formatSnapshot(snapshot);
  const page = await (await fetch(`${proxy.url}/audit/${encodeURIComponent(snapshot.id)}`)).text();
  for (const part of parts) {
    assert.match(cli, new RegExp(`message ${part.message + 1}\\s+${part.kind}\\s+`), 'the CLI lists the part');
    const rows = page.match(new RegExp(`data-part="${part.kind}" data-carried="${part.carried ? 'yes' : 'no'}"`, 'g'));
    assert.ok(rows && rows.length > 0, `snapshot ${snapshot.id}: the detail page lists the ${part.kind}`);
  }
  if (parts.length === 0) {
    assert.match(cli, /no context in the forwarded messages/);
    assert.match(page, /No context in the forwarded messages\./);
  }
}
