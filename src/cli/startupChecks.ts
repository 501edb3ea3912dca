// Checks that turn a confusing start into one clear line: a workspace that is
// not a folder stops `serve` and `preview`; an upstream that does not answer
// is a warning after the ready line (the server still starts: Ollama may come
// up later).

import { statSync } from 'node:fs';
import { SettingsError } from '../config/loadSettings.ts';
import { ProxyError } from '../shared/errors.ts';
import type { Upstream } from '../shared/ports.ts';

/** Throws a SettingsError (exit 2) unless `dir` is an existing folder. Creates nothing. */
export function checkWorkspace(dir: string, stat: (path: string) => { isDirectory(): boolean } = statSync): void {
  let isFolder: boolean;
  try {
    isFolder = stat(dir).isDirectory();
  } catch {
    throw new SettingsError(`the workspace ${dir} does not exist; pass --workspace with an existing folder`);
  }
  if (!isFolder) throw new SettingsError(`the workspace ${dir} is not a folder; pass --workspace with a folder`);
}

/** Asks the upstream for its models once; when it does not answer, prints one warning line with the hint. */
export async function warnIfUpstreamDown(
  upstream: Upstream,
  err: (text: string) => void,
  timeoutMs = 3000,
): Promise<boolean> {
  try {
    await upstream.listModels(AbortSignal.timeout(timeoutMs));
    return true;
  } catch (error) {
    const hint =
      upstream.kind === 'ollama'
        ? 'Start Ollama with `ollama serve`, or point --upstream at where it runs.'
        : 'Start the server, or point --upstream at where it runs.';
    const message =
      error instanceof ProxyError
        ? error.message
        : `The upstream at ${upstream.baseUrl} did not answer within ${timeoutMs / 1000}s. ${hint}`;
    err(`ctxproxy: warning: ${message} Requests will fail until it answers.\n`);
    return false;
  }
}
