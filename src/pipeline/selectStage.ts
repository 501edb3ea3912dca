// Stage 1, select: the mode (header, `+mode` suffix, `/mode` line, server
// setting, auto: see selectMode.ts), the model the upstream is asked for, and
// the workspace the context is collected from.

import { selectMode } from './selectMode.ts';
import type { PipelineDeps, Prepared, Selected } from './types.ts';
import { resolveWorkspace } from './workspace.ts';

export async function select({ input }: Pick<Prepared, 'input'>, deps: PipelineDeps): Promise<Selected> {
  const selection = selectMode({
    headerMode: input.headers.mode,
    model: input.request.model,
    messages: input.request.messages,
    serverMode: deps.settings.mode,
    looksLikeStackTrace: deps.looksLikeStackTrace,
  });
  const workspace = resolveWorkspace(input.headers.workspace, deps.settings, deps.fs);
  return { ...selection, workspace, plan: deps.plans[selection.mode] };
}
