// Recall per context and per kind (issue 26): every secret kind the corpus
// plants (test/redact/secretKinds.ts, random values, seeded), written under a
// secret's key in each assignment and pairing syntax and in the formats a
// value travels in (JSON, YAML, HAR, cookies, URLs, headers, logs, diffs,
// notebooks, prose). A planted value counts as found when none of its secret
// strings survives. Multi-line kinds (PEM keys) go only where a value can span
// lines as written (JSON-escaped, a YAML block, a diff, a notebook cell).
//
//   node --import tsx bench/redact/contexts.ts [--seeds 3] [--verbose]

import { createRedactor } from '../../src/redact/createRedactor.ts';
import { seededRng } from '../../test/redact/secretGen.ts';
import { SECRET_KINDS } from '../../test/redact/secretKinds.ts';

const argv = process.argv.slice(2);
const seeds = argv.includes('--seeds') ? Number(argv[argv.indexOf('--seeds') + 1]) : 3;
const verbose = argv.includes('--verbose');

/**
 * `{v}` is the value as written; `{j}` the value JSON-escaped; `{u}` percent-encoded, as a URL, a form
 * body or a cookie carries it; `{q}` as logfmt writes it (quoted when it holds a blank or a quote).
 * `{x}` XML-escaped. `lines`: a multi-line value fits.
 */
interface Context {
  name: string;
  template: string;
  path?: string;
  lines?: boolean;
}

const CONTEXTS: Context[] = [
  { name: '= (dotenv)', template: 'API_TOKEN={v}', path: '.env.example' },
  { name: ':= (Go, make)', template: 'apiToken := "{v}"', path: 'main.go' },
  { name: '?= (make)', template: 'API_TOKEN ?= {v}', path: 'Makefile' },
  { name: '??= (JS)', template: "process.env.API_TOKEN ??= '{v}';", path: 'setup.js' },
  { name: '||= (Ruby)', template: 'ENV["API_TOKEN"] ||= "{v}"', path: 'config/boot.rb' },
  { name: '+= (shell)', template: 'ARGS+=" --token={v}"', path: 'run.sh' },
  { name: ': (YAML)', template: 'api_token: "{v}"', path: 'config/app.yml' },
  { name: '=> (PHP)', template: "    'api_token' => '{v}',", path: 'config/services.php' },
  { name: '<- (R)', template: 'api_token <- "{v}"', path: 'analysis.R' },
  { name: 'set -x (fish)', template: 'set -x API_TOKEN {v}', path: 'config.fish' },
  { name: 'export', template: 'export API_TOKEN="{v}"', path: 'env.sh' },
  { name: 'ENV (Dockerfile)', template: 'ENV API_TOKEN={v}', path: 'Dockerfile' },
  { name: '--flag value', template: 'deployctl push --api-token {v} --region eu', path: 'deploy.sh' },
  { name: '--flag=value', template: 'deployctl push --api-token={v}', path: 'deploy.sh' },
  { name: 'JSON', template: '{"api_token": "{j}"}', path: 'settings.json', lines: true },
  { name: 'JSON name/value', template: '{"name": "API_TOKEN", "value": "{j}"}', path: 'task.json', lines: true },
  { name: 'HAR header', template: '{"name": "X-Api-Key", "value": "{j}"}', path: 'capture.har', lines: true },
  { name: 'HAR cookie', template: '"cookies": [{"name": "session_token", "value": "{j}"}]', path: 'capture.har' },
  { name: 'YAML name/value', template: '- name: api_token\n  value: "{v}"', path: 'deploy.yaml' },
  {
    name: 'YAML block',
    template: 'api_token: |\n  {v}',
    path: 'values.yaml',
    lines: true,
  },
  { name: 'cookie header', template: 'Cookie: theme=dark; session_token={u}', path: 'request.http' },
  { name: 'URL query', template: 'GET https://api.example.io/v1/items?api_token={u}&page=2', path: 'notes.md' },
  { name: 'form body', template: 'curl -d "user=bob&api_token={u}" https://api.example.io', path: 'notes.md' },
  { name: 'header', template: 'X-Api-Token: {v}', path: 'request.http' },
  { name: 'log line', template: '2026-12-02T10:00:00Z INFO login user=bob api_token={q} ok', path: 'app.log' },
  { name: 'diff', template: '@@ -1,2 +1,2 @@\n-API_TOKEN=\n+API_TOKEN={v}', path: 'changes.diff', lines: true },
  {
    name: 'notebook',
    template: '{"cell_type": "code", "source": ["api_token = \\"{j}\\"\\n"]}',
    path: 'analysis.ipynb',
    lines: true,
  },
  { name: 'prose', template: 'Use the API token {v} for the staging account.', path: 'README.md' },
  // Added in issue 26's second round, measured before any rule was written for them.
  { name: 'Set-Cookie', template: 'Set-Cookie: session_token={u}; Path=/; HttpOnly', path: 'response.txt' },
  {
    name: 'curl bearer',
    template: 'curl -H "Authorization: Bearer {v}" https://api.example.io/v1/me',
    path: 'notes.md',
  },
  { name: 'keyword argument', template: 'client = Client(api_token="{j}", region="eu")', path: 'app.py' },
  { name: 'TOML', template: '[service]\napi_token = "{j}"', path: 'config.toml' },
  { name: 'INI', template: '[service]\napi_token = {v}', path: 'settings.ini' },
  { name: 'XML element', template: '<config>\n  <apiToken>{x}</apiToken>\n</config>', path: 'config.xml' },
  {
    name: 'compose environment',
    template: 'services:\n  app:\n    environment:\n      - API_TOKEN={v}',
    path: 'compose.yaml',
  },
  {
    name: 'Actions env',
    template: 'jobs:\n  build:\n    env:\n      API_TOKEN: "{j}"',
    path: '.github/workflows/ci.yml',
  },
  { name: 'Markdown table', template: '| setting | value |\n| --- | --- |\n| API token | `{v}` |', path: 'README.md' },
  { name: 'JSON log line', template: '{"level":"info","user":"bob","api_token":"{j}"}', path: 'app.log', lines: true },
  { name: 'heredoc', template: 'cat <<EOF > .env\nAPI_TOKEN={v}\nEOF', path: 'setup.sh' },
  {
    name: 'Secret stringData',
    template: 'apiVersion: v1\nkind: Secret\nstringData:\n  api-token: "{j}"',
    path: 'secret.yaml',
    lines: true,
  },
];

