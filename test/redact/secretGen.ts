// Generates correctly formed, random, fake secrets for the corpus: right
// prefix, length, charset, and checksum where the format has one. Nothing
// real-looking is committed: fixtures hold {{kind}} markers filled here.

import { generateKeyPairSync } from 'node:crypto';

export type Rng = () => number;

export interface Planted {
  /** The text put into the template. */
  text: string;
  /** Strings that must be gone from the redacted output. */
  secrets: string[];
}

export type Kind = (rng: Rng) => Planted;

export const plain =
  (make: (rng: Rng) => string): Kind =>
  (rng) => {
    const value = make(rng);
    return { text: value, secrets: [value] };
  };

/** Seeded, so a failing corpus run can be replayed. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const DIGITS = '0123456789';
export const HEX = '0123456789abcdef';
export const ALNUM = LOWER + UPPER + DIGITS;
export const B64 = `${ALNUM}+/`;
export const B64URL = `${ALNUM}_-`;

export function pick(rng: Rng, charset: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += charset[Math.floor(rng() * charset.length)];
  return out;
}

function bytes(rng: Rng, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(rng() * 256);
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function base62(value: number, width: number): string {
  let out = '';
  let n = value;
  while (n > 0) {
    out = ALNUM_62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(width, '0');
}
const ALNUM_62 = DIGITS + UPPER + LOWER;

/** GitHub's token format: prefix, 30 random base62 characters, then the CRC32 of those in 6 base62 digits. */
export function githubToken(rng: Rng, prefix: 'ghp' | 'gho' | 'ghu' | 'ghs' | 'ghr'): string {
  const body = pick(rng, ALNUM, 30);
  return `${prefix}_${body}${base62(crc32(body), 6)}`;
}

/** A password people type: letters, digits and a few symbols, never only a word. */
export function password(rng: Rng, length = 14 + Math.floor(rng() * 8)): string {
  const symbols = '!@#%^*-_+=.~';
  const base = pick(rng, ALNUM + symbols, length - 3);
  return `${pick(rng, UPPER, 1)}${base}${pick(rng, DIGITS, 1)}${pick(rng, symbols, 1)}`;
}

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

export function jwt(rng: Rng): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(
    JSON.stringify({
      sub: pick(rng, DIGITS, 10),
      name: pick(rng, LOWER, 8),
      iat: 1_700_000_000 + Math.floor(rng() * 1e6),
    }),
  );
  return `${header}.${payload}.${b64url(bytes(rng, 32))}`;
}

function wrap64(base64: string): string {
  return base64.match(/.{1,64}/g)!.join('\n');
}

export type PrivateKeyKind = 'rsa-pkcs1' | 'rsa-pkcs8' | 'ec-p256' | 'ed25519' | 'encrypted-pkcs8' | 'openssh' | 'pgp';

/** Real key material from node:crypto where node can write the format, synthetic bodies for OpenSSH and PGP. */
export function privateKey(rng: Rng, kind: PrivateKeyKind): string {
  switch (kind) {
    case 'rsa-pkcs1':
      return generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ type: 'pkcs1', format: 'pem' })
        .toString();
    case 'rsa-pkcs8':
      return generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
    case 'ec-p256':
      return generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'sec1', format: 'pem' })
        .toString();
    case 'ed25519':
      return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    case 'encrypted-pkcs8':
      return generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: pick(rng, ALNUM, 12) })
        .toString();
    case 'openssh': {
      const body = Buffer.concat([Buffer.from('openssh-key-v1\0', 'binary'), bytes(rng, 380)]).toString('base64');
      return `-----BEGIN OPENSSH PRIVATE KEY-----\n${wrap64(body)}\n-----END OPENSSH PRIVATE KEY-----\n`;
    }
    case 'pgp': {
      // An armoured block's body: a key packet (0x95), random material, and a CRC24 line.
      const body = Buffer.concat([Buffer.from([0x95, 0x03, 0xc6]), bytes(rng, 600)]).toString('base64');
      const crc = pick(rng, B64, 4);
      return `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${wrap64(body)}\n=${crc}\n-----END PGP PRIVATE KEY BLOCK-----\n`;
    }
  }
}

/** The lines of a PEM body: what must not survive redaction. */
export function pemBodyLines(pem: string): string[] {
  return pem
    .split('\n')
    .filter((line) => line.length >= 16 && !line.startsWith('-----') && !/^[A-Za-z-]+: /.test(line));
}
