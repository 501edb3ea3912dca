// Secret shapes beyond the corpus templates, and false-positive traps found
// by running the redactor over real packages.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { ALNUM, B64, githubToken, HEX, password, pick, privateKey, seededRng } from './secretGen.ts';

const redactor = await createRedactor();
const rng = seededRng(2024);

test('more places secrets hide are masked', async () => {
  const aws = pick(rng, B64, 40);
  const pem = privateKey(rng, 'ec-p256');
  const cases: [string, string][] = [
    [`[default]\naws_secret_access_key = ${aws}\n`, aws],
    [`{"Credentials": {"SecretAccessKey": "${aws}"}}`, aws],
    ...((): [string, string][] => {
      const v = pick(rng, HEX, 128);
      return [[`SECRET_KEY_BASE=${v}`, v]];
    })(),
    ...((): [string, string][] => {
      const v = Buffer.from(pem).toString('base64');
      return [[`users:\n- name: prod\n  user:\n    client-key-data: ${v}\n`, v]];
    })(),
    ...((): [string, string][] => {
      const v = pick(rng, ALNUM, 32);
      return [
        [`Cookie: _ga=GA1.2.3; session=${v}`, v],
        [`Set-Cookie: sessionid=${v}; Path=/; HttpOnly`, v],
        [`curl "https://api.acme.dev/data?api_key=${v}"`, v],
        [`let r = client.get(url).bearer_auth("${v}").send();`, v],
        [`keytool -genkey -keystore app.jks -storepass ${v}`, v],
        [`$cred = ConvertTo-SecureString "${v}" -AsPlainText -Force`, v],
        [`<add key="ApiSecret" value="${v}" />`, v],
        [`export DATADOG_API_KEY=${v}`, v],
        [`props.setProperty("password", "${v}");`, v],
        [`my api key is ${v.slice(0, 20)}1`, `${v.slice(0, 20)}1`],
      ];
    })(),
    ...((): [string, string][] => {
      const p = password(rng);
      return [
        [`docker run -e MYSQL_ROOT_PASSWORD=${p} -d mysql:8`, p],
        [`helm install app ./chart --set postgresql.auth.password=${p}`, p],
        [`mysql -h db -u root -p${p} app`, p],
        [`{"username":"bob","password":"${p}"}`, p],
        [`password: "velvet orbit tundra marble"`, 'velvet orbit tundra marble'],
      ];
    })(),
    ...((): [string, string][] => {
      const t = githubToken(rng, 'ghp');
      return [
        [`$ echo $GITHUB_TOKEN\n${t}\n`, t],
        [`git remote add origin https://octocat:${t}@github.com/o/r.git`, t],
        [`machine github.com login octocat password ${t}`, t],
      ];
    })(),
    [
      'MNEMONIC="abandon ability able about above absent absorb abstract absurd abuse access accident"',
      'abandon ability able',
    ],
  ];
  for (const [text, secret] of cases) {
    const out = await redactor.redact(text);
    assert.ok(!out.text.includes(secret), `not masked: ${out.text}`);
  }
});

test('false-positive traps pass through byte for byte', async () => {
  const texts = [
    '"@secretlint/secretlint-rule-1password": "11.7.1",',
    'exports.X_HONO_DISABLE_SSG_HEADER_KEY = require_helper_ssg_middleware.X_HONO_DISABLE_SSG_HEADER_KEY;',
    'const deDupeByKey = require_jsx_intrinsic_element_common.shouldDeDupeByKey;',
    '"Please create an ephemeral session token:\\nhttps://platform.openai.com/docs/api-reference"',
    "localStorage.setItem('token', 'jwt_abc123');",
    "const pass = 'pa$$word'",
    'password: "p@ssw0rd"',
    'tokens = tokenizer.encode(text)\nmax_tokens: 4096\ntoken_count = len(tokens)',
    'secret_name: db-credentials\nsecretName: api-tls',
    'DJANGO_SECRET_KEY=$(openssl rand -hex 32)',
    'access_token: "{{ access_token }}"',
    'password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6231336539666234306139346433616338',
    'STRIPE_PUBLISHABLE_KEY=pk_live_51HqT2xKj8mNp3Qr5St7Uv1Wx4Yz6Ab8Cd0Ef2Gh4J',
    'PUBLIC_KEY=MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEq8Xm2Yb0w6n3Xo6h0mN1m2y5pW6C',
    'const cacheKey = "user:123:profile";',
    'API_KEY=test-key\nDB_PASSWORD=super-secret-password\ntoken = "not-a-real-token"',
    '<input type="password" value="">',
    'password_regex = r"^(?=.*[A-Z])(?=.*\\d).{12,}$"',
    'The token expires in 3600 seconds.',
    'const accessToken = session?.access_token ?? null;',
    "KeyError: 'api_key'\nTypeError: Cannot read properties of undefined (reading 'token')",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Spring placeholder syntax under test, not a template
    'client-secret: ${GITHUB_CLIENT_SECRET}',
    'password = getpass.getpass("Password: ")\ntoken = input("Paste your token: ")',
    'return {"access_token": token, "token_type": "bearer"}',
    "const token = jwt.sign({ sub: user.id }, secret, { expiresIn: '1h' });",
    "password: <%= ENV['DATABASE_PASSWORD'] %>",
    '  password: "{{ .Values.db.password }}"',
    "credentials: 'include',",
    'AUTH_SECRET=# generate with `openssl rand -base64 32`',
  ];
  for (const text of texts) assert.equal((await redactor.redact(text)).text, text, text);
});
