// Whether the workspace is a git repository at all. Without one, the git source
// has nothing to say, and "what did I change?" would be answered from nothing
// with confidence: the start-up lines and every request's snapshot say so. A
// repository git refuses to read (gitSafety.ts) is named by the git source's
// report; this only looks for one, with a few stats up the tree (no git process).

import { locateRepo } from '../workspace/fingerprint.ts';

/** The hint the start-up line and the snapshot's warning share. */
export const NOT_A_REPOSITORY_HINT = 'run `git init` there, or point --workspace at a repository';

/** A warning (ASCII: it also goes out in X-Ctx-Warning) when `workspace` is in no git repository. */
export function notARepositoryWarning(workspace: string): string | undefined {
  if (locateRepo(workspace) !== undefined) return undefined;
  return `the workspace is not a git repository: no status, diff or history to go on, so questions about changes cannot be answered from it; ${NOT_A_REPOSITORY_HINT}`;
}
