// Values that only their context marks as secrets (rules/redaction/data-and-logs.json):
// letters-only and dotted values in data files, key=value pairs in log lines, a
// capitalised word as a comment's password; and the code, types, translations and
// references next to them that must pass unchanged.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';

const redactor = await createRedactor();

async function masked(text: string, path: string | undefined, secret: string): Promise<boolean> {
  const out = await redactor.redact(text, path === undefined ? {} : { path });
  return !out.text.includes(secret);
}

test('letters-only and dotted values under token/secret/password keys in data files are masked', async () => {
  const cases: [string, string, string][] = [
    ['config/app.yml', 'api_token: qzkvbmwhtrplxs\n', 'qzkvbmwhtrplxs'],
    ['config/app.yml', 'jwt:\n  secret: XkqpTzwLmnRv\n', 'XkqpTzwLmnRv'],
    ['values.yaml', 'auth:\n  rootPassword: QwErTyUiOp\n', 'QwErTyUiOp'],
    ['settings.ini', '[api]\nsecret = XkqpTzwLmnRv\n', 'XkqpTzwLmnRv'],
    ['settings.ini', '[api]\ntoken = qzkvbmwhtrplxs ; rotate\n', 'qzkvbmwhtrplxs'],
    ['app.properties', 'app.jwt.secret=XkqpTzwLmnRv\n', 'XkqpTzwLmnRv'],
    ['config/app.yml', 'stripe:\n  api_key: Ab.cd9Qx7k\n', 'Ab.cd9Qx7k'],
    ['notes.md', 'secret: Ab.cd9Qx7k\n', 'Ab.cd9Qx7k'],
    ['config/app.yml', 'token: Ab.cdqxzkwP\n', 'Ab.cdqxzkwP'],
    ['notes.txt', 'VPN secret: XkqpTzwLmnRv\n', 'XkqpTzwLmnRv'],
    ['php.ini', 'mysqli.default_pw = Sunflower\n', 'Sunflower'],
    ['deploy.yaml', 'env:\n  - name: DB_PASSWORD\n    value: Sunflower\n', 'Sunflower'],
    ['config/database.yml', 'production:\n  password: Sunflower\n', 'Sunflower'],
    ['ansible/group_vars/all.yml', 'ansible_password: Wildcat\n', 'Wildcat'],
    ['settings.ini', '[db]\npassword = Sunflower\n', 'Sunflower'],
    ['docker-compose.yml', 'environment:\n  POSTGRES_PASSWORD: Sunflower\n', 'Sunflower'],
  ];
  for (const [path, text, secret] of cases) assert.ok(await masked(text, path, secret), `${path}: ${text}`);
});

test('key=value pairs in log lines and form bodies are masked', async () => {
  const cases: [string, string][] = [
    ['2024 INFO connect user=bob password=QwErTyUiOp host=db port=5432', 'QwErTyUiOp'],
    ['2024 INFO connect user=bob password=sunflower host=db', 'sunflower'],
    ['password=Ab.cd9Qx7k host=db', 'Ab.cd9Qx7k'],
    ['Connecting with username=admin and password=Sunflower', 'Sunflower'],
    ['2024 DEBUG auth token=qzkvbmwhtrplxs scope=read', 'qzkvbmwhtrplxs'],
    ['mount -t cifs -o username=backup,password=Wildcat //nas/share /mnt', 'Wildcat'],
    ['curl -d "password=Sunflower&user=bob" https://example.com/login', 'Sunflower'],
    ['curl --data-urlencode "password=QwErTyUiOp" https://example.com/login', 'QwErTyUiOp'],
    ['Set-Cookie: remember_user_token=XkqpTzwLmnRvXkqpTzwLmn; Path=/', 'XkqpTzwLmnRvXkqpTzwLmn'],
    ['The client secret for the app is ADANSEFvOobXKSbJouRlIkVnfKsSLYxR.', 'ADANSEFvOobXKSbJouRlIkVnfKsSLYxR'],
  ];
  for (const [text, secret] of cases) assert.ok(await masked(text, 'run.log', secret), text);
  // Not path-aware: the same in a chat message.
  assert.ok(await masked(cases[0]![0], undefined, cases[0]![1]));
});