const redactor = await createRedactor({ timeoutMs: 60_000 });
const byContext = new Map<string, [number, number]>();
const byKind = new Map<string, [number, number]>();
const add = (map: Map<string, [number, number]>, key: string, found: boolean) => {
  const t = map.get(key) ?? [0, 0];
  t[0]++;
  if (found) t[1]++;
  map.set(key, t);
};

for (const [kind, make] of Object.entries(SECRET_KINDS)) {
  for (let seed = 1; seed <= seeds; seed++) {
    const planted = make(seededRng(seed));
    const multiLine = planted.text.includes('\n');
    for (const context of CONTEXTS) {
      if (multiLine && !context.lines) continue;
      const value = planted.text;
      const j = JSON.stringify(value).slice(1, -1);
      const indented = context.name === 'YAML block' ? value.replaceAll('\n', '\n  ') : value;
      const diffed = context.name === 'diff' ? value.replaceAll('\n', '\n+') : indented;
      const u = encodeURIComponent(value);
      const q = /[\s"]/.test(value) ? JSON.stringify(value) : value;
      const x = value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
      const text = context.template
        .replace('{v}', diffed)
        .replace('{j}', j)
        .replace('{u}', u)
        .replace('{q}', q)
        .replace('{x}', x);
      const out = await redactor.redact(text, { path: context.path });
      // A secret written escaped or encoded is looked for as written.
      const secrets = context.template.includes('{j}')
        ? planted.secrets.map((s) => JSON.stringify(s).slice(1, -1))
        : context.template.includes('{u}')
          ? planted.secrets.map((s) => encodeURIComponent(s))
          : context.template.includes('{q}') && q !== value
            ? planted.secrets.map((s) => JSON.stringify(s).slice(1, -1))
            : context.template.includes('{x}')
              ? planted.secrets.map((s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;'))
              : planted.secrets;
      const found = secrets.every((s) => !out.text.includes(s));
      add(byContext, context.name, found);
      add(byKind, kind, found);
      if (!found && verbose) console.log(`  missed ${kind} in ${context.name}: ${out.text.slice(0, 160)}`);
    }
  }
}

const table = (title: string, map: Map<string, [number, number]>) => {
  console.log(`\n| ${title} | planted | found | recall |\n| --- | ---: | ---: | ---: |`);
  for (const [key, [n, found]] of map) console.log(`| ${key} | ${n} | ${found} | ${(found / n).toFixed(4)} |`);
};
table('context', byContext);
const worstKinds = new Map([...byKind].filter(([, [n, found]]) => found < n));
table('kind (those below 1.0)', worstKinds);
const all = [...byContext.values()].reduce((a, [n, f]) => [a[0]! + n, a[1]! + f], [0, 0]);
console.log(`\noverall: ${all[1]}/${all[0]} = ${(all[1]! / all[0]!).toFixed(4)} over ${byKind.size} kinds`);
