// Issue 26: the value is classified before it is masked. References (in every
// template and environment syntax), secret-manager paths, secrets' names,
// public tokens, placeholders and documentation stay, with the evidence in the
// redactor's report; literals are masked wherever the same key holds them.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyValue } from '../../src/redact/classifyValue.ts';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { ALNUM, LOWER, pick, seededRng } from './secretGen.ts';

const redactor = await createRedactor();
const rng = seededRng(2026);

test('classifyValue names the class of each value, with evidence that does not quote it', () => {
  const cases: [string, string, string][] = [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell reference under test
    ['${DB_PASSWORD}', 'password: ', 'reference'],
    ['{{ .Values.auth.password }}', 'password: ', 'reference'],
    ['$(cat /run/secrets/db)', 'password=', 'reference'],
    ['$$(cat /run/secrets/db-password)', '--password=', 'reference'],
    ['%(db_password)s', 'password: ', 'reference'],
    ["<%= ENV['SECRET'] %>", 'secret_key: ', 'reference'],
    ['ENC[AES256_GCM,data:q2Zr8Q==,iv:Yk3n0Zt1,tag:Jm2Rx0==,type:str]', 'password: ', 'reference'],
    ['secret:argocd/registry#creds', 'credentials: ', 'reference'],
    ['database/creds/orders-rw', 'with secret "', 'reference'],
    ['projects/123/secrets/oauth-client/versions/latest', 'client_secret: ', 'reference'],
    ['pg-credentials', 'existingSecret: "', 'secret-name'],
    ['mysql-root-password', 'passwordSecretName: ', 'secret-name'],
    ['argocd-server-tls', 'retrieved from a TLS secret `', 'secret-name'],
    ['pk.eyJ1IjoibWFwdXNlciIsImEiOiJja3Z4eTkwMWV6M2RvNnl6In0.Qx7vLm2Tn4Wp9Zk3Rb8Yc1', 'accessToken = ', 'public'],
    ['pk_live_Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs', 'stripeKey: ', 'public'],
    ['cccccccc-cccc-cccc-cccc-cccccccccccc', 'ARM_CLIENT_SECRET=', 'placeholder'],
    ['dGVzdC1hcGkta2V5Cg==', 'api-key: ', 'placeholder'],
    ['write', 'id-token: ', 'documentation'],
    ['http://backend:8000;', 'proxy_pass          ', 'documentation'],
    ['$(PORT):8888', 'docker run --detach -p ', 'documentation'],
    ['another_pw', 'pass: "', 'placeholder'],
    ['dXNlcm5hbWU=', '  node.session.auth.username: ', 'documentation'],
    ['dGNwOi8vMTI3LjAuMC4xOjU3MDU=', '  apiAddress: ', 'documentation'],
    ['QNUI7XAO&xGd8=aWYBo', 'BROKER = "amqps://user:', 'literal'],
    ['orbit-tundra-marble', 'url = "https://secret:', 'literal'],
  ];
  for (const [value, key, kind] of cases) {
    const verdict = classifyValue(value, key);
    assert.equal(verdict.kind, kind, `${key}${value}: ${verdict.evidence}`);
    assert.ok(verdict.evidence.length > 0 && !verdict.evidence.includes(value), verdict.evidence);
  }
});

test("a value that is the product's own name, as the item's path spells it, is a documented default", () => {
  const cases: [string, string, string][] = [
    ['nextcloud', 'nextcloud-postgres/compose.yaml', 'placeholder'],
    ['argocd', 'charts/argo-cd/ci/external-redis-values.yaml', 'placeholder'],
    ['c3RvcmFnZW9z', 'volumes/storageos/storageos-secret.yaml', 'placeholder'],
    ['nextcloud', 'deploy/compose.yaml', 'literal'],
    ['Tq8vNz2pLmXw', 'nextcloud-postgres/compose.yaml', 'literal'],
  ];
  for (const [value, path, kind] of cases)
    assert.equal(classifyValue(value, 'PASSWORD=', path).kind, kind, `${path}: ${value}`);
});

test('random values under the same keys are literals, and the evidence says why', () => {
  for (let i = 0; i < 200; i++) {
    const value = pick(rng, ALNUM, 12 + (i % 40));
    for (const key of ['existingSecret: "', 'client_secret: ', 'password: ', 'with secret "', 'accessToken = ']) {
      const verdict = classifyValue(value, key);
      assert.equal(verdict.kind, 'literal', `${key}${value}: ${verdict.evidence}`);
      assert.match(verdict.evidence, /bits\/character/);
    }
  }
});

test('the redactor keeps references, names and public tokens, and reports why; the same keys with literals are masked', async () => {
  const kept: [string, string][] = [
    ['  existingSecret: "pg-credentials"\n', 'values.yaml'],
    ['{{ with secret "database/creds/orders-rw" }}{{ .Data.password }}{{ end }}\n', 'config.ctmpl'],
    [
      "mapboxgl.accessToken = 'pk.eyJ1IjoibWFwdXNlciIsImEiOiJja3Z4eTkwMWV6M2RvNnl6In0.Qx7vLm2Tn4Wp9Zk3Rb8Yc1';\n",
      'map.js',
    ],
    ['  --flow=client-credentials   use the OAuth client credentials flow\n', 'docs/cli.md'],
    ['    - name: api_token\n      valueFrom:\n        secretKeyRef: {name: api, key: token}\n', 'deploy.yaml'],
    ["      test: ['CMD-SHELL', 'mysqladmin ping --password=\"$$(cat /run/secrets/db-password)\"']\n", 'compose.yaml'],
    ['client_secret: projects/123/secrets/oauth-client/versions/latest\n', 'app.yaml'],
  ];
  for (const [text, path] of kept) {
    const out = await redactor.redact(text, { path });
    assert.equal(out.text, text);
  }
  const report = await redactor.redact('  existingSecret: "pg-credentials"\n', { path: 'values.yaml' });
  assert.ok(report.kept?.some((k) => k.kind === 'secret-name' && k.evidence.includes('name of a secret')));
  assert.ok(report.kept?.every((k) => !k.evidence.includes('pg-credentials')));

  const literal = pick(rng, ALNUM, 24);
  for (const text of [
    `  existingSecret: "${literal}"\n`,
    `{{ with secret "${literal}" }}\n`,
    `mapboxgl.accessToken = '${literal}';\n`,
    `client_secret: ${literal}\n`,
  ]) {
    const out = await redactor.redact(text, { path: 'values.yaml' });
    assert.ok(!out.text.includes(literal), out.text);
  }
});

test('classes met in the wider public corpus: templates, code, tool placeholders, prose in other scripts, values that echo their line', () => {
  // [value, text before it, text after it, path, kind]
  const cases: [string, string, string, string | undefined, string][] = [
    // tldr's `{{…}}` placeholders, Helm's `[[ ]]` and a `{{-` span opened on an earlier line
    ['FUZZ}}', 'ffuf -d "{{username=admin\\&password=', '" -u {{url}}', 'pages/common/ffuf.md', 'reference'],
    ['rootpw', 'password: [[ .Values.auth.', ' ]]', 'templates/secret.yaml', 'reference'],
    [
      'adminPassword',
      '{{- $pw := include "x" (dict\n  "password"  .Values.auth.',
      '\n  ) -}}',
      'templates/_helpers.tpl',
      'reference',
    ],
    // a literal passed on by a template, or its fallback, is still a literal
    ['Qx7vLm2Tn4Wp9Zk3', '{{ with secret "', '" }}', undefined, 'literal'],
    ['Qx7vLm2Tn4Wp9Zk3', 'password: ${DB_PASSWORD:-', '}', undefined, 'literal'],
    // code: a call and a member expression (a notebook's JSON-escaped cell)
    ['-log', 'model = {token: ', '(freq / total_sum) for token', 'a.ipynb', 'reference'],
    ['App::env', "'password' => ", "('REDIS_PASSWORD') ?: null,", 'config.md', 'reference'],
    ['tokenizer.eos_token', 'tokenizer.pad_token = ', '\\n",', 'a.ipynb', 'reference'],
    ['Qx7vLm2Tn4', 'token = ', '(', undefined, 'literal'],
    // command-line tools' placeholders, and a key prefix before a word
    ['^PASS^', 'username=^USER^&password=', '"', 'pages/common/hydra.md', 'placeholder'],
    ['FILE0', 'patator unzip_pass password=', ' 0=passwords.txt', 'pages/common/patator.md', 'placeholder'],
    ['sk-mock', 'api_key: ', '', 'litellm/config.yaml', 'placeholder'],
    // prose in another script; a word written twice; a value that repeats its line
    ['임베딩을', '- `token`: ', ' 트리거하기', 'loading_adapters.ipynb', 'documentation'],
    ['k8smasterk8smaster', 'default = "', '"', 'variables.tf', 'placeholder'],
    ['laradock', 'mc alias set local http://minio:9000 laradock ', '', 'docs/minio.md', 'placeholder'],
    ['Qx7vLm2Tn4Wp', 'mc alias set local http://minio:9000 laradock ', '', 'docs/minio.md', 'literal'],
    // a product named by a document's own name, or inside the value
    ['somewordpress', 'MYSQL_ROOT_PASSWORD=', '', 'wordpress-mysql/compose.yaml', 'placeholder'],
    ['shopware', '**Password:** `', '`', 'docs/shopware-on-docker.md', 'placeholder'],
    // a file path after --from-env-file
    [
      'laradock/production/.env',
      'kubectl create secret generic app-env --from-env-file=',
      '',
      'docs/production.md',
      'reference',
    ],
  ];
  for (const [value, before, after, path, kind] of cases) {
    const verdict = classifyValue(value, before, path, {}, after);
    assert.equal(verdict.kind, kind, `${before}«${value}»${after}: ${verdict.evidence}`);
  }
});

test("a notebook's JSON-escaped cell: code before a `\\n` escape stays, a literal is masked", async () => {
  const code = '{"source": ["tokenizer.pad_token = tokenizer.eos_token\\n", "x = 1\\n"]}';
  assert.equal((await redactor.redact(code, { path: 'train.ipynb' })).text, code);
  const literal = `{"source": ["api_token = \\"${pick(rng, ALNUM, 32)}\\"\\n"]}`;
  assert.notEqual((await redactor.redact(literal, { path: 'train.ipynb' })).text, literal);
});

test('a secret key numbered past two digits (`password_100`, `password100`) still names a secret', async () => {
  for (const key of ['password_100', 'password100', 'api_key_2048']) {
    const text = `{"${key}": "${pick(rng, ALNUM, 24)}"}`;
    assert.notEqual((await redactor.redact(text)).text, text, key);
  }
});

