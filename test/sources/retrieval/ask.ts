import type { ChatMessage, ContextItem, ContextSource } from '../../../src/shared/types.ts';
import { input, signal } from '../input.ts';

/** The retrieval items' text for one user message, in quick mode. */
export async function askRetrieval(source: ContextSource, dir: string, content: string): Promise<string> {
  const messages: ChatMessage[] = [{ role: 'user', content }];
  const result = await source.collect(input(dir, { messages, mode: 'quick', wanted: ['retrieval.'] }), signal);
  return result.items.map((item: ContextItem) => item.text).join('\n');
}
