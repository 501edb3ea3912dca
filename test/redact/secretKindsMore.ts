// Secret kinds added after an outside look at the corpus: formats and
// styles that scanners' own test fixtures use and the first corpus lacked
// (short camelCase names, word passwords, hashes, webhooks, platform tokens).

import { ALNUM, B64, B64URL, DIGITS, HEX, type Kind, LOWER, pick, plain, type Rng } from './secretGen.ts';

const uuid = (r: Rng) =>
  `${pick(r, HEX, 8)}-${pick(r, HEX, 4)}-4${pick(r, HEX, 3)}-a${pick(r, HEX, 3)}-${pick(r, HEX, 12)}`;
const BCRYPT = `./${ALNUM}`;
const BASE32_LOWER = 'abcdefghijklmnopqrstuvwxyz234567';
/** Syllables, so a word password is pronounceable rather than one of the placeholder words. */
const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tav', 'qu', 'zor', 'bel', 'dun', 'fis', 'gar', 'hol', 'nip', 'vex', 'wul'];

export const MORE_KINDS: Record<string, Kind> = {
  /** Letters and digits only, ten to sixteen characters: what people type for a dev database. */
  'short-password': plain((r) => `${pick(r, ALNUM, 9 + Math.floor(r() * 6))}${pick(r, DIGITS, 1)}`),
  /** Letters only, lower case: POSTGRES_PASSWORD: kalomiren. */
  'word-password': plain((r) =>
    Array.from({ length: 3 + Math.floor(r() * 3) }, () => SYLLABLES[Math.floor(r() * SYLLABLES.length)]).join(''),
  ),
  'sigv4-signature': plain((r) => pick(r, HEX, 64)),
  'htpasswd-apr1': plain((r) => `$apr1$${pick(r, ALNUM, 8)}$${pick(r, BCRYPT, 22)}`),
  'htpasswd-bcrypt': plain((r) => `$2y$10$${pick(r, BCRYPT, 53)}`),
  'shadow-sha512': plain((r) => `$6$${pick(r, ALNUM, 8)}$${pick(r, BCRYPT, 86)}`),
  'gcp-private-key-id': plain((r) => pick(r, HEX, 40)),
  'azure-sas-key': plain((r) => `${pick(r, B64, 43)}=`),
  'heroku-uuid': plain(uuid),
  'fcm-server-key': plain((r) => `AAAA${pick(r, B64URL, 7)}:APA91b${pick(r, B64URL, 134)}`),
  atlassian: plain((r) => `ATATT3xFfGF0${pick(r, B64URL, 170)}=${pick(r, HEX.toUpperCase().slice(0, 16), 8)}`),
  okta: plain((r) => `00${pick(r, B64URL, 40)}`),
  'datadog-api-key': plain((r) => pick(r, HEX, 32)),
  'datadog-app-key': plain((r) => pick(r, HEX, 40)),
  'cloudflare-token': plain((r) => pick(r, B64URL, 40)),
  pulumi: plain((r) => `pul-${pick(r, HEX, 40)}`),
  supabase: plain((r) => `sbp_${pick(r, HEX, 40)}`),
  planetscale: plain((r) => `pscale_tkn_${pick(r, B64URL, 43)}`),
  perplexity: plain((r) => `pplx-${pick(r, ALNUM, 48)}`),
  xai: plain((r) => `xai-${pick(r, ALNUM, 80)}`),
  'openai-proj-long': plain((r) => `sk-proj-${pick(r, B64URL, 156)}`),
  sonar: plain((r) => `squ_${pick(r, HEX, 40)}`),
  'grafana-cloud': plain((r) => `glc_${pick(r, B64, 60)}`),
  'azure-devops-pat': plain((r) => pick(r, BASE32_LOWER, 52)),
  'launchdarkly-sdk': plain((r) => `sdk-${uuid(r)}`),
  'hf-alnum': plain((r) => `hf_${pick(r, ALNUM, 34)}`),
  'newrelic-ingest': plain((r) => `NRII-${pick(r, B64URL, 32)}`),
  'teams-webhook': (r) => {
    const secret = `${uuid(r)}@${uuid(r)}/IncomingWebhook/${pick(r, HEX, 32)}/${uuid(r)}`;
    return { text: `https://contoso.webhook.office.com/webhookb2/${secret}`, secrets: [secret] };
  },
  'telegram-url': (r) => {
    const token = `${pick(r, DIGITS, 10)}:AA${pick(r, B64URL, 33)}`;
    return { text: `https://api.telegram.org/bot${token}/sendMessage`, secrets: [token] };
  },
  'basic-header': (r) => {
    const value = Buffer.from(`${pick(r, LOWER, 6)}:${pick(r, ALNUM, 14)}`).toString('base64');
    return { text: value, secrets: [value] };
  },
  'mistral-key': plain((r) => pick(r, ALNUM, 32)),
  'vercel-token': plain((r) => pick(r, ALNUM, 24)),
  'twilio-auth-token': plain((r) => pick(r, HEX, 32)),
  'cohere-key': plain((r) => pick(r, ALNUM, 40)),
};

/** Kinds recognised only by what surrounds them (a key name, a header, a `user:` prefix): not self-evident. */
export const CONTEXTUAL_KINDS = new Set([
  'short-password',
  'word-password',
  'sigv4-signature',
  'htpasswd-apr1',
  'htpasswd-bcrypt',
  'shadow-sha512',
  'gcp-private-key-id',
  'azure-sas-key',
  'heroku-uuid',
  'okta',
  'datadog-api-key',
  'datadog-app-key',
  'cloudflare-token',
  'azure-devops-pat',
  'launchdarkly-sdk',
  'basic-header',
  'mistral-key',
  'vercel-token',
  'twilio-auth-token',
  'cohere-key',
]);
