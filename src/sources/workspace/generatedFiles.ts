// Files that machines write and no question a model is asked needs: the
// lockfiles of package managers. The diff leaves their changes out and the
// symbol index never parses them; both ask here so the list is kept once.

/** Lockfiles by base name: long, machine-written, and their content answers nothing. */
const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'deno.lock',
  'Cargo.lock',
  'go.sum',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'pdm.lock',
  'composer.lock',
  'Gemfile.lock',
  'flake.lock',
  'packages.lock.json',
  'gradle.lockfile',
  'mix.lock',
  'pubspec.lock',
]);

/** Whether a file's base name is a package manager's lockfile. */
export function isLockfile(baseName: string): boolean {
  return LOCKFILES.has(baseName);
}
