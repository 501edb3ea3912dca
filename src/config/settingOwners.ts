// Who may set each setting. A repository is often a stranger's: its committed
// ctxproxy.config.json may set only what cannot hurt the user (what to collect
// and how to fit it, never where it goes, who may ask, or what is kept). Every
// other key comes from the user alone: a flag, the environment, or the user's
// own config file. A `Record` over every key, so a new setting does not compile
// until someone has decided who owns it; docs/configuration.md's table is tested against it.

import { OPTION_SPECS } from './optionSpecs.ts';
import type { SettingKey } from './options.ts';

export type SettingOwner = 'user' | 'workspace';

export interface SettingOwnership {
  owner: SettingOwner;
  /** Why, in a few words: the table in docs/configuration.md prints it. */
  why: string;
}

export const SETTING_OWNERS: Readonly<Record<SettingKey, SettingOwnership>> = {
  host: { owner: 'user', why: 'binding 0.0.0.0 exposes the proxy to the network' },
  port: { owner: 'user', why: 'which socket clients trust as ctxproxy' },
  workspace: { owner: 'user', why: 'which folder is read' },
  upstream: { owner: 'user', why: 'where prompts and context are sent' },
  upstreamKind: { owner: 'user', why: 'how the upstream is spoken to' },
  upstreamApiKey: { owner: 'user', why: 'a credential' },
  allowRemoteUpstream: { owner: 'user', why: 'lets context leave the machine' },
  db: { owner: 'user', why: 'where the log is written (a repo could aim it at a file of yours)' },
  mode: { owner: 'workspace', why: 'how much of this repository to collect; redaction still applies' },
  authToken: { owner: 'user', why: 'a token the repository knows is no token' },
  maxBodyBytes: { owner: 'user', why: 'bounds the memory one request may take' },
  upstreamTimeoutMs: { owner: 'user', why: 'how long a request may hold the proxy' },
  upstreamIdleTimeoutMs: { owner: 'user', why: 'how long a request may hold the proxy' },
  shutdownGraceMs: { owner: 'user', why: 'how long a stop may take' },
  redactMessages: { owner: 'user', why: 'off sends your secrets unmasked' },
  historyOverflow: { owner: 'workspace', why: 'what to do when the conversation does not fit' },
  safetyRatio: { owner: 'workspace', why: 'how full the window is packed (0.1 to 1)' },
  models: {
    owner: 'workspace',
    why: "the models' windows; from a workspace they only lower what the upstream reports",
  },
  allowedRoots: { owner: 'user', why: 'which other folders X-Ctx-Workspace may read' },
  retentionDays: { owner: 'user', why: 'deletes audit snapshots' },
  maxDbMb: { owner: 'user', why: 'deletes audit snapshots' },
  allowedHosts: { owner: 'user', why: 'DNS-rebinding defence' },
  allowedOrigins: { owner: 'user', why: 'which web pages may drive the proxy' },
  requireAudit: { owner: 'user', why: 'whether an unlogged answer is allowed' },
  logFormat: { owner: 'user', why: 'what your terminal shows; a repository could hide the problems' },
  verbose: { owner: 'user', why: 'stack traces in your log' },
  neverRead: { owner: 'workspace', why: 'more files never to open; it can only add to the shipped list' },
  embedModel: { owner: 'user', why: 'sends redacted chunks of the workspace to that model, in the background' },
};

/** The keys a workspace's ctxproxy.config.json may set, in table order. */
export const WORKSPACE_KEYS: readonly SettingKey[] = (Object.keys(SETTING_OWNERS) as SettingKey[]).filter(
  (key) => SETTING_OWNERS[key].owner === 'workspace',
);

/** The table of who sets what (test/config/settingOwners.test.ts keeps docs/configuration.md equal to it). */
export function settingOwnersTable(): string {
  const rows = (Object.entries(SETTING_OWNERS) as [SettingKey, SettingOwnership][]).map(([key, { owner, why }]) => {
    const spec = OPTION_SPECS.find((s) => s.key === key);
    const user = [spec && `\`--${spec.flag}\``, spec?.env && `\`${spec.env}\``, 'user file'].filter(Boolean).join(', ');
    const workspace = owner === 'workspace' ? 'yes' : 'no: ignored, with a warning';
    return `| \`${key}\` | ${user} | ${workspace} | ${why} |`;
  });
  return [
    '| key | set by the user | in a workspace `ctxproxy.config.json` | why |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
