// A repository's ctxproxy.config.json may set only what cannot hurt the user;
// everything else comes from the user (flags, environment, their own config
// file). Read through real files in a temporary workspace and config folder.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ignoredKeysWarning, loadSettingsReport } from '../../src/config/loadSettings.ts';
import { settingsSchema } from '../../src/config/options.ts';
import { SETTING_OWNERS, settingOwnersTable, WORKSPACE_KEYS } from '../../src/config/settingOwners.ts';

const root = mkdtempSync(path.join(tmpdir(), 'ctxproxy-owners-'));
after(() => rmSync(root, { recursive: true, force: true }));
const workspace = path.join(root, 'repo');
const configHome = path.join(root, 'xdg');
mkdirSync(workspace);
mkdirSync(path.join(configHome, 'ctxproxy'), { recursive: true });
const workspaceFile = path.join(workspace, 'ctxproxy.config.json');
const userFile = path.join(configHome, 'ctxproxy', 'config.json');

/** One value per user-only key that differs from its default, as a hostile repository would set it. */
const HOSTILE: Record<string, unknown> = {
  embedModel: 'hostile-embed-model',
  host: '0.0.0.0',
  port: 4242,
  workspace: '/',
  upstream: 'http://127.0.0.1:9',
  upstreamKind: 'openai',
  upstreamApiKey: 'stolen-key',
  allowRemoteUpstream: true,
  db: '../../.ssh/authorized_keys',
  authToken: 'attacker-knows-this',
  maxBodyBytes: 512 * 1024 * 1024,
  upstreamTimeoutMs: 3_600_000,
  upstreamIdleTimeoutMs: 3_600_000,
  shutdownGraceMs: 600_000,
  redactMessages: false,
  allowedRoots: ['/'],
  retentionDays: 1,
  maxDbMb: 1,
  allowedHosts: ['evil.example'],
  allowedOrigins: ['https://evil.example'],
  requireAudit: true,
  logFormat: 'json',
  verbose: true,
};

const load = (files: { workspace?: object; user?: object }, configFlag?: string) => {
  rmSync(workspaceFile, { force: true });
  rmSync(userFile, { force: true });
  if (files.workspace) writeFileSync(workspaceFile, JSON.stringify(files.workspace));
  if (files.user) writeFileSync(userFile, JSON.stringify(files.user));
  return loadSettingsReport({ flags: {}, configFlag, env: { XDG_CONFIG_HOME: configHome }, cwd: workspace });
};

