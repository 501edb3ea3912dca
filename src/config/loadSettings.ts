// Resolves settings from flags, environment and config file into one validated
// object. A wrong value gets one line naming the option and where it came from.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { OPTION_SPECS } from './optionSpecs.ts';
import { type SettingKey, type Settings, settingsSchema } from './options.ts';

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

type Origin = { where: string; value: unknown };

export function loadSettings(input: SettingsInput): Settings {
  const readFile = input.readFile ?? ((file: string) => readFileSync(file, 'utf8'));
  const origins = new Map<string, Origin>();
  const merged: Record<string, unknown> = {};
  const put = (key: string, value: unknown, where: string) => {
    merged[key] = value;
    origins.set(key, { where, value });
  };

  const workspaceHint = pick(input.flags.workspace) ?? input.env.CTXPROXY_WORKSPACE ?? input.cwd;
  const configFile = input.configFlag ?? input.env.CTXPROXY_CONFIG;
  const configPath = configFile
    ? path.resolve(input.cwd, configFile)
    : path.join(path.resolve(input.cwd, workspaceHint), 'ctxproxy.config.json');
  if (configFile || existsSync(configPath)) {
    for (const [key, value] of Object.entries(readConfigFile(configPath, readFile))) {
      put(key, value, `config file ${configPath} (key "${key}")`);
    }
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

  const workspace = path.resolve(input.cwd, String(merged.workspace ?? input.cwd));
  merged.workspace = workspace;
  merged.db = path.resolve(workspace, String(merged.db ?? path.join('.ctxproxy', 'audit.db')));

  const parsed = settingsSchema.safeParse(merged);
  if (!parsed.success) throw new SettingsError(describeSettingsIssue(parsed.error, origins));
  const settings = parsed.data;
  settings.allowedRoots = settings.allowedRoots.map((root) => path.resolve(workspace, root));
  return settings;
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
