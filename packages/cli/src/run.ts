import { SluiceConfigError } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import { Cluster, Redis } from 'ioredis';
import { type CommandLine, parseCommandLine, UsageError } from './args.js';
import { runCommand, TOP_EXPLAINED } from './commands.js';
import { HELP } from './help.js';
import { endpointOf, redact } from './redact.js';

/** Where {@link runCli} reads and writes: the process's by default; tests pass their own. */
export interface CliIo {
  /** Default `process.env` (`SLUICE_REDIS_URL`). */
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
 * resolves to its exit code ({@link EXIT_CODES}: 0 done, 1 Redis unreachable or failing, 2
 * a usage error). Never rejects. Every line it writes, errors included, has the password of
 * the Redis URL removed.
 *
 * @example
 * ```ts
 * import { runCli } from '@sluice/cli';
 * process.exitCode = await runCli(['ban', 'ip', '203.0.113.7', '--for', '1h'], {
 *   env: { SLUICE_REDIS_URL: 'redis://localhost:6379' },
 * });
 * ```
 */
export async function runCli(argv: string[], io: CliIo = {}): Promise<number> {
  const env = io.env ?? process.env;
  const url = env.SLUICE_REDIS_URL;
  let secretOf = url ?? argvUrl(argv);
  const out = (text: string) =>
    (io.stdout ?? ((t) => process.stdout.write(t)))(`${redact(text, secretOf)}\n`);
  const err = (text: string) =>
    (io.stderr ?? ((t) => process.stderr.write(t)))(`${redact(text, secretOf)}\n`);
  let line: CommandLine;
  try {
    line = parseCommandLine(argv, env);
  } catch (error) {
    err(`sluice: ${(error as Error).message}\nRun \`sluice --help\` for usage.`);
    return EXIT_CODES.usage;
  }
  if (line.command === 'help') {
    out(HELP.trimEnd());
    return EXIT_CODES.ok;
  }
  if (line.command === 'version') {
    out(VERSION);
    return EXIT_CODES.ok;
  }
  if (line.command === 'top') {
    if (line.json) out(JSON.stringify({ available: false, reason: TOP_EXPLAINED }, null, 2));
    else err(TOP_EXPLAINED);
    return EXIT_CODES.runtime;
  }
  secretOf = line.redis;
  if (line.redis === undefined) {
    err('sluice: no Redis URL: pass --redis <url> or set SLUICE_REDIS_URL');
    return EXIT_CODES.usage;
  }
  if (!/^rediss?:\/\//i.test(line.redis)) {
    err('sluice: --redis takes a redis:// or rediss:// URL');
    return EXIT_CODES.usage;
  }
  let client: Redis | Cluster | undefined;
  let store: RedisStore | undefined;
  try {
    client = await connect(line);
    store = new RedisStore({ client, prefix: line.storePrefix, timeoutMs: line.timeoutMs });
    const result = await runCommand(line, store);
    out(line.json ? JSON.stringify(result.json, null, 2) : result.text);
    return EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof UsageError || error instanceof SluiceConfigError) {
      err(`sluice: ${error.message}\nRun \`sluice --help\` for usage.`);
      return EXIT_CODES.usage;
    }
    const message = error instanceof Error ? error.message : String(error);
    err(`sluice: Redis at ${endpointOf(line.redis)} failed: ${message}`);
    return EXIT_CODES.runtime;
  } finally {
    await store?.close().catch(() => undefined);
    client?.disconnect();
  }
}

/** The URL of a `--redis <url>` / `--redis=<url>` in `argv`, before parsing (for redaction). */
function argvUrl(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--redis') return argv[i + 1];
    if (a.startsWith('--redis=')) return a.slice('--redis='.length);
  }
  return undefined;
}

/**
 * An ioredis client on `line.redis`, connected, that fails fast: no retry, no offline
 * queue, `--timeout` to connect. Rejects (without the URL in the message) when the server
 * cannot be reached.
 */
async function connect(line: CommandLine): Promise<Redis | Cluster> {
  const options = {
    lazyConnect: true,
    connectTimeout: line.timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  };
  const client = line.cluster ? cluster(line.redis!, options) : new Redis(line.redis!, options);
  // The cause of a failed connect comes as an 'error' event (its rejection only says
  // "Connection is closed"); with no listener it would be logged.
  let cause: (Error & { code?: string }) | undefined;
  client.on('error', (error: Error) => {
    cause = error;
  });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    const reason = cause ?? (error as Error & { code?: string });
    throw new Error(`cannot connect: ${reason.code ?? reason.message}`);
  }
  return client;
}

/**
 * A Cluster client from one node's URL: the node as the startup node, the URL's user name,
 * password and TLS (`rediss:`) for every node.
 */
function cluster(url: string, options: Record<string, unknown>): Cluster {
  const u = new URL(url);
  const decoded = (text: string) => (text === '' ? undefined : decodeURIComponent(text));
  return new Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], {
    lazyConnect: true,
    enableOfflineQueue: false,
    clusterRetryStrategy: () => null,
    redisOptions: {
      ...options,
      username: decoded(u.username),
      password: decoded(u.password),
      tls: u.protocol === 'rediss:' ? {} : undefined,
    },
  });
}
