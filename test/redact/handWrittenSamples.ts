// The hand-written samples of handWritten.test.ts, shared with the differential test:
// each secret kind in one realistic line or file, with fresh values per seed.

import { generateKeyPairSync } from 'node:crypto';
import type { Rng } from './secretGen.ts';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';
const BASE64 = `${ALNUM}+/`;
const URL_SAFE = `${ALNUM}-_`;

export interface Sample {
  kind: string;
  path: string;
  text: string;
  secret: string;
}

/** Real keys of each format the issue names (generated once per run: their shape, not their bytes, matters). */
const PUBLIC_PEM = { type: 'spki', format: 'pem' } as const;
const KEYS = {
  ec: generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'sec1', format: 'pem' },
    publicKeyEncoding: PUBLIC_PEM,
  }).privateKey,
  ed25519: generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: PUBLIC_PEM,
  }).privateKey,
  rsa: generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: PUBLIC_PEM,
  }).privateKey,
  encrypted: generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pp' },
    publicKeyEncoding: PUBLIC_PEM,
  }).privateKey,
};

/** A private key's last body line (key material, not the ASN.1 header every key shares): what must not survive. */
export const bodyLine = (pem: string) =>
  pem
    .split('\n')
    .filter((line) => line && !line.startsWith('-----'))
    .at(-1)!;

