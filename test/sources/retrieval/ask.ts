import type { ChatMessage, ContextItem, ContextSource } from '../../../src/shared/types.ts';
import type { SourceDeps } from '../../../src/sources/deps.ts';
import { createRetrievalSource } from '../../../src/sources/retrieval/source.ts';
import { Workspaces } from '../../../src/sources/workspace.ts';
import { input, signal, testDeps } from '../input.ts';

/** The retrieval items for one user message, in quick mode. */
export async function retrievalItems(source: ContextSource, dir: string, content: string): Promise<ContextItem[]> {
  const messages: ChatMessage[] = [{ role: 'user', content }];
  const result = await source.collect(input(dir, { messages, mode: 'quick', wanted: ['retrieval.'] }), signal);
  return result.items;
}

/** The retrieval items' text for one user message, in quick mode. */
export async function askRetrieval(source: ContextSource, dir: string, content: string): Promise<string> {
  return (await retrievalItems(source, dir, content)).map((item) => item.text).join('\n');
}

/** The retrieval source over fresh test dependencies, as each suite makes it. */
export function retrievalSource(deps: SourceDeps = testDeps()): { deps: SourceDeps; source: ContextSource } {
  return { deps, source: createRetrievalSource(deps, new Workspaces(deps)) };
}
