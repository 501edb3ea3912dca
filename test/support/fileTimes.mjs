// A node:test reporter that prints one line per test file as it ends: its wall
// time in seconds (from the runner's own per-file test, start-up included),
// ok or FAIL, and the path. For finding the slow files (docs/development.md):
//   node --import tsx --test --test-reporter=./test/support/fileTimes.mjs FILES | sort -rn | head
export default async function* fileTimes(events) {
  for await (const event of events) {
    const { data } = event;
    if (event.type === 'test:complete' && data.nesting === 0 && data.name === data.file) {
      yield `${(data.details.duration_ms / 1000).toFixed(1)}\t${data.details.passed ? 'ok' : 'FAIL'}\t${data.file}\n`;
    }
  }
}
