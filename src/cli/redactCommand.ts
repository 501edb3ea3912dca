// `ctxproxy redact [--path NAME]`: standard input to standard output through
// the same redactor the proxy uses. The summary on stderr names rule ids and
// counts, never a secret.

import { parseArgs } from 'node:util';
import type { Redactor } from '../shared/types.ts';

export interface RedactCommandIo {
  redactor: Redactor;
  stdin: NodeJS.ReadableStream;
  out: (s: string) => void;
  err: (s: string) => void;
}

const USAGE = 'usage: ctxproxy redact [--path NAME] < input > output';

/** Read token by token, so the first mistake is the one named, in the command's own words. */
function parseRedactArgs(args: string[]): { path?: string | undefined; help: boolean } | { error: string } {
  const { tokens } = parseArgs({
    args,
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: { path: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  let path: string | undefined;
  for (const token of tokens) {
    const arg = args[token.index] as string;
    if (token.kind === 'option' && token.name === 'help' && arg === token.rawName) return { help: true };
    if (token.kind === 'option' && token.name === 'path' && token.rawName === '--path') {
      if (!token.value) return { error: '--path needs a file name' };
      path = token.value;
    } else {
      return { error: `unknown argument: ${arg}` };
    }
  }
  return { path, help: false };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Exit code 0 on success (also when nothing was found), 2 on a usage error, 1 when the scan failed (nothing is printed then). */
export async function runRedactCommand(args: string[], io: RedactCommandIo): Promise<number> {
  const parsed = parseRedactArgs(args);
  if ('error' in parsed) {
    io.err(`${parsed.error}\n${USAGE}\n`);
    return 2;
  }
  if (parsed.help) {
    io.out(`${USAGE}\nReads standard input, writes it with every secret masked as [REDACTED:<rule-id>].\n`);
    return 0;
  }
  const input = await readAll(io.stdin);
  let result: Awaited<ReturnType<Redactor['redact']>>;
  try {
    result = await io.redactor.redact(input, { path: parsed.path });
  } catch (error) {
    // Fail closed: print nothing of the input.
    io.err(`redact: scan failed (${(error as Error).name}); no output written\n`);
    return 1;
  }
  io.out(result.text);
  const counts = new Map<string, number>();
  for (const finding of result.findings) counts.set(finding.ruleId, (counts.get(finding.ruleId) ?? 0) + 1);
  const summary = [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([ruleId, count]) => `${ruleId}: ${count}`);
  io.err(
    summary.length === 0
      ? 'redact: no secrets found\n'
      : `redact: ${result.findings.length} secret(s) masked (${summary.join(', ')})\n`,
  );
  return 0;
}
