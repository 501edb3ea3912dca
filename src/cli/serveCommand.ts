// `ctxproxy serve`, and the one place a server is put together: createServer() goes from the
// settings to the deps, the app and a listening socket, and back again with close(). The
// command and the tests' proxy (test/support/proxy.ts) both start the server through it.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { auditLocation } from '../audit/auditFiles.ts';
import { openAuditStore } from '../audit/store.ts';
import type { AuditStoreFull, AuditStoreOptions } from '../audit/types.ts';
import { SettingsError, type SettingsFile } from '../config/loadSettings.ts';
import type { Settings } from '../config/options.ts';
import { createApp } from '../http/app.ts';
import { auditRoutes } from '../http/auditRoutes.ts';
import { createInFlight, type InFlight } from '../http/inFlight.ts';
import { drainAndStop, endAll } from '../http/shutdown.ts';
import type { PipelineDeps } from '../pipeline/types.ts';
import { createLogger, resolveLogFormat } from '../shared/logger.ts';
import { isLoopback } from '../shared/loopback.ts';
import type { Logger } from '../shared/ports.ts';
import { buildPipelineDeps } from './pipelineDeps.ts';
import { refuseTrackedAuditLog, warnIfNotGit, warnIfUpstreamDown } from './startupChecks.ts';

export interface ServerInput {
  settings: Settings;
  logger: Logger;
  /** Compile the redaction and tokenizer regexes in the background after start (the command does). */
  warm?: boolean | undefined;
  /** Replaces pipeline parts (tests: the upstream, the sources). */
  overrides?: Partial<PipelineDeps> | undefined;
  /** More audit store options (a driver wrapper, a queue limit). */
  auditOptions?: Omit<AuditStoreOptions, 'path' | 'logger'> | undefined;
  /** The clock of the wrong-token lockouts (tests step it instead of waiting them out). */
  now?: (() => number) | undefined;
}

export interface RunningServer {
  server: Server;
  /** `http://host:port`, without a path. */
  url: string;
  store: AuditStoreFull;
  pipeline: PipelineDeps;
  inFlight: InFlight;
  /**
   * Stops accepting, lets requests in flight finish for `settings.shutdownGraceMs`, ends the rest,
   * then closes the audit store (which writes its queue). `hurry` skips what is left of the grace.
   */
  close(hurry?: AbortSignal): Promise<void>;
}

/**
 * How long an idle client connection stays open (Node's default is 5 s). A client that sends on a kept
 * connection just as the server closes it gets a reset, and a POST is not retried: the OpenAI Python SDK
 * (httpx) keeps idle connections exactly 5 s, requests/urllib3 for ever, and a client process that stalls
 * at load can send after its own expiry. Ollama's server keeps them open indefinitely; a minute is longer than
 * the clients' own expiries, and undici reads it from the Keep-Alive header. Shutdown closes idle ones.
 */
const KEEP_ALIVE_MS = 65_000;

export async function createServer(input: ServerInput): Promise<RunningServer> {
  const { settings, logger } = input;
  refuseTrackedAuditLog(settings.workspace, auditLocation(settings).path);
  const store = openAuditStore({ ...input.auditOptions, ...auditLocation(settings), logger });
  let server: Server | undefined;
  let retention: NodeJS.Timeout | undefined;
  try {
    const pipeline = await buildPipelineDeps({
      settings,
      store,
      logger,
      warm: input.warm,
      overrides: input.overrides,
    });
    const inFlight = createInFlight();
    const app = createApp({
      pipeline,
      authToken: settings.authToken,
      maxBodyBytes: settings.maxBodyBytes,
      logger,
      inFlight,
      host: settings.host,
      allowedHosts: settings.allowedHosts,
      allowedOrigins: settings.allowedOrigins,
      now: input.now,
      audit: auditRoutes({ store, conversation: (id) => store.conversation(id), authToken: settings.authToken }),
    });
    if (settings.retentionDays || settings.maxDbMb) {
      applyRetention(store, settings, logger);
      retention = setInterval(() => applyRetention(store, settings, logger), 24 * 3600_000);
      // Deno's global timers are numbers, without unref.
      (retention as { unref?: () => void }).unref?.();
    }

    server = serve({ fetch: app.fetch, hostname: settings.host, port: settings.port }) as Server;
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    await listening(server, settings);
    const { port } = server.address() as AddressInfo;
    const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
    const running = server;
    const timer = retention;
    return {
      server,
      url: `http://${host}:${port}`,
      store,
      pipeline,
      inFlight,
      async close(hurry) {
        clearInterval(timer);
        await drainAndStop({ server: running, inFlight, graceMs: settings.shutdownGraceMs, logger, hurry });
        pipeline.close?.();
        // Only now: every request's snapshot has been handed to the store, which writes its queue on close.
        await store.close();
      },
    };
  } catch (error) {
    clearInterval(retention);
    server?.close();
    await store.close();
    throw error;
  }
}

