// Composition root: loads the settings, opens the audit store, builds the real
// adapters and hands them to the command. Nothing imports this file.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuditStoreFull } from './audit/store.ts';
import { endQuietlyOnClosedPipe } from './cli/closedPipe.ts';
import { type CommandLine, checkServeArguments, helpText, parseCommandLine, UsageError } from './cli/commandLine.ts';
import type { Settings } from './config/options.ts';
import type { InFlight } from './http/inFlight.ts';
import type { PipelineDeps } from './pipeline/runPipeline.ts';
import { isLoopback } from './shared/loopback.ts';
import type { Logger, Upstream } from './shared/ports.ts';

// Everything else is imported by the command that needs it: `--help` must not pay for
// zod, SQLite, secretlint, the tokenizer or Hono, nor `audit list` for the redactor.
// commandLine.ts stays light for the same reason (see config/optionSpecs.ts).

const out = (text: string) => process.stdout.write(text);
const err = (text: string) => process.stderr.write(text);

export async function main(argv: string[]): Promise<number> {
  let line: CommandLine;
  let settings: Settings;
  endQuietlyOnClosedPipe(process.stdout, (code) => process.exit(code));
  try {
    line = parseCommandLine(argv);
    if (line.command === 'help') {
      out(helpText());
      return 0;
    }
    if (line.command === 'version') {
      out('ctxproxy 0.1.0\n');
      return 0;
    }
    if (line.command === 'serve') checkServeArguments(line.rest);
    const { loadSettings } = await import('./config/loadSettings.ts');
    settings = loadSettings({ flags: line.flags, configFlag: line.configFlag, env: process.env, cwd: process.cwd() });
    if (line.command === 'serve' || line.command === 'preview') {
      const { checkWorkspace } = await import('./cli/startupChecks.ts');
      checkWorkspace(settings.workspace);
    }
    if (line.command === 'serve') await checkUpstreamIsLocal(settings);
  } catch (error) {
    // The import is a no-op by now unless the error came before the settings were needed.
    if (error instanceof UsageError || error instanceof (await import('./config/loadSettings.ts')).SettingsError) {
      err(`ctxproxy: ${error.message} (see ctxproxy --help)\n`);
      return 2;
    }
    throw error;
  }

  try {
    switch (line.command) {
      case 'serve':
        return await serveCommand(settings);
      case 'redact': {
        const [{ runRedactCommand }, { createRedactor }] = await Promise.all([
          import('./cli/redactCommand.ts'),
          import('./redact/createRedactor.ts'),
        ]);
        return await runRedactCommand(line.rest, { redactor: await createRedactor(), stdin: process.stdin, out, err });
      }
      case 'audit': {
        const { runAuditCommand } = await import('./cli/auditCommand.ts');
        return await withStore(settings, (store) =>
          runAuditCommand(line.rest, { store, out, err, confirm: terminalConfirm() }),
        );
      }
      case 'preview': {
        const [{ runPreviewCommand }, { createLogger }] = await Promise.all([
          import('./cli/previewCommand.ts'),
          import('./shared/logger.ts'),
        ]);
        return await withStore(settings, async (store) => {
          const deps = await buildPipelineDeps(
            settings,
            store,
            createLogger(() => {}),
          );
          return runPreviewCommand(line.rest, { pipeline: deps, out, err });
        });
      }
    }
  } catch (error) {
    err(`ctxproxy: ${(error as Error).message}\n`);
    return 1;
  }
}

/** A yes/no prompt when standard input and output are a terminal; none otherwise (then --yes is needed). */
function terminalConfirm(): ((question: string) => Promise<boolean>) | undefined {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  return async (question) => {
    const { createInterface } = await import('node:readline/promises');
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    try {
      return /^y(es)?$/i.test((await prompt.question(question)).trim());
    } finally {
      prompt.close();
    }
  };
}

/** A remote upstream would send the user's code off the machine: refuse unless asked for. */
async function checkUpstreamIsLocal(settings: Settings): Promise<void> {
  const { SettingsError } = await import('./config/loadSettings.ts');
  if (!isLoopback(new URL(settings.upstream).hostname) && !settings.allowRemoteUpstream) {
    throw new SettingsError(
      `--upstream ${settings.upstream} is not on this machine; context would leave it. Pass --allow-remote-upstream if that is what you want.`,
    );
  }
}

