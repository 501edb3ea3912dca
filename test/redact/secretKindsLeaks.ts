// Secret kinds for the leaks that probing found after the corpus scored 1.0:
// password hashes in code, letters-only passwords in comments and chat,
// bare hex keys, and provider keys recognised only by their variable name.

import { ALNUM, B64, B64URL, DIGITS, HEX, type Kind, LOWER, pick, plain, type Rng, UPPER } from './secretGen.ts';

const BCRYPT = `./${ALNUM}`;
const CAPITAL_WORDS = (
  'Sunflower Wildcat Butterfly Dragonfly Pumpkin Starlight Moonshine Thunderbird Blueberry Snowball Hurricane ' +
  'Mustang Cheyenne Silverado Maverick Kingfisher Marigold Cinnamon Lighthouse Peppermint Raspberry Firefly'
).split(' ');
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
  'letters-password': plain((r) => {
    // Mixed case, so not a word; never spelling a key name (a value such as xPwdQ reads as "pwd" to any scanner).
    for (;;) {
      const value = `${pick(r, UPPER, 1)}${pick(r, LOWER, 1)}${pick(r, LOWER + UPPER, 7 + Math.floor(r() * 5))}${pick(r, UPPER, 1)}`;
      if (!/pass|pwd|secret|token|apikey/i.test(value)) return value;
    }
  }),
  /** A letters-only token, mixed case, as some services and password generators issue them (no digit by chance or by design). */
  'letters-token': plain((r) => {
    for (;;) {
      const value = pick(r, LOWER + UPPER, 16 + Math.floor(r() * 17));
      if (/[a-z]/.test(value) && /[A-Z]/.test(value) && !/pass|pwd|secret|token|apikey/i.test(value)) return value;
    }
  }),
  /** A letters-only token in lower case: qzkvbmwhtrplxs. */
  'lower-token': plain((r) => {
    for (;;) {
      const value = pick(r, LOWER, 14 + Math.floor(r() * 11));
      if (!/pass|pwd|secret|token|apikey/.test(value)) return value;
    }
  }),
  /** A typed password with a dot after a capitalised pair, read by a scanner as obj.prop: Ab.cd9Qx7k. */
  'dotted-password': plain(
    (r) =>
      `${pick(r, UPPER, 1)}${pick(r, LOWER, 1)}.${pick(r, LOWER, 2)}${pick(r, DIGITS, 1)}${pick(r, ALNUM, 4 + Math.floor(r() * 5))}`,
  ),
  /** One capitalised word, the password people pick when nothing forces more: Sunflower, Wildcat. */
  'capital-word-password': plain((r) => CAPITAL_WORDS[Math.floor(r() * CAPITAL_WORDS.length)]!),
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
  harness: plain((r) => `pat.${pick(r, B64URL, 22)}.${pick(r, HEX, 24)}.${pick(r, ALNUM, 20)}`),
  sourcegraph: plain((r) => `sgp_${pick(r, HEX, 40)}`),
  'octopus-deploy': plain((r) => `API-${pick(r, UPPER + DIGITS, 26)}`),
  openshift: plain((r) => `sha256~${pick(r, B64URL, 43)}`),
  scalingo: plain((r) => `tk-us-${pick(r, B64URL, 48)}`),
  readme: plain((r) => `rdme_${pick(r, LOWER + DIGITS, 70)}`),
  infracost: plain((r) => `ico-${pick(r, ALNUM, 32)}`),
  'docker-swarm': plain((r) => `SWMTKN-1-${pick(r, LOWER + DIGITS, 50)}-${pick(r, LOWER + DIGITS, 25)}`),
  sidekiq: plain((r) => `${pick(r, HEX, 8)}:${pick(r, HEX, 8)}`),
  'adobe-secret': plain((r) => `p8e-${pick(r, ALNUM, 32)}`),
  duffel: plain((r) => `duffel_live_${pick(r, B64URL, 43)}`),
  easypost: plain((r) => `EZAK${pick(r, ALNUM, 54)}`),
  hubspot: plain((r) => `pat-na1-${uuid(r)}`),
  lob: plain((r) => `live_${pick(r, HEX, 35)}`),
  gocardless: plain((r) => `live_${pick(r, ALNUM, 38)}_-`),
  yandex: plain((r) => `AQVN${pick(r, B64URL, 36)}`),
  'newrelic-license': plain((r) => `${pick(r, HEX, 36)}NRAL`),
  shippo: plain((r) => `shippo_live_${pick(r, HEX, 40)}`),
  'plaid-access': plain((r) => `access-production-${uuid(r)}`),
  'branch-key': plain((r) => `key_live_${pick(r, ALNUM, 32)}`),
  firecrawl: plain((r) => `fc-${pick(r, HEX, 32)}`),
  'eth-private-key': plain((r) => `0x${pick(r, HEX, 64)}`),
  'woocommerce-key': plain((r) => `ck_${pick(r, HEX, 40)}`),
  'woocommerce-secret': plain((r) => `cs_${pick(r, HEX, 40)}`),
  'amazon-mws': plain((r) => `amzn.mws.${uuid(r)}`),
  'salesforce-session': plain((r) => `00D${pick(r, ALNUM, 12)}!${pick(r, `${ALNUM}._`, 96)}`),
  'instagram-token': plain((r) => `IGQV${pick(r, UPPER, 2)}${pick(r, LOWER, 2)}${pick(r, B64URL, 140)}`),
  buildkite: plain((r) => `bkua_${pick(r, HEX, 40)}`),
  /** Diceware: four to six lower-case words. */
  passphrase: (r) => {
    const value = Array.from({ length: 4 + Math.floor(r() * 3) }, () => pick(r, LOWER, 4 + Math.floor(r() * 5))).join(
      ' ',
    );
    return { text: value, secrets: [value] };
  },
  mandrill: plain((r) => `md-${pick(r, UPPER, 2)}${pick(r, LOWER, 2)}${pick(r, DIGITS, 2)}${pick(r, B64URL, 16)}`),
  trello: plain((r) => `ATTA${pick(r, HEX, 64)}${pick(r, HEX.toUpperCase().slice(0, 16), 8)}`),
  'posthog-personal': plain((r) => `phx_${pick(r, ALNUM, 43)}`),
  'deno-deploy': plain((r) => `ddp_${pick(r, ALNUM, 36)}`),
  'aws-appsync': plain((r) => `da2-${pick(r, LOWER, 3)}${pick(r, DIGITS, 3)}${pick(r, LOWER + DIGITS, 20)}`),
  'riot-api': plain((r) => `RGAPI-${uuid(r)}`),
  'zapier-hook': (r) => {
    const secret = pick(r, LOWER + DIGITS, 7);
    return { text: `https://hooks.zapier.com/hooks/catch/${pick(r, DIGITS, 7)}/${secret}/`, secrets: [secret] };
  },
  'azure-function-code': plain((r) => `${pick(r, B64, 54)}==`),
  /** Django's get_random_secret_key(): 50 of a-z, 0-9 and !@#$%^&*(-_=+). */
  'django-secret': plain((r) => pick(r, `${LOWER}${DIGITS}!@#%^&*(-_=+)`, 50)),
  /** WordPress salts: 64 printable characters, brackets and semicolons included (no quotes). */
  'wp-salt': plain((r) => pick(r, `${ALNUM}!#%^&*()-_[]{}<>~+=,.;:/?|`, 64)),
};

const CONTEXTUAL = [
  'letters-token',
  'lower-token',
  'dotted-password',
  'capital-word-password',
  'letters-password',
  'chat-password',
  'hex-32',
  'hex-64',
  'cloudflare-global-key',
  'uuid-key',
  'algolia-admin-key',
  'segment-write-key',
  'twitch-chat-oauth',
  'sidekiq',
  'django-secret',
  'wp-salt',
  'eth-private-key',
  'passphrase',
  'azure-function-code',
];

/** Of these, the kinds recognised only by what surrounds them (not self-evident). */
export const LEAK_CONTEXTUAL_KINDS = new Set(CONTEXTUAL);