test('computed and composed values are references; a key of a key=value pair is not a value (issue 26 heldOut classes)', () => {
  const cases: [string, string, string, string][] = [
    ['$(< ', 'export REDIS_PASSWORD="', '"$REDIS_PASSWORD_FILE")"', 'reference'],
    ['Bearer $(kubectl get secret x -o=jsonpath={.data.token} | base64 -d)', 'ARGO_TOKEN="', '"', 'reference'],
    ['$api_prom_backend:3100$request_uri;', '        proxy_pass       ', '', 'reference'],
    ['http://$distributor:4318/v1/traces;', '        proxy_pass       ', '', 'reference'],
    ['write-', '   -token=', '{{ $tenant.name }} \\', 'reference'],
    ['cassandra-password=', 'kubectl create secret generic SECRET_NAME --from-literal=', 'PASSWORD', 'documentation'],
    ['client-passwords=CLIENT_PASSWORD1,CLIENT_PASSWORD2', '--from-literal=', '', 'documentation'],
    ['\\$(curl', 'VAULT_TOKEN=', ' \\', 'reference'],
    ['$ROOT_PASSWORD,mariadb.auth.password=$MARIADB_PASSWORD', '--set mariadb.auth.rootPassword=', '', 'reference'],
    ['CLIENT_PASSWORD1,CLIENT_PASSWORD2', '--from-literal=client-passwords=', '', 'placeholder'],
    ['REPLICA_SET_KEY', '--from-literal=mongodb-replica-set-key=', '', 'placeholder'],
    ['unix:/var/run/php-fpm/wordpress.sock;', 'fastcgi_pass ', '', 'documentation'],
    [
      'hmac-sha256:883d7702eb6b48067dc6482a32af1e049a301dd0722fe6d95d19d4534a3609bf',
      '"client_token": "',
      '"',
      'public',
    ],
    [' key.txt | awk ', "vault login $(grep 'Initial Root Token:'", "'", 'documentation'],
    ['\\([^"]*\\)', 'sed -n \'s/.*token: "', '"', 'documentation'],
    ['AAAAABBBBBCCCCCDDDDD', '"access_key": "', '"', 'placeholder'],
    ['aaaabbbb-cccc-dddd-eeee-ffffgggghhhh', '"client_secret": "', '"', 'placeholder'],
  ];
  for (const [value, before, after, kind] of cases) {
    assert.equal(classifyValue(value, before, undefined, {}, after).kind, kind, `${before}«${value}»${after}`);
  }
  // The same positions with literal values stay literals.
  for (const [value, before, after] of [
    ['Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd', 'export REDIS_PASSWORD="', '"'],
    ['wr1te-Qx7vLm2Tn4Wp9Zk3', '   -token=', ' \\'],
    ['c4ss-Qx7vLm2Tn4Wp9Z=', '--from-literal=pw=', ' --dry-run'],
    ['QZXK_WPLM', 'API_TOKEN=', ''],
    ['aaab7Qx-ccc9Lm2Tn4Wp', 'API_TOKEN=', ''],
  ] as const) {
    assert.equal(classifyValue(value, before, undefined, {}, after).kind, 'literal', `${before}«${value}»${after}`);
  }
});

test('a value is a credential by its position: INI and dotenv words, Bearer values of any shape, YAML name/value pairs, a fish salt', async () => {
  const cases: [string, string | undefined][] = [
    ['[service]\napi_token = kabelwulwul\n', 'settings.ini'],
    ['[service]\napi_token = 0xa08ff49b6f772632716c43069c43a8c3b7cf3c25632b92409d3fb64afebede10\n', 'settings.ini'],
    ['curl -H "Authorization: Bearer JyvN#UKA5i6oF9RkX9!" https://api.example.io/v1/me\n', 'deploy.sh'],
    ['curl -H "Authorization: Bearer nzzh slzlmdk embkt eblpu" https://api.example.io/v1/me\n', 'deploy.sh'],
    ['- name: api_token\n  value: "anzzhpslzlmdkgembkth"\n', 'deploy.yaml'],
    ['set -x API_TOKEN #dOg*QQoxWrh!P)>C8z7U]Vb>B.*L!nG#aaQ}18)ZZgGU]KORY(}6G89P?>!7;*f\n', 'config.fish'],
  ];
  for (const [text, path] of cases) assert.notEqual((await redactor.redact(text, { path })).text, text, text);
  // In code the same bare word is an identifier, and a fish comment is a comment.
  for (const [text, path] of [
    ['api_token = kabelwulwul\n', 'settings.py'],
    ['set -x API_TOKEN # set by the CI runner\n', 'config.fish'],
    ['curl -H "Authorization: Bearer $(gcloud auth print-access-token)" https://x.io\n', 'deploy.sh'],
  ] as const) {
    assert.equal((await redactor.redact(text, { path })).text, text, text);
  }
});

test('issue 26 fourth round: paths, fields, options, counting, hex words, slugs, names from their place, user-name pairs', () => {
  const kept: [string, string, string | undefined, string][] = [
    // value, key text, path, after
    ['helm-chart-signing-key:private_key', 'GPG_PRIVATE_KEY=', undefined, ''],
    ['/ca_secrets/file_ca.key', '  key_path: "', 'templates/secret-config.yaml', '"'],
    ['@alice-credentials.json', '    credentials=', 'README.md', ' \\'],
    ['cat /opt/app/secrets/jwt-secret-key', '- name: X\n  value: "', 'templates/_helpers.tpl', '"'],
    ['pgx', '  driver: ', 'templates/secret.yaml', ''],
    ['10s', '  timeout: ', 'templates/secret.yaml', ''],
    ['path=/v1/aws/creds/readonly', 'using auto auth token: ', 'README.md', ' method=GET'],
    ['-e webapp_version=xxx', 'You can optionally pass: `', 'README.md', '`'],
    ['ConfigMap', "('Secret', '", 'crds.yaml', "')."],
    ['custom-CA', '# - secret: ', 'values.yaml', ''],
    ['87654321-432104321-4321-210987654321', 'apiToken: ', 'README.md', ''],
    ['12345', 'user=bob password=', 'mysql.yml', ' priv=*.*:ALL'],
    ['deadbeef', "{token: '", 'README.md', "'})"],
    ['bada55cafe', "'#token=", 'readme.md', "'"],
    ['i-am-the-worst', "{ token: '", 'README.md', "'})"],
    ['etcd-cluster-k8s', 'initialClusterToken: "', 'bitnami/etcd/values.yaml', '"'],
    ['hosted-grafana-id', 'hostedGrafanaIdSecretKey: "', 'charts/pdc-agent/values.yaml', '"'],
    ['console123', '  CONSOLE_SECRET_KEY: ', 'README.md', ''],
    ['base64encodedaccountkey', '  accountkey: ', 'values.yaml', ''],
    ['petclinic', '- MYSQL_USER=petclinic\n      - MYSQL_PASSWORD=', 'docker-compose.yml', ''],
    ['telegraf', '  username = "telegraf"\n  password = "', 'consul.tpl', '"'],
    ['Testing!123', '"TEST_PASSWORD": "', 'launch.json', '",'],
    ['supersecure', 'password: ', 'README.md', ''],
    ['s1mpl3', 'DB_PASS=', 'README.md', ''],
    ['valid:token', "token: '", 'test/hooks.ts', "',"],
    ['pass%23pass', 'http://user:', 'tests/test_utils.py', '@complex.url.com'],
    ['p', 'http://u:', 'tests/test_utils.py', '@Some.Host/path'],
    ['pass\\ndefault\\n', 'machine example.com login user password ', 'tests/test_utils.py', '")'],
    ['dGVzdDp0ZXN0', 'Authorization: Basic ', 'tests/test_requests.py', ''],
    ['24h', 'default = "', 'variables.tf', '"'],
    ['-10}', '-u "${USERS:', 'Dockerfile', '" -r'],
    ['AAAAABBBBBCCCCCDDDDDAAAAABBBBBCCCCCDDDDD`.', 'secret_key=', 'README.md', ' This should'],
  ];
  for (const [value, keyText, path, after] of kept) {
    const v = classifyValue(value, keyText, path, {}, after);
    assert.notEqual(v.kind, 'literal', `${value} after ${JSON.stringify(keyText)}`);
  }
  // The same places with values a person chose or a generator made stay literals.
  const literals: [string, string, string | undefined][] = [
    ['Jenkins2024!', 'jenkins_admin_password: ', 'ci/jenkins.yml'],
    ['kabelwulwul', 'api_token = ', 'settings.ini'],
    ['velvet-orbit-tundra-marble', 'password: ', 'README.md'],
    ['q7Vz2mKp9xLw', '- MYSQL_USER=petclinic\n      - MYSQL_PASSWORD=', 'docker-compose.yml'],
    ['c0ffee7f3a9b2e41', "{token: '", 'README.md'],
    ['Zq8vN3kX7pL2:rT4yB', 'GPG_PRIVATE_KEY=', undefined],
    ['prod-db-Zq8vN3kX7pL2', 'initialClusterToken: "', 'bitnami/etcd/values.yaml'],
    ['/Zq8vN3kX7pL2mW9rT4yB', 'password: "', 'values.yaml'],
    ['renbelhol', 'POSTGRES_PASSWORD: ', 'compose.yaml'],
    ['r3nb3lh0l', 'POSTGRES_PASSWORD: ', 'compose.yaml'],
  ];
  for (const [value, keyText, path] of literals) {
    assert.equal(classifyValue(value, keyText, path).kind, 'literal', `${value} after ${JSON.stringify(keyText)}`);
  }
});

test('base64 with slashes is not a file path', () => {
  for (const value of ['/Zq8vN3kX7pL2/mW9rT4yBxK2d', '/Qm3xTq8z/Lp2vRk7w/Nc5jHd9y']) {
    assert.equal(classifyValue(value, 'aws_secret_access_key = ', 'terraform.tfvars').kind, 'literal', value);
  }
});

