// Writes a file in a test repository and waits until the file system has reported
// it. The proxy's work-tree watcher learns of an edit through that same event, so a
// question sent in the same millisecond as the write could otherwise race it (a
// person editing and then asking never does).

import fs from 'node:fs';
import path from 'node:path';
import type { TempRepo } from './gitRepo.ts';

export async function writeObserved(repo: TempRepo, rel: string, text: string): Promise<void> {
  const folder = path.dirname(path.join(repo.dir, rel));
  fs.mkdirSync(folder, { recursive: true });
  const reported = new Promise<void>((resolve) => {
    const watcher = fs.watch(folder, () => done());
    const timer = setTimeout(() => done(), 2000);
    function done() {
      clearTimeout(timer);
      watcher.close();
      resolve();
    }
  });
  repo.write(rel, text);
  await reported;
  // Let the proxy's own watcher callbacks for the same event run first.
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
