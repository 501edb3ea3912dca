// Every setting of ctxproxy, in one table: its flag, its environment variable and
// its config-file key. Flags win over the environment, which wins over the file.

import { z } from 'zod';
import { bareHostName } from '../shared/hostName.ts';
import { MODE_NAMES } from '../shared/types.ts';

const MB = 1024 * 1024;

/** A flag or variable gives `a,b,c`; the config file may give that or an array. */
function commaList<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((part) => part.trim())
            .filter((part) => part !== '')
        : value,
    z.array(item),
  );
}

/** A `Host` name, lower-cased, without a port (only the name matters against DNS rebinding). */
const hostName = z
  .string()
  .trim()
  .min(1)
  .regex(/^(?:\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::\d{1,5})?$/i, 'must be a host name such as my-box.lan or 10.0.0.5')
  .transform(bareHostName);

/**
 * A browser origin, `scheme://host[:port]`, in the form browsers send it: http(s) ones normalized
 * (`HTTP://X:80/` → `http://x`); others (an editor's `vscode-webview://…`) compared as written, lower-cased.
 */
const browserOrigin = z
  .string()
  .trim()
  .transform((value) => value.replace(/\/$/, '').toLowerCase())
  .refine(
    (value) => /^[a-z][a-z0-9+.-]*:\/\/[^/\s?#@]+$/.test(value) && !value.includes('*'),
    'must be an origin such as http://localhost:3000 (scheme, host and port; no path)',
  )
  .transform((value) => (/^https?:/.test(value) ? new URL(value).origin : value));

/**
 * The resolved settings. Each field is also a key of the user's config file; which of them a
 * workspace's ctxproxy.config.json may set is decided in settingOwners.ts.
 */
export const settingsSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.coerce.number().int().min(0).max(65535).default(4141),
    workspace: z.string().min(1),
    upstream: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:11434'),
    upstreamKind: z.enum(['ollama', 'openai']).default('ollama'),
    /** Sent as `Authorization: Bearer` to an OpenAI-compatible upstream; never the client's own. */
    upstreamApiKey: z.string().min(1).optional(),
    /** Without it, a host outside the loopback range is refused: nothing leaves the machine by accident. */
    allowRemoteUpstream: z.boolean().default(false),
    db: z.string().min(1),
    mode: z.enum([...MODE_NAMES, 'auto']).default('auto'),
    /** When set, clients must send `Authorization: Bearer <token>`; when not, only loopback clients are served. */
    authToken: z.string().min(8).optional(),
    maxBodyBytes: z.coerce
      .number()
      .int()
      .min(1024)
      .max(512 * MB)
      .default(10 * MB),
    /** How long to wait for the upstream's first byte (a model can take long to load). */
    upstreamTimeoutMs: z.coerce.number().int().min(100).max(3_600_000).default(300_000),
    /** Once the upstream has answered, how long it may fall silent between chunks before the answer is cut off. */
    upstreamIdleTimeoutMs: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
    /** On SIGTERM/SIGINT, how long requests in flight may run on before they are ended with an error. */
    shutdownGraceMs: z.coerce.number().int().min(0).max(600_000).default(10_000),
    /** Redact the client's own messages too (the context is always redacted). */
    redactMessages: z.boolean().default(true),
    /** What to do when the conversation alone does not fit the window. */
    historyOverflow: z.enum(['drop-oldest', 'error']).default('drop-oldest'),
    safetyRatio: z.coerce.number().min(0.1).max(1).default(0.75),
    /** Per-model overrides; `window` wins over what the upstream reports. */
    models: z.record(z.string(), z.object({ window: z.number().int().min(256) }).strict()).default({}),
    /** Directories a client may pick with `X-Ctx-Workspace` (the workspace itself is always allowed). */
    allowedRoots: z.array(z.string().min(1)).default([]),
    /** Audit retention, applied at start-up and daily: snapshots older than this many days are pruned. */
    retentionDays: z.coerce.number().int().min(1).optional(),
    maxDbMb: z.coerce.number().int().min(1).optional(),
    /** `Host` names served besides 127.0.0.1, localhost, [::1] and `host` (DNS-rebinding defence). */
    allowedHosts: commaList(hostName).default([]),
    /** Browser origins that may call ctxproxy cross-site (CORS); none by default. */
    allowedOrigins: commaList(browserOrigin).default([]),
    /** When the audit log cannot be written: off, answer with X-Ctx-Warning; on, refuse chats with 503. */
    requireAudit: z.boolean().default(false),
    /** The server's log on standard error: `auto` is text on a terminal, JSON lines otherwise. */
    logFormat: z.enum(['auto', 'json', 'text']).default('auto'),
    /** Log stack traces of unforeseen errors (off: their name and scrubbed message only). */
    verbose: z.boolean().default(false),
    /** Globs never to open, on top of rules/never-read.json (same syntax); they can only add to it. */
    neverRead: z.array(z.string().trim().min(1).max(500)).max(500).default([]),
    /** Semantic retrieval: the upstream's embedding model (`/api/embed`) ranks chunks too; off when unset. */
    embedModel: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

export type SettingKey = keyof z.infer<typeof settingsSchema>;
export type Settings = z.infer<typeof settingsSchema> & {
  /**
   * The per-model windows a workspace's config file gave, when the user gave none: they may only
   * lower what the upstream reports (a stranger's huge window would make Ollama allocate for it).
   * Not a key of any file: loadSettings.ts moves a workspace's `models` here.
   */
  workspaceModels?: Readonly<Record<string, { window: number }>> | undefined;
};

// The flag table lives in optionSpecs.ts, without zod, so `--help` can print it cheaply.
