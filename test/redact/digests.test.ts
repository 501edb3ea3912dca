// Issue 26, fourteenth round: what a hash is decides whether it is masked, by class. A digest of public
// content (a lockfile's integrity, an image's sha256, a release checksum, a commit id, a Helm checksum
// annotation, an SRI hash, a key's fingerprint) is published on purpose and stays byte for byte. A password
// hash (bcrypt, sha-crypt, argon2, PBKDF2 and scrypt in their crypt formats, SCRAM verifiers, MySQL's *HEX,
// LDAP {SSHA}) or any digest whose key says it is a password's or secret's is cracked offline, and is masked
// in every format it is written in, compose's doubled dollars included.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';

const redactor = await createRedactor();

/** [path, text]: digests of public content, each in the file it is usually found in. */
const PUBLIC_DIGESTS: [string, string][] = [
  [
    'package-lock.json',
    '{\n  "node_modules/ky": {\n    "version": "1.2.0",\n    "integrity": "sha512-QUyKR/wJ5iq8XnKmVkPpIsm2tHs7KWJ2ZXu2O7gFdEu31jkTzFBqgNxyxmzBF4cMp+mBhcVkUD1qcR8hU4oVcA=="\n  }\n}\n',
  ],
  [
    'yarn.lock',
    'ky@^1.2.0:\n  version "1.2.0"\n  resolved "https://r.example/ky/-/ky-1.2.0.tgz#3f2a0c7b1f5e8d9a6b4c2e1f0a9b8c7d6e5f4a3b"\n  integrity sha512-QUyKR/wJ5iq8XnKmVkPpIsm2tHs7KWJ2ZXu2O7gFdEu31jkTzFBqgNxyxmzBF4cMp+mBhcVkUD1qcR8hU4oVcA==\n',
  ],
  [
    'deploy.yaml',
    'spec:\n  containers:\n    - image: ghcr.io/acme/api@sha256:4b1f3e9a7c2d8e6f0a5b9c3d7e1f2a4b6c8d0e2f4a6b8c0d2e4f6a8b0c2d4e6f\n',
  ],
  [
    'SHA256SUMS',
    '9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e  tool-linux-amd64.tar.gz\n1a3c5e7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e8a0c2e4b6d8f1a3c5e7b9d0f2e  tool-darwin-arm64.tar.gz\n',
  ],
  [
    'README.md',
    'Verify the download:\n\n    echo "9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e  tool.tar.gz" | sha256sum -c\n',
  ],
  [
    'tasks/main.yml',
    '- name: fetch tool\n  ansible.builtin.get_url:\n    url: https://example.org/tool.tar.gz\n    checksum: sha256:9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e\n',
  ],
  [
    'Formula/tool.rb',
    'class Tool < Formula\n  url "https://example.org/tool-1.0.tar.gz"\n  sha256 "9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e"\nend\n',
  ],
  [
    'flake.lock',
    '{\n  "nodes": {\n    "nixpkgs": {\n      "locked": {\n        "narHash": "sha256-Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7Nc=",\n        "rev": "3f2a0c7b1f5e8d9a6b4c2e1f0a9b8c7d6e5f4a3b"\n      }\n    }\n  }\n}\n',
  ],
  [
    'default.nix',
    'src = fetchFromGitHub {\n  owner = "acme";\n  repo = "tool";\n  rev = "3f2a0c7b1f5e8d9a6b4c2e1f0a9b8c7d6e5f4a3b";\n  hash = "sha256-Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7Nc=";\n};\n',
  ],
  [
    'go.sum',
    'github.com/acme/tool v1.2.0 h1:Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7Nc=\ngithub.com/acme/tool v1.2.0/go.mod h1:Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7NcQx7vLm2Tn4Wp9Zk3=\n',
  ],
  [
    'Cargo.lock',
    '[[package]]\nname = "serde"\nversion = "1.0.200"\nsource = "registry+https://example.org/index"\nchecksum = "9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e"\n',
  ],
  [
    'requirements.txt',
    'requests==2.32.0 \\\n    --hash=sha256:9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e\n',
  ],
  ['CHANGELOG.md', 'Fixed in commit 3f2a0c7b1f5e8d9a6b4c2e1f0a9b8c7d6e5f4a3b (see #123).\n'],
  [
    'values.yaml',
    'podAnnotations:\n  checksum/config: 9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e\n',
  ],
  [
    'index.html',
    '<script src="https://cdn.example/lib.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin="anonymous"></script>\n',
  ],
  [
    'release.json',
    '{"name": "tool.tar.gz", "digest": "sha256:9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e", "md5": "1a3c5e7b9d0f2e4c6a8b1d3f5e7a9c0b"}\n',
  ],
  [
    'docs/build.md',
    'The build is reproducible: its SHA-256 is `9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e`.\n',
  ],
  [
    'docker.log',
    'Digest: sha256:4b1f3e9a7c2d8e6f0a5b9c3d7e1f2a4b6c8d0e2f4a6b8c0d2e4f6a8b0c2d4e6f\nStatus: Downloaded newer image for acme/api:1.4\n',
  ],
  ['SECURITY.md', "The release key's fingerprint is 3F2A 0C7B 1F5E 8D9A 6B4C  2E1F 0A9B 8C7D 6E5F 4A3B.\n"],
];

