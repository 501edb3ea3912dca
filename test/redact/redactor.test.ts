import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor, RedactionTimeoutError } from '../../src/redact/createRedactor.ts';
import { cpuMs } from '../support/cpuTime.ts';
import { ALNUM, B64, githubToken, password, pemBodyLines, pick, privateKey, seededRng } from './secretGen.ts';

const redactor = await createRedactor();
const rng = seededRng(42);

test('masks the value and keeps the line: DB_PASSWORD=[REDACTED:…]', async () => {
  const secret = password(rng);
  const out = await redactor.redact(`DB_HOST=db\nDB_PASSWORD=${secret}\nDB_PORT=5432\n`);
  assert.match(out.text, /^DB_HOST=db\nDB_PASSWORD=\[REDACTED:secret-[a-z-]+\]\nDB_PORT=5432\n$/);
  assert.equal(out.findings.length, 1);
});

test('AWS secret key: the 40 characters are masked, not the key name', async () => {
  const secret = pick(rng, B64, 40);
  const text = `aws_secret_access_key = ${secret}\n`;
  const out = await redactor.redact(text);
  assert.ok(out.text.startsWith('aws_secret_access_key = [REDACTED:'));
  assert.ok(!out.text.includes(secret.slice(-8)));
  const [finding] = out.findings;
  assert.equal(text.slice(finding!.start, finding!.end), secret);
});

test('AWS access key id is masked (secretlint has it off by default)', async () => {
  const id = `AKIA${pick(rng, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
  const out = await redactor.redact(`key id ${id} in a log line`);
  assert.equal(out.text, 'key id [REDACTED:aws-access-key-id] in a log line');
});

test('GitHub token with a valid CRC32 suffix is masked wherever it is', async () => {
  const token = githubToken(rng, 'ghp');
  for (const text of [
    `token=${token}`,
    `git push https://${token}@github.com/a/b`,
    `"${token}"`,
    `commit message: leaked ${token}.`,
  ]) {
    const out = await redactor.redact(text);
    assert.ok(!out.text.includes(token), text);
  }
});

for (const kind of ['rsa-pkcs1', 'rsa-pkcs8', 'ec-p256', 'ed25519', 'encrypted-pkcs8', 'openssh', 'pgp'] as const) {
  test(`private key ${kind}: body masked, BEGIN/END lines kept, also behind diff +, YAML indent and JSON \\n`, async () => {
    const pem = privateKey(rng, kind).trimEnd();
    const lines = pem.split('\n');
    const variants = {
      plain: pem,
      diff: lines.map((l) => `+${l}`).join('\n'),
      yaml: `tls:\n  key: |\n${lines.map((l) => `    ${l}`).join('\n')}\n  other: 1`,
      json: `{"private_key": "${lines.join('\\n')}\\n", "x": 1}`,
    };
    for (const [name, text] of Object.entries(variants)) {
      const out = await redactor.redact(text);
      for (const line of pemBodyLines(pem)) assert.ok(!out.text.includes(line), `${kind}/${name} leaks a body line`);
      assert.ok(out.text.includes(lines[0]!), `${kind}/${name} lost the BEGIN line`);
      assert.ok(out.text.includes(lines.at(-1)!), `${kind}/${name} lost the END line`);
    }
  });
}

test('a secretlint-disable comment cannot switch detection off', async () => {
  const token = githubToken(rng, 'ghs');
  const out = await redactor.redact(`// secretlint-disable\nconst t = "${token}";\n// secretlint-enable\n`);
  assert.ok(!out.text.includes(token));
});

test('findings carry rule id and range only (never secretlint message text)', async () => {
  const secret = pick(rng, ALNUM, 24);
  const out = await redactor.redact(`url: https://deploy:${secret}@ci.internal.dev/x\n`);
  assert.ok(out.findings.length > 0);
  for (const finding of out.findings) assert.deepEqual(Object.keys(finding).sort(), ['end', 'ruleId', 'start']);
  assert.ok(!JSON.stringify(out.findings).includes(secret));
});