export function samples(rng: Rng): Sample[] {
  const pick = (chars: string, n: number) =>
    Array.from({ length: n }, () => chars[Math.floor(rng() * chars.length)]).join('');
  // Short names keep each sample on one readable line.
  const A = ALNUM;
  const L = LOWER_ALNUM;
  const U = UPPER_ALNUM;
  const H = HEX;
  const B64 = BASE64;
  const URL = URL_SAFE;
  const uuid = () => `${pick(H, 8)}-${pick(H, 4)}-4${pick(H, 3)}-a${pick(H, 3)}-${pick(H, 12)}`;
  const list: Sample[] = [];
  const add = (kind: string, path: string, make: (v: string) => string, secret: string) =>
    list.push({ kind, path, text: make(secret), secret });
  const table: [string, string, (v: string) => string, string][] = [
    ['gitlab-pat', 'ci.yml', (v) => `variables:\n  GITLAB_TOKEN: ${v}\n`, `glpat-${pick(URL, 20)}`],
    ['gitlab-pat-prose', 'notes.md', (v) => `use ${v} for the registry`, `glpat-${pick(URL, 20)}`],
    ['stripe-restricted', 'billing.py', (v) => `stripe.api_key = "${v}"`, `rk_live_${pick(A, 24)}`],
    ['stripe-live', 'pay.js', (v) => `const stripe = require('stripe')('${v}');`, `sk_live_${pick(A, 24)}`],
    ['square-access', 'sq.rb', (v) => `client = Square::Client.new(access_token: '${v}')`, `EAAA${pick(URL, 60)}`],
    ['square-sq0atp', 'sq.txt', (v) => `token ${v}`, `sq0atp-${pick(URL, 22)}`],
    ['square-sq0csp', 'sq.env', (v) => `SQUARE_SECRET=${v}`, `sq0csp-${pick(URL, 43)}`],
    [
      'braintree',
      'bt.php',
      (v) => `$gateway = new Braintree\\Gateway(['accessToken' => '${v}']);`,
      `access_token$production$${pick(L, 16)}$${pick(H, 32)}`,
    ],
    ['facebook', 'fb.js', (v) => `const FB_TOKEN = "${v}";`, `EAACEdEose0cBA${pick(A, 40)}`],
    [
      'twitter-bearer',
      'tw.sh',
      (v) => `curl -H "Authorization: Bearer ${v}" https://api.twitter.com/2/tweets`,
      `AAAAAAAAAAAAAAAAAAAAA${pick(A, 30)}%3D${pick(A, 40)}`,
    ],
    [
      'google-oauth-access',
      'g.log',
      (v) => `2024-05-01 INFO got access token ${v} for user 42`,
      `ya29.${pick(URL, 80)}`,
    ],
    [
      'google-api',
      'maps.html',
      (v) => `<script src="https://maps.googleapis.com/maps/api/js?key=${v}"></script>`,
      `AIza${pick(URL, 35)}`,
    ],
    ['hf', 'train.py', (v) => `login(token="${v}")`, `hf_${pick(A, 34)}`],
    ['replicate', '.envrc', (v) => `export REPLICATE_API_TOKEN=${v}`, `r8_${pick(A, 37)}`],
    ['groq', 'chat.ts', (v) => `const groq = new Groq({ apiKey: '${v}' });`, `gsk_${pick(A, 52)}`],
    [
      'databricks',
      'dbx.cfg',
      (v) => `[DEFAULT]\nhost = https://x.cloud.databricks.com\ntoken = ${v}\n`,
      `dapi${pick(H, 32)}`,
    ],
    ['dockerhub', 'ci.sh', (v) => `echo ${v} | docker login -u me --password-stdin`, `dckr_pat_${pick(URL, 27)}`],
    ['pulumi', 'p.yml', (v) => `env:\n  PULUMI_ACCESS_TOKEN: ${v}`, `pul-${pick(H, 40)}`],
    ['doppler', 'd.env', (v) => `DOPPLER_TOKEN=${v}`, `dp.st.prd.${pick(A, 43)}`],
    ['sentry-auth', 'sentry.properties', (v) => `auth.token=${v}`, `sntrys_${pick(A, 60)}`],
    ['newrelic', 'newrelic.js', (v) => `license_key: '${v}',`, `NRAK-${pick(U, 27)}`],
    ['dropbox', 'db.py', (v) => `dbx = dropbox.Dropbox("${v}")`, `sl.${pick(URL, 130)}`],
    ['postman', 'pm.json', (v) => `{"apikey": "${v}"}`, `PMAK-${pick(H, 24)}-${pick(H, 34)}`],
    ['grafana-sa', 'g.ini', (v) => `[auth]\napi_key = ${v}`, `glsa_${pick(A, 32)}_${pick(H, 8)}`],
    [
      'mapbox-secret',
      'map.js',
      (v) => `mapboxgl.accessToken = '${v}';`,
      `sk.eyJ1Ijoi${pick(URL, 40)}.${pick(URL, 22)}`,
    ],
    ['easypost', 'ep.rb', (v) => `EasyPost.api_key = "${v}"`, `EZAK${pick(L, 54)}`],
    ['flutterwave', 'f.env', (v) => `FLW_SECRET_KEY=${v}`, `FLWSECK-${pick(H, 32)}-X`],
    ['typeform', 'tf.js', (v) => `headers: { Authorization: 'Bearer ${v}' }`, `tfp_${pick(A, 44)}_${pick(A, 14)}`],
    ['rubygems', 'credentials', (v) => `---\n:rubygems_api_key: ${v}\n`, `rubygems_${pick(H, 48)}`],
    ['nuget', 'nuget.sh', (v) => `dotnet nuget push pkg.nupkg --api-key ${v} --source nuget.org`, `oy2${pick(L, 43)}`],
    ['alibaba', 'ali.py', (v) => `client = AcsClient('${v}', '${pick(A, 30)}', 'cn-hangzhou')`, `LTAI${pick(A, 20)}`],
    [
      'atlassian',
      'jira.sh',
      (v) => `curl -u me@corp.com:${v} https://corp.atlassian.net/rest/api/3/issue/X-1`,
      `ATATT3xFfGF0${pick(URL, 180)}=${pick(H, 8).toUpperCase()}`,
    ],
    ['notion', 'n.ts', (v) => `const notion = new Client({ auth: "${v}" })`, `ntn_${pick(A, 46)}`],
    ['notion-old', 'n2.ts', (v) => `NOTION_KEY = "${v}"`, `secret_${pick(A, 43)}`],
    ['asana', 'a.sh', (v) => `ASANA_PAT=${v}`, `1/${pick('0123456789', 16)}:${pick(H, 32)}`],
    ['shopify', 's.rb', (v) => `ShopifyAPI::Context.setup(api_secret_key: "${v}")`, `shpss_${pick(H, 32)}`],
    ['heroku', 'h.sh', (v) => `export HEROKU_API_KEY=${v}`, uuid()],
    [
      'azure-sas',
      'blob.txt',
      (v) =>
        `https://acct.blob.core.windows.net/c/file.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2025-01-01T00:00:00Z&sig=${v}`,
      `${pick(B64, 43).replace(/\+/g, '%2B').replace(/\//g, '%2F')}%3D`,
    ],
    [
      'azure-conn',
      'app.config',
      (v) =>
        `<add name="Storage" connectionString="DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${v};EndpointSuffix=core.windows.net" />`,
      `${pick(B64, 86)}==`,
    ],
    [
      'age',
      'key.txt',
      (v) => `# created: 2024-01-01\n# public key: age1${pick(L, 58)}\n${v}\n`,
      `AGE-SECRET-KEY-1${pick('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58)}`,
    ],
    ['vault', 'v.sh', (v) => `VAULT_TOKEN=${v} vault kv get secret/app`, `hvs.${pick(URL, 90)}`],
    [
      'tfc',
      '.terraformrc',
      (v) => `credentials "app.terraform.io" {\n  token = "${v}"\n}`,
      `${pick(A, 14)}.atlasv1.${pick(URL, 67)}`,
    ],
    ['do', 'do.sh', (v) => `doctl auth init -t ${v}`, `dop_v1_${pick(H, 64)}`],
    ['planetscale', 'ps.env', (v) => `PLANETSCALE_TOKEN=${v}`, `pscale_tkn_${pick(URL, 43)}`],
    ['supabase', 'sb.ts', (v) => `const key = '${v}'`, `sbp_${pick(H, 40)}`],
    ['fly', 'fly.yml', (v) => `      FLY_API_TOKEN: "${v}"`, `FlyV1 fm2_${pick(URL, 120)}`],
    [
      'openai-proj',
      'bot.py',
      (v) => `client = OpenAI(api_key="${v}")`,
      `sk-proj-${pick(URL, 74)}T3BlbkFJ${pick(URL, 74)}`,
    ],
    ['anthropic', 'claude.ts', (v) => `new Anthropic({ apiKey: '${v}' })`, `sk-ant-api03-${pick(URL, 93)}AA`],
    [
      'slack-bot',
      'slack.yml',
      (v) => `slack_token: ${v}`,
      `xoxb-${pick('0123456789', 12)}-${pick('0123456789', 13)}-${pick(A, 24)}`,
    ],
    [
      'slack-webhook',
      'notify.sh',
      (v) => `curl -X POST -d '{"text":"hi"}' https://hooks.slack.com/services/T${pick(U, 8)}/B${pick(U, 10)}/${v}`,
      pick(A, 24),
    ],
    [
      'github-pat-fine',
      'gh.sh',
      (v) => `gh auth login --with-token <<< ${v}`,
      `github_pat_${pick(A, 22)}_${pick(A, 59)}`,
    ],
    ['npm', '.npmrc-like.txt', (v) => `//registry.example.org/:_authToken=${v}`, `npm_${pick(A, 36)}`],
    ['pypi', 'upload.sh', (v) => `twine upload -u __token__ -p ${v} dist/*`, `pypi-AgEIcHlwaS5vcmc${pick(URL, 70)}`],
    [
      'jwt',
      'req.http',
      (v) => `GET /api/me\nAuthorization: Bearer ${v}\n`,
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' +
        'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6Ikpv' +
        pick(URL, 20) +
        '.' +
        pick(URL, 43),
    ],
    [
      'basic-header',
      'req2.http',
      (v) => `Authorization: Basic ${v}`,
      Buffer.from(`admin:${pick(A, 14)}`).toString('base64'),
    ],
    ['cookie', 'curl.sh', (v) => `curl -b "sessionid=${v}; csrftoken=abc" https://app/x`, pick(L, 32)],
    ['pg-url', 'db.ts', (v) => `const url = "postgres://app:${v}@db.internal:5432/app"`, pick(A, 18)],
    ['mysql-dsn', 'main.go', (v) => `db, _ := sql.Open("mysql", "root:${v}@tcp(127.0.0.1:3306)/app")`, pick(A, 16)],
    ['mongo-srv', 'm.env', (v) => `MONGO_URL=mongodb+srv://admin:${v}@cluster0.abcde.mongodb.net/db`, pick(A, 20)],
    ['redis-url', 'r.py', (v) => `r = redis.from_url("rediss://default:${v}@redis.example.com:6380/0")`, pick(A, 32)],
    [
      'psycopg',
      'conn.py',
      (v) => `conn = psycopg2.connect(host="db", user="app", password="${v}", dbname="app")`,
      pick(A, 14),
    ],
    [
      'dotnet-conn',
      'appsettings.json',
      (v) => `{"ConnectionStrings":{"Default":"Server=db;Database=app;User Id=sa;Password=${v};"}}`,
      `${pick(A, 15)}!`,
    ],
    [
      'jdbc',
      'application.yml',
      (v) => `spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/app\n    username: app\n    password: ${v}\n`,
      pick(A, 16),
    ],
    ['php-define', 'wp-config.php', (v) => `define( 'DB_PASSWORD', '${v}' );`, pick(A, 20)],
    [
      'compose-list',
      'docker-compose.yml',
      (v) => `services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD=${v}\n`,
      pick(A, 18),
    ],
    ['tfvars', 'prod.tfvars', (v) => `db_password = "${v}"`, pick(A, 20)],
    ['ansible', 'vars.yml', (v) => `ansible_become_password: ${v}`, pick(A, 14)],
    ['helm', 'values.yaml', (v) => `auth:\n  rootPassword: ${v}\n  username: app\n`, pick(A, 16)],
    ['gh-actions-env', 'deploy.yml', (v) => `    env:\n      API_SECRET: ${v}\n`, pick(A, 32)],
    [
      'k8s-data',
      'secret.yaml',
      (v) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ntype: Opaque\ndata:\n  password: ${v}\n`,
      Buffer.from(pick(A, 18)).toString('base64'),
    ],
    ['netrc', 'netrc.txt', (v) => `machine api.example.com login me password ${v}`, pick(A, 20)],
    ['htpasswd', 'htpasswd', (v) => `admin:${v}`, `$apr1$${pick(A, 8)}$${pick(`${A}./`, 22)}`],
    [
      'bcrypt-in-sql',
      'seed.sql',
      (v) => `INSERT INTO users (email, password_hash) VALUES ('a@b.c', '${v}');`,
      `$2b$12$${pick(`${A}./`, 53)}`,
    ],
    [
      'private-key-rsa',
      'deploy.md',
      (v) => `Here is the key:\n\n-----BEGIN RSA PRIVATE KEY-----\n${v}\n-----END RSA PRIVATE KEY-----\n`,
      `${pick(B64, 64)}\n${pick(B64, 64)}`,
    ],
    [
      'openssh',
      'id.txt',
      (v) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${v}\n-----END OPENSSH PRIVATE KEY-----`,
      `b3BlbnNzaC1rZXktdjEAAAAA${pick(B64, 40)}\n${pick(B64, 70)}`,
    ],
    [
      'gcp-sa',
      'sa.json',
      (v) =>
        `{"type": "service_account", "project_id": "p", "private_key_id": "${v}", "client_email": "x@p.iam.gserviceaccount.com"}`,
      pick(H, 40),
    ],
    [
      'aws-pair',
      'aws.txt',
      (v) => `aws_access_key_id = AKIA${pick(U, 16)}\naws_secret_access_key = ${v}\n`,
      pick(B64, 40),
    ],
    ['aws-session', 'sess.sh', (v) => `export AWS_SESSION_TOKEN=${v}`, `IQoJb3JpZ2luX2VjE${pick(B64, 300)}`],
    [
      'aws-in-log',
      'boto.log',
      (v) => `DEBUG botocore.credentials Found credentials: access_key=AKIA${pick(U, 16)} secret_key=${v}`,
      pick(B64, 40),
    ],
    ['chat-pass', 'chat.txt', (v) => `hey can you ssh into prod? the root password is ${v} btw`, `${pick(A, 12)}7`],
    [
      'log-kv',
      'app.log',
      (v) => `2024-06-01T10:00:00Z level=info msg="login" user=bob password=${v} ip=10.0.0.1`,
      pick(A, 12),
    ],
    [
      'yaml-letters',
      'config.yml',
      (v) => `smtp:\n  host: mail\n  password: ${v}\n`,
      pick('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 14),
    ],
    ['ini-letters', 'my.cnf', (v) => `[client]\nuser=root\npassword=${v}\n`, pick('abcdefghijklmnopqrstuvwxyz', 12)],
    ['props', 'app.properties', (v) => `mail.smtp.password=${v}`, pick(A, 14)],
    [
      'xml-pass',
      'settings.xml',
      (v) => `<server><id>repo</id><username>me</username><password>${v}</password></server>`,
      pick(A, 18),
    ],
    [
      'git-url',
      'gitconfig',
      (v) => `[remote "origin"]\n\turl = https://me:${v}@github.com/org/repo.git`,
      `ghp_${pick(A, 36)}`,
    ],
    [
      'diff',
      'change.diff',
      (v) => `--- a/.env.example\n+++ b/.env.example\n@@ -1,2 +1,3 @@\n API_URL=http://x\n+API_KEY=${v}\n`,
      pick(A, 32),
    ],
    [
      'trace',
      'trace.txt',
      (v) =>
        `Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    connect(password='${v}')\nTypeError: bad`,
      pick(A, 16),
    ],
    ['powershell', 'deploy.ps1', (v) => `$secpass = ConvertTo-SecureString "${v}" -AsPlainText -Force`, pick(A, 16)],
    ['bash-history', '.bash_history', (v) => `mysql -u root -p${v} app`, pick(A, 14)],
    ['curl-data', 'c.sh', (v) => `curl -d 'username=admin&password=${v}' https://app/login`, pick(A, 14)],
    ['cloudinary', 'c.env', (v) => `CLOUDINARY_URL=cloudinary://123456789012345:${v}@demo`, pick(URL, 27)],
    ['okta', 'okta.env', (v) => `OKTA_API_TOKEN=${v}`, `00${pick(URL, 40)}`],
    ['datadog', 'dd.yaml', (v) => `api_key: ${v}`, pick(H, 32)],
    ['twilio-auth', 'tw.py', (v) => `client = Client("AC${pick(H, 32)}", "${v}")`, pick(H, 32)],
    ['sendgrid', 'sg.js', (v) => `sgMail.setApiKey('${v}')`, `SG.${pick(URL, 22)}.${pick(URL, 43)}`],
    ['mailgun', 'mg.py', (v) => `auth=("api", "${v}")`, `${pick(H, 32)}-${pick(H, 8)}-${pick(H, 8)}`],
    [
      'telegram',
      'bot.py',
      (v) => `bot = telebot.TeleBot("${v}")`,
      `${pick('123456789', 1) + pick('0123456789', 9)}:AA${pick(URL, 33)}`,
    ],
    [
      'discord-webhook',
      'd.sh',
      (v) =>
        `curl -H "Content-Type: application/json" -d '{"content":"x"}' https://discord.com/api/webhooks/1234567890123456789/${v}`,
      pick(URL, 68),
    ],
    ['firebase', 'fb.json', (v) => `{"apiKey": "${v}", "authDomain": "x.firebaseapp.com"}`, `AIza${pick(URL, 35)}`],
    ['linear', 'l.ts', (v) => `const linear = new LinearClient({ apiKey: "${v}" })`, `lin_api_${pick(A, 40)}`],
    ['1password', 'op.sh', (v) => `export OP_SERVICE_ACCOUNT_TOKEN=${v}`, `ops_eyJ${pick(URL, 200)}`],
    ['claude-md', 'CLAUDE.md', (v) => `# Project\n\nThe staging API key is ${v} (do not commit).\n`, pick(A, 32)],
    [
      'git-log',
      'gitlog.txt',
      (v) => `commit ${pick(H, 40)}\nAuthor: A <a@b.c>\n\n    temporarily hardcode token ${v}\n`,
      `ghp_${pick(A, 36)}`,
    ],
    ['encrypted-pass-in-code', 'Cfg.java', (v) => `private static final String DB_PASS = "${v}";`, pick(A, 16)],
    ['go-const', 'cfg.go', (v) => `const apiSecret = "${v}"`, pick(A, 24)],
    ['rust', 'main.rs', (v) => `let token = "${v}";`, pick(A, 40)],
    ['swift', 'Keys.swift', (v) => `static let clientSecret = "${v}"`, pick(A, 32)],
    ['kotlin', 'Build.kt', (v) => `val apiKey: String = "${v}"`, pick(A, 32)],
    ['csharp', 'Cfg.cs', (v) => `public const string Password = @"${v}";`, pick(A, 16)],
  ];
  for (const [kind, path, make, secret] of table) add(kind, path, make, secret);
  const pw = () => pick(A, 10) + pick('!#%*', 1) + pick(A, 5);
  const { ec, ed25519: ed, rsa, encrypted: encPem } = KEYS;
  add('ec-diff', 'key.diff', (v) => `+${v.trim().split('\n').join('\n+')}\n`, ec);
  add(
    'ed25519-yaml',
    'values.yaml',
    (v) =>
      'tls:\n  key: |\n' +
      v
        .trim()
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n') +
      '\n',
    ed,
  );
  add('rsa-json-escaped', 'sa.json', (v) => JSON.stringify({ private_key: v }), rsa);
  add('encrypted-pem', 'enc.key.txt', (v) => v, encPem);
  add(
    'pgp',
    'priv.asc.txt',
    (v) => `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${v}\n=${pick(B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----\n`,
    `lQOYBF${pick(B64, 58)}\n${pick(B64, 64)}`,
  );
  add(
    'url-pct',
    'db.env',
    (v) => `DATABASE_URL=postgresql://app:${v}@db:5432/app`,
    `${pick(A, 8)}%40${pick(A, 6)}%2F${pick(A, 4)}`,
  );
  add(
    'url-amp-eq',
    'config.py',
    (v) => `BROKER = "amqps://user:${v}@mq.example.com:5671/vhost"`,
    `${pick(A, 8)}&${pick(A, 4)}=${pick(A, 5)}`,
  );
  add('redis', 'cache.yml', (v) => `redis_url: redis://:${v}@redis:6379/0`, pick(A, 24));
  add(
    'jdbc-pw',
    'ds.properties',
    (v) => `spring.datasource.url=jdbc:mysql://db:3306/app?user=app&password=${v}&useSSL=true`,
    pick(A, 14),
  );
  add(
    'jdbc-sqlserver',
    'ds2.properties',
    (v) => `url=jdbc:sqlserver://db:1433;databaseName=app;user=sa;password=${v};encrypt=true`,
    pick(A, 14),
  );
  add(
    'curl-H',
    'api.sh',
    (v) => `curl -s -H 'Authorization: Bearer ${v}' https://api.example.com/v1/items`,
    pick(A, 40),
  );
  add('curl-H-token', 'api2.sh', (v) => `curl -H "X-API-Key: ${v}" https://api.example.com`, pick(A, 32));
  add('curl-u', 'api3.sh', (v) => `curl -u deploy:${v} https://ci.example.com/job/build`, pw());
  add('wget-pass', 'dl.sh', (v) => `wget --user=me --password=${v} https://files.example.com/x.tgz`, pw());
  add(
    'k8s-data',
    's.yaml',
    (v) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  DB_PASSWORD: ${v}\n  DB_USER: YWRtaW4=\n`,
    Buffer.from(pw()).toString('base64'),
  );
  add(
    'docker-auths',
    'config.json',
    (v) => JSON.stringify({ auths: { 'registry.example.com': { auth: v } } }, null, 2),
    Buffer.from(`bot:${pw()}`).toString('base64'),
  );
  add(
    'tfstate',
    'terraform.tfstate.txt',
    (v) =>
      JSON.stringify(
        {
          version: 4,
          resources: [{ type: 'aws_db_instance', instances: [{ attributes: { username: 'admin', password: v } }] }],
        },
        null,
        2,
      ),
    pw(),
  );
  add('dotenv-export', '.envrc', (v) => `export DB_PASSWORD='${v}'`, pw());
  add('toml', 'Cargo-secrets.toml', (v) => `[database]\npassword = "${v}"`, pw());
  add('ini-secret', 'settings.ini', (v) => `[oauth]\nclient_secret = ${v}`, pick(A, 32));
  add('props-token', 'gradle.properties', (v) => `sonatypeToken=${v}`, pick(A, 36));
  add('xml-attr', 'web.config', (v) => `<add key="ApiSecret" value="${v}" />`, pick(A, 32));
  add('json-passphrase', 'signing.json', (v) => `{"keystore": "release.jks", "passphrase": "${v}"}`, pw());
  add(
    'code-apikey-ts',
    'client.ts',
    (v) => `export const config = { apiKey: process.env.KEY ?? "${v}" };`,
    pick(A, 32),
  );
  add('go-struct', 'main.go', (v) => `cfg := Config{ClientSecret: "${v}"}`, pick(A, 32));
  add('java-setter', 'App.java', (v) => `ds.setPassword("${v}");`, pw());
  add('python-kw', 'mail.py', (v) => `server.login("me@example.com", "${v}")`, pw());
  add(
    'stack-trace',
    'err.txt',
    (v) =>
      `Error: connect ECONNREFUSED\n    at Object.<anonymous> (/app/db.js:3:27)\n\n  1 | const { Client } = require('pg');\n> 3 | const c = new Client({ password: '${v}' });\n`,
    pw(),
  );
  add(
    'git-log-msg',
    'log.txt',
    (v) =>
      `commit ${pick(H, 40)}\nAuthor: dev <dev@x.io>\nDate:   Mon Jan 1\n\n    fix: rotate stripe key (old one was ${v})\n`,
    `sk_live_${pick(A, 24)}`,
  );
  add('claude-md', 'CLAUDE.md', (v) => `## Deploy\n\nUse \`DEPLOY_TOKEN=${v} make deploy\`.\n`, pick(A, 40));
  add(
    'shell-history',
    '.zsh_history',
    (v) => `: 1700000000:0;export GITHUB_TOKEN=${v}\n: 1700000001:0;gh repo list`,
    `ghp_${pick(A, 36)}`,
  );
  add('aws-key-id', 'aws.env', (v) => `AWS_ACCESS_KEY_ID=${v}`, `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`);
  add('aws-secret-yaml', 'aws.yml', (v) => `aws:\n  secret_access_key: ${v}\n`, pick(B64, 40));
  add(
    'gcp-sa-json',
    'gcp.json',
    (v) =>
      `{\n  "type": "service_account",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n${v}\\n-----END PRIVATE KEY-----\\n"\n}`,
    pick(B64, 64),
  );
  add('azure-ad', 'azure.env', (v) => `AZURE_CLIENT_SECRET=${v}`, `${pick(A, 3)}8Q~${pick(`${A}_.~-`, 34)}`);
  add(
    'jwt-cookie',
    'req.log',
    (v) => `GET /dash HTTP/1.1\nCookie: session=${v}; theme=dark`,
    `eyJhbGciOiJIUzI1NiJ9.${pick(URL, 60)}.${pick(URL, 43)}`,
  );
  add('set-cookie', 'resp.log', (v) => `HTTP/1.1 200 OK\nSet-Cookie: sid=${v}; Path=/; HttpOnly`, pick(A, 40));
  add(
    'pypirc',
    'pypirc.txt',
    (v) => `[pypi]\nusername = __token__\npassword = ${v}\n`,
    `pypi-AgEIcHlwaS5vcmc${pick(URL, 60)}`,
  );
  add('netrc-inline', 'netrc2.txt', (v) => `machine github.com login me password ${v}`, `ghp_${pick(A, 36)}`);
  add('pgpass', 'pgpass.txt', (v) => `db.example.com:5432:app:app:${v}`, pw());
  add('htpasswd-sha', 'users.htpasswd', (v) => `alice:${v}`, `{SHA}${pick(B64, 27)}=`);
  add('ssh-pass-cmd', 'run.sh', (v) => `sshpass -p '${v}' ssh root@10.0.0.5`, pw());
  add('mysql-cli', 'db.sh', (v) => `mysql -h db -u root --password=${v} app < dump.sql`, pw());
  add('docker-login', 'login.sh', (v) => `docker login -u ci -p ${v} registry.example.com`, pick(A, 24));
  add('helm-set', 'deploy.sh', (v) => `helm upgrade app ./chart --set postgresql.auth.password=${v}`, pw());
  add('chat-token', 'chat.txt', (v) => `ok here's the token: ${v} — use it for the staging webhook`, pick(A, 40));
  add(
    'vault-kv',
    'vault.txt',
    (v) => `====== Data ======\nKey         Value\n---         -----\napi_key     ${v}\n`,
    pick(A, 32),
  );
  add('sendgrid-dash', 'sg.env', (v) => `SENDGRID_API_KEY=${v}`, `SG.${pick(URL, 22)}.${pick(URL, 43)}`);
  add('hvs-short', 'v.env', (v) => `VAULT_TOKEN=${v}`, `hvs.${pick(URL, 24)}`);
  add('anthropic-admin', 'a.env', (v) => `ANTHROPIC_ADMIN_KEY=${v}`, `sk-ant-admin01-${pick(URL, 93)}AA`);
  add(
    'gocspx',
    'oauth.json',
    (v) => `{"web":{"client_id":"1-x.apps.googleusercontent.com","client_secret":"${v}"}}`,
    `GOCSPX-${pick(URL, 28)}`,
  );
  add('twilio-sid-key', 'tw.env', (v) => `TWILIO_API_KEY=${v}`, `SK${pick(H, 32)}`);
  add('do-token', 'do.env', (v) => `DIGITALOCEAN_TOKEN=${v}`, `dop_v1_${pick(H, 64)}`);
  add('sentry-dsn', 'sentry.ts', (v) => `Sentry.init({ dsn: "https://${v}@o123.ingest.sentry.io/456" });`, pick(H, 32));
  add('discord-bot', 'bot.env', (v) => `DISCORD_TOKEN=${v}`, `MT${pick(URL, 24)}.${pick(URL, 6)}.${pick(URL, 38)}`);
  add('pkcs8-in-env', '.env.production.txt', (v) => `PRIVATE_KEY="${v.trim().replace(/\n/g, '\\n')}"`, ed);
  return list;
}
