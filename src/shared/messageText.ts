// A message's text: what every stage reads when it looks at what a message
// says (mode lines, mentions, the audit question, the detail page).

import type { ChatMessage, ImagePart } from './types.ts';

/**
 * The string content, or the text parts joined by newlines. Images are left
 * out unless `image` renders them (the detail page shows a placeholder line).
 */
export function messageText(message: Pick<ChatMessage, 'content'>, image?: (part: ImagePart) => string): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (part.type === 'text') texts.push(part.text);
    else if (image) texts.push(image(part));
  }
  return texts.join('\n');
}

/** The text a message starts with: its string content, or its first text part. */
export function firstText(message: Pick<ChatMessage, 'content'>): string | undefined {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content.find((part) => part.type === 'text')?.text;
}
