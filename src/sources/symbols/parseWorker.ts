// The parse worker: a thread that holds the tree-sitter runtime, the grammars
// and the parse memory, so the server's own thread never loads them, and
// whose memory goes back to the system when it exits (parseHost.ts ends it
// once idle). It parses the texts it is sent and answers with plain data.

import { parentPort } from 'node:worker_threads';
import { extractDefinitions, extractUses, masked } from './extract.ts';
import { loadGrammar, parseWithin } from './grammars.ts';
import { SPECS } from './languages.ts';
import type { ParseOutcome, ParseReply, ParseRequest } from './parseProtocol.ts';
import { rankNames } from './repoMap.ts';

/** An error's kind, without its message (which could quote what was being parsed). */
function describe(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown error';
}

async function handle(request: ParseRequest): Promise<ParseReply> {
  const outcomes: ParseOutcome[] = [];
  for (const job of request.jobs) {
    const loaded = await loadGrammar(job.grammar, () => job.wasm);
    if (!loaded.ok) {
      outcomes.push({ rel: job.rel, off: loaded.reason });
      continue;
    }
    const spec = SPECS[job.grammar];
    let tree: ReturnType<typeof parseWithin>;
    try {
      tree = parseWithin(loaded.parser, masked(job.text, spec), request.timeoutMs);
    } catch (error) {
      outcomes.push({ rel: job.rel, skip: `symbols could not be extracted (${describe(error)})` });
      continue;
    }
    if (!tree) {
      outcomes.push({ rel: job.rel, off: `parse timed out on ${job.rel}` });
      continue;
    }
    try {
      const defs = extractDefinitions(tree, spec);
      const { names, uses } = extractUses(tree, spec, defs);
      outcomes.push({ rel: job.rel, defs, uses, names: rankNames(defs, names) });
    } catch (error) {
      // One file the extraction cannot take (a stack overflow on deep nesting): that file is skipped, its
      // language and the rest of the batch are not. The reason names the error, never the file's text.
      outcomes.push({ rel: job.rel, skip: `symbols could not be extracted (${describe(error)})` });
    } finally {
      tree.delete();
    }
  }
  return { id: request.id, outcomes };
}

/** Answers a request even when handling it throws outside a job (every file skipped): its sender never waits in vain. */
async function answer(request: ParseRequest): Promise<ParseReply> {
  try {
    return await handle(request);
  } catch (error) {
    const skip = `symbols could not be extracted (${describe(error)})`;
    return { id: request.id, outcomes: request.jobs.map((job) => ({ rel: job.rel, skip })) };
  }
}

// One request at a time, in the order sent (a grammar loads once, for the first job that needs it). The
// catch keeps the chain going: one request that fails never leaves the later ones unanswered.
let queue = Promise.resolve();
parentPort?.on('message', (request: ParseRequest) => {
  queue = queue.then(async () => parentPort?.postMessage(await answer(request))).catch(() => undefined);
});
