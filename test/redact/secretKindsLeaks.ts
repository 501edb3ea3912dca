// Secret kinds for the leaks that probing found after the corpus scored 1.0:
// password hashes in code, letters-only passwords in comments and chat,
// bare hex keys, and provider keys recognised only by their variable name.

import { ALNUM, B64, B64URL, DIGITS, HEX, type Kind, LOWER, pick, plain, type Rng, UPPER } from './secretGen.ts';

const BCRYPT = `./${ALNUM}`;
const uuid = (r: Rng) =>
  `${pick(r, HEX, 8)}-${pick(r, HEX, 4)}-4${pick(r, HEX, 3)}-b${pick(r, HEX, 3)}-${pick(r, HEX, 12)}`;

export const LEAK_KINDS: Record<string, Kind> = {
  /** bcrypt as a library writes it: $2a$ / $2b$, cost 10 to 14, 22 salt and 31 hash characters. */
  'bcrypt-hash': plain((r) => `$2${r() < 0.5 ? 'a' : 'b'}$${10 + Math.floor(r() * 5)}$${pick(r, BCRYPT, 53)}`),
  'argon2-hash': plain(
    (r) => `$argon2id$v=19$m=65536,t=3,p=4$${pick(r, B64.slice(0, 64), 22)}$${pick(r, B64.slice(0, 64), 43)}`,
  ),
  'django-pbkdf2': plain((r) => `pbkdf2_sha256$600000$${pick(r, ALNUM, 22)}$${pick(r, B64, 43)}=`),
  /** What people type when no policy forces a digit: mixed-case letters only. */
  'letters-password': plain((r) => `${pick(r, UPPER, 1)}${pick(r, LOWER + UPPER, 9 + Math.floor(r() * 5))}`),
  /** A dictionary-ish password with a digit suffix: hunter2x, sunflower42. */
  'chat-password': plain((r) => `${pick(r, LOWER, 6 + Math.floor(r() * 4))}${pick(r, DIGITS, 2)}${pick(r, LOWER, 1)}`),
  'hex-32': plain((r) => pick(r, HEX, 32)),
  'hex-64': plain((r) => pick(r, HEX, 64)),
  'cloudflare-global-key': plain((r) => pick(r, HEX, 37)),
  'uuid-key': plain(uuid),
  'algolia-admin-key': plain((r) => pick(r, HEX, 32)),
  'segment-write-key': plain((r) => pick(r, ALNUM, 32)),
  'asana-pat': plain((r) => `2/${pick(r, DIGITS, 16)}/${pick(r, DIGITS, 16)}:${pick(r, HEX, 32)}`),
  'twitch-chat-oauth': plain((r) => `oauth:${pick(r, LOWER + DIGITS, 30)}`),
  'mapbox-secret': plain((r) => `sk.eyJ1Ijoi${pick(r, B64URL, 54 + Math.floor(r() * 20))}.${pick(r, B64URL, 22)}`),
};

/** Of these, the kinds recognised only by what surrounds them (not self-evident). */
export const LEAK_CONTEXTUAL_KINDS = new Set(
  Object.keys(LEAK_KINDS).filter(
    (kind) => !['bcrypt-hash', 'argon2-hash', 'django-pbkdf2', 'mapbox-secret', 'asana-pat'].includes(kind),
  ),
);
