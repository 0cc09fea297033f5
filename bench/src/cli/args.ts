// The one argument parser of every bench script: options declared as data (type, default, one line
// of help), parsed strictly by node:util's `parseArgs`; `--help` prints them.
import { parseArgs } from 'node:util';

/** One option: `number` / `numbers` (comma-separated) are checked; `arg` names the value in `--help`. */
export type OptionSpec =
  | { type: 'boolean'; help: string }
  | { type: 'string'; default?: string; help: string; arg?: string }
  | { type: 'number'; default?: number; help: string; arg?: string }
  | { type: 'numbers'; default: readonly number[]; help: string; arg?: string };

export type OptionSpecs = Record<string, OptionSpec>;

/** The value an option's spec gives: with a default it is always there. */
type ValueOf<S extends OptionSpec> = S extends { type: 'boolean' }
  ? boolean
  : S extends { type: 'numbers' }
    ? number[]
    : S extends { type: 'number'; default: number }
      ? number
      : S extends { type: 'number' }
        ? number | undefined
        : S extends { type: 'string'; default: string }
          ? string
          : string | undefined;

export type Values<O extends OptionSpecs> = { -readonly [K in keyof O]: ValueOf<O[K]> };

export interface Command<O extends OptionSpecs> {
  /** How it is run, e.g. `pnpm bench:core -- [options]`. */
  usage: string;
  /** What question the script answers, one or two sentences. */
  summary: string;
  options: O;
  /** What the positional arguments are (none allowed without it), and how many at least. */
  positionals?: string;
  minPositionals?: number;
}

/** The script's own arguments: pnpm passes `--` through (`pnpm bench:core -- --rounds 3`). */
export const scriptArgs = (): string[] => process.argv.slice(2).filter((arg) => arg !== '--');

/** `--help`'s text: the usage, the summary, then one line per option with its default. */
export function helpText<O extends OptionSpecs>(command: Command<O>): string {
  const rows = Object.entries(command.options).map(([name, spec]) => {
    const flag =
      spec.type === 'boolean' ? `--${name}` : `--${name} <${'arg' in spec ? spec.arg : spec.type}>`;
    const fallback =
      'default' in spec && spec.default !== undefined ? ` (default ${String(spec.default)})` : '';
    return [flag, `${spec.help}${fallback}`] as const;
  });
  rows.push(['--help', 'print this help']);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [
    `usage: ${command.usage}`,
    '',
    command.summary,
    ...(command.positionals === undefined ? [] : ['', `arguments: ${command.positionals}`]),
    '',
    'options:',
    ...rows.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`),
  ].join('\n');
}

function toNumber(name: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n))
    throw new Error(`--${name}: not a number: ${text}`);
  return n;
}

/** The value of one option from what parseArgs read (a string, a boolean or nothing). */
function optionValue(name: string, spec: OptionSpec, raw: string | boolean | undefined): unknown {
  switch (spec.type) {
    case 'boolean':
      return raw === true;
    case 'string':
      return raw ?? spec.default;
    case 'number':
      return raw === undefined ? spec.default : toNumber(name, raw as string);
    case 'numbers':
      return raw === undefined
        ? [...spec.default]
        : (raw as string).split(',').map((x) => toNumber(name, x));
  }
}

/** The values of `command`'s options in `argv`; `--help` prints the help and exits 0, a bad argument 2. */
export function parseCommand<const O extends OptionSpecs>(
  command: Command<O>,
  argv: string[] = scriptArgs(),
): { values: Values<O>; positionals: string[] } {
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const [name, spec] of Object.entries(command.options))
    options[name] = { type: spec.type === 'boolean' ? 'boolean' : 'string' };
  try {
    const parsed = parseArgs({
      args: argv,
      options,
      allowPositionals: command.positionals !== undefined,
    });
    if (parsed.values.help === true) {
      console.log(helpText(command));
      process.exit(0);
    }
    if (parsed.positionals.length < (command.minPositionals ?? 0))
      throw new Error(`expected ${command.positionals}`);
    const values: Record<string, unknown> = {};
    for (const [name, spec] of Object.entries(command.options))
      values[name] = optionValue(name, spec, parsed.values[name]);
    return { values: values as Values<O>, positionals: parsed.positionals };
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${helpText(command)}`);
    process.exit(2);
  }
}

/** The options most parts share, so each says them the same way. */
export const shared = {
  rounds: (n: number) => ({ type: 'number', default: n, help: 'interleaved rounds' }) as const,
  ms: (n: number) => ({ type: 'number', default: n, help: 'ms per measurement' }) as const,
  json: {
    type: 'string',
    arg: 'file',
    help: 'also write every figure, round and the configuration as JSON to this file',
  } as const,
  /** `--scale`, its key counts and rounds: `what` is measured per key at each count. */
  scale: (what: string) =>
    ({
      scale: {
        type: 'boolean',
        help: `add the scale section: decisions/s and ${what} per key at each of --scale-keys`,
      },
      'scale-keys': { type: 'numbers', default: [1000, 100000, 1000000], help: 'key counts' },
      'scale-rounds': { type: 'number', default: 3, help: 'rounds per key count' },
    }) as const,
};
