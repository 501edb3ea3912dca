// Deterministic, realistic-looking inputs for the budget benchmark: a long
// coding conversation (prose, code blocks, logs, tool calls) and a full
// deep-mode context (instructions, git facts, files, tree, stats).

import type { ChatMessage, ContextItem } from '../../src/shared/types.ts';
import { seededRng } from '../../test/redact/secretGen.ts';

/** Seeded, so every run measures the same text. */
export const seeded = seededRng;

const WORDS =
  'the a to of and in is that it for on with as this be are by when we should can not request model token budget window context item file line error test function value return call user message stream upstream proxy cache key config mode plan entry source trim marker diff hunk tree depth reply server client workspace repository branch commit status change handler parser schema option default timeout retry audit snapshot store query result because before after while then only every each other which would could must also just still already maybe instead'.split(
    ' ',
  );
const IDENTIFIERS =
  'request response budget counter items plan entry window usable reserve tokens messages handler config options result error cache store snapshot stream chunk parser schema value index offset length buffer'.split(
    ' ',
  );

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

export function prose(random: () => number, sentences: number): string {
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    const length = 8 + Math.floor(random() * 18);
    const words = Array.from({ length }, () => pick(random, WORDS));
    const first = words[0] ?? 'the';
    words[0] = first.charAt(0).toUpperCase() + first.slice(1);
    out.push(`${words.join(' ')}${random() < 0.15 ? '?' : '.'}`);
  }
  return out.join(' ');
}

export function code(random: () => number, functions: number): string {
  const out: string[] = [];
  for (let f = 0; f < functions; f++) {
    const name = `${pick(random, IDENTIFIERS)}${pick(random, IDENTIFIERS).replace(/^./, (c) => c.toUpperCase())}`;
    out.push(`export function ${name}(${pick(random, IDENTIFIERS)}: number, options: Options = {}): Result {`);
    const body = 3 + Math.floor(random() * 10);
    for (let l = 0; l < body; l++) {
      const a = pick(random, IDENTIFIERS);
      const b = pick(random, IDENTIFIERS);
      out.push(
        random() < 0.3
          ? `  if (${a}.length > ${Math.floor(random() * 4096)}) return { ok: false, reason: '${pick(random, WORDS)} ${pick(random, WORDS)}' };`
          : `  const ${a}${l} = ${b}.map((x) => x * ${Math.floor(random() * 100)}) ?? options.${pick(random, IDENTIFIERS)};`,
      );
    }
    out.push('  return { ok: true };', '}', '');
  }
  return out.join('\n');
}

export function log(random: () => number, lines: number): string {
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    const time = `2026-11-29T13:${String(l % 60).padStart(2, '0')}:${String((l * 7) % 60).padStart(2, '0')}.${String(l % 1000).padStart(3, '0')}Z`;
    const level = random() < 0.05 ? 'ERROR' : random() < 0.2 ? 'WARN' : 'INFO';
    out.push(`${time} ${level} [${pick(random, IDENTIFIERS)}] ${prose(random, 1)}`);
    if (level === 'ERROR')
      out.push(`    at ${pick(random, IDENTIFIERS)} (src/${pick(random, IDENTIFIERS)}.ts:${l}:${l % 40})`);
  }
  return out.join('\n');
}

/** A coding conversation of at least `targetTokens` (as `count` measures whole messages). */
export function conversation(targetTokens: number, count: (messages: ChatMessage[]) => number): ChatMessage[] {
  const random = seeded(42);
  const messages: ChatMessage[] = [
    { role: 'system', content: `You are a careful coding assistant. ${prose(random, 6)}` },
  ];
  let turn = 0;
  while (count(messages) < targetTokens) {
    const question = `${prose(random, 3)}\n\n\`\`\`ts\n${code(random, 2)}\`\`\`\n\n${random() < 0.3 ? `\`\`\`\n${log(random, 30)}\n\`\`\`` : prose(random, 2)}`;
    messages.push({ role: 'user', content: question });
    if (turn % 4 === 3) {
      const id = `call_${turn}`;
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id, type: 'function', function: { name: 'read_file', arguments: `{"path":"src/f${turn}.ts"}` } },
        ],
      });
      messages.push({ role: 'tool', tool_call_id: id, content: code(random, 4) });
    }
    messages.push({
      role: 'assistant',
      content: `${prose(random, 6)}\n\n\`\`\`ts\n${code(random, 2)}\`\`\`\n\n${prose(random, 3)}`,
    });
    turn++;
  }
  messages.push({ role: 'user', content: `${prose(random, 4)} What should I change in the budget stage?` });
  return messages;
}

