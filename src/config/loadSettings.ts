// Resolves settings from flags, environment and config files into one validated
// object. A wrong value gets one line naming the option and where it came from.
//
// Two files may be read. The user's own (`--config FILE`, else
// $XDG_CONFIG_HOME/ctxproxy/config.json, else ~/.config/ctxproxy/config.json)
// may set every key. The workspace's ctxproxy.config.json is the repository's,
// often a stranger's: it may set only the keys settingOwners.ts gives the
// workspace; any other key in it is ignored, and named in one warning line.
// Order, weakest first: defaults, workspace file, user file, environment, flags.
// An X-Ctx-Workspace folder's file is never read: settings are fixed at start.

import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import { OPTION_SPECS } from './optionSpecs.ts';
import { type SettingKey, type Settings, settingsSchema } from './options.ts';
import { SETTING_OWNERS, WORKSPACE_KEYS } from './settingOwners.ts';

export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

export interface SettingsInput {
  /** Values given as flags, keyed by setting (strings as typed, booleans for switches). */
  flags: Partial<Record<SettingKey, string | boolean>>;
  /** `--config FILE`, if given. */
  configFlag?: string | undefined;
  env: Record<string, string | undefined>;
  cwd: string;
  readFile?: (file: string) => string;
}

/** A settings file that was read, and what of it was not obeyed. */
export interface SettingsFile {
  path: string;
  /** `user`: every key counts; `workspace`: only the keys a repository may set. */
  role: 'user' | 'workspace';
  /** Keys present in the file and ignored (a workspace file's user-only or unknown keys). */
  ignored: string[];
  /** Why the whole file was ignored (a workspace file that is not a small regular file), if it was. */
  unreadable?: string;
}

export interface LoadedSettings {
  settings: Settings;
  /** The files read, in the order they were applied. */
  files: SettingsFile[];
}

/** The file name looked for at the top of the workspace. */
export const WORKSPACE_CONFIG_NAME = 'ctxproxy.config.json';

type Origin = { where: string; value: unknown };

export function loadSettings(input: SettingsInput): Settings {
  return loadSettingsReport(input).settings;
}

export function loadSettingsReport(input: SettingsInput): LoadedSettings {
  const readFile = input.readFile ?? ((file: string) => readFileSync(file, 'utf8'));
  const origins = new Map<string, Origin>();
  const merged: Record<string, unknown> = {};
  const files: SettingsFile[] = [];
  const put = (key: string, value: unknown, where: string) => {
    merged[key] = value;
    origins.set(key, { where, value });
  };

  const explicit = input.configFlag ?? input.env.CTXPROXY_CONFIG;
  const userPath = explicit ? path.resolve(input.cwd, explicit) : defaultUserConfigPath(input.env);
  const userData = explicit || existsSync(userPath) ? readConfigFile(userPath, readFile) : undefined;

  const workspaceHint =
    pick(input.flags.workspace) ??
    input.env.CTXPROXY_WORKSPACE ??
    (typeof userData?.workspace === 'string' ? userData.workspace : undefined) ??
    input.cwd;
  const workspacePath = path.join(path.resolve(input.cwd, workspaceHint), WORKSPACE_CONFIG_NAME);
  // A user who names the workspace's file with --config has vouched for it: it is read once, as theirs.
  if (!(userData && samePath(userPath, workspacePath)) && existsSync(workspacePath)) {
    const ignored: string[] = [];
    const unreadable = notASmallFile(workspacePath);
    const data = unreadable ? {} : readConfigFile(workspacePath, readFile);
    if (unreadable) files.push({ path: workspacePath, role: 'workspace', ignored, unreadable });
    for (const [key, value] of Object.entries(data)) {
      if (!(WORKSPACE_KEYS as readonly string[]).includes(key)) ignored.push(key);
      else put(key, value, `workspace config file ${workspacePath} (key "${key}")`);
    }
    if (!unreadable) files.push({ path: workspacePath, role: 'workspace', ignored });
  }
  if (userData) {
    for (const [key, value] of Object.entries(userData)) put(key, value, `config file ${userPath} (key "${key}")`);
    files.push({ path: userPath, role: 'user', ignored: [] });
  }

  if (input.env.OLLAMA_HOST && !input.env.CTXPROXY_UPSTREAM) {
    put('upstream', normalizeOllamaHost(input.env.OLLAMA_HOST), 'OLLAMA_HOST');
  }
  for (const spec of OPTION_SPECS) {
    const raw = spec.env ? input.env[spec.env] : undefined;
    if (raw === undefined || raw === '') continue;
    put(spec.key, spec.type === 'boolean' ? parseBoolean(raw, spec.env ?? spec.flag) : raw, spec.env ?? spec.key);
  }
  for (const spec of OPTION_SPECS) {
    const value = input.flags[spec.key];
    if (value !== undefined) put(spec.key, value, `--${spec.flag}`);
  }

  // `--upstream 127.0.0.1:11434` as OLLAMA_HOST takes it: an address without a scheme is http.
  if (typeof merged.upstream === 'string' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(merged.upstream)) {
    merged.upstream = `http://${merged.upstream}`;
  }
  const workspace = path.resolve(input.cwd, String(merged.workspace ?? input.cwd));
  merged.workspace = workspace;
  merged.db = path.resolve(workspace, String(merged.db ?? path.join('.ctxproxy', 'audit.db')));

  const parsed = settingsSchema.safeParse(merged);
  if (!parsed.success) throw new SettingsError(describeSettingsIssue(parsed.error, origins));
  const settings: Settings = parsed.data;
  // Windows from the repository are ceilings only (see Settings.workspaceModels).
  if (origins.get('models')?.where.startsWith('workspace ')) {
    settings.workspaceModels = settings.models;
    settings.models = {};
  }
  settings.allowedRoots = settings.allowedRoots.map((root) => path.resolve(workspace, root));
  return { settings, files };
}