/** [path, text]: password hashes and digests a key names as a password's, in several formats. */
const PASSWORD_HASHES: [string, string][] = [
  [
    'users.yml',
    "users:\n  alice:\n    password: '$argon2id$v=19$m=65536,t=3,p=2$Zk3Rb8Yc1Hd6Jf0G$Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7Nc'\n",
  ],
  [
    '.htpasswd',
    'alice:$apr1$Zk3Rb8Yc$Qx7vLm2Tn4Wp9Zk3Rb8Yc1\nbob:$2y$10$Qx7vLm2Tn4Wp9Zk3Rb8Yc.Hd6Jf0Gs5Ua2Ve4Xb7NcQx7vLm2Tn4W\n',
  ],
  [
    'shadow.txt',
    'root:$6$Zk3Rb8Yc1Hd6Jf0G$Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7NcQx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7Nc/:19000:0:99999:7:::\n',
  ],
  [
    'config.yml',
    "identity_providers:\n  oidc:\n    clients:\n      - client_id: app\n        client_secret: '$pbkdf2-sha512$310000$Zk3Rb8Yc1Hd6Jf0Gs5Ua2V$Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7NcQx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7Nc'\n",
  ],
  ['settings.py', "PASSWORD_HASH = 'pbkdf2_sha256$600000$Zk3Rb8Yc1Hd6$Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7Nc='\n"],
  [
    'my.cnf.sql',
    "CREATE USER 'app'@'%' IDENTIFIED WITH mysql_native_password AS '*6C8989366EAF75BB670AD8EA7A7FC1176A95CEF4';\n",
  ],
  ['users.ldif', 'dn: uid=alice,ou=people,dc=example,dc=org\nuserPassword: {SSHA}Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5U\n'],
  ['app.env', 'ADMIN_PASSWORD_SHA256=9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e\n'],
  [
    'config.json',
    '{"admin": {"user": "alice", "password_hash": "9f2c4e1b7a3d5f8e0c6b2a4d8f1e3c5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4f6e"}}\n',
  ],
  [
    'pg.sql',
    "ALTER ROLE app PASSWORD 'SCRAM-SHA-256$4096:Zk3Rb8Yc1Hd6Jf0Gs5Ua2V==$Qx7vLm2Tn4Wp9Zk3Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7Nc=:Rb8Yc1Hd6Jf0Gs5Ua2Ve4Xb7NcQx7vLm2Tn4Wp9Zk3=';\n",
  ],
  [
    'docker-compose.yml',
    'services:\n  proxy:\n    labels:\n      - "traefik.http.middlewares.auth.basicauth.users=alice:$$2y$$05$$Qx7vLm2Tn4Wp9Zk3Rb8Yc.Hd6Jf0Gs5Ua2Ve4Xb7NcQx7vLm2Tn4W"\n',
  ],
  ['grafana.ini', '[security]\nadmin_password_hash = md5:1a3c5e7b9d0f2e4c6a8b1d3f5e7a9c0b\n'],
  ['wg.env', 'PASSWORD_HASH=$2a$12$Qx7vLm2Tn4Wp9Zk3Rb8Yc.Hd6Jf0Gs5Ua2Ve4Xb7NcQx7vLm2Tn4W\n'],
  [
    'manifests/init.pp',
    "mysql_user { 'app@localhost':\n  ensure        => 'present',\n  password_hash => '*6C8989366EAF75BB670AD8EA7A7FC1176A95CEF4',\n}\n",
  ],
  [
    'README.md',
    "Use `password_hash => mysql::password('secret')` or a literal: `password_hash => '*6C8989366EAF75BB670AD8EA7A7FC1176A95CEF4'`.\n",
  ],
  ['roles.sql', "CREATE ROLE app LOGIN PASSWORD 'md5a3c5e7b9d0f2e4c6a8b1d3f5e7a9c0b2';\n"],
];

test('a digest of public content is kept byte for byte, in each file it is usually written in', async () => {
  for (const [path, text] of PUBLIC_DIGESTS) {
    const out = await redactor.redact(text, { path });
    assert.equal(out.text, text, `${path}: ${out.findings.map((f) => f.ruleId).join(', ')}`);
  }
});

test("a password hash, or a digest whose key says it is a password's or secret's, is masked whole in every format", async () => {
  for (const [path, text] of PASSWORD_HASHES) {
    const out = await redactor.redact(text, { path });
    assert.ok(out.findings.length > 0, `${path}: nothing masked`);
    // No long run of the hash's characters survives (words and host names around it may).
    for (const run of text.match(/[./A-Za-z0-9+]{24,}/g) ?? []) {
      if (/^[a-z.]+$/.test(run)) continue; // words and host names around the value
      assert.ok(!out.text.includes(run), `${path}: ${run} left in ${out.text}`);
    }
  }
});