test('overlapping findings are merged into one mask', async () => {
  // The env rule and the generic rule both see this value.
  const secret = pick(rng, ALNUM, 32);
  const out = await redactor.redact(`API_TOKEN="${secret}"`);
  assert.equal(out.findings.length, 1);
  assert.equal((out.text.match(/\[REDACTED:/g) ?? []).length, 1);
});

test('placeholders and references pass through byte for byte', async () => {
  const texts = [
    'OPENAI_API_KEY=YOUR_API_KEY',
    'export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    'token: <token>',
    'password: changeme',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax under test, not a template
    'DB_PASSWORD=${DB_PASSWORD}',
    'api_key = os.environ["OPENAI_API_KEY"]',
    'password = os.getenv("DB_PASSWORD")',
    'const key = process.env.API_KEY;',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions syntax under test, not a template
    'NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}',
    'secret: dummy',
    'API_KEY=example',
    'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'password: string;',
    'const PASSWORD_MIN_LENGTH = 12;',
    'curl -H "Authorization: Bearer $TOKEN" https://api.acme.dev',
    'postgres://user:password@localhost:5432/app',
  ];
  for (const text of texts) {
    const out = await redactor.redact(text);
    assert.equal(out.text, text, text);
  }
});

test('hashes, ids and data URIs are not secrets', async () => {
  const texts = [
    '"integrity": "sha512-PYAthTa2m2VKxuvSD3DPC/Gy+U+sOA1LAuT8mkmRuvw+NACSaeXEQ+NHcVF7rONl6qcaxV3Uuemwawk+7+SJLw=="',
    'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
    'request_id=7c9e6679-7425-40de-944b-e07fc1f90ae7',
    'background: url("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAGXRFWHRTb2Z0d2FyZQ==")',
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq3nV7Vx8hZQ0r4a1nYh0c5C8G7lH5l2R8XJ0H3r9sK alex@laptop',
    'STRIPE_PUBLISHABLE_KEY=pk_live_51HqT2xKj8mNp3Qr5St7Uv1Wx4Yz6Ab8Cd0Ef2Gh4J',
  ];
  for (const text of texts) assert.equal((await redactor.redact(text)).text, text, text);
});

test('Kubernetes Secret data: base64 values that decode to a secret are masked, usernames and names are not', async () => {
  const secret = password(rng);
  const b64 = Buffer.from(secret).toString('base64');
  const text = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: prod\ndata:\n  username: YXBpLXNlcnZpY2U=\n  db-pass: ${b64}\n`;
  const out = await redactor.redact(text);
  assert.ok(!out.text.includes(b64));
  assert.ok(out.text.includes('  name: creds\n  namespace: prod\n'));
  assert.ok(out.text.includes('username: YXBpLXNlcnZpY2U='));
});

test('path-aware rules apply only with a matching --path', async () => {
  const secret = password(rng);
  // An unusual port: lines on the Postgres ports are masked anywhere (pgpass-line).
  const text = `db.internal:7000:app:app:${secret}\n`;
  assert.ok(!(await redactor.redact(text, { path: '.pgpass' })).text.includes(secret));
  assert.equal((await redactor.redact(text, { path: 'notes.txt' })).text, text);
});

test('cache: an unchanged item returns the same result, and a copy', async () => {
  const text = `TOKEN=${pick(rng, ALNUM, 40)}\n`.repeat(50);
  const first = await redactor.redact(text, { path: 'a.env' });
  first.findings[0]!.start = -1;
  const second = await redactor.redact(text, { path: 'a.env' });
  assert.equal(second.text, first.text);
  assert.notEqual(second.findings[0]!.start, -1);
  // A hit does not scan again: it costs a small part of a scan of the same text, both counted in CPU time
  // (cpuTime.ts) so that a loaded machine slows neither. Measured: a hit ~0.006 ms, a scan ~7 ms.
  const uncached = await createRedactor({ cacheMaxChars: 0 });
  const hits = await cpuMs(async () => {
    for (let i = 0; i < 200; i++) await redactor.redact(text, { path: 'a.env' });
  });
  const scans = await cpuMs(async () => {
    for (let i = 0; i < 20; i++) await uncached.redact(text, { path: 'a.env' });
  });
  const [perHit, perScan] = [hits.ms / 200, scans.ms / 20];
  assert.ok(perHit * 20 < perScan, `a cache hit took ${perHit} ms of CPU, a scan ${perScan} ms`);
});

test('cache off (cacheMaxChars 0): every call scans and masks', async () => {
  const uncached = await createRedactor({ cacheMaxChars: 0 });
  const secret = pick(rng, ALNUM, 40);
  for (let i = 0; i < 2; i++) {
    const out = await uncached.redact(`TOKEN=${secret}\n`, { path: 'a.env' });
    assert.ok(!out.text.includes(secret));
    assert.equal(out.findings.length, 1);
  }
});

test('a scan past the deadline rejects with RedactionTimeoutError', async () => {
  let clock = 0;
  const slow = await createRedactor({ timeoutMs: 50, deps: { now: () => (clock += 20) } });
  await assert.rejects(
    slow.redact(`password = "${password(rng)}"\ntoken: ${pick(rng, ALNUM, 30)}`),
    RedactionTimeoutError,
  );
});

test('pathological inputs stay fast (no quadratic or catastrophic backtracking)', async () => {
  // Inline: this measures the rules, not a worker's start (test/shared/cpuPool.test.ts covers the pool).
  const slowest = await createRedactor({ timeoutMs: 60_000, pool: false });
  const inputs = [
    'a'.repeat(200_000),
    pick(rng, B64, 200_000),
    '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(5000),
    `-----BEGIN PRIVATE KEY-----\n${`${pick(rng, B64, 64)}\n`.repeat(2000)}`,
    'password='.repeat(20_000),
    'api_key: abc\n'.repeat(10_000),
    `ghp_${'A'.repeat(100_000)}`,
    '"'.repeat(100_000),
    // A Secret's `stringData:` value whose blanks run on before the line's end: a lazy value beside a trailing
    // `[ \t]*` tried every split of the run (quadratic in the line).
    `stringData:\n  password: a${' '.repeat(60_000)}b\n`,
  ];
  for (const text of inputs) {
    // CPU time, not the clock's (cpuTime.ts): quadratic work on 200,000 characters would take minutes.
    const { ms } = await cpuMs(() => slowest.redact(text));
    assert.ok(ms < 3000, `${ms} ms of CPU for ${JSON.stringify(text.slice(0, 30))}…`);
  }
});