/** `$XDG_CONFIG_HOME/ctxproxy/config.json` (an absolute XDG_CONFIG_HOME only, as the spec says), else `~/.config/…`. */
export function defaultUserConfigPath(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || homedir(), '.config');
  return path.join(base, 'ctxproxy', 'config.json');
}

/**
 * One line for the user about a workspace file's keys that were not obeyed, or undefined.
 * Unknown keys are named apart: they may be a typo, not an attack.
 */
export function ignoredKeysWarning(file: SettingsFile): string | undefined {
  if (file.unreadable) return `ignoring ${file.path}: ${file.unreadable}`;
  if (file.ignored.length === 0) return undefined;
  const userOnly = file.ignored.filter((key) => Object.hasOwn(SETTING_OWNERS, key));
  const unknown = file.ignored.filter((key) => !Object.hasOwn(SETTING_OWNERS, key));
  const parts = [
    userOnly.length > 0 &&
      `${namesOf(userOnly, userOnly.length)} (only the user sets these: a flag, the environment or ~/.config/ctxproxy/config.json)`,
    unknown.length > 0 && `${namesOf(unknown)} (not settings)`,
  ].filter(Boolean);
  return `ignoring ${parts.join('; ')} in ${file.path}; a workspace file may set only ${WORKSPACE_KEYS.join(', ')}`;
}

/**
 * The file's own key names, so a stranger's: a few, each cut short, on one line. Settings the user
 * alone may set are all named (their number is the schema's).
 */
function namesOf(keys: readonly string[], limit = 20): string {
  const shown = keys.slice(0, limit).map((key) => (key.length > 40 ? `${key.slice(0, 39)}…` : key).replace(/\s/g, ' '));
  return keys.length > shown.length ? `${shown.join(', ')} and ${keys.length - shown.length} more` : shown.join(', ');
}

/** The largest workspace config file read: a settings file is a few lines. */
const WORKSPACE_CONFIG_MAX_BYTES = 256 * 1024;

/**
 * A repository's file could be a link to /dev/zero or to one of your files, a FIFO that never
 * ends, or a gigabyte of JSON: only a regular file (not a link) of a sane size is read.
 * Says why not, or undefined.
 */
function notASmallFile(file: string): string | undefined {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(file);
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (stat.isSymbolicLink()) return 'a symbolic link (a repository may not point ctxproxy at another file)';
  if (!stat.isFile()) return 'not a regular file';
  if (stat.size > WORKSPACE_CONFIG_MAX_BYTES) return `larger than ${WORKSPACE_CONFIG_MAX_BYTES / 1024} KiB`;
  return undefined;
}

function samePath(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

function pick(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function readConfigFile(file: string, readFile: (file: string) => string): Record<string, unknown> {
  let text: string;
  try {
    text = readFile(file);
  } catch (error) {
    throw new SettingsError(`cannot read config file ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SettingsError(`config file ${file} must hold a JSON object`);
  }
  return data as Record<string, unknown>;
}

/** OLLAMA_HOST is often written without a scheme or port (`0.0.0.0`, `localhost:11434`). */
export function normalizeOllamaHost(value: string): string {
  const withScheme = /^https?:\/\//.test(value) ? value : `http://${value}`;
  const url = new URL(withScheme);
  if (!url.port && !/^https?:\/\/[^/]+:\d+/.test(withScheme)) url.port = '11434';
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  return url.toString().replace(/\/$/, '');
}

function parseBoolean(raw: string, name: string): boolean {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new SettingsError(`${name} must be true or false (got ${JSON.stringify(raw)})`);
}

function describeSettingsIssue(error: z.ZodError, origins: Map<string, Origin>): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid settings';
  const key = String(issue.path[0] ?? '');
  const spec = OPTION_SPECS.find((s) => s.key === key);
  const origin = origins.get(key);
  const name = spec ? `--${spec.flag}` : key ? `"${key}"` : 'settings';
  const detail = issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.join(', ')}` : issue.message;
  const from = origin ? ` (got ${JSON.stringify(origin.value)} from ${origin.where})` : '';
  const sub = issue.path.length > 1 ? ` at ${issue.path.join('.')}` : '';
  return `${name}: ${detail}${sub}${from}`;
}
