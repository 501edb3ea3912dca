// Splits argv into the command, the common options (the settings table) and
// the command's own arguments, which each command parses itself.

import { parseArgs } from 'node:util';
import { OPTION_SPECS } from '../config/optionSpecs.ts';
import type { SettingKey } from '../config/options.ts';
import { WORKSPACE_KEYS } from '../config/settingOwners.ts';

export const COMMANDS = ['serve', 'preview', 'redact', 'audit'] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface CommandLine {
  command: CommandName | 'help' | 'version';
  flags: Partial<Record<SettingKey, string | boolean>>;
  configFlag?: string | undefined;
  /** Everything that is not a common option, in order. */
  rest: string[];
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const flags: CommandLine['flags'] = {};
  const rest: string[] = [];
  let configFlag: string | undefined;
  let command: CommandLine['command'] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      rest.push(...argv.slice(i + 1));
      break;
    }
    const match = /^--([a-z][a-z-]*)(?:=(.*))?$/.exec(arg);
    const name = match?.[1];
    const spec = OPTION_SPECS.find((s) => s.flag === name);
    if (name === 'help' || arg === '-h') {
      // `ctxproxy audit list --help`: the audit commands print their own usage (and their options).
      if (command === 'audit') rest.push(arg);
      else command = 'help';
      continue;
    }
    if (name === 'version' && command === undefined) {
      command = 'version';
      continue;
    }
    if (name === 'config' || spec) {
      const isSwitch = spec?.type === 'boolean';
      let value: string | boolean | undefined = match?.[2];
      if (value === undefined) {
        if (isSwitch) value = true;
        else {
          value = argv[++i];
          if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
        }
      } else if (isSwitch) {
        value = parseSwitch(value, name as string);
      }
      if (name === 'config') configFlag = String(value);
      else if (spec) flags[spec.key] = value;
      continue;
    }
    if (command === undefined && !arg.startsWith('-')) {
      if (!(COMMANDS as readonly string[]).includes(arg)) {
        throw new UsageError(`unknown command "${arg}"; the commands are ${COMMANDS.join(', ')}`);
      }
      command = arg as CommandName;
      continue;
    }
    rest.push(arg);
  }
  return { command: command ?? 'help', flags, configFlag, rest };
}

/** `serve` takes only the common options: anything else is a mistake, named in one line. */
export function checkServeArguments(rest: readonly string[]): void {
  const args = [...rest];
  const [first] = parseArgs({ args, strict: false, allowPositionals: true, tokens: true, options: {} }).tokens;
  if (first === undefined) return;
  const arg = args[first.index] as string;
  if (first.kind !== 'positional' || arg === '-') throw new UsageError(`serve: unknown option ${arg.split('=')[0]}`);
  throw new UsageError(`serve: unexpected argument "${arg}"`);
}

function parseSwitch(value: string, name: string): boolean {
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new UsageError(`--${name} takes true or false`);
}

export function helpText(): string {
  const options = OPTION_SPECS.map((spec) => {
    const flag = `--${spec.flag}${spec.type === 'boolean' ? '' : ' VALUE'}`;
    return `  ${flag.padEnd(30)} ${spec.help}${spec.env ? ` [${spec.env}]` : ''}`;
  });
  return `ctxproxy: a privacy-first context proxy for local models

Usage:
  ctxproxy serve [options]                          run the proxy (npm start)
  ctxproxy preview [--mode M] [--model NAME] [--json] "question"
                                                    print what would be forwarded; calls no model
  ctxproxy redact [--path NAME] < file              print standard input with secrets masked
  ctxproxy audit list [--limit N] [--json]          newest snapshots first
  ctxproxy audit show ID [--json]                   what the model saw, the report, the reply
  ctxproxy audit search TEXT                        full-text search over questions and replies
  ctxproxy audit export [--since T] [--format jsonl]
  ctxproxy audit prune --older-than 30d [--max-db-mb N] [--yes]

Options (each also an environment variable and a key of your config file):
${options.join('\n')}
  ${'--config FILE'.padEnd(30)} your settings file ($XDG_CONFIG_HOME/ctxproxy/config.json, else ~/.config/ctxproxy/config.json) [CTXPROXY_CONFIG]
  ${'--help'.padEnd(30)} this text

A workspace's ctxproxy.config.json may set only ${WORKSPACE_KEYS.join(', ')}
(what cannot hurt you); any other key in it is ignored, with a warning.
`;
}