function contextItem(key: string, kind: ContextItem['kind'], text: string, priority = 0): ContextItem {
  return { key, source: key.split('.')[0] ?? key, title: key, text, priority, kind };
}

function treeText(random: () => number, entries: number): string {
  const out = ['repo/'];
  for (let i = 0; i < entries; i++) {
    const depth = 1 + Math.floor(random() * 4);
    out.push(
      `${'│   '.repeat(depth - 1)}├── ${pick(random, IDENTIFIERS)}${random() < 0.3 ? '/' : `.${pick(random, ['ts', 'md', 'json'])}`}`,
    );
  }
  return out.join('\n');
}

function diffText(random: () => number, files: number): string {
  const out: string[] = [];
  for (let f = 0; f < files; f++) {
    out.push(
      `diff --git a/src/f${f}.ts b/src/f${f}.ts`,
      `index ${f}a1b2c..${f}d4e5f 100644`,
      `--- a/src/f${f}.ts`,
      `+++ b/src/f${f}.ts`,
    );
    for (let h = 0; h < 4; h++) {
      out.push(`@@ -${h * 40 + 1},12 +${h * 40 + 1},14 @@ export function x${h}() {`);
      for (const line of code(random, 1).split('\n'))
        out.push(`${random() < 0.2 ? '+' : random() < 0.1 ? '-' : ' '}${line}`);
    }
  }
  return out.join('\n');
}

/** Every deep-mode source, most of them larger than their caps so that trimming runs. */
export function deepContext(): ContextItem[] {
  const random = seeded(7);
  return [
    contextItem(
      'instructions.project.CLAUDE.md',
      'text',
      `# Project rules\n\n${prose(random, 600).replace(/\. /g, '.\n')}`,
      2,
    ),
    contextItem('instructions.user', 'text', prose(random, 40), 1),
    contextItem('env.runtime', 'text', 'node v20.20.2 linux x64\nnpm 10.8.2\ngit 2.43.0'),
    contextItem('git.branch', 'text', 'feature/budget (ahead 3 of origin/main)'),
    contextItem(
      'git.status',
      'text',
      Array.from({ length: 60 }, (_, i) => ` M src/${pick(random, IDENTIFIERS)}/f${i}.ts`).join('\n'),
    ),
    contextItem(
      'git.diffstat',
      'text',
      Array.from({ length: 40 }, (_, i) => ` src/f${i}.ts | ${i + 3} ++-`).join('\n'),
    ),
    contextItem(
      'git.log',
      'log',
      Array.from({ length: 50 }, (_, i) => `${(i * 2654435761).toString(16).slice(0, 7)} ${prose(random, 1)}`).join(
        '\n',
      ),
    ),
    contextItem('files.named.src/budget/fit.ts', 'code', code(random, 90), 3),
    contextItem('files.named.src/budget/trim.ts', 'code', code(random, 60), 2),
    contextItem('files.named.test/budget/fit.test.ts', 'code', code(random, 40), 1),
    contextItem('tree.root', 'tree', treeText(random, 900)),
    contextItem('files.changed.src/budget/diff', 'diff', diffText(random, 30), 2),
    contextItem('files.changed.logs/test-output.log', 'log', log(random, 600), 1),
    contextItem('stats.languages', 'text', 'TypeScript 84%\nJSON 9%\nMarkdown 7%'),
  ];
}