test('issue 26 fifth round (heldOut2 classes): template expressions, regex literals, paths, ids, code, filler and made-up values', () => {
  // [value, text before it, path, text after it]
  const kept: [string, string, string | undefined, string][] = [
    ["[parameters('token')]", '"hub.token": "', 'hack/aks/mainTemplate.json', '",'],
    ["[steps('applicationDetails').token]", '"token": "', 'hack/arc/createUIDefinition.json', '"'],
    ['/.+/i', "{ username: 'pgte', password: ", 'README.md', ' })'],
    ['/a.+/', '{ auth: { passwd: ', 'tests/test_body_match.js', ' } })'],
    ['/etc/passwd:ro', 'docker run -v /etc/passwd:', 'postgres/README.md', ' -e X=1'],
    ['HTTP/1.1', 'GET /../../etc/password ', 'docs/README.md', ''],
    ['1000`).', 'a specific UID/GID like `--user 1000:', 'php/README.md', ''],
    ['content_b64', '"ELASTICSEARCH_PASSWORD": ', 'tests/logstash_test.py', '["elk_pass"],'],
    ['base64Token', '  "token": ', 'templates/configmap-helm-scripts.yaml', ',\n'],
    ['xxx-yyy-zzz', 'token: ', 'tests/metrics-config_test.yaml', ''],
    ['api-xxx', 'apiKey: "', 'tests/hub_test.yaml', '"'],
    ['aaa-bbb-ccc', "form: { token: '", 'tests/test_back_filters.js', "' },"],
    ['asdasdasd/asdasdas/asdasd', "secure_url='https://hooks.slack.com/services/", 'README.md', "'"],
    ['test123TEST', 'TEST_PASS = "', 'tests/test_basics.py', '"'],
    ['grault', 'password: "', 'tests/container-config_test.yaml', '"'],
    ['admin / admin', 'login using the default credentials: `', 'convertigo/README.md', '`.'],
    ['My-Cust0m_S3cR3T', '-e HTTP_API_PASSWORD="', 'bonita/README.md', '" --name'],
    ['joomla@secured', 'JOOMLA_ADMIN_PASSWORD: ', 'joomla/compose.yaml', ''],
    ['myodoo', '- POSTGRES_PASSWORD=', 'odoo/README.md', ''],
  ];
  for (const [value, keyText, path, after] of kept) {
    const v = classifyValue(value, keyText, path, {}, after);
    assert.notEqual(v.kind, 'literal', `${value} after ${JSON.stringify(keyText)}`);
  }
  // The same places with values a generator made or a person chose stay literals.
  const literals: [string, string, string | undefined, string][] = [
    ['Zq8vN3kX7pL2mW9rT4yB', 'BROKER = "amqps://user:', 'config.py', '@mq.example.com"'],
    ['Qm3xTq8zLp2v', 'xfreerdp /v:10.0.4.7 /u:Administrator /p:', undefined, ' /cert:ignore'],
    ['/Ab+cd9Qx7kLm2Tn4Wp/', 'secret: "', 'values.yaml', '"'],
    ['vXq9T7mKp2Lw', 'docker run -v /data:/data -e PASSWORD=', 'README.md', ' image'],
    ['4417', '--user admin:', 'README.md', ''],
    ['zqvWmkTrbn', "{ token: '", 'test.js', "' },"],
    ['xq7-vz2-mkp', 'token: ', 'values.yaml', ''],
    ['velvet123orbit', 'password: "', 'tests/x.yaml', '"'],
    ['Kr4k3n-Orb1t_V3lv3t', '-e HTTP_API_PASSWORD="', 'bonita/README.md', '"'],
    ['joomla@Zq8vN3kX', 'JOOMLA_ADMIN_PASSWORD: ', 'joomla/compose.yaml', ''],
    ['myqzvwk', '- POSTGRES_PASSWORD=', 'odoo/README.md', ''],
  ];
  for (const [value, keyText, path, after] of literals) {
    assert.equal(
      classifyValue(value, keyText, path, {}, after).kind,
      'literal',
      `${value} after ${JSON.stringify(keyText)}`,
    );
  }
});

test('issue 26 sixth round (heldOut3 classes): grammar, marks, spelled-out words, names, numbered lines, API examples', () => {
  // [value, text before it, path, text after it]
  const kept: [string, string, string | undefined, string][] = [
    ['1*tchar', '     token = ', 'versions/3.1.0.md', '\n'],
    ['1*DIGIT', '  token = ', 'rfc.txt', '\n'],
    ['#@?:', "  password: '", 'test/unit/proxy-config.test.js', "'"],
    ['%23%40%3F%3A', "'http://%23%40%3F%3A:", 'test/unit/proxy-config.test.js', "@proxy.com:9090'"],
    ['p:a:s:s', "  password: '", 'test/unit/url.test.js', "'"],
    ['s-e-c-r-e-t', 'TOKEN=', 'README.md', ''],
    ['asdhjajsd', '"password": "', 'examples/collection-v2.json', '"'],
    ['container-registry-credentials', '          "credentials": "', 'pkg/schema/workflow_schema.json', '"'],
    ['keep_it_private', 'map[string]string{"secret": "', 'pkg/runner/runner_test.go', '"}},'],
    ['dXNlcm5hbWU6cGFzc3dvcmQK', '"auth": "', 'testdata/config.json', '"'],
    ['line1', 'mysecret: |\n  ', 'cmd/testdata/secrets.yml', '\n  line2\n  line3\n'],
  ];
  for (const [value, keyText, path, after] of kept) {
    const v = classifyValue(value, keyText, path, {}, after);
    assert.notEqual(v.kind, 'literal', `${value} after ${JSON.stringify(keyText)}`);
  }
  // The same places with values a generator made or a person chose stay literals.
  const literals: [string, string, string | undefined, string][] = [
    ['1*Tq8vNz2pLm', '     token = ', 'versions/3.1.0.md', '\n'],
    ['#@?:Zq8v', "  password: '", 'test/unit/proxy-config.test.js', "'"],
    ['q:z:v:k', "  password: '", 'test/unit/url.test.js', "'"],
    ['asjehcgfdjyrggucgn', '"authKey": "', 'examples/collection-v2.json', '"'],
    ['orbit-tundra-marble', '"credentials": "', 'config.json', '"'],
    ['qzvk_mrtb_wxpl', '{"secret": "', 'runner_test.go', '"'],
    ['dXNlcm5hbWU6WnE4dk4za1g3cEwK', '"auth": "', 'testdata/config.json', '"'],
    ['line1', 'mysecret: |\n  ', 'cmd/testdata/secrets.yml', '\n  qzvkmrtb\n'],
  ];
  for (const [value, keyText, path, after] of literals) {
    assert.equal(
      classifyValue(value, keyText, path, {}, after).kind,
      'literal',
      `${value} after ${JSON.stringify(keyText)}`,
    );
  }
});

test('a value under example: in an API description is sample data; elsewhere, or shaped like a generated key, it is a literal', async () => {
  const spec = (value: string, head = 'openapi: 3.0.1\n') =>
    `${head}paths:\n  /:\n    get:\n      responses:\n        '200':\n          content:\n            application/json:\n              example:\n                {\n                  "apis": [\n                    {\n                      "apiKey": "${value}",\n                      "apiVersionNumber": "v1"\n                    }\n                  ]\n                }\n`;
  const { text } = await redactor.redact(spec('oa_citations'), { path: 'schemas/uspto.yaml' });
  assert.equal(text, spec('oa_citations'));
  for (const [doc, why] of [
    [spec('oa_citations', 'kind: Config\n'), 'not an API description'],
    [spec('Zq8vN3kX7pL2mW9rT4yB'), 'a generated-looking key'],
    [spec('oa_citations').replace('example:', 'schema:'), 'not under example:'],
  ] as const) {
    const out = await redactor.redact(doc, { path: 'schemas/uspto.yaml' });
    assert.notEqual(out.text, doc, why);
  }
});

test('issue 26 sixth round (heldOut4 classes): ARNs, scopes, setting names after a flag, template spans, wrapped placeholders', () => {
  // [value, text before it, path, text after it]
  const kept: [string, string, string | undefined, string][] = [
    ['HEADER.PAYLOAD.SIGNATURE', 'curl -H "Authorization: ', 'README.md', '" "$URL"'],
    [
      'secretcontainer-562188f-67Rt8n',
      'secretContainer: "arn:aws:secretsmanager:us-east-1:xxxxxxxx:secret:',
      'README.md',
      '"',
    ],
    ['mentionbot:slackToken', '$ pulumi config set --secret ', 'README.md', ' xoxb-...\n'],
    ['jwksUri', 'pulumi config set --secret ', 'README.md', ' <jwksUri>\n'],
    ['2Password2', '"voting-app:sql-admin-password": "', 'misc/test/aws_test.go', '",'],
    ['testTEST1234+-*/', '"password": "', 'definitions/azure_native.go', '",'],
    ['Pass123$', '      PASSWORD: ', '.github/workflows/playwright.yml', '\n'],
    ['[[ var ', '  MYSQL_PASSWORD = "', 'templates/ctfd.nomad.tpl', '"mariadb_ctfd_password" . ]]"\n'],
    ['bearer hello', 'AuthorizationToken: "', 'functions/auth/main_test.go', '",'],
    ['something10%2Feu-central-1%2Fs3%2Faws4_request', '&X-Amz-Credential=', 'README.md', '&X-Amz-Algorithm=x'],
    [':Credentials.new(', 'credentials: Aws:', 'README.md', "'key', 'secret')"],
    ['*alice*', '* Username: *alice*\n* Password: ', 'README.md', '\n'],
  ];
  for (const [value, keyText, path, after] of kept) {
    const v = classifyValue(value, keyText, path, {}, after);
    assert.notEqual(v.kind, 'literal', `${value} after ${JSON.stringify(keyText)}`);
  }
  const literals: [string, string, string | undefined, string][] = [
    ['Tq8vN3kX.Zq8vLm2T.Wp9Zk3Rb', 'curl -H "Authorization: ', 'README.md', '"'],
    ['Zq8vN3kX7pL2mW9rT4yB', 'secretContainer: "', 'README.md', '"'],
    ['mentionbot:slackToken', '$ pulumi config set --secret ', 'README.md', '\n'],
    ['orbitTundra', '--password ', 'README.md', '\n'],
    ['2Zq8vNk2', '"password": "', 'aws_test.go', '",'],
    ['bearer Tq8vN3kX7pL2mW9r', 'AuthorizationToken: "', 'main_test.go', '",'],
    ['*Tq8vN3kX*', '* Username: *alice*\n* Password: ', 'README.md', '\n'],
  ];
  for (const [value, keyText, path, after] of literals) {
    assert.equal(
      classifyValue(value, keyText, path, {}, after).kind,
      'literal',
      `${value} after ${JSON.stringify(keyText)}`,
    );
  }
});

test('a Sidekiq credential (two runs of hex) after a flag is not a setting name, even with an argument after it', () => {
  for (const value of ['deadbeef:cafebabe', 'a1b2c3d4:e5f6a7b8'])
    assert.equal(
      classifyValue(value, 'bundle config --local ', 'README.md', {}, ' gems.contribsys.com\n').kind,
      'literal',
    );
});

test('a SigV4 credential scope is kept, while the access key id in it and the signature beside it are masked', async () => {
  const header =
    'Authorization: AWS4-HMAC-SHA256 Credential=AKIAQX7VLM2TN4WP9ZK3/20121226/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7\n';
  const { text } = await redactor.redact(header, { path: 'notes.txt' });
  assert.ok(!text.includes('AKIAQX7VLM2TN4WP9ZK3') && !text.includes('5d672d79c15b'), text);
  assert.ok(text.includes('/20121226/us-east-1/sqs/aws4_request'), text);
});