describe('who may set what', () => {
  it('decides an owner for every setting, and the hostile list covers every user-only one', () => {
    assert.deepEqual(Object.keys(SETTING_OWNERS).sort(), Object.keys(settingsSchema.shape).sort());
    const userOnly = Object.keys(SETTING_OWNERS).filter((key) => !WORKSPACE_KEYS.includes(key as never));
    assert.deepEqual(Object.keys(HOSTILE).sort(), userOnly.sort());
  });

  it('obeys none of the user-only keys from a workspace file, and names each in one warning line', () => {
    const defaults = load({}).settings;
    const { settings, files } = load({ workspace: HOSTILE });
    assert.deepEqual(settings, defaults, 'a hostile workspace file changes nothing');
    const [file] = files;
    assert.equal(files.length, 1);
    assert.equal(file?.path, workspaceFile);
    assert.equal(file?.role, 'workspace');
    assert.deepEqual(file?.ignored.sort(), Object.keys(HOSTILE).sort());
    const warning = ignoredKeysWarning(file as NonNullable<typeof file>) ?? '';
    assert.doesNotMatch(warning, /\n/);
    assert.ok(warning.includes(workspaceFile), warning);
    for (const key of Object.keys(HOSTILE)) assert.ok(warning.includes(key), `${key} named in: ${warning}`);
  });

  it('obeys every user-only key from the user file', () => {
    const { settings, files } = load({ user: { ...HOSTILE, workspace: workspace, db: 'audit.db' } });
    assert.equal(settings.host, '0.0.0.0');
    assert.equal(settings.upstream, 'http://127.0.0.1:9');
    assert.equal(settings.redactMessages, false);
    assert.deepEqual(settings.allowedRoots, ['/']);
    assert.equal(settings.authToken, 'attacker-knows-this');
    assert.deepEqual(files, [{ path: userFile, role: 'user', ignored: [] }]);
  });

  it('obeys the safe keys from a workspace file, below the user file', () => {
    const safe = { mode: 'deep', models: { m: { window: 4096 } }, neverRead: ['secrets/**'], safetyRatio: 0.5 };
    const { settings } = load({ workspace: safe });
    assert.equal(settings.mode, 'deep');
    assert.deepEqual(settings.models, {}, "a workspace's windows are not the user's");
    assert.deepEqual(settings.workspaceModels, { m: { window: 4096 } }, 'they are ceilings');
    assert.deepEqual(settings.neverRead, ['secrets/**']);
    assert.equal(settings.safetyRatio, 0.5);
    const both = load({ workspace: safe, user: { mode: 'quick' } });
    assert.equal(both.settings.mode, 'quick', "the user's file wins over the workspace's");
    assert.deepEqual(
      both.files.map((file) => file.role),
      ['workspace', 'user'],
    );
  });

  it('ignores unknown keys in a workspace file, but refuses them in the user file', () => {
    const { files } = load({ workspace: { modee: 'deep' } });
    assert.deepEqual(files[0]?.ignored, ['modee']);
    assert.match(ignoredKeysWarning(files[0] as never) ?? '', /modee \(not settings\)/);
    assert.throws(() => load({ user: { modee: 'deep' } }), /unknown key\(s\) modee/);
  });

  it("keeps the warning one short line however many and however long the file's keys are", () => {
    const keys = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`${'k'.repeat(1000)}\n${i}`, 1]));
    const { files } = load({ workspace: keys });
    const warning = ignoredKeysWarning(files[0] as never) ?? '';
    assert.doesNotMatch(warning, /\n/);
    assert.ok(warning.length < 2000, `${warning.length} characters`);
    assert.match(warning, /and 80 more/);
  });

  it('trusts the workspace file in full when the user names it with --config', () => {
    writeFileSync(workspaceFile, JSON.stringify({ port: 4343 }));
    const { settings, files } = loadSettingsReport({
      flags: {},
      configFlag: 'ctxproxy.config.json',
      env: { XDG_CONFIG_HOME: configHome },
      cwd: workspace,
    });
    assert.equal(settings.port, 4343);
    assert.deepEqual(files, [{ path: workspaceFile, role: 'user', ignored: [] }]);
  });

  it('reads no workspace file that is a link, a FIFO or a device, or too large: ignored whole, with a warning', () => {
    const elsewhere = path.join(root, 'mine.json');
    writeFileSync(elsewhere, JSON.stringify({ mode: 'deep', models: { m: { window: 4096 } } }));
    const cases: [string, () => void, RegExp][] = [
      ['a link to another file', () => symlinkSync(elsewhere, workspaceFile), /symbolic link/],
      ['a link to /dev/zero', () => symlinkSync('/dev/zero', workspaceFile), /symbolic link/],
      ['a FIFO', () => execFileSync('mkfifo', [workspaceFile]), /not a regular file/],
      ['a large file', () => writeFileSync(workspaceFile, `{"mode":"deep"${' '.repeat(300 * 1024)}}`), /larger than/],
    ];
    for (const [what, make, reason] of cases) {
      rmSync(workspaceFile, { force: true });
      rmSync(userFile, { force: true });
      make();
      const { settings, files } = loadSettingsReport({
        flags: {},
        env: { XDG_CONFIG_HOME: configHome },
        cwd: workspace,
      });
      assert.equal(settings.mode, 'auto', what);
      assert.equal(files.length, 1, what);
      assert.match(ignoredKeysWarning(files[0] as never) ?? '', reason, what);
    }
    rmSync(workspaceFile, { force: true });
  });

  it('is the table in docs/configuration.md', () => {
    const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    assert.ok(
      page.includes(settingOwnersTable()),
      `docs/configuration.md's "Who sets what" must hold this table:\n${settingOwnersTable()}`,
    );
  });
});
