// Which files state a project's dependencies and toolchain versions: data
// (rules/manifests.json), one file name a line, so that a new ecosystem is a
// line in the table. The same table gives the search's pathspecs and the
// ranking's test of a path. Read once at start-up and checked with zod; a bad
// table fails the boot.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const DEFAULT_MANIFESTS_FILE = fileURLToPath(new URL('../../../rules/manifests.json', import.meta.url));

const manifestsFileSchema = z
  .object({
    description: z.string().min(1),
    // A file name, with `*` for any run of characters but `/`: a path would not match at every depth.
    files: z.array(z.string().regex(/^[\w.@*+-]+$/)).min(1),
  })
  .strict();

export interface ManifestFiles {
  /** `git grep` pathspecs: each name at any depth. */
  pathspecs: readonly string[];
  /** Whether a workspace-relative path is one of the table's files. */
  test: (rel: string) => boolean;
}

/** The table of `file`; throws with the file's name and the first problem when it is malformed. */
export function loadManifestFiles(file: string = DEFAULT_MANIFESTS_FILE): ManifestFiles {
  const parsed = manifestsFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: [${issue?.path.join('.')}] ${issue?.message}`);
  }
  const names = parsed.data.files;
  const shapes = names.map((name) => name.replace(/[.+]/g, '\\$&').replace(/\*/g, '[^/]*'));
  const whole = new RegExp(`(?:^|/)(?:${shapes.join('|')})$`);
  return { pathspecs: names.map((name) => `:(glob)**/${name}`), test: (rel) => whole.test(rel) };
}

export const MANIFEST_FILES = loadManifestFiles();
