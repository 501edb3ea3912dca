// The command-line surface of the settings (flag, variable, help line), apart from
// their schema in options.ts: `ctxproxy --help` reads this table and must not load zod.

import type { SettingKey } from './options.ts';

export interface OptionSpec {
  key: SettingKey;
  flag: string;
  env?: string;
  type: 'string' | 'boolean';
  help: string;
}

/** The command-line surface; `--config` is handled before the rest (it names the file). */
export const OPTION_SPECS: OptionSpec[] = [
  { key: 'host', flag: 'host', env: 'CTXPROXY_HOST', type: 'string', help: 'address to listen on (127.0.0.1)' },
  { key: 'port', flag: 'port', env: 'CTXPROXY_PORT', type: 'string', help: 'port to listen on (4141)' },
  {
    key: 'workspace',
    flag: 'workspace',
    env: 'CTXPROXY_WORKSPACE',
    type: 'string',
    help: 'repository to collect context from (the current directory)',
  },
  {
    key: 'upstream',
    flag: 'upstream',
    env: 'CTXPROXY_UPSTREAM',
    type: 'string',
    help: 'model server URL (OLLAMA_HOST, else http://127.0.0.1:11434)',
  },
  {
    key: 'upstreamKind',
    flag: 'upstream-kind',
    env: 'CTXPROXY_UPSTREAM_KIND',
    type: 'string',
    help: 'ollama | openai (llama.cpp server, LM Studio, vLLM)',
  },
  {
    key: 'upstreamApiKey',
    flag: 'upstream-api-key',
    env: 'CTXPROXY_UPSTREAM_API_KEY',
    type: 'string',
    help: 'bearer token for an OpenAI-compatible upstream',
  },
  {
    key: 'allowRemoteUpstream',
    flag: 'allow-remote-upstream',
    env: 'CTXPROXY_ALLOW_REMOTE_UPSTREAM',
    type: 'boolean',
    help: 'allow an upstream outside the loopback range',
  },
  {
    key: 'db',
    flag: 'db',
    env: 'CTXPROXY_DB',
    type: 'string',
    help: 'audit database (.ctxproxy/audit.db in the workspace)',
  },
  {
    key: 'mode',
    flag: 'mode',
    env: 'CTXPROXY_MODE',
    type: 'string',
    help: 'auto | off | quick | git-aware | deep | debug (auto)',
  },
  {
    key: 'authToken',
    flag: 'auth-token',
    env: 'CTXPROXY_AUTH_TOKEN',
    type: 'string',
    help: 'require this bearer token (else only loopback clients are served); set it with the variable: a flag shows in the process list',
  },
  {
    key: 'allowedHosts',
    flag: 'allowed-hosts',
    env: 'CTXPROXY_ALLOWED_HOSTS',
    type: 'string',
    help: 'comma-separated Host names to serve besides 127.0.0.1, localhost, [::1] and --host',
  },
  {
    key: 'allowedOrigins',
    flag: 'allowed-origins',
    env: 'CTXPROXY_ALLOWED_ORIGINS',
    type: 'string',
    help: 'comma-separated browser origins that may call ctxproxy (CORS); none by default',
  },
  {
    key: 'maxBodyBytes',
    flag: 'max-body-bytes',
    env: 'CTXPROXY_MAX_BODY_BYTES',
    type: 'string',
    help: 'largest request body accepted (10 MB)',
  },
  {
    key: 'upstreamTimeoutMs',
    flag: 'upstream-timeout-ms',
    env: 'CTXPROXY_UPSTREAM_TIMEOUT_MS',
    type: 'string',
    help: "wait this long for the upstream's first byte (300000)",
  },
  {
    key: 'upstreamIdleTimeoutMs',
    flag: 'upstream-idle-timeout-ms',
    env: 'CTXPROXY_UPSTREAM_IDLE_TIMEOUT_MS',
    type: 'string',
    help: 'cut off an answer whose upstream falls silent this long between chunks (120000)',
  },
  {
    key: 'shutdownGraceMs',
    flag: 'shutdown-grace-ms',
    env: 'CTXPROXY_SHUTDOWN_GRACE_MS',
    type: 'string',
    help: 'on SIGTERM/SIGINT, let requests in flight finish this long (10000)',
  },
  {
    key: 'maxDbMb',
    flag: 'max-db-mb',
    env: 'CTXPROXY_MAX_DB_MB',
    type: 'string',
    help: 'cap the audit database at this size, pruning the oldest',
  },
  {
    key: 'requireAudit',
    flag: 'require-audit',
    env: 'CTXPROXY_REQUIRE_AUDIT',
    type: 'boolean',
    help: 'refuse chats (503) while the audit log cannot be written, instead of answering with a warning',
  },
  {
    key: 'logFormat',
    flag: 'log-format',
    env: 'CTXPROXY_LOG_FORMAT',
    type: 'string',
    help: 'auto | text | json: the log on standard error (auto: text on a terminal, JSON lines otherwise)',
  },
  {
    key: 'verbose',
    flag: 'verbose',
    env: 'CTXPROXY_VERBOSE',
    type: 'boolean',
    help: 'log stack traces of unforeseen errors',
  },
  {
    key: 'embedModel',
    flag: 'embed-model',
    env: 'CTXPROXY_EMBED_MODEL',
    type: 'string',
    help: "upstream embedding model (e.g. nomic-embed-text) that also ranks retrieval's chunks; off by default",
  },
];