test('issue 26 seventh round (heldOut5 classes): words of any human language, a JWT header alone, base64 of a secret name', () => {
  const notLiterals: [string, string, string][] = [
    ['Nueva contraseña', '  "New Password": "', 'locales/es-ES/portal.json'],
    ['Nesprávné uživatelské jméno nebo heslo', '  "Incorrect username or password": "', 'cs/portal.json'],
    ['Contraseña', '  "Password": "', 'locales/es/portal.json'],
    ['كلمة المرور', '  "Password": "', 'locales/ar/portal.json'],
    ['為此 WebAuthn 憑證輸入新的描述：', '  "Enter a new description": "', 'locales/zh-TW/settings.json'],
    ['Пароль', 'password: "', 'ru.yml'],
    ['eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9', '"access_token": "', 'github_test.go'],
    ['b2F1dGgyLXByb3h5LWNsaWVudC1zZWNyZXQK', 'client_secret="', 'oauth2-proxy.cfg'],
  ];
  for (const [value, keyText, path] of notLiterals) {
    assert.notEqual(classifyValue(value, keyText, path).kind, 'literal', value);
  }
  const literals: [string, string, string][] = [
    // A diceware passphrase (lower-case words), a capitalised word, words with digits: chosen secrets.
    ['orbit tundra wicker plume', 'passphrase: "', 'config.yml'],
    ['Geheim', 'password: "', 'config.yml'],
    ['Nueva contraseña 2024', 'password: "', 'config.yml'],
    // A JWT header with a claim in it, and base64 of a random value, are not a header or a name.
    [Buffer.from('{"alg":"HS256","sub":"42"}').toString('base64url'), 'token: "', 'a_test.go'],
    [Buffer.from('Tq8vN3kX7pL2mW9r\n').toString('base64'), 'client_secret="', 'proxy.cfg'],
  ];
  for (const [value, keyText, path] of literals) {
    assert.equal(classifyValue(value, keyText, path).kind, 'literal', value);
  }
});

test('issue 26 seventh round (heldOut5 classes): Go names and pointer types, CloudFormation functions; look-alikes stay literals', () => {
  const references: [string, string][] = [
    ['schema.DefaultPasswordConfig,', '\t\tPassword: '],
    ['schema.AuthenticationBackendFilePassword{}', '\t\tPassword: &'],
    ['schema.IdentityProvidersOpenIDConnectLifespanToken{', '\tToken: '],
    ['*xoauth2.Token', 'config *xoauth2.Config, token '],
    ['!Join', '  Value: '],
    ['!Sub', '  Password: '],
  ];
  for (const [value, keyText] of references) {
    assert.equal(classifyValue(value, keyText, 'config_test.go').kind, 'reference', value);
  }
  // No code mark around the name, random capitals, or a tag that is no CloudFormation function.
  for (const value of ['qx.Zk9TnWp4,', '!Tq8vN3kX7pL2mW9r', '*Xq7.Lm2Tn4Wp9'])
    assert.equal(classifyValue(value, 'password: ', 'config.yml').kind, 'literal', value);
});

test('issue 26 eighth round (heldOut6 and heldOut5 classes): values labelled with their key, filler, tags and digests', () => {
  const notLiterals: [string, string, string][] = [
    // The key's words are a segment of the value: it labels itself.
    ['IDToken.12349871293847fdsaihf9238h4f91h8fr.1349f831y98fd7', '\t\tIDToken: "', 'placeholder'],
    ['eyJfoobar123.eyJbaz987.IDToken', 'idToken = "', 'placeholder'],
    ['water_softener_salt', "  'softener_salt': '", 'placeholder'],
    // Words describing a value, with typed runs (abc, 1234567890, xyz).
    ['somerandomstring12341234567890AB', '  -cookie-secret=', 'placeholder'],
    ['secretthirtytwobytes+abcdefghijk', 'rawCookieSecret = "', 'placeholder'],
    ['this_is_a_secret_abc123abc123abc', "# hmac_secret: '", 'placeholder'],
    ['long-and-random-alphanumeric-string', '  - GITLAB_SECRETS_SECRET_KEY_BASE=', 'placeholder'],
    ['SomeRandomString', 'APP_KEY=', 'placeholder'],
    ['upload-token-abc123xyz', 'token: ', 'placeholder'],
    ['WYasdfJp4sdfasdf1234', 'export GITLAB_TOKEN=', 'placeholder'],
    ['water_softener_salt', "  'water softener salt': '", 'placeholder'],
    ['HOST:PORT:DATABASE:PASSWORD', '# or, if using a password: ', 'placeholder'],
    // A numeronym is a word of a secret's name (`n8n`, `k8s`); a duration written in words.
    ['n8n-core-secrets', 'existingSecret: "', 'secret-name'],
    ['1 hour', '  access_token_lifespan: ', 'documentation'],
    // Where no value was given: the next option, a flag that takes none, a tag naming a secrets file's entry.
    ['-out', 'openssl pkcs12 -export -passout pass: ', 'documentation'],
    ['mastodon', 'adduser --disabled-password ', 'documentation'],
    ['apt_webhook_docker_10', 'webhook_id: !secret ', 'reference'],
    // Published: a checksum annotation's digest, a Web Push public point, PostHog's project key.
    ['bed677784356b2af7fb0d87455db21f077853059b594101a4f6532bfbd962a7f', '        checksum/secret: ', 'public'],
    [
      'BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=',
      '"server_key": "',
      'public',
    ],
    ['phc_6AT2D3sP5u4fkUZtSqgtmoKmcx8rEX8f86lpISOpAhx', '{"api_key": "', 'public'],
    // A Markdown link's closing parenthesis is not part of the query's value.
    ['password)', '(https://demo.example.com/login?email=admin@example.com&password=', 'placeholder'],
  ];
  for (const [value, keyText, kind] of notLiterals) {
    assert.equal(classifyValue(value, keyText, 'docs/x.md').kind, kind, value);
  }
  // An identifier in code where a value was expected; random letters and digits, or quoted, are literals.
  for (const value of ['testBASE32TOTPSecret', 'x509PrivateKeyRSA2048'])
    assert.equal(classifyValue(value, '\t\tSecret: ', 'x_test.go', {}, ',\n').kind, 'reference', value);
  for (const [value, keyText] of [
    ['aB3xK9qLm2Tz', '\t\tSecret: '],
    ['kq7XpLm4vBn8', '\t\tSecret: '],
    ['testBASE32TOTPSecret', '\t\tSecret: "'],
  ] as const)
    assert.equal(classifyValue(value, keyText, 'x_test.go', {}, ',\n').kind, 'literal', value);
  const random = pick(rng, ALNUM, 40);
  const literals: [string, string][] = [
    // A real JWT under the same key, and a random value that merely starts like a word.
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd', '\t\tIDToken: "'],
    [`IDTok${random}`, '\t\tIDToken: "'],
    // Words with random characters left over, or words that are not about a value.
    // One typed run among random keys; a short key's word in a random value.
    ['kq_x9Zasdf1234Lm', 'export GITLAB_TOKEN='],
    [`salt${random.slice(0, 16)}`, "  'salt': '"],
    [`somerandom${random.slice(0, 12)}`, '  -cookie-secret='],
    ['kabelwulwul', 'password: '],
    ['n8x-k9q7-zz', 'password: '],
    ['1 hour 3', 'password: '],
    ['Silverado', 'password: '],
    // A digest not under a checksum key, a private key's length of bytes, PostHog's personal key.
    ['bed677784356b2af7fb0d87455db21f077853059b594101a4f6532bfbd962a7f', '  secret: '],
    [Buffer.from([4, ...Array.from({ length: 63 }, (_, i) => (i * 37) % 256)]).toString('base64'), 'server_key: '],
    [`phx_${random}`, '{"api_key": "'],
    // A flag that takes a value, and a value after a real option of openssl.
    [random, 'adduser --password '],
    ['Tq8vN3kX7pL2mW9r', 'openssl pkcs12 -export -passout pass:'],
  ];
  for (const [value, keyText] of literals) {
    assert.equal(classifyValue(value, keyText, 'docs/x.md').kind, 'literal', value);
  }
});

test('issue 26 eighth round: a generated passphrase or a name given after a secret noun in prose is masked; prose stays', async () => {
  const secrets: [string, string][] = [
    ['Use the API token nzzh slzlmdk embkt eblpu frotf for the staging account.', 'nzzh slzlmdk embkt eblpu frotf'],
    ['<config>\n  <apiToken>hnwqm ucufl pdrjzbxb eayl</apiToken>\n</config>', 'hnwqm ucufl pdrjzbxb eayl'],
    ['| setting | value |\n| --- | --- |\n| API token | `lbtm egofcs uwirhr voawiy` |', 'lbtm egofcs uwirhr voawiy'],
    ['Use the API token Kingfisher for the staging account.', 'Kingfisher'],
  ];
  for (const [text, secret] of secrets) {
    const out = (await redactor.redact(text, { path: 'README.md' })).text;
    assert.ok(!out.includes(secret), out);
    assert.ok(out.includes('for the staging account') || !text.includes('for the staging account'), out);
  }
  for (const text of [
    'The API token lets the service read your repositories for the build.',
    'Send the token http header with every request to the gateway.',
    // A name after the value, or a short acronym, is not a generated word (heldOut's chart docs).
    'Name of existing Secret containing extra env vars for mlflow nodes',
    '* Add storegateway secret grpc server tls support (#5344)',
    'Open the Password Manager for the vault.',
    'Set the token Value to the one shown in the settings.',
    '<password>correct horse battery staple</password> is the example of the comic.',
  ]) {
    assert.equal((await redactor.redact(text, { path: 'README.md' })).text, text);
  }
});

test('issue 26 eighth round: Bearer with its token on the next line, a number under a Secret data key, a group key', async () => {
  for (const [text, path] of [
    [
      '- authorization:\n    credentials_file: "/var/run/secrets/kubernetes.io/serviceaccount/token"\n    type: Bearer\n  follow_redirects: true\n',
      'scrape.yaml',
    ],
    ['apiVersion: v1\nkind: Secret\n---\nprocessors:\n  batch:\n    send_batch_max_size: 1500\n', 'values.yaml'],
    ['{"group_key": "favourite-113010503322889311-479000"}', 'notifications.md'],
  ] as const) {
    assert.equal((await redactor.redact(text, { path })).text, text);
  }
  // The same places with a credential still mask it.
  const token = pick(rng, ALNUM, 32);
  for (const [text, path] of [
    [`    type: Bearer ${token}\n`, 'scrape.yaml'],
    [`apiVersion: v1\nkind: Secret\ndata:\n  password: ${Buffer.from(token).toString('base64')}\n`, 'secret.yaml'],
    [`{"signing_key": "${token}"}`, 'notifications.md'],
  ] as const) {
    assert.ok(!(await redactor.redact(text, { path })).text.includes(token.slice(0, 20)), text);
  }
});

