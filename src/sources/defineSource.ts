// The frame every context source shares, said once: its name and time limit,
// the plan keys it answers (a plan that wants none of them costs nothing, not
// even a look at the workspace), and the workspace the request is about. A
// source then writes only what it collects.

import type { CollectInput, ContextSource, SourceResult } from '../shared/types.ts';
import { wants } from './deps.ts';
import type { WorkspaceState, Workspaces } from './workspace.ts';

export interface SourceFrame {
  name: string;
  timeoutMs: number;
  /** The plan keys (or key prefixes such as `instructions.`) this source can answer. */
  answers: readonly string[];
  /**
   * The source's first act is to start git commands (the listing, status, diffs,
   * history). The other sources of a request let those spawn before doing their
   * own work: git's processes are the longest chains of a cold request, and each
   * spawn waits for the event loop.
   */
  spawnsFirst?: boolean;
}

export interface SourceCall {
  input: CollectInput;
  signal: AbortSignal;
  ws: WorkspaceState;
  /** True when the plan wants this key or a part of its namespace. */
  wanted(key: string): boolean;
}

export function defineSource(
  workspaces: Workspaces,
  frame: SourceFrame,
  collect: (call: SourceCall) => Promise<SourceResult>,
): ContextSource {
  return {
    name: frame.name,
    timeoutMs: frame.timeoutMs,
    async collect(input, signal) {
      const wanted = (key: string) => wants(input.wanted, key);
      if (!frame.answers.some(wanted)) return { items: [] };
      const ws = workspaces.get(input.workspace);
      ws.enter();
      try {
        // Only while commands are being started (a cold run): a warm one goes straight on.
        const spawning = frame.spawnsFirst ? undefined : ws.spawning();
        if (spawning) await spawning;
        return await collect({ input, signal, ws, wanted });
      } finally {
        ws.leave();
      }
    },
  };
}
