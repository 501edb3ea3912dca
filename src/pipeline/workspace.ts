// Which repository a request collects from: the server's workspace, or the
// `X-Ctx-Workspace` header's folder when it lies inside an allowed root.
// The file system comes in through `fs` (defaultDeps.ts gives the real one).

import path from 'node:path';
import { BadRequestError } from '../shared/errors.ts';
import { isInside } from '../sources/workspace/canonicalPath.ts';
import type { WorkspaceFs } from './types.ts';

/** `X-Ctx-Workspace` is accepted only inside the configured workspace or allowed roots. */
export function resolveWorkspace(
  header: string | undefined,
  settings: { workspace: string; allowedRoots: readonly string[] },
  fs: WorkspaceFs,
): string {
  if (!header) return settings.workspace;
  let real: string;
  try {
    real = fs.realpath(path.resolve(settings.workspace, header));
    if (!fs.isDirectory(real)) throw new Error('not a directory');
  } catch {
    throw new BadRequestError(`X-Ctx-Workspace "${header}" is not a directory.`, 'invalid_workspace');
  }
  const roots = [settings.workspace, ...settings.allowedRoots].map((root) => {
    try {
      return fs.realpath(root);
    } catch {
      return root;
    }
  });
  const inside = roots.some((root) => real === root || isInside(root, real));
  if (!inside) {
    throw new BadRequestError(
      `X-Ctx-Workspace "${header}" is outside the allowed roots; add it to "allowedRoots" in your config file (~/.config/ctxproxy/config.json).`,
      'workspace_not_allowed',
    );
  }
  return real;
}
