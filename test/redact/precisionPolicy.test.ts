// The precision policy (src/redact/README.md): what a careful reviewer leaves
// alone stays byte for byte, and the same places with a real-looking value
// are still masked. The trap files are bench/precision/traps/<kind>/, one
// folder per kind of false positive the issue names; the bench counts them
// too, this test keeps them at zero.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';

const TRAPS = join(import.meta.dirname, '../../bench/precision/traps');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

test('every trap file (test values, local dev defaults, encrypted values, references, diffs) stays byte for byte', async () => {
  const redactor = await createRedactor();
  const kinds = readdirSync(TRAPS).sort();
  assert.deepEqual(kinds, ['diff-references', 'encrypted', 'local-dev', 'references', 'test-values']);
  const changed: string[] = [];
  let count = 0;
  for (const kind of kinds) {
    for (const file of files(join(TRAPS, kind))) {
      count++;
      const text = readFileSync(file, 'utf8');
      const path = relative(join(TRAPS, kind), file).replace(/\.fixture$/, '');
      const result = await redactor.redact(text, { path });
      if (result.text !== text) changed.push(`${kind}/${path}: ${result.findings.map((f) => f.ruleId).join(', ')}`);
    }
  }
  assert.ok(count >= 35, `${count} trap files`);
  assert.deepEqual(changed, []);
});

test('the same places with a real-looking value are still masked', async () => {
  const redactor = await createRedactor();
  const cases: [string, string, string][] = [
    // A real-looking key in a test file is still a key.
    [
      'test/login.test.ts',
      "await login({ email: 'alice@example.com', password: 'Xk9#mQ2vL7pR4tW8' });",
      'Xk9#mQ2vL7pR4tW8',
    ],
    [
      'spec/fixtures/users.yml',
      'admin:\n  api_token: 7rEZK38DJl58A7RxA6EC7lLvUHbBQ1\n',
      '7rEZK38DJl58A7RxA6EC7lLvUHbBQ1',
    ],
    // A connection string is judged by its password, not by its host.
    ['docker-compose.yml', 'DATABASE_URL: postgres://postgres:q7Vz2mKp9xLw@db:5432/app_dev\n', 'q7Vz2mKp9xLw'],
    ['.env.example', 'DATABASE_URL=postgres://app:q7Vz2mKp9xLw@localhost:5432/app\n', 'q7Vz2mKp9xLw'],
    // A reference keeps only what is a reference: a literal fallback behind it goes.
    ['config/app.ts', "+  githubToken: process.env.GITHUB_TOKEN ?? 'Zq8vN3kX7pL2mW9rT4yB',", 'Zq8vN3kX7pL2mW9rT4yB'],
    // A product's name with a year is a chosen password, not its default.
    ['ci/jenkins.yml', 'jenkins_admin_password: Jenkins2024!\n', 'Jenkins2024!'],
    // A product's name with a random tail is not its default.
    ['compose.yaml', 'POSTGRES_PASSWORD: postgres-Zq8vN3kX7pL2\n', 'postgres-Zq8vN3kX7pL2'],
    // A made-up word with a typo is allowed only next to the word itself, not any passphrase.
    ['test/auth.test.ts', 'password: "velvet orbit tundra marble"', 'velvet orbit tundra marble'],
  ];
  for (const [path, text, secret] of cases) {
    const out = (await redactor.redact(text, { path })).text;
    assert.ok(!out.includes(secret), `${path}: ${out}`);
  }
});

test('obviously fake values named in the issue stay wherever they are', async () => {
  const redactor = await createRedactor();
  const keep: [string, string][] = [
    ['test/login.test.ts', "login({ email: 'a@example.com', password: 'correct horse battery staple' })"],
    ['__tests__/signup.spec.js', "signup({ username: 'testuser', password: 'wrong-password' })"],
    ['docker-compose.yml', 'DATABASE_URL: postgres://postgres:postgres@localhost:5432/app_dev'],
    ['docker-compose.yml', 'MONGO_URL: mongodb://root:example@mongo:27017'],
    ['.env.example', 'REDIS_URL=redis://:redis@127.0.0.1:6379/0'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell reference, on purpose
    ['docker-compose.yml', 'API_TOKEN: ${API_TOKEN:?API_TOKEN must be set}'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell reference, on purpose
    ['docker-compose.yml', 'DB_PASSWORD: ${DB_PASSWORD:-}'],
    ['templates/secret.yaml', 'kind: Secret\nstringData:\n  password: {{ .Values.password }}\n'],
    ['settings.ini', 'password = %(DB_PASSWORD)s'],
    ['config/database.yml', 'password: <%= ENV["DB_PASSWORD"] %>'],
    ['deploy.sh', 'DB_PASSWORD="$(cat /run/secrets/db_password)"'],
    ['change.diff', '+  githubToken: process.env.GITHUB_TOKEN,'],
    [
      'secrets.enc.yaml',
      'api_token: ENC[AES256_GCM,data:Tr8XDgEivnQ=,iv:3o5yJ0cYGmc1nFBnGbNqf7yP1yq2cQyO7yE7yTtq1eQ=,tag:p2ZqG7/3yq==,type:str]',
    ],
    [
      'group_vars/all/vault.yml',
      'db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  3863366131386461646138323863386365366466356566333763383935\n',
    ],
  ];
  for (const [path, text] of keep) {
    const result = await redactor.redact(text, { path });
    assert.equal(result.text, text, `${path}: ${result.findings.map((f) => f.ruleId).join(', ')}`);
  }
});
