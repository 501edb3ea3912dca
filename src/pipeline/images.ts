// Images arrive as data URLs, whose parameters (`data:image/png;name=…;base64,`)
// are free text the client chose. Only the bytes go on: the URL is rebuilt as
// `data:<type>;base64,<data>` with the type read from the bytes themselves, and
// the audit log keeps the type, the size and a sha256, never the data.

import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { BadRequestError } from '../shared/errors.ts';
import type { ChatMessage, ContentPart, ImagePart } from '../shared/types.ts';

export interface ImageFacts {
  mediaType: string;
  bytes: number;
  sha256: string;
}

const DATA_URL = /^data:([^,;]*)(?:;[^,;]*)*;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const DETAILS = ['auto', 'low', 'high'];
/** Declared types believed when the bytes do not say; anything else becomes octet-stream. */
const KNOWN_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp', 'image/tiff', 'image/avif'];

/** The part's image as `{ url: data:<type>;base64,<data>, detail? }`; a 400 for anything but a base64 data URL. */
export function normalizeImage(value: unknown): ImagePart['image_url'] {
  const given = typeof value === 'string' ? { url: value } : (value as { url?: unknown; detail?: unknown });
  const url = typeof given?.url === 'string' ? given.url : '';
  const { base64, mediaType } = decodeDataUrl(url);
  const out: { url: string; detail?: string } = { url: `data:${mediaType};base64,${base64}` };
  if (typeof given.detail === 'string' && DETAILS.includes(given.detail)) out.detail = given.detail;
  return out;
}

/** Type, size and hash of an image part's bytes (the part has been through normalizeImage). */
export function imageFacts(imageUrl: ImagePart['image_url']): ImageFacts {
  const url = typeof imageUrl === 'string' ? imageUrl : imageUrl.url;
  const { base64, mediaType } = decodeDataUrl(url);
  const bytes = Buffer.from(base64, 'base64');
  return { mediaType, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** The messages as the audit log keeps them: each image becomes its facts, `url` = `sha256:<hex>`. */
export function storedMessages(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    if (!Array.isArray(message.content) || !message.content.some((part) => part.type === 'image_url')) return message;
    return { ...message, content: message.content.map(storedPart) };
  });
}

function storedPart(part: ContentPart): ContentPart {
  if (part.type !== 'image_url') return part;
  let facts: ImageFacts;
  try {
    facts = imageFacts(part.image_url);
  } catch {
    return { type: 'image_url', image_url: { url: 'unreadable image' } };
  }
  return {
    type: 'image_url',
    image_url: { url: `sha256:${facts.sha256}`, media_type: facts.mediaType, bytes: facts.bytes },
  };
}

function decodeDataUrl(url: string): { base64: string; mediaType: string } {
  const prefix = DATA_URL.exec(url);
  if (!prefix) {
    const shown = /^https?:/i.test(url) ? 'an http(s) URL' : 'a URL that is not a base64 data URL';
    throw new BadRequestError(
      `An image was given as ${shown}; only base64 data URLs (data:image/png;base64,…) are supported, because ctxproxy does not fetch remote content.`,
      'unsupported_image_url',
      'messages',
    );
  }
  const base64 = url.slice(prefix[0].length).replace(/\s+/g, '');
  if (!BASE64.test(base64)) {
    throw new BadRequestError('An image data URL does not hold valid base64.', 'invalid_image_url', 'messages');
  }
  const declared = (prefix[1] ?? '').toLowerCase();
  const mediaType = sniff(base64) ?? (KNOWN_TYPES.includes(declared) ? declared : 'application/octet-stream');
  return { base64, mediaType };
}

/** The type from the first bytes (base64 of the magic numbers), so no client text names it. */
function sniff(base64: string): string | undefined {
  if (base64.startsWith('iVBORw0KGgo')) return 'image/png';
  if (base64.startsWith('/9j/')) return 'image/jpeg';
  if (base64.startsWith('R0lGOD')) return 'image/gif';
  if (base64.startsWith('UklGR') && Buffer.from(base64.slice(0, 16), 'base64').subarray(8, 12).toString() === 'WEBP')
    return 'image/webp';
  if (/^Qk[0-3]/.test(base64)) return 'image/bmp';
  return undefined;
}
