import { SluiceConfigError } from '@sluice/core';
import { type CommandLine, parseCommandLine, STORE_SOURCES, storeOf, UsageError } from './args.js';
import { runCommand, unanswered } from './commands.js';
import { type OpenedStore, openStore, placeOf } from './connect.js';
import { HELP } from './help.js';
import { redact } from './redact.js';

/** Where {@link runCli} reads and writes: the process's by default; tests pass their own. */
export interface CliIo {
  /** Default `process.env` (`SLUICE_REDIS_URL`, `SLUICE_POSTGRES_URL`, `SLUICE_SQLITE_PATH`). */
  env?: Record<string, string | undefined>;
  /** Default `process.stdout.write`. */
  stdout?: (text: string) => void;
  /** Default `process.stderr.write`. */
  stderr?: (text: string) => void;
}

/** The exit codes of `sluice`, as `--help` documents them. */
export const EXIT_CODES = Object.freeze({ ok: 0, runtime: 1, usage: 2 });

/** The version printed by `--version`: the package's (test/cli.test.ts holds them equal). */
const VERSION = '0.2.0';

/**
 * Runs the `sluice` command line `argv` (arguments only, no `node` or script path) and
 * resolves to its exit code ({@link EXIT_CODES}: 0 done, 1 the store unreachable or failing,
 * or a command it cannot answer, 2 a usage error). Never rejects. It speaks to the one store
 * given: `--redis <url>`, `--postgres <url>` or `--sqlite <file>`, else `SLUICE_REDIS_URL`,
 * `SLUICE_POSTGRES_URL` or `SLUICE_SQLITE_PATH`. Every line it writes, errors included, has
 * the password of every URL it was given removed.
 *
 * @example
 * ```ts
 * import { runCli } from '@sluice/cli';
 * process.exitCode = await runCli(['ban', 'ip', '203.0.113.7', '--for', '1h'], {
 *   env: { SLUICE_POSTGRES_URL: 'postgres://sluice@db.internal/app' },
 * });
 * ```
 */
export async function runCli(argv: string[], io: CliIo = {}): Promise<number> {
  const env = io.env ?? process.env;
  // Every URL given, used or not, flag or variable: none of their passwords is ever printed.
  const secrets = [env.SLUICE_REDIS_URL, env.SLUICE_POSTGRES_URL, ...argvUrls(argv)];
  const out = (text: string) =>
    (io.stdout ?? ((t) => process.stdout.write(t)))(`${redact(text, ...secrets)}\n`);
  const err = (text: string) =>
    (io.stderr ?? ((t) => process.stderr.write(t)))(`${redact(text, ...secrets)}\n`);
  const usage = (message: string) => {
    err(`sluice: ${message}\nRun \`sluice --help\` for usage.`);
    return EXIT_CODES.usage;
  };
  let line: CommandLine;
  let target: ReturnType<typeof storeOf> | undefined;
  try {
    line = parseCommandLine(argv, env);
    if (line.command === 'help') {
      out(HELP.trimEnd());
      return EXIT_CODES.ok;
    }
    if (line.command === 'version') {
      out(VERSION);
      return EXIT_CODES.ok;
    }
    // `top` needs no store (none has anything to show): a store is only checked if given.
    if (line.command !== 'top' || Object.keys(line.stores).length > 0) target = storeOf(line);
  } catch (error) {
    return usage((error as Error).message);
  }
  const refused = unanswered(line.command, target?.kind);
  if (refused !== undefined) {
    if (line.json) out(JSON.stringify({ available: false, reason: refused }, null, 2));
    else err(refused);
    return EXIT_CODES.runtime;
  }
  const { kind, location } = target!;
  let opened: OpenedStore | undefined;
  try {
    opened = await openStore(line, kind, location);
    const result = await runCommand(line, opened.store);
    out(line.json ? JSON.stringify(result.json, null, 2) : result.text);
    return EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof UsageError || error instanceof SluiceConfigError) {
      return usage(error.message);
    }
    // A store's own errors begin with `sluice: ` already.
    const message = (error instanceof Error ? error.message : String(error)).replace(
      /^sluice: /,
      '',
    );
    err(`sluice: ${placeOf(kind, location)} failed: ${message}`);
    return EXIT_CODES.runtime;
  } finally {
    await opened?.close();
  }
}

/** The values of `--redis` / `--postgres` (`--redis <url>`, `--redis=<url>`) in `argv`, before parsing. */
function argvUrls(argv: string[]): string[] {
  const flags = [STORE_SOURCES.redis.flag, STORE_SOURCES.postgres.flag];
  const urls: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    for (const flag of flags) {
      if (a === flag && argv[i + 1] !== undefined) urls.push(argv[i + 1]!);
      if (a.startsWith(`${flag}=`)) urls.push(a.slice(flag.length + 1));
    }
  }
  return urls;
}
