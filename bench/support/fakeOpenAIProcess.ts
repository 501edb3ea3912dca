// Runs the test suite's fake OpenAI-compatible server in its own process for the benchmarks
// (llama.cpp server, LM Studio, vLLM: what `--upstream-kind openai` talks to).
import { startFakeOpenAI } from '../../test/support/fakeOpenAI.ts';

const fake = await startFakeOpenAI({ models: (process.argv[2] ?? 'local-model').split(',') });
process.stdout.write(`${fake.url}\n`);
process.on('SIGTERM', () => {
  void fake.close().then(() => process.exit(0));
});