test('issue 26 ninth round: URLs, ports, OIDs, Markdown, commands, braced placeholders and JSON of settings are not literals', () => {
  const kept: [string, string, string?][] = [
    // Salt's file server URLs: the rule took the scheme for a `salt` key.
    ['//postgres/templates/pg_hba.conf.j2', 'pg_hba.conf: salt:'],
    ['//ntp/files/default/etc/ntp.conf.jinja', '  - source: salt:'],
    // A port, then the URL's fragment (an open-redirect test list): the host ends in a TLD that is also a key (.pw).
    ['80#@www.whitelisteddomain.tld/', '//localdomain.pw:'],
    ['80#', 'http://google.com:'],
    ['1.2.840.113556.1.4.2239', 'during password set: '],
    ['../session/introduction.md#secret', '[session.secret]: '],
    ['Usage](../../integration/oauth-2.0-bearer-token-usage.md', '[OAuth 2.0 Bearer Token '],
    ['Flow_[^18]', 'during the _Refresh Token '],
    ['docker buildx bake test', '5. Make sure the tests pass: `'],
    ['{metadata}.{payload}.{signature}', 'idToken: "'],
    [
      '{\\"hashIterations\\":27500,\\"algorithm\\":\\"pbkdf2-sha256\\",\\"additionalParameters\\":{}}',
      '"credentialData" : "',
    ],
    ['{\\"access_token\\": \\"foobar\\"}', 'Token: "'],
    // Made-up values that say what they are.
    ['CLEANUPTEST', "AWS_SECRET_ACCESS_KEY: '"],
    ['AVeryStrongPasswordUShouldEncrypt!', "root_password => '"],
    ['us3r2P455W0Rd!', 'user2Password = "'],
    ['more_secure\\n--host=localhost\\n--socket=/var/run/mysql.sock', '.and_return("--user=root\\n--password='],
  ];
  for (const [value, keyText] of kept) {
    const verdict = classifyValue(value, keyText);
    assert.notEqual(verdict.kind, 'literal', `${keyText}${value}`);
    assert.ok(!verdict.evidence.includes(value), verdict.evidence);
  }
  assert.equal(
    classifyValue('oauth2', 'failed to get token: ', undefined, {}, ': "invalid_grant" "Session not active"').kind,
    'documentation',
  );
  // The same places with a literal: a random salt in base64 (it may start with //), a password after a
  // user name with a dot, a JSON object holding a generated token or a hash and its salt, a chosen password
  // before an escape, a capitalised word and a random value after a wrapped message.
  const random = pick(rng, ALNUM, 32);
  const literals: [string, string, string?][] = [
    [`//${random}==`, 'salt: '],
    [`//${random.slice(0, 8)}/${random.slice(8)}`, 'salt: '],
    ['804519', '//john.doe:'],
    [`{\\"access_token\\": \\"${random}\\"}`, 'Token: "'],
    [`{"note": "${random}"}`, 'token: '],
    [
      '{\\"value\\":\\"avTDXptExxoF5x0NUUChQ/XGdpPelLwkmLlWbr9wkmQ=\\",\\"salt\\":\\"hbSr0JEQ9yhKQFAg4KYEWg==\\"}',
      '"secretData" : "',
    ],
    ['Fort_kn0X\\n', '--password='],
    [`${random}\\n--host=localhost`, '--password='],
    ['HUNTERBLUE', 'password: '],
    ['BlueMangoRiverTiger', 'password: '],
    [random, 'user2Password = "'],
    [`${random.toLowerCase()}`, 'failed to get token: '],
  ];
  for (const [value, keyText] of literals) {
    assert.equal(classifyValue(value, keyText, undefined, {}, ': next').kind, 'literal', `${keyText}${value}`);
  }
});

test('issue 26 ninth round: a Salt pillar or Puppet manifest with a real secret is still masked; its salt:// URLs stay', async () => {
  const password = pick(rng, ALNUM, 20);
  const pillar = `postgres:\n  users:\n    app:\n      password: '${password}'\n  pg_hba.conf: salt://postgres/templates/pg_hba.conf.j2\n  appSalt: ${pick(rng, ALNUM, 32)}\n`;
  const out = (await redactor.redact(pillar, { path: 'pillar/postgres.sls' })).text;
  assert.ok(!out.includes(password), out);
  assert.ok(out.includes('salt://postgres/templates/pg_hba.conf.j2'), out);
  assert.ok(!out.includes(pillar.split('appSalt: ')[1]!.trim()), out);
  const manifest = `class { 'mysql::server':\n  root_password => '${password}',\n}\n`;
  assert.ok(!(await redactor.redact(manifest, { path: 'manifests/init.pp' })).text.includes(password));
  for (const text of [
    '  - source: salt://postgres/templates/limit.maxfiles.plist\n',
    "class { 'mysql::server':\n  root_password => 'AVeryStrongPasswordUShouldEncrypt!',\n}\n",
    '5. Make sure the tests pass: `docker buildx bake test`\n',
  ]) {
    assert.equal((await redactor.redact(text, { path: 'README.md' })).text, text);
  }
});

test('issue 26 ninth round: counted labels, typed filler, labels with colons, "pass" as a verb, an image\'s name', () => {
  const kept: [string, string][] = [
    ['request-interpolated-script-1', "bru.setVar('request-token-1', '"],
    ['collection-value-456', 'bru.setCollectionVar("persistedCollectionToken", "'],
    ['INITIAL_VALUE_collection_env_e2e_001', 'bru.setEnvVar("apiToken", "'],
    ['search-key-789', 'x-api-key: "'],
    ['apple-apple-apple-apple', '"--encryption-key='],
    ['asd132', 'opsgenie_api_key: '],
    ['qwe456', 'bot_token: '],
    ['argon2:', '"authentication_backend: file: password: '],
    ['flag', '"you must use an interactive terminal or use the --password '],
    ['req-1', '// Both requests should pass: '],
  ];
  for (const [value, keyText] of kept) {
    const verdict = classifyValue(value, keyText);
    assert.notEqual(verdict.kind, 'literal', `${keyText}${value}`);
  }
  const compose =
    'services:\n  connect:\n    image: confluentinc/cp-server-connect:7.9.0\n    environment:\n      CONNECT_SSL_KEY_PASSWORD: confluent\n';
  const at = compose.indexOf('confluent\n');
  assert.equal(
    classifyValue('confluent', 'CONNECT_SSL_KEY_PASSWORD: ', 'docker-compose.yml', {}, '\n', {
      text: compose,
      start: at,
    }).kind,
    'placeholder',
  );
  // The same shapes as literals: a passphrase with a counter whose words name nothing around it, random
  // letters and digits, a word as a password in a file that runs no image of that name, a value after "pass:"
  // as a key, a word with a colon inside it.
  const literals: [string, string][] = [
    ['orbit-tundra-marble-7', 'password: '],
    ['kqz471', 'api_key: '],
    ['tundra-orbit-tundra', 'password: '],
    ['Tq8vN3kX', 'pass: '],
    ['tundra:marble', 'password: '],
  ];
  for (const [value, keyText] of literals) assert.equal(classifyValue(value, keyText).kind, 'literal', value);
  const other = compose.replace('confluentinc/cp-server-connect', 'bitnami/kafka');
  assert.equal(
    classifyValue('confluent', 'CONNECT_SSL_KEY_PASSWORD: ', 'docker-compose.yml', {}, '\n', {
      text: other,
      start: other.indexOf('confluent\n'),
    }).kind,
    'literal',
  );
});

test('issue 26 ninth round: a label spelled from its own key is a test value; generated parts keep a value literal', () => {
  for (const [value, keyText] of [
    ['RefreshError', 'RefreshToken: "'],
    ['Refreshed', 'RefreshToken: "'],
    ['refresh12345', 'RefreshToken: "'],
    ['tk-real', "credentials: { access_token: '"],
    ['implicit-tk', "access_token: '"],
    ['runtime-tok', "API_TOKEN: '"],
  ]) {
    assert.equal(classifyValue(value!, keyText!).kind, 'placeholder', value);
  }
  for (const [value, keyText] of [
    // A real token's prefix names its service, and the rest is generated.
    [`github_pat_11${pick(rng, ALNUM, 22)}_${pick(rng, ALNUM, 30)}`, 'githubToken: "'],
    // The noun shortened counts only under a key with that noun; a word the key does not hold is a chosen value.
    ['mango-tk', 'password: '],
    ['Existing', 'RefreshToken: "'],
  ]) {
    assert.equal(classifyValue(value!, keyText!).kind, 'literal', value);
  }
});

test("issue 26 tenth round (heldOut8 classes): pipeline $(…) references, digests, alphabet runs, secrets' names, placeholders", () => {
  const kept: [string, string, string?][] = [
    ['$(params.password)', 'password: '],
    ['[$(profile-name)]', 'credentials: |-\n    '],
    ['$(password) # Access token should be provided here', '  password: '],
    ['$(Build.Repository.Name):$(Build.BuildId)', 'secret: '],
    [pick(rng, '0123456789abcdef', 64), 'image: quay.io/chmouel/github-app-token@sha256:'],
    [`ghcr.io/macstadium/orka-runner:2022-06-29@sha256:${pick(rng, '0123456789abcdef', 64)}`, '| image | '],
    ['abcd', '{"token": "'],
    ['ABCDEFG', 'api_key: '],
    ['abc123', 'password: '],
    ['_**rox-api-token**_', 'Secret containing the API token. Default: '],
    ['gcr-registry-config', '- name: DOCKER_CONFIG_SECRET\n  value: '],
    ['github', '  - name: GITHUB-OAUTH_SECRET\n    value: '],
    ['{token over here}', '  token: '],
    ['Config', '    kind: '],
    ['my-cluster', '    current-context: '],
    ['LS0exampleexampleexample=', '    client-key-data: '],
    ['tkey_foo', 'token_secret: "'],
    ['Skopeo@1', '  password: ', 'task/skopeo-copy/0.1/samples/quay-secret.yaml'],
    ['x-shellscript-per-boot', 'cloud-init devel make-mime -a always.sh:'],
    ['HTTP/1.1', 'GET https://httpbin.org/basic-auth/user/passwd '],
    [',listKeys(resourceId(', "AccountName=',parameters('name'),';AccountKey='"],
  ];
  for (const [value, keyText, path] of kept) {
    assert.notEqual(classifyValue(value, keyText, path).kind, 'literal', `${keyText}${value}`);
  }
  assert.equal(
    classifyValue('op signin --account my-account --raw', 'session_token = `', undefined, {}, '`.strip').kind,
    'reference',
  );
  // The same places with chosen or generated values: still literals.
  const literals: [string, string, string?][] = [
    [`Xq9$(${pick(rng, LOWER, 6)}) ${pick(rng, ALNUM, 8)}`, 'password: '],
    [pick(rng, '0123456789abcdef', 64), 'api_key: '],
    ['abce', '{"token": "'],
    [`abcd${pick(rng, ALNUM, 10)}`, '{"token": "'],
    [`_**${pick(rng, ALNUM, 16)}**_`, 'token: '],
    ['{tundra marble 7}', 'token: '],
    [`gh${pick(rng, ALNUM, 14)}`, '  - name: GITHUB_TOKEN\n    value: '],
    [`LS0tLS1CRUdJTi${pick(rng, ALNUM, 60)}=`, '    client-key-data: '],
    [`tkey_${pick(rng, ALNUM, 12)}`, 'token_secret: "'],
    ['tkey_fox', 'token_secret: "'],
    ['Skopeo@1984', '  password: ', 'task/skopeo-copy/0.1/samples/quay-secret.yaml'],
    ['Skopeo@1', '  password: ', 'samples/quay-secret.yaml'],
    ['wild-horse-battery', 'curl -u john.doe:'],
    ['HTTP/1.1x9Qz', 'GET /basic-auth/user/passwd '],
    [`,${pick(rng, ALNUM, 16)}`, "AccountKey='"],
  ];
  for (const [value, keyText, path] of literals) {
    assert.equal(classifyValue(value, keyText, path).kind, 'literal', `${keyText}${value}`);
  }
  assert.equal(classifyValue(pick(rng, ALNUM, 20), 'session_token = `', undefined, {}, '`').kind, 'literal');
});

