// Issue 26: a key that names a secret makes its paired value a candidate
// wherever the pair is written (every assignment operator, name/value pairs in
// JSON, YAML and HAR, cookies, form bodies, query strings, flags), and a
// token is masked whole whatever its length. Values are generated per run
// (seeded), so no case passes on a memorised string.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { ALNUM, B64URL, pick, seededRng } from './secretGen.ts';

// The 300,000-character token takes a few hundred ms; on a loaded machine more than the default
// 2 s scan deadline, which would turn this masking check into a timing one (the deadline has its
// own tests in redactor.test.ts).
const redactor = await createRedactor({ timeoutMs: 60_000 });
const rng = seededRng(26);
const token = () => pick(rng, ALNUM, 32);

/** Each context writes a value under a secret's key; `{v}` is where the value goes. */
const CONTEXTS: [string, string, string?][] = [
  ['=', 'API_TOKEN = "{v}"'],
  [':=', 'password := "{v}"'],
  ['?= (make)', 'API_TOKEN ?= {v}', 'Makefile'],
  ['??= (JavaScript)', "process.env.AWS_SECRET_ACCESS_KEY ??= '{v}';"],
  ['||= (Ruby, JavaScript)', 'config.apiToken ||= "{v}"'],
  ['&&=', 'settings.secretKey &&= "{v}"'],
  ['+=', 'opts.password += "{v}"'],
  [':', 'api_key: "{v}"', 'config.yml'],
  ['=> (PHP, Ruby)', "'api_key' => '{v}',"],
  ['<- (R)', 'api_key <- "{v}"'],
  ['export', 'export API_TOKEN={v}'],
  ['set -x (fish)', 'set -x API_TOKEN {v}'],
  ['set -gx (fish)', "set -gx DB_PASSWORD '{v}'"],
  ['ENV (Dockerfile)', 'ENV API_TOKEN {v}', 'Dockerfile'],
  ['--flag value', 'tool login --api-key {v}'],
  ['--flag=value', 'tool login --api-token={v}'],
  ['JSON name/value', '{"name": "DB_PASSWORD", "value": "{v}"}', 'task.json'],
  ['JSON value before name', '{"value": "{v}", "name": "X-Auth-Token"}', 'capture.json'],
  ['HAR header', '{"name": "X-Api-Key", "value": "{v}"}', 'session.har'],
  ['HAR cookie', '"cookies": [{"name": "_gh_sess", "value": "{v}", "httpOnly": true}]', 'session.har'],
  ['HAR session cookie', '{"name": "sessionid", "value": "{v}"}', 'session.har'],
  ['HAR Cookie header', '{"name": "Cookie", "value": "theme=dark; sessionid={v}"}', 'session.har'],
  ['HAR bearer', '{"name": "Authorization", "value": "Bearer {v}"}', 'session.har'],
  ['YAML name/value', '- name: api_token\n  value: {v}\n', 'deploy.yaml'],
  ['Cookie header', 'Cookie: theme=dark; sessionid={v}'],
  ['query string', 'curl "https://api.example.io/v1/items?access_token={v}&page=2"'],
  ['form body', 'grant_type=client_credentials&client_id=app&client_secret={v}'],
];

test('a secret-named key makes its paired value a candidate in every assignment and pairing syntax', async () => {
  const missed: string[] = [];
  for (const [name, template, path] of CONTEXTS) {
    const value = token();
    const text = template.replace('{v}', value);
    const out = await redactor.redact(text, path === undefined ? {} : { path });
    if (out.text.includes(value) || !out.text.includes('[REDACTED:')) missed.push(`${name}: ${out.text}`);
  }
  assert.deepEqual(missed, []);
});

test('the same contexts keep references and placeholders in place of the value', async () => {
  const changed: string[] = [];
  for (const [name, template, path] of CONTEXTS) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell reference under test
    for (const value of ['${API_TOKEN}', '{{ .Values.apiToken }}', 'changeme']) {
      const text = template.replace('{v}', value);
      const out = await redactor.redact(text, path === undefined ? {} : { path });
      if (out.text !== text) changed.push(`${name}: ${out.text}`);
    }
  }
  assert.deepEqual(changed, []);
});

function jwtOfPayload(length: number): string {
  return `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${pick(rng, B64URL, length)}.${pick(rng, B64URL, 43)}`;
}