test('passwords given to admin CLIs and SQL DDL are masked, references and configmaps stay', async () => {
  const cases: [string, string][] = [
    ['kubectl create secret generic db --from-literal=password=Sunflower', 'Sunflower'],
    ['vault kv put secret/db username=shop password=QwErTyUiOp', 'QwErTyUiOp'],
    ['rabbitmqctl add_user shop Sunflower', 'Sunflower'],
    ['az login -u ops@example.com -p Ab.cd9Qx7k', 'Ab.cd9Qx7k'],
    ['CREATE USER reporting IDENTIFIED BY Sunflower;', 'Sunflower'],
    ["GRANT SELECT ON shop.* TO 'bi'@'%' IDENTIFIED BY 'QwErTyUiOp';", 'QwErTyUiOp'],
  ];
  for (const [text, secret] of cases) assert.ok(await masked(text, 'setup.sh', secret), text);
  assert.ok(await masked('mavenPassword=Sunflower\n', 'gradle.properties', 'Sunflower'));
  assert.ok(await masked('<!-- admin password: Wildcat -->\n', 'status.html', 'Wildcat'));
  for (const [path, text, secret] of [
    ['msmtprc', 'account work\nuser bob\npassword Sunflower\n', 'Sunflower'],
    ['sssd.conf', 'ldap_default_authtok = Sunflower\n', 'Sunflower'],
    ['.muttrc', 'set imap_pass = Sunflower\n', 'Sunflower'],
    ['haproxy.cfg', '    stats auth admin:Sunflower\n', 'Sunflower'],
    ['snmpd.conf', 'rwcommunity Sunflower 10.0.0.0/8\n', 'Sunflower'],
  ] as const) {
    assert.ok(await masked(text, path, secret), `${path}: ${text}`);
  }
  const pam = 'password    required      pam_deny.so\nPASS_MAX_DAYS   99999\nrocommunity public 127.0.0.1\n';
  assert.equal((await redactor.redact(pam, { path: 'system-auth.conf' })).text, pam);
  // A Django/WordPress-style salt may end in a comma; code such as f(a, b), may not.
  const salt = '&^}hjkgRFX+yb}=-?F*K&c>5bB)<A%C+I.2yV_yv&q]K^k<B=a2p}1ioG|uGdM=,';
  assert.ok(await masked(`auth_salt: ${salt}\n`, 'wp-config.yml', salt));
  for (const text of [
    'kubectl create configmap app --from-literal=mode=production\n',
    'vault kv put secret/db password=-\n',
    'rabbitmqctl add_user "$RABBIT_USER" "$RABBIT_PASS"\n',
    'Each resource is identified by its name.\n',
    'psql -c "ALTER USER app IDENTIFIED BY :new_password"\n',
    'SECRET_KEY: make_key(aaaaaaaaaaaaaaaaaaaaaaaaaaaa, bbbb),\n',
  ]) {
    assert.equal((await redactor.redact(text, { path: 'setup.sh' })).text, text);
  }
});

test('a capitalised word as the password in a comment is masked, a heading is not', async () => {
  for (const [text, secret] of [
    ['# password Hunter\nimport os\n', 'Hunter'],
    ['# root password: Wildcat\n', 'Wildcat'],
    ['-- pw: Sunflower\nSELECT 1;\n', 'Sunflower'],
    ['// admin password is Marigold\n', 'Marigold'],
  ] as const) {
    assert.ok(await masked(text, 'x.py', secret), text);
  }
  for (const text of [
    '# Password Reset\n',
    '// Password Hashing\n',
    '# password reset flow\n',
    '# password Policy\n',
  ]) {
    assert.equal((await redactor.redact(text, { path: 'x.py' })).text, text);
  }
});

test('types, identifiers, translations, references and code stay byte for byte', async () => {
  const keep: [string, string][] = [
    [
      'config/app.yml',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a YAML reference under test, not a template
      'token: string\npassword: Password\nsecret: mySecretName\ntoken: ${TOKEN}\npassword: changeme\n',
    ],
    ['config/locales/de.yml', 'de:\n  password: Passwort\n  token: Zugangstoken\n  secret: Geheimnis\n'],
    ['config/locales/nl.yml', 'nl:\n  password: Wachtwoord\n'],
    ['messages_de.properties', 'login.password=Passwort\nlogin.secret=Geheimnis\n'],
    [
      'config/app.yml',
      'secret: DefaultToken\napi_key: ServiceAccount\nclient_secret: ClientCredentials\njwt_secret: v1.2.3\n',
    ],
    ['src/x.ts', 'const token: string = getToken();\ninterface A { password: Password; secret: mySecretName }\n'],
    ['src/x.go', 'type Cfg struct { Password string; Token Token }\npassword := cfg.Password\n'],
    [
      'x.py',
      'def f(password: str, token: Token) -> None: ...\nconn = connect(host=host, user=user, password=creds, port=5432)\n',
    ],
    ['run.log', 'logger.debug("user=%s password=%s host=%s", u, p, h)\n2024 INFO user=bob password=*** host=db\n'],
    ['run.log', '2024 INFO user=bob token=abcdefgh host=db\n2024 INFO user=bob token=Bearer scope=read\n'],
    ['x.py', 'conn = connect(\n    host=host,\n    password=creds,\n)\nlogin(user=bob, password=creds)\n'],
  ];
  for (const [path, text] of keep) assert.equal((await redactor.redact(text, { path })).text, text, `${path}: ${text}`);
});