test('issue 26 tenth round: a PEM block of words in one case is an instruction; a key body is masked', async () => {
  const sample =
    '  validation_key: |\n    -----BEGIN RSA PRIVATE KEY-----\n    YOUR-ORGS-VALIDATION-KEY-HERE\n    -----END RSA PRIVATE KEY-----\n';
  assert.equal((await redactor.redact(sample, { path: 'doc/cloud-config-chef.txt' })).text, sample);
  const body = pick(rng, `${ALNUM}+/`, 64);
  const real = sample.replace('YOUR-ORGS-VALIDATION-KEY-HERE', body);
  assert.ok(!(await redactor.redact(real, { path: 'doc/cloud-config-chef.txt' })).text.includes(body));
  // A kubeconfig under a Secret's stringData: its settings and sample data stay, a real key is masked.
  const kubeconfig = (key: string) =>
    `kind: Secret\nstringData:\n  kubeconfig: |\n    apiVersion: v1\n    kind: Config\n    current-context: my-cluster\n    users:\n    - name: my-user\n      user:\n        client-key-data: ${key}\n`;
  const placeholder = kubeconfig('LS0exampleexampleexample=');
  assert.equal((await redactor.redact(placeholder, { path: 'samples/secrets.yaml' })).text, placeholder);
  const key = pick(rng, ALNUM, 48);
  assert.ok(!(await redactor.redact(kubeconfig(key), { path: 'samples/secrets.yaml' })).text.includes(key));
});

test('issue 26 eleventh round (heldOut9/5 classes): constants with acronyms, a letter and a counter, counted and camel-case keys, key initials, Markdown around the value, database names, calls', async () => {
  // [value, text before it, text after it]
  const kept: [string, string, string?][] = [
    // A constant's or variable's name whose words include acronyms: rspamd's symbols, an env var's name.
    ['R_SPF_ALLOW', '  pass = "', '";'],
    ['MY_ENV_VAR1', '  - secretKey: '],
    ['DB_TLS_CERT', 'password: '],
    ['AWS_SECRET_KEY', '"apiKey": "', '",'],
    // A letter or two and a counter: a test's label for one of several users, in Go, YAML and env files.
    ['f123', 'Name: "foo_owner", Password: "', '", Flags: nil'],
    ['u1234', '  password: '],
    ['ab12345', 'DB_PASSWORD='],
    // A label made of its key's initials.
    ['col_cs', "  consumerSecret: '", "',"],
    ['col_ts', "  accessTokenSecret: '", "',"],
    ['inline_pk', '"privateKey": "', '"'],
    ['test-at', 'access_token = "', '"'],
    // Strong emphasis opened before the word and closed later on the line: a menu path.
    ['**Authentication', 'enable email and password authentication by doing: ', ' > SIGN-IN METHOD > SAVE**'],
    ['__Settings', 'token: open ', ' → Tokens__ and copy it'],
    // A Markdown code span closing before the value: the sentence follows the key.
    [' (for mariadb/mysql) or', 'user nextcloud in `db.env` behind `MYSQL_PASSWORD=`', '`POSTGRES_PASSWORD=`'],
    [' (see below) and', 'set `API_TOKEN:`', '`REGION`'],
    // A database's name beside the credentials (env, YAML, a camel-case key).
    ['n8n', '  POSTGRES_DB: '],
    ['orders', 'MYSQL_DATABASE='],
    ['analytics', '"dbName": "', '"'],
    // A word that says what to do with the value, and a call in a doc comment or in code.
    ['remove-me', "makeVar('OLD_TOKEN', '", "')"],
    ['base64', ' * Authorization: Basic ', '(clientId:clientSecret)'],
    ['sha256', 'token = ', '(secret + salt)'],
    // Kubernetes' built-in identities after system:, with kubectl's --user and curl's -u.
    ['kube-scheduler', '    --user=system:', ' \\'],
    ['node:worker-0', 'kubectl config set-context default --user=system:', ''],
    ['serviceaccount:kube-system:default', 'curl -u system:', ' https://api:6443'],
  ];
  for (const [value, keyText, after = ''] of kept) {
    const verdict = classifyValue(value, keyText, undefined, {}, after);
    assert.notEqual(verdict.kind, 'literal', `${keyText}«${value}»${after}`);
    assert.ok(!verdict.evidence.includes(value.trim()), verdict.evidence);
  }
  // The same places with generated values, or shapes the classes do not cover: literals.
  const literals: [string, string, string?][] = [
    ['QZXK_WPLM', 'API_TOKEN='],
    ['BRTQ_ZMKW_PLXV', 'pass = "', '";'],
    [`AB3D_${pick(rng, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 8)}_X9Q2`, 'API_TOKEN='],
    ['kqz1239', 'Password: "', '"'],
    [`f${pick(rng, ALNUM, 12)}123`, 'password: '],
    ['mango_tk', "  consumerSecret: '", "',"],
    [`col_${pick(rng, LOWER, 14)}`, "  accessTokenSecret: '", "',"],
    [`sk_live_${pick(rng, LOWER, 24)}`, '  api-stripe-key: "', '"'],
    [`**${pick(rng, ALNUM, 18)}`, 'token: ', ' and more'],
    ['**Authentication', 'password: ', ' with no closing mark'],
    [pick(rng, ALNUM, 20), 'Set `FOO` and PASSWORD=`', '`'],
    [pick(rng, ALNUM, 20), 'behind `MYSQL_PASSWORD=`', ' here'],
    [pick(rng, ALNUM, 20), '  POSTGRES_DB_PASSWORD: '],
    // A key that names a secret and then the database it opens is still a secret's key.
    [pick(rng, ALNUM, 13), 'PASSWORD_DB='],
    [pick(rng, ALNUM, 13), '  token_bucket: '],
    [`Qx${pick(rng, ALNUM, 18)}`, ' * Authorization: Basic ', ' (the header)'],
    [`Qx${pick(rng, ALNUM, 12)}`, '    --user=system:', ' \\'],
    ['kube-scheduler', 'curl -u admin:', ' https://api:6443'],
  ];
  for (const [value, keyText, after = ''] of literals) {
    assert.equal(classifyValue(value, keyText, undefined, {}, after).kind, 'literal', `${keyText}«${value}»${after}`);
  }

  // A counted or camel-case key says what a Secret's entry is (user1 is a user, teamId an id); a key with a
  // secret's word in it, counted or not, keeps its value masked, in YAML data and in JSON.
  const secret = (entries: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: roles\ndata:\n${entries}`;
  for (const text of [
    secret('  teamId: "acid"\n  user1: ZGJ1c2Vy\n'),
    secret('  host_2: ZGIuaW50ZXJuYWw=\n  clusterName: cHJvZC1ldQ==\n'),
  ]) {
    assert.equal((await redactor.redact(text, { path: 'manifests/roles.yaml' })).text, text, text);
  }
  for (const key of ['password1', 'sessionId', 'apiToken2', 'user1Password']) {
    const value = Buffer.from(pick(rng, ALNUM, 24)).toString('base64');
    const text = secret(`  user1: ZGJ1c2Vy\n  ${key}: ${value}\n`);
    assert.ok(!(await redactor.redact(text, { path: 'manifests/roles.yaml' })).text.includes(value), key);
  }
  const json = (key: string, value: string) => `{"kind": "Secret", "data": {"${key}": "${value}"}}\n`;
  const token = pick(rng, ALNUM, 32);
  for (const key of ['password1', 'apiToken2']) {
    assert.ok(!(await redactor.redact(json(key, token), { path: 'x.json' })).text.includes(token), key);
  }
});

test('issue 26 eleventh round (heldOut5 classes): a product run together with a placeholder word, a few keys typed over and over, a label set off by marks', () => {
  // [value, text before it, path]
  const kept: [string, string, string?][] = [
    ['n8npassword', 'POSTGRES_PASSWORD=', 'charts/n8n/examples/README.md'],
    ['secretgitea', '  password: ', 'deploy/gitea/values.yaml'],
    ['dfgdfgdzfgdgdfgdfg', 'config.Password = "'],
    ['asbdhaaskmdlkamdklasmdlkams', 'ClientSecret: "'],
    ['JKLJKLJKLJKLJKL', 'API_TOKEN='],
    ['!!!invalid-base64!!!', 'secret: "'],
    ['***not set***', 'password: '],
    ['<<your token>>', 'token = '],
  ];
  for (const [value, keyText, path] of kept) {
    const verdict = classifyValue(value, keyText, path);
    assert.notEqual(verdict.kind, 'literal', `${keyText}«${value}» in ${path}`);
  }
  const literals: [string, string, string?][] = [
    // The product's name with a generated tail, or a placeholder word beside a name the path does not spell.
    [`n8n${pick(rng, ALNUM, 12)}`, 'POSTGRES_PASSWORD=', 'charts/n8n/examples/README.md'],
    ['n8npassword', 'POSTGRES_PASSWORD=', 'deploy/compose.yaml'],
    // Random letters of the same lengths use many keys.
    [pick(rng, LOWER, 18), 'config.Password = "'],
    [pick(rng, `${LOWER}ABCDEFGHIJKLMNOPQRSTUVWXYZ`, 27), 'ClientSecret: "'],
    // Marks that do not wrap words the same way on both sides.
    [`!!${pick(rng, ALNUM, 16)}!!`, 'secret: "'],
    ['!!!invalid-base64**', 'secret: "'],
  ];
  for (const [value, keyText, path] of literals) {
    assert.equal(classifyValue(value, keyText, path).kind, 'literal', `${keyText}«${value}» in ${path}`);
  }
});

test('issue 26 twelfth round: the name or path of a secret in the syntaxes of URNs, framework parameters and secret-store fields is kept; a literal under the same keys is not', async () => {
  const kept: [string, string][] = [
    // A URN's segments (Traefik's Kubernetes secrets), in YAML and in prose.
    [
      'tls:\n  certificates:\n    - certFile: urn:k8s:secret:tls:cert\n      keyFile: urn:k8s:secret:tls:key\n',
      'dynamic.yaml',
    ],
    ['Set `keyFile: urn:k8s:secret:my-secret:tls.key` to read the key from a Secret.\n', 'docs/tls.md'],
    ['password = vault:secret:data/prod/db#password\n', 'app.properties'],
    // Symfony's parameters: %env(NAME)%, with env var processors, and %dotted.names%.
    [
      "parameters:\n    app.secret: '%env(APP_SECRET)%'\nframework:\n    secret: '%kernel.secret%'\n",
      'config/services.yaml',
    ],
    ["doctrine:\n    dbal:\n        password: '%env(resolve:DATABASE_PASSWORD)%'\n", 'config/packages/doctrine.yaml'],
    // A secret store's fields that name an entry (External Secrets' ExternalSecret and PushSecret).
    ['spec:\n  data:\n  - secretKey: db-host\n    remoteRef:\n      key: prod/db\n', 'external-secret.yaml'],
    [
      '  data:\n    - match:\n        secretKey: source-key1\n        remoteRef:\n          remoteKey: team/api-token\n',
      'push.yaml',
    ],
    ['  - secretKey: database-credentials-metadata\n', 'azkv.yaml'],
  ];
  for (const [text, path] of kept) assert.equal((await redactor.redact(text, { path })).text, text, text);

  const literals: [string, string, string][] = [
    ['secretKey: {v}\n', 'config.yaml', pick(rng, ALNUM, 40)],
    ['  secretKey: "{v}"\n', 'minio.yaml', `${pick(rng, ALNUM, 20)}/${pick(rng, ALNUM, 19)}`],
    ["SECRET_KEY = 'django-{v}'\n", 'settings.py', pick(rng, ALNUM, 40)],
    ['api_token: {v}\n', 'app.yaml', `${pick(rng, ALNUM, 16)}:${pick(rng, ALNUM, 16)}`],
    ["    app.secret: '{v}'\n", 'config/services.yaml', pick(rng, ALNUM, 32)],
  ];
  for (const [template, path, value] of literals) {
    const text = template.replace('{v}', value);
    assert.ok(!(await redactor.redact(text, { path })).text.includes(value), text);
  }
});

test('issue 26 thirteenth round: a PEM block whose body is a stand-in is kept in YAML, JSON, code and Markdown; a real body, even cut, is masked', async () => {
  const stand = ['...', '(snip)', 'REDACTED', 'MIIEvQIBADANBg...', '<your key>'];
  const shapes: [(body: string) => string, string][] = [
    // A block scalar (Authelia's and Argo CD's docs), YAML in a Markdown fence, a Kubernetes Secret.
    [
      (b) => `tls:\n  private_key: |\n    -----BEGIN PRIVATE KEY-----\n    ${b}\n    -----END PRIVATE KEY-----\n`,
      'config.yml',
    ],
    [
      (b) =>
        `\`\`\`yaml\nstringData:\n  sshPrivateKey: |\n    -----BEGIN OPENSSH PRIVATE KEY-----\n    ${b}\n    -----END OPENSSH PRIVATE KEY-----\n\`\`\`\n`,
      'docs/declarative-setup.md',
    ],
    // JSON's \n escapes (a service account file), a string in code.
    [(b) => `{"private_key": "-----BEGIN PRIVATE KEY-----\\n${b}\\n-----END PRIVATE KEY-----\\n"}\n`, 'sa.json'],
    [
      (b) => `const privateKey = '-----BEGIN RSA PRIVATE KEY-----\\n${b}\\n-----END RSA PRIVATE KEY-----';\n`,
      'auth.spec.js',
    ],
  ];
  for (const [shape, path] of shapes) {
    for (const body of stand) {
      const text = shape(body);
      assert.equal((await redactor.redact(text, { path })).text, text, text);
    }
    // A real body: whole, or cut after its first line (the END line missing).
    const body = pick(rng, `${ALNUM}+/`, 64);
    assert.ok(!(await redactor.redact(shape(body), { path })).text.includes(body), path);
    const cut = shape(body);
    const truncated = cut.slice(0, cut.indexOf(body) + body.length);
    assert.ok(!(await redactor.redact(truncated, { path })).text.includes(body), `${path} cut`);
  }
});