function listening(server: Server, settings: Settings): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(
      error.code === 'EADDRINUSE'
        ? `port ${settings.port} on ${settings.host} is already in use; pick another with --port`
        : `cannot listen on ${settings.host}:${settings.port}: ${error.message}`,
    );
  });
}

/** A remote upstream would send the user's code off the machine: refuse unless asked for (exit 2). */
export function checkUpstreamIsLocal(settings: Settings): void {
  if (!isLoopback(new URL(settings.upstream).hostname) && !settings.allowRemoteUpstream) {
    throw new SettingsError(
      `--upstream ${settings.upstream} is not on this machine; context would leave it. Pass --allow-remote-upstream if that is what you want.`,
    );
  }
}

export interface ServeIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs until SIGINT/SIGTERM; returns the exit code. */
export async function runServeCommand(
  settings: Settings,
  io: ServeIo,
  settingsFiles: readonly SettingsFile[] = [],
): Promise<number> {
  const isTTY = process.stderr.isTTY === true;
  const logger = createLogger({ format: settings.logFormat, isTTY, verbose: settings.verbose });
  const running = await createServer({ settings, logger, warm: true });
  // The first SIGINT/SIGTERM drains (see http/shutdown.ts); a second one ends what runs,
  // tries one last write of the audit queue, and exits at once. Listened for before the
  // ready line: a supervisor may stop the server as soon as it has read it.
  const hurry = new AbortController();
  const stopSignal = new Promise<string>((resolve) => {
    let count = 0;
    const onSignal = (name: string) => {
      count += 1;
      if (count === 1) resolve(name);
      else if (count === 2) {
        hurry.abort();
        void forcedStop(name, running, logger);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  io.out(
    `ctxproxy listening on ${running.url}/v1\n` +
      `  upstream  ${settings.upstream} (${settings.upstreamKind})\n` +
      `  workspace ${settings.workspace}\n` +
      `  audit     ${settings.db} (browse ${running.url}/audit)\n` +
      `  settings  ${describeSettingsFiles(settingsFiles)}\n` +
      `  log       ${describeLog(resolveLogFormat(settings.logFormat, isTTY), settings.verbose)}\n`,
  );
  if (!isLoopback(settings.host) && !settings.authToken) {
    io.out('  note      without a token (CTXPROXY_AUTH_TOKEN) only clients on this machine are served\n');
  }
  warnIfNotGit(settings.workspace, io.err);
  void warnIfUpstreamDown(running.pipeline.upstream, io.err);

  const signal = await stopSignal;
  logger.info('server.stopping', { signal, inFlight: running.inFlight.size, graceMs: settings.shutdownGraceMs });
  await running.close(hurry.signal);
  logger.info('server.stopped', {});
  return 0;
}

function describeLog(format: 'json' | 'text', verbose: boolean): string {
  const what = format === 'text' ? 'one line per request on standard error' : 'JSON lines on standard error';
  const other = format === 'text' ? '--log-format json' : '--log-format text';
  return `${what} (${other} for the other form${verbose ? '; stack traces on' : ''})`;
}

/** Which files the settings came from, so that a setting obeyed from an unexpected place shows. */
function describeSettingsFiles(files: readonly SettingsFile[]): string {
  if (files.length === 0) return 'no settings file (defaults, environment and flags only)';
  return files
    .map((file) => {
      if (file.unreadable) return `${file.path} (workspace: ignored, ${file.unreadable})`;
      const ignored = file.ignored.length > 0 ? `, ignored ${file.ignored.length} key(s): see the warning` : '';
      return `${file.path} (${file.role === 'user' ? 'yours' : `workspace: only its safe keys${ignored}`})`;
    })
    .join('; ');
}

/** How long a forced stop waits for the cut-off requests and the last audit write. */
const FORCED_STOP_MS = 1000;

async function forcedStop(signal: string, running: RunningServer, logger: Logger): Promise<never> {
  logger.warn('server.forced_stop', { signal, inFlight: running.inFlight.size });
  endAll(running.inFlight);
  const deadline = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
  await running.inFlight.idle(FORCED_STOP_MS);
  await Promise.race([running.store.close().catch(() => {}), deadline(FORCED_STOP_MS)]);
  process.exit(1);
}

function applyRetention(store: AuditStoreFull, settings: Settings, logger: Logger): void {
  try {
    const result = store.prune({
      olderThanMs: settings.retentionDays ? settings.retentionDays * 86_400_000 : undefined,
      maxBytes: settings.maxDbMb ? settings.maxDbMb * 1024 * 1024 : undefined,
    });
    logger.info('audit.pruned', {
      deleted: result.deleted,
      bytesBefore: result.bytesBefore,
      bytesAfter: result.bytesAfter,
    });
  } catch (error) {
    logger.error('audit.prune_failed', { error: (error as Error).name });
  }
}
