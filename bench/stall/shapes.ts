// The hostile inputs of bench/stall (and test/integration/stall.test.ts): each
// a request body, or a file the context collects plus the small question that
// makes the proxy collect it. Sizes are parameters so the test can use
// smaller ones.

import { randomBytes } from 'node:crypto';

export const MODEL = 'qwen2.5-coder:7b';

export interface Shape {
  name: string;
  /** The request body (JSON text). */
  body: () => string;
  /** Headers beyond content-type (a mode that collects the hostile file). */
  headers?: Record<string, string>;
}

export interface Sizes {
  /** Bytes of the whole body for the single-letter shape (the body limit minus one). */
  letterBodyBytes: number;
  base64Bytes: number;
  minifiedBytes: number;
  messages: number;
  lines: number;
  depth: number;
  /** Tools in the many-tools shape, each with a small schema. */
  tools: number;
  /** Characters of the one message of varied text (words, code, numbers: many keywords, many tokens). */
  messageChars: number;
  /** Strings in the one schema of the large-schema shape (an enum). */
  schemaStrings: number;
}

export const fullSizes: Sizes = {
  letterBodyBytes: 10 * 1024 * 1024 - 1,
  base64Bytes: 7 * 1024 * 1024,
  minifiedBytes: 2 * 1024 * 1024,
  messages: 100_000,
  lines: 1_000_000,
  depth: 100_000,
  tools: 10_000,
  messageChars: 9 * 1024 * 1024,
  schemaStrings: 200_000,
};

const chat = (content: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: MODEL, stream: false, messages: [{ role: 'user', content }], ...extra });

/** A minified-looking JavaScript line: identifiers, operators, no newline, no spaces. */
export function minifiedJs(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const part = `function _${i.toString(36)}(a,b){var c=a+b*${i % 97};return c>${i % 13}?a.x[c]:b.y(c,"k${i % 7}")}`;
    parts.push(part);
    size += part.length;
  }
  return parts.join(';').slice(0, bytes);
}

export function base64Blob(bytes: number): string {
  return randomBytes(Math.ceil((bytes * 3) / 4))
    .toString('base64')
    .slice(0, bytes);
}

/**
 * Text that looks like a long paste: code, prose, numbers and identifiers in
 * lines of varied length, so the secret scan's keywords hit, the tokenizer
 * sees many words and nothing repeats in a way an engine could shortcut.
 */
