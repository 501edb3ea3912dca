import type { ChatMessage, ContextItem, ContextSource } from '../../../src/shared/types.ts';
import { input, signal } from '../input.ts';

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
