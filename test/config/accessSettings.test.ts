// --allowed-hosts and --allowed-origins: a flag, a variable or a config key,
// comma-separated (or an array in the file), checked at start-up.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { helpText } from '../../src/cli/commandLine.ts';
import { loadSettings, SettingsError } from '../../src/config/loadSettings.ts';

const base = { cwd: '/work/repo', readFile: () => '{}' };

describe('access settings', () => {
  it('reads --allowed-hosts as a list of names, lower-cased and without ports', () => {
    const settings = loadSettings({
      ...base,
      flags: { allowedHosts: 'devbox.lan, CTX.internal:8080,[::1]:4141' },
      env: {},
    });
    assert.deepEqual(settings.allowedHosts, ['devbox.lan', 'ctx.internal', '[::1]']);
    assert.deepEqual(settings.allowedOrigins, []);
  });

  it('reads CTXPROXY_ALLOWED_HOSTS and CTXPROXY_ALLOWED_ORIGINS, and arrays from the config file', () => {
    const fromEnv = loadSettings({
      ...base,
      flags: {},
      env: {
        CTXPROXY_ALLOWED_HOSTS: 'a.lan',
        CTXPROXY_ALLOWED_ORIGINS: 'http://localhost:3000/,https://Chat.Example:443,vscode-webview://abc123',
      },
    });
    assert.deepEqual(fromEnv.allowedHosts, ['a.lan']);
    assert.deepEqual(fromEnv.allowedOrigins, [
      'http://localhost:3000',
      'https://chat.example',
      'vscode-webview://abc123',
    ]);
    const fromFile = loadSettings({
      ...base,
      configFlag: 'c.json',
      flags: {},
      env: {},
      readFile: () => JSON.stringify({ allowedHosts: ['b.lan'], allowedOrigins: ['http://127.0.0.1:8080'] }),
    });
    assert.deepEqual(fromFile.allowedHosts, ['b.lan']);
    assert.deepEqual(fromFile.allowedOrigins, ['http://127.0.0.1:8080']);
  });

  it('refuses an origin with a path, a wildcard or no scheme, naming the option', () => {
    for (const bad of ['http://localhost:3000/app', '*', 'http://*.example', 'localhost:3000', 'null', 'http://x?y']) {
      assert.throws(
        () => loadSettings({ ...base, flags: { allowedOrigins: bad }, env: {} }),
        (error: Error) => error instanceof SettingsError && /--allowed-origins/.test(error.message),
        bad,
      );
    }
    assert.throws(
      () => loadSettings({ ...base, flags: { allowedHosts: 'http://x.lan/' }, env: {} }),
      /--allowed-hosts/,
    );
  });

  it('the help lists both, and recommends the variable for the auth token', () => {
    const help = helpText();
    assert.match(help, /--allowed-hosts VALUE.*CTXPROXY_ALLOWED_HOSTS/);
    assert.match(help, /--allowed-origins VALUE.*CTXPROXY_ALLOWED_ORIGINS/);
    assert.match(help, /--auth-token VALUE.*set it with the variable.*process list.*\[CTXPROXY_AUTH_TOKEN\]/);
  });
});
