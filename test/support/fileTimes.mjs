// A node:test reporter that prints one line per test file as it ends: its wall
// time in seconds, ok or FAIL, and the path. A file run in its own process is the
// runner's per-file test (start-up included); a file run in a shared process
// (suite/runNodeSuite.mjs) is the suite named by its path, one level down. For
// finding the slow files (docs/development.md):
//   node test/support/suite/runNodeSuite.mjs --test-reporter=./test/support/fileTimes.mjs | sort -rn | head
export default async function* fileTimes(events) {
  for await (const event of events) {
    const { data } = event;
    if (event.type !== 'test:complete') continue;
    const ownProcess = data.nesting === 0 && data.name === data.file;
    const inGroup = data.nesting === 1 && data.name.endsWith('.test.ts') && data.file?.includes('ctxproxy-node-suite-');
    if (ownProcess || inGroup) {
      yield `${(data.details.duration_ms / 1000).toFixed(1)}\t${data.details.passed ? 'ok' : 'FAIL'}\t${data.name}\n`;
    }
  }
}