async function withStore(settings: Settings, run: (store: AuditStoreFull) => Promise<number>): Promise<number> {
  const { openAuditStore } = await import('./audit/store.ts');
  const store = openAuditStore({ path: settings.db });
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

async function buildUpstream(settings: Settings): Promise<Upstream> {
  const [{ createOllamaUpstream }, { createOpenAIUpstream }] = await Promise.all([
    import('./upstream/ollamaUpstream.ts'),
    import('./upstream/openaiUpstream.ts'),
  ]);
  const timeouts = { firstByteTimeoutMs: settings.upstreamTimeoutMs, idleTimeoutMs: settings.upstreamIdleTimeoutMs };
  return settings.upstreamKind === 'ollama'
    ? createOllamaUpstream({ baseUrl: settings.upstream, ...timeouts })
    : createOpenAIUpstream({
        baseUrl: settings.upstream,
        ...timeouts,
        ...(settings.upstreamApiKey ? { apiKey: settings.upstreamApiKey } : {}),
      });
}

async function buildPipelineDeps(
  settings: Settings,
  store: AuditStoreFull,
  logger: Logger,
  warm = false,
): Promise<PipelineDeps> {
  const { createPipelineDeps } = await import('./pipeline/defaultDeps.ts');
  return createPipelineDeps({ settings, upstream: await buildUpstream(settings), store, logger, warm });
}

async function serveCommand(settings: Settings): Promise<number> {
  const [
    { serve },
    { openAuditStore },
    { createApp },
    { auditRoutes },
    { createInFlight },
    { drainAndStop },
    { createLogger },
    { warnIfUpstreamDown },
  ] = await Promise.all([
    import('@hono/node-server'),
    import('./audit/store.ts'),
    import('./http/app.ts'),
    import('./http/auditRoutes.ts'),
    import('./http/inFlight.ts'),
    import('./http/shutdown.ts'),
    import('./shared/logger.ts'),
    import('./cli/startupChecks.ts'),
  ]);
  const logger = createLogger();
  const store = openAuditStore({ path: settings.db, logger });
  // A long-running server compiles the redaction rules after start, not in its first requests.
  const pipeline = await buildPipelineDeps(settings, store, logger, true);
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
    audit: auditRoutes({ store, conversation: (id) => store.conversation(id), authToken: settings.authToken }),
  });
  applyRetention(store, settings, logger);
  const retention = setInterval(() => applyRetention(store, settings, logger), 24 * 3600_000);
  retention.unref();

  const server = serve({ fetch: app.fetch, hostname: settings.host, port: settings.port }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(
      error.code === 'EADDRINUSE'
        ? `port ${settings.port} on ${settings.host} is already in use; pick another with --port`
        : `cannot listen on ${settings.host}:${settings.port}: ${error.message}`,
    );
  });
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
        void forcedStop(name, inFlight, store, logger);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  out(
    `ctxproxy listening on http://${host}:${port}/v1\n` +
      `  upstream  ${settings.upstream} (${settings.upstreamKind})\n` +
      `  workspace ${settings.workspace}\n` +
      `  audit     ${settings.db} (browse http://${host}:${port}/audit)\n`,
  );
  if (!isLoopback(settings.host) && !settings.authToken) {
    out('  note      without a token (CTXPROXY_AUTH_TOKEN) only clients on this machine are served\n');
  }
  void warnIfUpstreamDown(pipeline.upstream, err);

  const signal = await stopSignal;
  logger.info('server.stopping', { signal, inFlight: inFlight.size, graceMs: settings.shutdownGraceMs });
  clearInterval(retention);
  await drainAndStop({ server, inFlight, graceMs: settings.shutdownGraceMs, logger, hurry: hurry.signal });
  // Only now: every request's snapshot has been handed to the store, which writes its queue on close.
  await store.close();
  logger.info('server.stopped', {});
  return 0;
}

/** How long a forced stop waits for the cut-off requests and the last audit write. */
const FORCED_STOP_MS = 1000;

async function forcedStop(signal: string, inFlight: InFlight, store: AuditStoreFull, logger: Logger): Promise<never> {
  const { endAll } = await import('./http/shutdown.ts');
  logger.warn('server.forced_stop', { signal, inFlight: inFlight.size });
  endAll(inFlight);
  const deadline = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
  await inFlight.idle(FORCED_STOP_MS);
  await Promise.race([store.close().catch(() => {}), deadline(FORCED_STOP_MS)]);
  process.exit(1);
}

function applyRetention(store: AuditStoreFull, settings: Settings, logger: Logger): void {
  if (!settings.retentionDays && !settings.maxDbMb) return;
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