test("issue 26 thirteenth round: a cluster Secret's scope (namespaces, project) is a setting; its password is masked", async () => {
  const secret = (password: string) =>
    `apiVersion: v1\nkind: Secret\nstringData:\n  name: mycluster\n  server: https://mycluster.example.com\n  namespaces: "my,managed,namespaces"\n  project: my-project1 # Project scoped\n  password: ${password}\n`;
  const password = pick(rng, ALNUM, 24);
  const out = (await redactor.redact(secret(password), { path: 'docs/cluster-secret.yaml' })).text;
  assert.ok(!out.includes(password));
  assert.ok(out.includes('namespaces: "my,managed,namespaces"') && out.includes('project: my-project1'), out);
  const json = `{"kind": "Secret", "stringData": {"namespaces": "team-a,team-b", "project": "payments", "token": "${password}"}}\n`;
  const outJson = (await redactor.redact(json, { path: 'cluster.json' })).text;
  assert.ok(
    !outJson.includes(password) && outJson.includes('"team-a,team-b"') && outJson.includes('"payments"'),
    outJson,
  );
});

test('issue 26 thirteenth round: code (identifiers, a type assertion), a symbol, a URL after its scheme and a field described in Markdown are kept; literals in the same places are masked', async () => {
  const kept: [string, string][] = [
    // An unquoted identifier in a language that quotes its strings: at a line's end after `=`/`:=`, or before `,`.
    ['\tconfig.PrivateKey = keyRSA2048\n', 'internal/validator/shared_test.go'],
    ['\t\tSecret: pbkdf2ClientSecret,\n', 'internal/oidc/store_test.go'],
    ['    api_secret = loadedSecretValue  # from the vault\n', 'app/settings.py'],
    ['const clientSecret = parsedClientSecret\n', 'src/auth.ts'],
    // Go's type assertion.
    ['\trsaPrivKey := privKey.(*rsa.PrivateKey)\n', 'integration/controller_test.go'],
    ['\tsecret, ok := obj.(*corev1.Secret)\n', 'pkg/controller.go'],
    // A symbol where a value was expected.
    ['argocd admin notifications template notify --config-map ./cm.yaml --secret :empty\n', 'docs/troubleshooting.md'],
    ['  config.password = :random\n', 'config/initializers/app.rb'],
    // A web URL whose scheme was read as a user.
    ['oras push -a "org.opencontainers.image.url=http://some-url" \\\n', 'docs/oci.md'],
    ['  --annotation "source=https://git.example.com/team/app" \\\n', 'docs/push.md'],
    // A field named in a code span, then its description.
    ['- `token`: Pre-shared token used to authenticate HTTP requests\n', 'docs/plugin.md'],
    ['* `password`: Password of the user that reads the bucket\n', 'docs/storage.md'],
  ];
  for (const [text, path] of kept) assert.equal((await redactor.redact(text, { path })).text, text, text);

  const literals: [string, string, string][] = [
    // Quoted, in a shell or dotenv file, or mixed case: literals.
    ['\tconfig.PrivateKey = "{v}"\n', 'internal/validator/shared_test.go', pick(rng, ALNUM, 32)],
    ['PASSWORD={v}\n', '.env', `key${pick(rng, ALNUM, 20)}`],
    ['api_secret = {v}\n', 'app/settings.py', pick(rng, ALNUM, 24)],
    ['cfg := `\npassword: {v}\n`\n', 'config_test.go', pick(rng, ALNUM, 20)],
    ['argocd ... --secret {v}\n', 'docs/cli.md', pick(rng, ALNUM, 24)],
    ['curl -u admin:{v} http://localhost\n', 'docs/api.md', pick(rng, ALNUM, 20)],
    ['- `token`: {v}\n', 'docs/plugin.md', pick(rng, ALNUM, 32)],
    ['- `password`: {v} for the admin user\n', 'docs/plugin.md', pick(rng, ALNUM, 16)],
    // Random letters in chunks of three and two capitals read like an identifier's parts: still a literal.
    [
      'reporting.url=jdbc:sqlserver://sql01:1433;user=sa;password={{v}};encrypt=true\n',
      'jdbc.properties',
      'VgcyTlbDCArbXO',
    ],
    ['\tcfg.Password = "{v}"\n', 'db_test.go', 'VgcyTlbDCArbXO'],
  ];
  for (const [template, path, value] of literals) {
    const text = template.replace('{v}', value);
    assert.ok(!(await redactor.redact(text, { path })).text.includes(value), text);
  }
});

test('issue 26 thirteenth round: base64 without its padding (or URL-safe) that decodes to filler is a test value; random bytes under the same key are masked', async () => {
  // `secretthirtytwobytes+abcdefghijk`, `some-random-string-1234` and `changeme-please`, unpadded as cookie secrets are written.
  const unpadded = (text: string) => Buffer.from(text).toString('base64url');
  for (const decoded of [
    'secretthirtytwobytes+abcdefghijk',
    'some-random-string-1234',
    'this_is_a_secret_abc123abc123abc',
  ]) {
    const value = unpadded(decoded);
    assert.ok(!value.endsWith('='));
    for (const [text, path] of [
      [`\tcookieSecret := "${value}"\n`, 'pkg/cookies/cookie_test.go'],
      [`cookie_secret = "${value}"\n`, 'contrib/oauth2-proxy.cfg'],
      [`  cookieSecret: ${value}\n`, 'values.yaml'],
    ] as const) {
      assert.equal((await redactor.redact(text, { path })).text, text, text);
    }
  }
  for (let i = 0; i < 5; i++) {
    const random = Buffer.from(pick(rng, ALNUM, 32)).toString('base64url');
    const bytes = Buffer.from(Array.from({ length: 32 }, () => Math.floor(rng() * 256))).toString('base64url');
    for (const value of [bytes, random.slice(0, 22) + bytes.slice(0, 21)]) {
      const text = `cookie_secret = "${value}"\n`;
      assert.ok(!(await redactor.redact(text, { path: 'oauth2-proxy.cfg' })).text.includes(value), text);
    }
  }
});

test('issue 26 thirteenth round: base64 of a whole PEM block with no key inside (BEGIN and END lines) is kept; base64 of a whole key is masked', async () => {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const empty = b64('-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----');
  const kept: [string, string][] = [
    [
      `apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: ${empty}\n  tls.key: ${empty}\n`,
      'docs/ingress.md',
    ],
    [`{"tls.key": "${empty}"}\n`, 'secret.json'],
    [`TLS_KEY=${empty}\n`, '.env.example'],
  ];
  for (const [text, path] of kept) assert.equal((await redactor.redact(text, { path })).text, text, text);
  const body = pick(rng, `${ALNUM}+/`, 64);
  const whole = b64(`-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`);
  for (const template of ['  tls.key: {v}\n', '{"tls.key": "{v}"}\n', 'TLS_KEY={v}\n', '  client-key-data: {v}\n']) {
    const text = template.replace('{v}', whole);
    assert.ok(!(await redactor.redact(text, { path: 'secret.yaml' })).text.includes(whole.slice(20, 60)), text);
  }
});

