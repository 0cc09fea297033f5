import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A `redis-server` process a test (or the bench) started; it never touches a server it did
 * not start.
 */
export interface RedisProcess {
  port: number;
  pid: number;
  /** Stops it (SIGKILL by pid) and removes its directory. */
  stop(): Promise<void>;
  /** Kills it abruptly (SIGKILL); `start()` brings it back on the same port. */
  kill(): Promise<void>;
  /** Starts it again on the same port after `kill()`. */
  start(): Promise<void>;
  /** SIGSTOP: the process stalls, connections stay open. */
  pause(): void;
  /** SIGCONT after `pause()`. */
  resume(): void;
  /** Runs redis-cli against it and returns stdout. */
  cli(...args: string[]): Promise<string>;
}

/** A free TCP port on 127.0.0.1 (and, when `clusterBus`, port + 10000 free as well). */
export async function freePort(clusterBus = false): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await listenOnce(0);
    if (!clusterBus || port + 10000 > 65535) {
      if (!clusterBus) return port;
      continue;
    }
    try {
      await listenOnce(port + 10000);
      return port;
    } catch {
      // bus port taken: try another
    }
  }
  throw new Error('no free port found');
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const chosen = typeof address === 'object' && address ? address.port : port;
      server.close(() => resolve(chosen));
    });
  });
}

/**
 * What to do when `binary` is not installed: the one place the fixtures name the fix
 * (scripts/provision.mjs, which `pnpm test` runs, installs every binary they start).
 */
export function missingBinaryMessage(binary: string): string {
  const pkg = binary === 'redis-cli' ? 'redis-server' : binary;
  return (
    `${binary} is not installed (not found on PATH): run \`node scripts/provision.mjs\` ` +
    `(as root; \`pnpm test\` runs it) or \`apt-get install -y ${pkg}\``
  );
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

async function cli(port: number, ...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args]);
    return stdout;
  } catch (error) {
    if (isMissing(error)) throw new Error(missingBinaryMessage('redis-cli'));
    throw error;
  }
}

/**
 * Spawns `binary` (a Redis server or sentinel) and records a spawn failure, so that
 * {@link waitReady} names the binary that is missing instead of an unhandled 'error'.
 */
function spawnServer(binary: string, args: string[]): ChildProcess & { spawnError?: Error } {
  const child: ChildProcess & { spawnError?: Error } = spawn(binary, args, { stdio: 'ignore' });
  child.once('error', (error) => {
    child.spawnError = isMissing(error) ? new Error(missingBinaryMessage(binary)) : error;
  });
  return child;
}

/** Waits until `binary` (started by {@link spawnServer}) on `port` answers PING. */
async function waitReady(
  binary: string,
  port: number,
  child: ChildProcess & { spawnError?: Error },
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.spawnError !== undefined) throw child.spawnError;
    if (child.exitCode !== null) {
      // a failed spawn reports its exit before its 'error': let the error land first
      await new Promise((r) => setImmediate(r));
      if (child.spawnError !== undefined) throw child.spawnError;
      throw new Error(`${binary} on ${port} exited with ${child.exitCode}`);
    }
    try {
      if ((await cli(port, 'PING')).trim() === 'PONG') return;
    } catch (error) {
      if (error instanceof Error && error.message === missingBinaryMessage('redis-cli'))
        throw error;
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${binary} on ${port} did not become ready`);
}

/** Starts a standalone `redis-server` (no persistence) on a free port. */
export async function startRedis(extraArgs: string[] = []): Promise<RedisProcess> {
  const port = await freePort(extraArgs.includes('--cluster-enabled'));
  const dir = mkdtempSync(join(tmpdir(), `sluice-redis-${port}-`));
  let child: ChildProcess;
  const launch = async () => {
    child = spawnServer('redis-server', [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...extraArgs,
    ]);
    try {
      await waitReady('redis-server', port, child);
    } catch (error) {
      // not ready (or no redis-cli to ask): stop what was started before reporting it
      child.kill('SIGKILL');
      throw error;
    }
  };
  await launch();
  const killChild = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  };
  return {
    port,
    get pid() {
      return child.pid!;
    },
    stop: async () => {
      await killChild();
      rmSync(dir, { recursive: true, force: true });
    },
    kill: killChild,
    start: launch,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    cli: (...args: string[]) => cli(port, ...args),
  };
}

/** A 3-master Redis Cluster made with `redis-cli --cluster create`. */
export interface RedisCluster {
  nodes: RedisProcess[];
  stop(): Promise<void>;
}

/**
 * Starts 3 `redis-server --cluster-enabled yes` and joins them into a Cluster, with
 * `replicas` replicas per master (default none; `nodes` lists the masters first, then the
 * replicas). `extraArgs` go to every node's command line (e.g.
 * `--cluster-require-full-coverage no`).
 */
export async function startCluster(extraArgs: string[] = [], replicas = 0): Promise<RedisCluster> {
  // Once in a CI run (Node 24, two Cluster files at once on a loaded machine) `redis-cli
  // --cluster create` failed on nodes that answered PING; its reason is on stdout, which the
  // error then carries. One more try on new nodes and new ports, then the error.
  try {
    return await createCluster(extraArgs, replicas);
  } catch (error) {
    if (!(error instanceof ClusterCreateError)) throw error;
    return await createCluster(extraArgs, replicas);
  }
}

/** `redis-cli --cluster create` failed; the message has what it printed. */
class ClusterCreateError extends Error {}

