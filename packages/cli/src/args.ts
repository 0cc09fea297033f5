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
  /** The store given by a flag (`--redis`, `--postgres`, `--sqlite`) or else the environment. */
  stores: Partial<Record<StoreKind, string>>;
  /** Where each of `stores` came from (`--redis` or `SLUICE_REDIS_URL`), for messages. */
  from: Partial<Record<StoreKind, string>>;
  cluster: boolean;
  prefix: string;
  storePrefix: string | undefined;
  schema: string | undefined;
  table: string | undefined;
  timeoutMs: number;
  json: boolean;
  for: string | undefined;
  reason: string | undefined;
  name: string | undefined;
}

/** The stores the command speaks to. */
export type StoreKind = 'redis' | 'postgres' | 'sqlite';

/** Each store's flag and environment variable. */
export const STORE_SOURCES: Record<StoreKind, { flag: string; env: string }> = {
  redis: { flag: '--redis', env: 'SLUICE_REDIS_URL' },
  postgres: { flag: '--postgres', env: 'SLUICE_POSTGRES_URL' },
  sqlite: { flag: '--sqlite', env: 'SLUICE_SQLITE_PATH' },
};

const KINDS = Object.keys(STORE_SOURCES) as StoreKind[];

const OPTIONS = {
  redis: { type: 'string' },
  postgres: { type: 'string' },
  sqlite: { type: 'string' },
  cluster: { type: 'boolean' },
  prefix: { type: 'string' },
  'store-prefix': { type: 'string' },
  schema: { type: 'string' },
  table: { type: 'string' },
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
 * The environment (`SLUICE_REDIS_URL`, `SLUICE_POSTGRES_URL`, `SLUICE_SQLITE_PATH`) is read
 * only when no store flag is given; {@link storeOf} picks the one store.
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
  const stores: CommandLine['stores'] = {};
  const from: CommandLine['from'] = {};
  const flagged = KINDS.some((kind) => values[kind] !== undefined);
  for (const kind of KINDS) {
    const { flag, env: name } = STORE_SOURCES[kind];
    const value = flagged ? values[kind] : env[name] || undefined;
    if (value === undefined) continue;
    stores[kind] = value;
    from[kind] = flagged ? flag : name;
  }
  const line: CommandLine = {
    command: 'help',
    positionals: rest,
    stores,
    from,
    cluster: values.cluster ?? false,
    prefix: values.prefix ?? 'sl',
    storePrefix: values['store-prefix'],
    schema: values.schema,
    table: values.table,
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

/** Which store takes which of the per-store options. */
const STORE_TAKES: Record<string, StoreKind[]> = {
  cluster: ['redis'],
  storePrefix: ['redis'],
  schema: ['postgres'],
  table: ['postgres', 'sqlite'],
};

const OPTION_FLAG: Record<string, string> = {
  cluster: '--cluster',
  storePrefix: '--store-prefix',
  schema: '--schema',
  table: '--table',
};

/**
 * The one store of `line` and where it is (a URL, or the SQLite file's path).
 * @throws {@link UsageError} when there is none, more than one, a URL of the wrong scheme,
 *   or an option of another store (`--cluster` with `--postgres`).
 */
export function storeOf(line: CommandLine): { kind: StoreKind; location: string } {
  const given = KINDS.filter((kind) => line.stores[kind] !== undefined);
  if (given.length === 0) {
    throw new UsageError(
      'no store: pass --redis <url>, --postgres <url> or --sqlite <file>, or set ' +
        'SLUICE_REDIS_URL, SLUICE_POSTGRES_URL or SLUICE_SQLITE_PATH',
    );
  }
  if (given.length > 1) {
    const names = given.map((kind) => line.from[kind]).join(' and ');
    throw new UsageError(`one store at a time: ${names} are both given; pass one of them`);
  }
  const kind = given[0]!;
  const location = line.stores[kind]!;
  const flag = STORE_SOURCES[kind].flag;
  if (kind === 'redis' && !/^rediss?:\/\//i.test(location)) {
    throw new UsageError(`${flag} takes a redis:// or rediss:// URL`);
  }
  if (kind === 'postgres' && !/^postgres(ql)?:\/\//i.test(location)) {
    throw new UsageError(`${flag} takes a postgres:// or postgresql:// URL`);
  }
  if (kind === 'sqlite' && (location === ':memory:' || /^[a-z][a-z0-9+.-]*:\/\//i.test(location))) {
    throw new UsageError(`${flag} takes the path of the file the app's SqliteStore opens`);
  }
  for (const [option, kinds] of Object.entries(STORE_TAKES)) {
    const value = line[option as keyof CommandLine];
    if (value !== undefined && value !== false && !kinds.includes(kind)) {
      throw new UsageError(`${OPTION_FLAG[option]} does not apply to ${flag}`);
    }
  }
  return { kind, location };
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