test('a token is masked whole whatever its length: bare, after Bearer, in an assignment, across scan pieces', async () => {
  // 300,000 characters is past the redactor's whole-text scan: the text is scanned in overlapping pieces.
  for (const length of [500, 4_500, 9_000, 20_000, 300_000]) {
    const jwt = jwtOfPayload(length);
    const opaque = pick(rng, ALNUM, length);
    const cases = [
      `token ${jwt} end`,
      `Authorization: Bearer ${jwt}\nAccept: */*`,
      `curl -H "Authorization: Bearer ${opaque}" https://api.example.io`,
      `{"name": "Authorization", "value": "Bearer ${opaque}"}`,
    ];
    for (const text of cases) {
      const out = await redactor.redact(text);
      const secret = text.includes(jwt) ? jwt : opaque;
      // No stretch of the token survives: neither its end (the signature) nor any middle part.
      assert.ok(!out.text.includes(secret.slice(-40)), `${length}: the end of the token leaked`);
      assert.ok(!out.text.includes(secret.slice(secret.length >> 1, (secret.length >> 1) + 40)), `${length}: middle`);
      // Masked as one placeholder, with the text around it kept.
      assert.ok(out.text.length < 200, `${length}: ${out.text.length} characters left`);
      assert.ok(out.text.startsWith(text.slice(0, 5)));
    }
  }
});

// A session's id is its credential (whoever holds it is logged in), under whatever name a format gives
// it; and a Kubernetes Secret's entries are secrets in JSON as in YAML, whether `data` decodes to text or
// to bytes (a random key is stored as base64 of its bytes).
test('a session id is masked under each of its names and in each format; a Secret hides every entry in JSON as in YAML', async () => {
  const bytes = () => Buffer.from(Array.from({ length: 24 }, () => Math.floor(rng() * 256))).toString('base64');
  const cases: [string, string, string][] = [];
  for (const key of ['sessionId', 'session_id', 'SESSION_ID', 'sessid', 'JSESSIONID', 'PHPSESSID', 'connect.sid']) {
    const v = token();
    cases.push([`JSON ${key}`, `{"user": "ann", "${key}": "${v}"}`, 'state.json']);
    cases.push([`YAML ${key}`, `user: ann\n${key}: ${v}\n`, 'state.yaml']);
    cases.push([`log ${key}`, `INFO login ok user=ann ${key}=${v}`, 'app.log']);
  }
  const sid = token();
  cases.push(['dotenv', `SESSION_ID=${sid}\n`, '.env']);
  cases.push(['HAR cookie', `{"name": "connect.sid", "value": "s%3A${token()}.${token()}"}`, 'x.har']);
  const secret = (kind: string, body: string) => `{"apiVersion": "v1", "kind": "Secret", "${kind}": {${body}}}`;
  for (const key of ['sessionId', 'session_id', 'encryptionKey', 'blob']) {
    cases.push([`JSON Secret data (bytes) ${key}`, secret('data', `"${key}": "${bytes()}"`), 'secret.json']);
    cases.push([`JSON Secret stringData ${key}`, secret('stringData', `"${key}": "${token()}"`), 'secret.json']);
    cases.push([`YAML Secret data (bytes) ${key}`, `kind: Secret\ndata:\n  ${key}: ${bytes()}\n`, 'secret.yaml']);
    cases.push([`YAML Secret stringData ${key}`, `kind: Secret\nstringData:\n  ${key}: ${token()}\n`, 'secret.yaml']);
  }
  const missed: string[] = [];
  for (const [name, text, path] of cases) {
    const out = await redactor.redact(text, { path });
    if (!out.text.includes('[REDACTED:') || /[A-Za-z0-9+/]{20}/.test(out.text.replace(/\[REDACTED:[^\]]*\]/g, ''))) {
      missed.push(`${name}: ${out.text}`);
    }
  }
  assert.deepEqual(missed, []);

  // Kept: code that reads the id, a type, a reference, a placeholder, and words of base64's shape beside a Secret.
  const kept: [string, string][] = [
    ['const sessionId = req.cookies.sid;\n', 'app.js'],
    ['  sessionId: string;\n', 'types.ts'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell reference under test
    ['SESSION_ID=${SESSION_ID}\n', '.env'],
    ['{"sessionId": "<session-id>"}', 'doc.json'],
    ['kind: Secret\nmetadata:\n  name: app\n---\nkind: Pod\nspec:\n  app: test\n  policy: IfNotPresent\n', 'all.yaml'],
  ];
  for (const [text, path] of kept) assert.equal((await redactor.redact(text, { path })).text, text, text);
});
