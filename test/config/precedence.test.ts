// Where each setting comes from: a flag beats its environment variable, which
// beats the user's config file, which beats the default. Read through a real
// config file in a temporary config folder ($XDG_CONFIG_HOME), the way
// `ctxproxy serve` finds it.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadSettings, SettingsError } from '../../src/config/loadSettings.ts';

const workspace = mkdtempSync(path.join(tmpdir(), 'ctxproxy-precedence-'));
const configHome = mkdtempSync(path.join(tmpdir(), 'ctxproxy-precedence-xdg-'));
after(() => {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(configHome, { recursive: true, force: true });
});
mkdirSync(path.join(configHome, 'ctxproxy'));
writeFileSync(
  path.join(configHome, 'ctxproxy', 'config.json'),
  JSON.stringify({ port: 5001, mode: 'deep', upstream: 'http://127.0.0.1:7001' }),
);

const load = (flags: Parameters<typeof loadSettings>[0]['flags'], env: Record<string, string> = {}) =>
  loadSettings({ flags, env: { XDG_CONFIG_HOME: configHome, ...env }, cwd: workspace });

describe('settings precedence', () => {
  it('takes the default when nothing names a setting', () => {
    assert.equal(load({}).host, '127.0.0.1');
  });

  it('takes the config file over the default', () => {
    const settings = load({});
    assert.equal(settings.port, 5001);
    assert.equal(settings.mode, 'deep');
  });

  it('takes the environment over the config file', () => {
    const settings = load({}, { CTXPROXY_PORT: '5002', CTXPROXY_MODE: 'quick' });
    assert.equal(settings.port, 5002);
    assert.equal(settings.mode, 'quick');
  });

  it('takes a flag over the environment and the config file', () => {
    const settings = load({ port: '5003', mode: 'off' }, { CTXPROXY_PORT: '5002', CTXPROXY_MODE: 'quick' });
    assert.equal(settings.port, 5003);
    assert.equal(settings.mode, 'off');
  });

  it('reads an empty variable as unset, so the config file still counts', () => {
    assert.equal(load({}, { CTXPROXY_PORT: '' }).port, 5001);
  });

  it('lets OLLAMA_HOST override the file only while CTXPROXY_UPSTREAM is unset', () => {
    assert.equal(load({}).upstream, 'http://127.0.0.1:7001');
    assert.equal(load({}, { OLLAMA_HOST: 'localhost:9000' }).upstream, 'http://localhost:9000');
    assert.equal(
      load({}, { OLLAMA_HOST: 'localhost:9000', CTXPROXY_UPSTREAM: 'http://127.0.0.1:7002' }).upstream,
      'http://127.0.0.1:7002',
    );
    assert.equal(
      load({ upstream: 'http://127.0.0.1:7003' }, { OLLAMA_HOST: 'localhost:9000' }).upstream,
      'http://127.0.0.1:7003',
    );
  });

  it('takes an upstream without a scheme as http, from a flag or the environment, as OLLAMA_HOST is taken', () => {
    assert.equal(load({ upstream: '127.0.0.1:11434' }).upstream, 'http://127.0.0.1:11434');
    assert.equal(load({}, { CTXPROXY_UPSTREAM: 'localhost:8080/v1' }).upstream, 'http://localhost:8080/v1');
    assert.equal(load({ upstream: 'https://127.0.0.1:8443' }).upstream, 'https://127.0.0.1:8443');
  });

  it('names where a bad value came from', () => {
    assert.throws(
      () => load({}, { CTXPROXY_PORT: 'eighty' }),
      (error: unknown) =>
        error instanceof SettingsError && /--port/.test(error.message) && /CTXPROXY_PORT/.test(error.message),
    );
    assert.throws(
      () => load({ port: '70000' }, { CTXPROXY_PORT: '5002' }),
      (error: unknown) => error instanceof SettingsError && /from --port/.test(error.message),
    );
  });

  it('finds the config file through --config before the one in the config folder', () => {
    const other = path.join(workspace, 'other.json');
    writeFileSync(other, JSON.stringify({ port: 5004 }));
    const env = { XDG_CONFIG_HOME: configHome };
    assert.equal(loadSettings({ flags: {}, configFlag: 'other.json', env, cwd: workspace }).port, 5004);
    assert.equal(loadSettings({ flags: {}, env: { ...env, CTXPROXY_CONFIG: other }, cwd: workspace }).port, 5004);
  });

  it('falls back to ~/.config/ctxproxy/config.json when XDG_CONFIG_HOME is unset', () => {
    assert.equal(loadSettings({ flags: {}, env: { HOME: path.dirname(configHome) }, cwd: workspace }).port, 4141);
    const home = mkdtempSync(path.join(tmpdir(), 'ctxproxy-precedence-home-'));
    try {
      mkdirSync(path.join(home, '.config', 'ctxproxy'), { recursive: true });
      writeFileSync(path.join(home, '.config', 'ctxproxy', 'config.json'), JSON.stringify({ port: 5005 }));
      assert.equal(loadSettings({ flags: {}, env: { HOME: home }, cwd: workspace }).port, 5005);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
