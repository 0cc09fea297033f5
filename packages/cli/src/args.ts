import { parseArgs } from 'node:util';

/** A command line that does not parse: exit code 2, with the message and a pointer to --help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The commands, each with the positional arguments it takes. */
export const COMMANDS = {
  ban: ['subject', 'value'],
  unban: ['subject', 'value'],
  allow: ['subject', 'value'],
  deny: ['subject', 'value'],
  override: ['subject', 'value', 'limit'],
  remove: ['id'],
  list: [],
  inspect: ['subject', 'value'],
  top: [],
} as const satisfies Record<string, readonly string[]>;

export type CommandName = keyof typeof COMMANDS;

/** A parsed command line. */
export interface CommandLine {
  command: CommandName | 'help' | 'version';
  positionals: string[];
  redis: string | undefined;
  cluster: boolean;
  prefix: string;
  storePrefix: string;
  timeoutMs: number;
  json: boolean;
  for: string | undefined;
  reason: string | undefined;
  name: string | undefined;
}

const OPTIONS = {
  redis: { type: 'string' },
  cluster: { type: 'boolean' },
  prefix: { type: 'string' },
  'store-prefix': { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  for: { type: 'string' },
  reason: { type: 'string' },
  name: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** Which command takes which of the per-command options. */
const TAKES: Record<string, CommandName[]> = {
  for: ['ban', 'allow', 'deny', 'override'],
  reason: ['ban', 'allow', 'deny', 'override'],
  name: ['override'],
};

/**
 * Parses `argv` (without `node` and the script) with `node:util`'s `parseArgs`, strict: an
 * unknown option, a missing value or a wrong number of arguments is a {@link UsageError}.
 * `env.SLUICE_REDIS_URL` is the default of `--redis`.
 */
export function parseCommandLine(
  argv: string[],
  env: Record<string, string | undefined>,
): CommandLine {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs's messages name the option, never its value.
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [first, ...rest] = positionals;
  const timeoutText = values.timeout ?? '5000';
  const timeoutMs = Number(timeoutText);
  const line: CommandLine = {
    command: 'help',
    positionals: rest,
    redis: values.redis ?? (env.SLUICE_REDIS_URL || undefined),
    cluster: values.cluster ?? false,
    prefix: values.prefix ?? 'sl',
    storePrefix: values['store-prefix'] ?? '',
    timeoutMs,
    json: values.json ?? false,
    for: values.for,
    reason: values.reason,
    name: values.name,
  };
  if (values.help) return line;
  if (values.version) return { ...line, command: 'version' };
  if (first === undefined || first === 'help') return line;
  if (!Object.hasOwn(COMMANDS, first)) throw new UsageError(`unknown command ${shown(first)}`);
  const command = first as CommandName;
  const expected = COMMANDS[command];
  if (rest.length !== expected.length) {
    throw new UsageError(
      `${command} takes ${expected.length === 0 ? 'no arguments' : expected.map((a) => `<${a}>`).join(' ')}, got ${rest.length}`,
    );
  }
  for (const [option, commands] of Object.entries(TAKES)) {
    if (values[option as keyof typeof values] !== undefined && !commands.includes(command)) {
      throw new UsageError(`--${option} does not apply to ${command}`);
    }
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new UsageError('--timeout takes a number of ms > 0');
  }
  return { ...line, command };
}

/** The subject types the commands take. */
const SUBJECTS = ['ip', 'cidr', 'user', 'key'] as const;

/** `{ ip: value }` and the like, from `<subject> <value>`. */
export function subjectOf(
  type: string,
  value: string,
): { ip: string } | { cidr: string } | { user: string } | { key: string } {
  if (!(SUBJECTS as readonly string[]).includes(type)) {
    throw new UsageError(`unknown subject ${shown(type)}: ip, cidr, user or key`);
  }
  return { [type]: value } as { ip: string };
}

/**
 * A word the user typed, quoted, when it looks like a command name; else not echoed (a URL
 * or a password typed in the wrong place must not be printed back).
 */
function shown(word: string): string {
  return /^[a-z][a-z-]{0,19}$/.test(word) ? `"${word}"` : '(not shown)';
}