async function createCluster(extraArgs: string[], replicas: number): Promise<RedisCluster> {
  const nodes: RedisProcess[] = [];
  for (let i = 0; i < 3 * (1 + replicas); i++) {
    nodes.push(
      await startRedis([
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes.conf`,
        '--cluster-node-timeout',
        '2000',
        ...extraArgs,
      ]),
    );
  }
  try {
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop()));
    if (isMissing(error)) throw new Error(missingBinaryMessage('redis-cli'));
    const { message, stdout } = error as Error & { stdout?: string };
    throw new ClusterCreateError(
      `${message}\n${String(stdout ?? '')
        .trim()
        .slice(-2000)}`,
    );
  }
  const deadline = Date.now() + 20_000;
  for (const node of nodes) {
    for (;;) {
      if ((await node.cli('CLUSTER', 'INFO')).includes('cluster_state:ok')) break;
      if (Date.now() > deadline) throw new Error('cluster did not reach cluster_state:ok');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // A replica that never synced refuses to be promoted: wait until each one has.
  for (const node of nodes) {
    for (;;) {
      const info = await node.cli('INFO', 'replication');
      if (info.includes('role:master') || info.includes('master_link_status:up')) break;
      if (Date.now() > deadline) throw new Error('a replica did not sync with its master');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { nodes, stop: async () => void (await Promise.all(nodes.map((n) => n.stop()))) };
}

/**
 * Script calls a Redis server has answered so far, from `INFO commandstats`: EVALSHA plus
 * EVAL, minus failed ones (a NOSCRIPT reply is a failed call, followed by an EVAL). A
 * coalesced batch of decisions counts once.
 */
export async function scriptCalls(client: {
  info(section: 'commandstats'): Promise<string>;
}): Promise<number> {
  const info = await client.info('commandstats');
  let calls = 0;
  for (const m of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+),.*failed_calls=(\d+)/g)) {
    calls += Number(m[1]) - Number(m[2]);
  }
  return calls;
}

/**
 * A Sentinel topology: a master, one replica and 3 `redis-sentinel` processes watching the
 * master under {@link RedisSentinel.name}. Each process was started by the fixture and is
 * stopped by pid.
 */
export interface RedisSentinel {
  /** The monitored master's name (`sentinel monitor <name> ...`). */
  name: string;
  /** The master at start. */
  master: RedisProcess;
  /** The replica at start (the master after {@link RedisSentinel.failover}). */
  replica: RedisProcess;
  /** The 3 sentinels' ports. */
  sentinelPorts: number[];
  /** The current master's port, as the sentinels report it. */
  masterPort(): Promise<number>;
  /** Waits until the replica has every write the master acknowledged. */
  sync(): Promise<void>;
  /**
   * Kills the master (SIGKILL by pid) and waits until the sentinels have promoted the
   * replica and every sentinel reports it as the master.
   */
  failover(): Promise<void>;
  stop(): Promise<void>;
}

/** How long a sentinel waits before it declares a silent master down, in ms. */
const SENTINEL_DOWN_AFTER_MS = 1000;

/**
 * Starts a master, a replica of it and 3 `redis-sentinel` (quorum 2) on free ports, and
 * waits until every sentinel sees the replica and the other sentinels.
 */
export async function startSentinel(name = 'sluice-master'): Promise<RedisSentinel> {
  const master = await startRedis();
  const replica = await startRedis(['--replicaof', '127.0.0.1', String(master.port)]);
  const sentinels: { port: number; child: ChildProcess; dir: string }[] = [];
  const stopAll = async () => {
    await Promise.all(
      sentinels.map(async ({ child, dir }) => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGKILL');
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
      }),
    );
    await Promise.all([master.stop(), replica.stop()]);
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), `sluice-sentinel-${port}-`));
      const config = join(dir, 'sentinel.conf');
      writeFileSync(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${name} ${SENTINEL_DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      const child = spawnServer('redis-sentinel', [config]);
      sentinels.push({ port, child, dir });
      await waitReady('redis-sentinel', port, child);
    }
    await until(30_000, 'the sentinels did not discover each other and the replica', async () => {
      for (const { port } of sentinels) {
        // redis-cli prints the reply's fields as alternating lines: name, value, ...
        const lines = (await cli(port, 'SENTINEL', 'MASTER', name)).trim().split('\n');
        const field = (key: string) => Number(lines[lines.indexOf(key) + 1]);
        if (!(field('num-slaves') >= 1 && field('num-other-sentinels') >= 2)) return false;
      }
      return true;
    });
  } catch (error) {
    await stopAll();
    throw error;
  }
  const masterPort = async () => {
    const reply = await cli(sentinels[0]!.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name);
    return Number(reply.trim().split('\n')[1]);
  };
  return {
    name,
    master,
    replica,
    sentinelPorts: sentinels.map((s) => s.port),
    masterPort,
    // The replica has what the master held when called: its offset reaches the master's
    // offset read first (the master's own offset moves on meanwhile: the sentinels' hello
    // messages, every 2 s, are writes to it).
    sync: async () => {
      const offset = (info: string) => Number(/master_repl_offset:(\d+)/.exec(info)?.[1] ?? -1);
      const written = offset(await master.cli('INFO', 'replication'));
      await until(10_000, 'the replica did not catch up', async () => {
        const r = offset(await replica.cli('INFO', 'replication'));
        return written >= 0 && r >= written;
      });
    },
    failover: async () => {
      await master.kill();
      await until(30_000, 'the sentinels did not promote the replica', async () => {
        for (const { port } of sentinels) {
          const reply = await cli(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name);
          if (Number(reply.trim().split('\n')[1]) !== replica.port) return false;
        }
        return (await replica.cli('ROLE')).startsWith('master');
      });
    },
    stop: stopAll,
  };
}

/** Polls `check` every 100 ms until it is true; throws `message` after `ms`. */
async function until(ms: number, message: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((r) => setTimeout(r, 100));
  }
}
