// The fake Ollama of the tests in a process of its own, answering every chat
// like a model does: one token per chunk at a steady pace. Arguments: tokens
// per reply, tokens per second. Prints its URL as its first line.
import { startFakeOllama } from '../../test/support/fakeOllama.ts';

export const SOAK_MODEL = 'qwen2.5-coder:7b';

const tokens = Number(process.argv[2] ?? 300);
const perSecond = Number(process.argv[3] ?? 30);
const fake = await startFakeOllama();
// Words w0 … wN-1: the client finds the first token and checks the last one arrived.
const content = Array.from({ length: tokens }, (_, i) => `w${i}`).join(' ');
fake.reply(SOAK_MODEL, { content, wordPerChunk: true, chunkDelayMs: Math.round(1000 / perSecond) });
process.stdout.write(`${fake.url}\n`);
process.on('SIGTERM', () => {
  void fake.close().then(() => process.exit(0));
});
