// Every kind of secret the corpus plants, as a generator: what is inserted
// into a template, and which strings must not survive redaction.

import {
  ALNUM,
  B64,
  B64URL,
  DIGITS,
  githubToken,
  HEX,
  jwt,
  type Kind,
  LOWER,
  type PrivateKeyKind,
  password,
  pemBodyLines,
  pick,
  plain,
  privateKey,
  type Rng,
  UPPER,
} from './secretGen.ts';

export type { Planted } from './secretGen.ts';

import { LEAK_KINDS } from './secretKindsLeaks.ts';
import { MORE_KINDS } from './secretKindsMore.ts';

const pem =
  (kind: PrivateKeyKind): Kind =>
  (rng) => {
    const key = privateKey(rng, kind);
    return { text: key.trimEnd(), secrets: pemBodyLines(key) };
  };

const urlSafePassword = (rng: Rng) =>
  `${pick(rng, ALNUM, 6)}%40${pick(rng, ALNUM, 5)}&${pick(rng, ALNUM, 3)}=${pick(rng, ALNUM, 4)}`;

export const SECRET_KINDS: Record<string, Kind> = {
  'aws-access-key-id': plain((r) => `AKIA${pick(r, `${UPPER}234567`, 16)}`),
  'aws-temp-key-id': plain((r) => `ASIA${pick(r, `${UPPER}234567`, 16)}`),
  'aws-secret-access-key': plain((r) => pick(r, B64, 40)),
  'github-pat': plain((r) => githubToken(r, 'ghp')),
  'github-oauth': plain((r) => githubToken(r, 'gho')),
  'github-app': plain((r) => githubToken(r, 'ghs')),
  'github-user-to-server': plain((r) => githubToken(r, 'ghu')),
  'github-refresh': plain((r) => githubToken(r, 'ghr')),
  'github-fine-grained': plain((r) => `github_pat_${pick(r, ALNUM, 22)}_${pick(r, ALNUM, 59)}`),
  'gitlab-pat': plain((r) => `glpat-${pick(r, B64URL, 20)}`),
  'gitlab-runner': plain((r) => `glrt-${pick(r, B64URL, 20)}`),
  'slack-bot': plain((r) => `xoxb-${pick(r, DIGITS, 12)}-${pick(r, DIGITS, 13)}-${pick(r, ALNUM, 24)}`),
  'slack-user': plain(
    (r) => `xoxp-${pick(r, DIGITS, 12)}-${pick(r, DIGITS, 12)}-${pick(r, DIGITS, 13)}-${pick(r, HEX, 32)}`,
  ),
  'slack-webhook': (r) => {
    const secret = pick(r, ALNUM, 24);
    return {
      text: `https://hooks.slack.com/services/T${pick(r, UPPER + DIGITS, 8)}/B${pick(r, UPPER + DIGITS, 10)}/${secret}`,
      secrets: [secret],
    };
  },
  'stripe-live': plain((r) => `sk_live_${pick(r, ALNUM, 99)}`),
  'stripe-test': plain((r) => `sk_test_${pick(r, ALNUM, 24)}`),
  'stripe-restricted': plain((r) => `rk_live_${pick(r, ALNUM, 24)}`),
  'stripe-webhook': plain((r) => `whsec_${pick(r, ALNUM, 32)}`),
  'openai-project': plain((r) => `sk-proj-${pick(r, B64URL, 58)}T3BlbkFJ${pick(r, B64URL, 58)}`),
  'openai-legacy': plain((r) => `sk-${pick(r, ALNUM, 20)}T3BlbkFJ${pick(r, ALNUM, 20)}`),
  'openai-svcacct': plain((r) => `sk-svcacct-${pick(r, B64URL, 74)}`),
  'anthropic-api': plain((r) => `sk-ant-api03-${pick(r, B64URL, 93)}AA`),
  'anthropic-admin': plain((r) => `sk-ant-admin01-${pick(r, B64URL, 93)}AA`),
  'google-api': plain((r) => `AIza${pick(r, B64URL, 35)}`),
  'google-oauth-secret': plain((r) => `GOCSPX-${pick(r, B64URL, 28)}`),
  'google-access-token': plain((r) => `ya29.a0${pick(r, B64URL, 120)}`),
  'azure-storage-key': plain((r) => `${pick(r, B64, 86)}==`),
  'azure-ad-secret': plain((r) => `${pick(r, ALNUM, 3)}${pick(r, DIGITS, 1)}Q~${pick(r, `${ALNUM}_~.-`, 34)}`),
  jwt: plain(jwt),
  pypi: plain((r) => `pypi-AgEIcHlwaS5vcmc${pick(r, B64URL, 70)}`),
  'twilio-api-key': plain((r) => `SK${pick(r, HEX, 32)}`),
  'mailgun-key': plain((r) => `key-${pick(r, HEX, 32)}`),
  'mailgun-private': plain((r) => `${pick(r, HEX, 32)}-${pick(r, HEX, 8)}-${pick(r, HEX, 8)}`),
  'discord-bot': plain((r) => `M${pick(r, ALNUM, 23)}.${pick(r, B64URL, 6)}.${pick(r, B64URL, 38)}`),
  'discord-webhook': (r) => {
    const secret = pick(r, B64URL, 68);
    return { text: `https://discord.com/api/webhooks/${pick(r, DIGITS, 18)}/${secret}`, secrets: [secret] };
  },
  telegram: plain((r) => `${pick(r, DIGITS, 10)}:AA${pick(r, B64URL, 33)}`),
  digitalocean: plain((r) => `dop_v1_${pick(r, HEX, 64)}`),
  age: plain((r) => `AGE-SECRET-KEY-1${pick(r, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58)}`),
  'sentry-dsn': (r) => {
    const key = pick(r, HEX, 32);
    return { text: `https://${key}@o${pick(r, DIGITS, 6)}.ingest.sentry.io/${pick(r, DIGITS, 7)}`, secrets: [key] };
  },
  'sentry-user-token': plain((r) => `sntryu_${pick(r, HEX, 64)}`),
  'vault-short': plain((r) => `hvs.${pick(r, ALNUM, 24)}`),
  'vault-long': plain((r) => `hvs.CAESI${pick(r, B64URL, 90)}`),
  npm: plain((r) => `npm_${pick(r, ALNUM, 36)}`),
  sendgrid: plain((r) => `SG.${pick(r, ALNUM, 10)}-${pick(r, ALNUM, 11)}.${pick(r, ALNUM, 20)}-${pick(r, ALNUM, 22)}`),
  huggingface: plain((r) => `hf_${pick(r, LOWER + UPPER, 34)}`),
  shopify: plain((r) => `shpat_${pick(r, HEX, 32)}`),
  linear: plain((r) => `lin_api_${pick(r, ALNUM, 40)}`),
  databricks: plain((r) => `dapi${pick(r, HEX, 32)}`),
  doppler: plain((r) => `dp.pt.${pick(r, ALNUM, 43)}`),
  grafana: plain((r) => `glsa_${pick(r, ALNUM, 32)}_${pick(r, HEX, 8)}`),
  'new-relic': plain((r) => `NRAK-${pick(r, UPPER + DIGITS, 27)}`),
  postman: plain((r) => `PMAK-${pick(r, HEX, 24)}-${pick(r, HEX, 34)}`),
  groq: plain((r) => `gsk_${pick(r, ALNUM, 52)}`),
  replicate: plain((r) => `r8_${pick(r, ALNUM, 37)}`),
  'docker-hub': plain((r) => `dckr_pat_${pick(r, B64URL, 27)}`),
  heroku: plain((r) => `HRKU-${pick(r, B64URL, 60)}`),
  'square-token': plain((r) => `sq0atp-${pick(r, B64URL, 22)}`),
  'mailchimp-key': plain((r) => `${pick(r, HEX, 32)}-us${1 + Math.floor(r() * 20)}`),
  'private-key-rsa': pem('rsa-pkcs1'),
  'private-key-pkcs8': pem('rsa-pkcs8'),
  'private-key-ec': pem('ec-p256'),
  'private-key-ed25519': pem('ed25519'),
  'private-key-encrypted': pem('encrypted-pkcs8'),
  'private-key-openssh': pem('openssh'),
  'private-key-pgp': pem('pgp'),
  password: plain((r) => password(r)),
  'hex-token': plain((r) => pick(r, HEX, 40)),
  'random-token': plain((r) => pick(r, ALNUM, 32)),
  'url-password': plain(urlSafePassword),
  'basic-auth-b64': (r) => {
    const pass = password(r);
    const value = Buffer.from(`deploy:${pass}`).toString('base64');
    return { text: value, secrets: [value] };
  },
  'k8s-b64-password': (r) => {
    const pass = password(r);
    const value = Buffer.from(pass).toString('base64');
    return { text: value, secrets: [value] };
  },
  'docker-auth': (r) => {
    const value = Buffer.from(`robot$ci:${pick(r, ALNUM, 32)}`).toString('base64');
    return { text: value, secrets: [value] };
  },
  ...MORE_KINDS,
  ...LEAK_KINDS,
};