test('issue 26 thirteenth round: a value of typed runs only (zyxwtuv987) is filler in Go, YAML and dotenv; a generated value is masked', async () => {
  for (const value of ['zyxwtuv987', 'abcdxyz12345', 'qwertyzxcv789']) {
    for (const [text, path] of [
      [`\t\tPassword: "${value}",\n`, 'pkg/validation/sessions_test.go'],
      [`password: ${value}\n`, 'config.yml'],
      [`DB_PASSWORD=${value}\n`, '.env'],
    ] as const) {
      assert.equal((await redactor.redact(text, { path })).text, text, text);
    }
  }
  for (let i = 0; i < 10; i++) {
    const value = pick(rng, ALNUM, 10 + i);
    const text = `password: ${value}\n`;
    assert.ok(!(await redactor.redact(text, { path: 'config.yml' })).text.includes(value), text);
  }
  // A run whose case was changed key by key was chosen, not typed as filler: masked.
  for (const value of ['QwErTyUiOp', 'zYxWtUv987']) {
    const text = `password: ${value}\n`;
    assert.ok(!(await redactor.redact(text, { path: 'config.yml' })).text.includes(value), text);
  }
});

test('issue 26 thirteenth round: base64 of a private key wrapped over lines (cloud-init write_files) is masked whole, and the lines after it stay', async () => {
  const body = Array.from({ length: 6 }, () => pick(rng, `${ALNUM}+/`, 64)).join('\n');
  const encoded = Buffer.from(`-----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----\n`)
    .toString('base64')
    .replace(/.{76}/g, '$&\n      ');
  const text = `write_files:\n  - path: /home/ansible/.ssh/id_rsa\n    encoding: base64\n    content: |\n      ${encoded}\n  - path: /etc/motd\n    content: hello\n`;
  const out = (await redactor.redact(text, { path: 'doc/examples/cloud-config-ansible-controller.txt' })).text;
  // Every line that carries the key (the last, short one encodes the END line's dashes).
  for (const line of encoded.split('\n').filter((l) => l.trim().length >= 16))
    assert.ok(!out.includes(line.trim()), line);
  assert.ok(out.includes('  - path: /etc/motd\n    content: hello\n'), out);
});

test('issue 26 fourteenth round: leetspeak of words that describe a value is made up, in code, YAML and dotenv; leetspeak of other words is a chosen password', async () => {
  const describing = ['My_R@ndom-P@ssw0rd', 'something-r@nd0m!', 'V3ry_L0ng-Pa55w0rd', 'S0me-R@nd0m-Str1ng'];
  const chosen = ['Kx7-B@tt3ry-Fj9q', 'R@nd0m-Kitt3n-Blu3', 'B@con-L0ver-1987', `Tr0ub4d0r-${pick(rng, LOWER, 5)}`];
  const forms = [
    (v: string) => ['tests/test_admin.py', `    password = "${v}"\n`],
    (v: string) => ['values.yaml', `auth:\n  password: '${v}'\n`],
    (v: string) => ['.env.example', `DB_PASSWORD="${v}"\n`],
  ];
  for (const form of forms) {
    for (const v of describing) {
      const [path, text] = form(v) as [string, string];
      assert.equal((await redactor.redact(text, { path })).text, text, `${path}: ${v}`);
    }
    for (const v of chosen) {
      const [path, text] = form(v) as [string, string];
      assert.ok(!(await redactor.redact(text, { path })).text.includes(v), `${path}: ${v}`);
    }
  }
});

test('issue 26 fourteenth round: a sentence about the secret (contractions and marks included) is kept; random words under the same key are masked', async () => {
  for (const v of ["shhhh! it's a GitHub secret", "it's my little secret, don't tell", 'this is not a real secret']) {
    for (const [path, text] of [
      ['argocd-secret.yaml', `stringData:\n  webhook.github.secret: ${v}\n`],
      ['config.json', `{"webhookSecret": ${JSON.stringify(v)}}\n`],
      ['app.env.example', `WEBHOOK_SECRET="${v}"\n`],
    ] as const)
      assert.equal((await redactor.redact(text, { path })).text, text, `${path}: ${v}`);
  }
  const words = Array.from({ length: 4 }, () => pick(rng, LOWER, 6)).join(' ');
  for (const [path, text] of [
    ['values.yaml', `auth:\n  passphrase: "${words}"\n`],
    ['config.json', `{"webhookSecret": "${words} is a secret"}\n`.replace(' is a secret', '')],
  ] as const)
    assert.ok(!(await redactor.redact(text, { path })).text.includes(words), `${path}: ${words}`);
});

test('issue 26 fourteenth round: a date, a signed URL credential scope, a YAML comment, a commented #define are not values; the secrets beside them are masked', async () => {
  const signature = pick(rng, '0123456789abcdef', 128);
  const signed = `https://storage.googleapis.com/b/f.pdf?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=ke-prod-1%40pc-prod.iam.gserviceaccount.com%2F20250220%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20250220T120000Z&X-Goog-Signature=${signature}`;
  const out = (await redactor.redact(`{"source": "${signed}"}\n`, { path: 'docs/quickstart.ipynb' })).text;
  assert.ok(out.includes('goog4_request') && !out.includes(signature), out);

  const secret = pick(rng, ALNUM, 24);
  const stringData = `stringData:\n  expiration: 2025-12-29T22:35:29Z\n  source-key2: bar # Could be a plain string\n  token: ${secret} # rotated monthly\n`;
  const masked = (await redactor.redact(stringData, { path: 'docs/snippets/push-secret.yaml' })).text;
  assert.ok(masked.includes('expiration: 2025-12-29T22:35:29Z'), masked);
  assert.ok(masked.includes('source-key2: bar # Could be a plain string'), masked);
  assert.ok(!masked.includes(secret) && masked.includes('# rotated monthly'), masked);

  const comment = '# Define API_SETTINGS_TOKEN Kubernetes Secret key, with a single key from the store\n';
  assert.equal((await redactor.redact(comment, { path: 'external-secret.yaml' })).text, comment);
  const define = `#define API_TOKEN "${secret}" // prod\n`;
  assert.ok(!(await redactor.redact(define, { path: 'src/config.h' })).text.includes(secret));
});

test('issue 26 fourteenth round: a lower-case word after a password or token name in a query or form body is a chosen password; after auth= it is a setting', async () => {
  for (const word of ['kawulgar', 'nipminip', 'fistavgar']) {
    for (const text of [
      `GET https://api.example.io/v1/items?api_token=${word}&page=2\n`,
      `curl -d "user=bob&password=${word}" https://api.example.io/login\n`,
      `Server=db;Database=app;User Id=app;Password=${word};\n`,
    ])
      assert.ok(!(await redactor.redact(text, { path: 'notes.md' })).text.includes(word), text);
  }
  for (const text of [
    'GET https://api.example.io/v1/items?auth=basic&page=2\n',
    'GET https://api.example.io/v1/items?token=true&page=2\n',
    'GET https://api.example.io/v1/items?signature=required\n',
  ])
    assert.equal((await redactor.redact(text, { path: 'notes.md' })).text, text);
});

test("issue 26 fourteenth round: a notebook traceback's colour codes around `=` are not a value; a key between colour codes is masked", async () => {
  const key = `sk-${pick(rng, ALNUM, 48)}`;
  const traceback = [
    '{"output_type": "error", "traceback": ["\\u001b[0;32m----> 4\\u001b[0m api_key \\u001b[38;5;241m=\\u001b[39m os\\u001b[38;5;241m.\\u001b[39menviron\\u001b[38;5;241m.\\u001b[39mget(\\u001b[38;5;124m\\"PINECONE_API_KEY\\"\\u001b[39m)"]}\n',
  ][0]!;
  assert.equal((await redactor.redact(traceback, { path: 'docs/quickstart.ipynb' })).text, traceback);
  const leaked = `{"traceback": ["api_key \\u001b[38;5;241m=\\u001b[39m \\u001b[38;5;124m\\"${key}\\"\\u001b[39m"]}\n`;
  assert.ok(!(await redactor.redact(leaked, { path: 'docs/quickstart.ipynb' })).text.includes(key));
});

test('issue 26 fourteenth round: a table cell or value that is the word for a credential is a label; a chosen word there is masked', async () => {
  const table =
    '| Auth type | Field | Keys |\n| --- | --- | --- |\n| **API Key** | Credential | `api-id`, `api-key` |\n';
  assert.equal((await redactor.redact(table, { path: 'docs/provider.md' })).text, table);
  const filled = '| Setting | Value |\n| --- | --- |\n| **API Key** | Qx7vLm2Tn4Wp9Zk3Rb8Yc1 |\n';
  assert.ok(!(await redactor.redact(filled, { path: 'docs/provider.md' })).text.includes('Qx7vLm2Tn4Wp9Zk3Rb8Yc1'));
});

test("issue 26 fourteenth round: a URN naming a secret's key, a bold title after Password, a number closing a code span are kept; literals in the same places are masked", async () => {
  for (const [path, text] of [
    ['docs/ldap.md', 'bindPassword: "urn:k8s:secret:my-secret:bindpassword"\n'],
    ['docs/redis.yaml', 'redis:\n  password: urn:k8s:secret:redis:password\n'],
    ['docs/oidc.toml', 'clientSecret = "urn:k8s:secret:oidc-client:client_secret"\n'],
    ['docs/bitwarden.md', 'This documentation is for Bitwarden **Password Manager**.\n'],
    ['docs/waf.md', 'form data from POST requests like `username=admin&password=123`, but not cookies\n'],
  ] as const)
    assert.equal((await redactor.redact(text, { path })).text, text, path);
  const token = pick(rng, ALNUM, 24);
  for (const [path, text] of [
    ['docs/redis.yaml', `redis:\n  password: urn:tok:${token}\n`],
    ['docs/bitwarden.md', `The **Password ${token}**\n`],
    ['docs/waf.md', `requests like \`username=admin&password=${token}\`, but not cookies\n`],
  ] as const)
    assert.ok(!(await redactor.redact(text, { path })).text.includes(token), `${path}: ${text}`);
});

test('issue 26 fourteenth round (heldOut12 classes, after its figure): BOSH/Concourse ((variables)) are references and -u scheme://host is a URL; literals in those places are masked', async () => {
  const manifest =
    'properties:\n  nats:\n    password: ((nats_password))\n    private_key: ((nats_internal_cert.private_key))\n  uaa:\n    secret: "((/bosh/cf/uaa_clients_doppler_secret))"\n';
  assert.equal((await redactor.redact(manifest, { path: 'cf-deployment.yml' })).text, manifest);
  const pipeline = 'params:\n  API_TOKEN: ((github_api_token))\n';
  assert.equal((await redactor.redact(pipeline, { path: 'ci/pipeline.yml' })).text, pipeline);
  const token = pick(rng, ALNUM, 20);
  const literal = `    password: ${token}\n`;
  assert.ok(!(await redactor.redact(literal, { path: 'cf-deployment.yml' })).text.includes(token), literal);

  const genconfig =
    'docker run -v $OVPN_DATA:/etc/openvpn --rm kylemanna/openvpn ovpn_genconfig -u udp://VPN.SERVERNAME.COM\n';
  assert.equal((await redactor.redact(genconfig, { path: 'README.md' })).text, genconfig);
  const curl = `curl -u deploy:${token} https://ci.example.com/job/release/build\n`;
  assert.ok(!(await redactor.redact(curl, { path: 'README.md' })).text.includes(token));
});
