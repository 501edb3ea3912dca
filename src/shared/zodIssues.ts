// zod issues as one readable `[path] message` list, the way every schema error
// we report reads (request bodies, rule files, mode plans).

import type { z } from 'zod';

/**
 * `[messages.0.role] Invalid option …; [model] …`. `root` names an issue on the
 * value itself (empty path); `most` keeps only the first issues.
 */
export function describeIssues(error: z.ZodError, root = 'body', most = Number.POSITIVE_INFINITY): string {
  return error.issues
    .slice(0, most)
    .map((issue) => `[${issue.path.join('.') || root}] ${issue.message}`)
    .join('; ');
}
