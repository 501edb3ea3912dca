// Runs the test suite's fake Ollama in its own process for the benchmarks, so
// the upstream does not share an event loop with the proxy or the load driver.
import { startFakeOllama } from '../../test/support/fakeOllama.ts';

const fake = await startFakeOllama();
process.stdout.write(`${fake.url}\n`);
process.on('SIGTERM', () => {
  void fake.close().then(() => process.exit(0));
});
