// Composition root: loads the settings, opens the audit store, builds the real
// adapters and hands them to the command. Nothing imports this file.

import type { AuditStoreFull } from './audit/store.ts';
import { endQuietlyOnClosedPipe } from './cli/closedPipe.ts';
import { type CommandLine, checkServeArguments, helpText, parseCommandLine, UsageError } from './cli/commandLine.ts';
import { safeText } from './cli/terminalText.ts';
import type { SettingsFile } from './config/loadSettings.ts';
import type { Settings } from './config/options.ts';

// Everything else is imported by the command that needs it: `--help` must not pay for
// zod, SQLite, secretlint, the tokenizer or Hono, nor `audit list` for the redactor.
// commandLine.ts stays light for the same reason (see config/optionSpecs.ts).

// Every command's words pass through safeText (cli/terminalText.ts): names and text from a
// repository, the model or the log may hold escape sequences. `redact` writes its data raw.
const rawOut = (text: string) => process.stdout.write(text);
const out = (text: string) => process.stdout.write(safeText(text));
const err = (text: string) => process.stderr.write(safeText(text));

export async function main(argv: string[]): Promise<number> {
  let line: CommandLine;
  let settings: Settings;
  let settingsFiles: SettingsFile[];
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
    const { loadSettingsReport, ignoredKeysWarning } = await import('./config/loadSettings.ts');
    ({ settings, files: settingsFiles } = loadSettingsReport({
      flags: line.flags,
      configFlag: line.configFlag,
      env: process.env,
      cwd: process.cwd(),
    }));
    for (const file of settingsFiles) {
      const warning = ignoredKeysWarning(file);
      if (warning) err(`ctxproxy: ${warning}\n`);
    }
    if (line.command === 'serve' || line.command === 'preview') {
      const { checkWorkspace } = await import('./cli/startupChecks.ts');
      checkWorkspace(settings.workspace);
    }
    if (line.command === 'serve') (await import('./cli/serveCommand.ts')).checkUpstreamIsLocal(settings);
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
      case 'serve': {
        const { runServeCommand } = await import('./cli/serveCommand.ts');
        return await runServeCommand(settings, { out, err }, settingsFiles);
      }
      case 'redact': {
        const [{ runRedactCommand }, { createRedactor }] = await Promise.all([
          import('./cli/redactCommand.ts'),
          import('./redact/createRedactor.ts'),
        ]);
        // A filter: its output is the input, masked, byte for byte (see terminalText.ts).
        return await runRedactCommand(line.rest, {
          redactor: await createRedactor(),
          stdin: process.stdin,
          out: rawOut,
          err,
        });
      }
      case 'audit': {
        const { runAuditCli } = await import('./cli/auditCommand.ts');
        return await runAuditCli(line.rest, settings, { out, err, confirm: terminalConfirm() });
      }
      case 'preview': {
        const [{ runPreviewCommand }, { buildPipelineDeps }, { silentLogger }] = await Promise.all([
          import('./cli/previewCommand.ts'),
          import('./cli/pipelineDeps.ts'),
          import('./shared/logger.ts'),
        ]);
        return await withStore(settings, async (store) => {
          const pipeline = await buildPipelineDeps({ settings, store, logger: silentLogger });
          return runPreviewCommand(line.rest, { pipeline, out, err });
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
      return /^y(es)?$/i.test((await prompt.question(safeText(question))).trim());
    } finally {
      prompt.close();
    }
  };
}

async function withStore(settings: Settings, run: (store: AuditStoreFull) => Promise<number>): Promise<number> {
  const [{ openAuditStore }, { auditLocation }] = await Promise.all([
    import('./audit/store.ts'),
    import('./audit/auditFiles.ts'),
  ]);
  const store = openAuditStore(auditLocation(settings));
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}
