// `ctxproxy redact [--path NAME]`: standard input to standard output through
// the same redactor the proxy uses. The summary on stderr names rule ids and
// counts, never a secret.

import type { Redactor } from '../shared/types.ts';

export interface RedactCommandIo {
  redactor: Redactor;
  stdin: NodeJS.ReadableStream;
  out: (s: string) => void;
  err: (s: string) => void;
}

const USAGE = 'usage: ctxproxy redact [--path NAME] < input > output';

function parseArgs(args: string[]): { path?: string | undefined; help: boolean } | { error: string } {
  let path: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--help' || arg === '-h') return { help: true };
    if (arg === '--path') {
      const value = args[i + 1];
      if (value === undefined || value === '') return { error: '--path needs a file name' };
      path = value;
      i++;
    } else if (arg.startsWith('--path=')) {
      path = arg.slice('--path='.length);
      if (path === '') return { error: '--path needs a file name' };
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
  const parsed = parseArgs(args);
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
