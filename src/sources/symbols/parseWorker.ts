// The parse worker: a thread that holds the tree-sitter runtime, the grammars
// and the parse memory, so the server's own thread never loads them, and
// whose memory goes back to the system when it exits (parseHost.ts ends it
// once idle). It parses the texts it is sent and answers with plain data.

import { parentPort } from 'node:worker_threads';
import { extractDefinitions, extractReferences } from './extract.ts';
import { loadGrammar, parseWithin } from './grammars.ts';
import { SPECS } from './languages.ts';
import type { ParseOutcome, ParseReply, ParseRequest } from './parseProtocol.ts';

async function handle(request: ParseRequest): Promise<ParseReply> {
  const outcomes: ParseOutcome[] = [];
  for (const job of request.jobs) {
    const loaded = await loadGrammar(job.grammar, () => job.wasm);
    if (!loaded.ok) {
      outcomes.push({ rel: job.rel, off: loaded.reason });
      continue;
    }
    const tree = parseWithin(loaded.parser, job.text, request.timeoutMs);
    if (!tree) {
      outcomes.push({ rel: job.rel, off: `parse timed out on ${job.rel}` });
      continue;
    }
    try {
      const spec = SPECS[job.grammar];
      outcomes.push({ rel: job.rel, defs: extractDefinitions(tree, spec), refs: extractReferences(tree, spec) });
    } finally {
      tree.delete();
    }
  }
  return { id: request.id, outcomes };
}

// One request at a time, in the order sent (a grammar loads once, for the first job that needs it).
let queue = Promise.resolve();
parentPort?.on('message', (request: ParseRequest) => {
  queue = queue.then(async () => parentPort?.postMessage(await handle(request)));
});
