import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';

const redactor = await createRedactor();

test('files that are secrets by nature are never read', () => {
  const never = [
    '.env',
    '.env.local',
    '.env.production',
    'apps/web/.env.development.local',
    'server.pem',
    'certs/tls.key',
    'id_rsa',
    'home/.ssh/id_ed25519',
    'keys/id_ecdsa',
    'release.p12',
    'signing.pfx',
    'android/app/release.jks',
    'upload.keystore',
    '.npmrc',
    '.pypirc',
    '.netrc',
    '.pgpass',
    '.aws/credentials',
    'ops/.aws/credentials',
    '.docker/config.json',
    '.kube/config',
    'kubeconfig',
    'prod.kubeconfig',
    'terraform.tfstate',
    'infra/terraform.tfstate.backup',
    'prod.tfvars',
    'credentials.json',
    'gcp-credentials.json',
    'service-account-prod.json',
    'secrets.yaml',
    'config/secrets.json',
    'config/master.key',
    '.git-credentials',
    '.htpasswd',
    '.s3cfg',
    'ops/.edgerc',
    'credentials.tfrc.json',
    'http.keytab',
    'office.ovpn',
    'ci_accessKeys.csv',
    'aws-credentials.csv',
    '.config/rclone/rclone.conf',
    '.cargo/credentials.toml',
    'etc/shadow',
  ];
  for (const path of never) assert.equal(redactor.isNeverRead(path), true, path);
});

test('examples, public keys and ordinary files are read', () => {
  const read = [
    '.env.example',
    '.env.sample',
    '.env.template',
    'apps/web/.env.example',
    'id_rsa.pub',
    'home/.ssh/id_ed25519.pub',
    '.ssh/known_hosts',
    'src/index.ts',
    'src/auth/token.ts',
    'src/keyboard.ts',
    'README.md',
    'package.json',
    'package-lock.json',
    'docs/environment.md',
    'terraform/main.tf',
    'src/shadow.ts',
    'docs/vpn.md',
  ];
  for (const path of read) assert.equal(redactor.isNeverRead(path), false, path);
});

test('Windows separators and a leading ./ are understood', () => {
  assert.equal(redactor.isNeverRead('.\\config\\.env'), true);
  assert.equal(redactor.isNeverRead('./.env'), true);
});