export function variedText(chars: number): string {
  const words = [
    'const',
    'token',
    'password',
    'function',
    'return',
    'the',
    'value',
    'secret',
    'api',
    'key',
    'user',
    'id',
    'await',
    'fetch',
    'error',
    'config',
    'aws',
    'client',
    'if',
    'else',
  ];
  const lines: string[] = [];
  let size = 0;
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  while (size < chars) {
    const count = 3 + (next() % 12);
    const parts: string[] = [];
    for (let i = 0; i < count; i++) {
      const r = next();
      parts.push(
        r % 5 === 0 ? `${words[r % words.length]}_${(r >> 8).toString(36)}` : (words[r % words.length] ?? 'x'),
      );
    }
    const line = `${parts.join(' ')} = ${next() % 100000};`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

/** `[[[ … "x" … ]]]` nested `depth` levels. */
export function nested(depth: number, inner = '"x"'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

/** `{"a":{"a":…}}` nested `depth` levels. */
export function nestedObject(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

export function messageShapes(sizes: Sizes): Shape[] {
  const envelope = chat('').length;
  return [
    { name: 'one letter, body limit - 1', body: () => chat('x'.repeat(sizes.letterBodyBytes - envelope)) },
    { name: 'base64 blob', body: () => chat(base64Blob(sizes.base64Bytes)) },
    { name: 'minified JavaScript line', body: () => chat(minifiedJs(sizes.minifiedBytes)) },
    {
      name: `${sizes.messages} messages`,
      body: () =>
        JSON.stringify({
          model: MODEL,
          stream: false,
          messages: Array.from({ length: sizes.messages }, (_, i) => ({
            role: i % 2 === 0 ? 'user' : 'assistant',
            content: `message ${i}`,
          })),
        }),
    },
    { name: `${sizes.lines} one-character lines`, body: () => chat('a\n'.repeat(sizes.lines)) },
    {
      name: 'deep nesting: content array',
      body: () =>
        `{"model":"${MODEL}","messages":[{"role":"user","content":[{"type":"text","text":"hi","x":${nested(sizes.depth)}}]}]}`,
    },
    {
      name: 'deep nesting: tools parameters',
      body: () =>
        `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nestedObject(sizes.depth)}}}]}`,
    },
    {
      name: 'deep nesting: metadata',
      body: () =>
        `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"metadata":${nestedObject(sizes.depth)}}`,
    },
    {
      name: `${sizes.tools} tools`,
      body: () =>
        JSON.stringify({
          model: MODEL,
          stream: false,
          messages: [{ role: 'user', content: 'which tool?' }],
          tools: Array.from({ length: sizes.tools }, (_, i) => ({
            type: 'function',
            function: {
              name: `tool_${i}`,
              description: `Does thing number ${i} with the given path and options.`,
              parameters: {
                type: 'object',
                properties: { path: { type: 'string', description: 'a file' }, depth: { type: 'integer' } },
                required: ['path'],
              },
            },
          })),
        }),
    },
    {
      name: `a ${(sizes.messageChars / 1024 / 1024).toFixed(0)} MB message`,
      body: () => chat(variedText(sizes.messageChars)),
    },
    {
      name: `a ${sizes.schemaStrings}-string schema`,
      body: () =>
        JSON.stringify({
          model: MODEL,
          stream: false,
          messages: [{ role: 'user', content: 'pick one' }],
          tools: [
            {
              type: 'function',
              function: {
                name: 'pick',
                parameters: {
                  type: 'object',
                  properties: {
                    choice: {
                      type: 'string',
                      enum: Array.from({ length: sizes.schemaStrings }, (_, i) => `choice-${i}`),
                    },
                  },
                },
              },
            },
          ],
        }),
    },
    {
      name: 'stack trace of 100,000 frames',
      body: () =>
        chat(
          `TypeError: boom\n${Array.from({ length: 100_000 }, (_, i) => `    at f${i} (src/app${i % 50}.ts:${i}:1)`).join('\n')}`,
        ),
    },
  ];
}

/** Files for the context shapes: a named file of each hostile kind, a log, and a changed tracked file (the diff). */
export function workspaceFiles(sizes: { fileBytes: number; diffBytes: number; lines: number }): {
  committed: Record<string, string>;
  changed: Record<string, string>;
} {
  return {
    committed: { 'src/app.js': 'export const answer = 42;\n', 'README.md': '# demo\n' },
    changed: {
      'letters.txt': 'x'.repeat(sizes.fileBytes),
      'blob.b64': base64Blob(sizes.fileBytes),
      'bundle.min.js': minifiedJs(sizes.fileBytes),
      'server.log': 'a\n'.repeat(Math.floor(sizes.fileBytes / 2)),
      'src/app.js': `${minifiedJs(sizes.diffBytes)}\n${'b\n'.repeat(sizes.lines)}`,
    },
  };
}

export function contextShapes(): Shape[] {
  const ask = (mode: string, question: string): Shape => ({
    name: `context (${mode}): ${question}`,
    headers: { 'x-ctx-mode': mode },
    body: () => chat(question),
  });
  return [
    ask('quick', 'what is in letters.txt?'),
    ask('quick', 'decode blob.b64 please'),
    ask('quick', 'explain bundle.min.js'),
    ask('quick', 'why does server.log end like this?'),
    ask('debug', 'review my diff of src/app.js'),
    ask('deep', 'summarise this repository'),
  ];
}
