// Every process the fault runner starts, by pid: redis-servers (through test-kit's
// startRedis, on a free port of 127.0.0.1 with `--save '' --appendonly no`), PostgreSQL
// servers (pg-server.ts) and app processes. `leftBehind()` is the final check: a pid of ours still alive fails the run.
import { type ChildProcess, spawn } from 'node:child_process';
import { type RedisProcess, startRedis } from '@sluice/test-kit';

const started = new Set<number>();

/** Records a pid the run started itself (a PostgreSQL server, a Sentinel or Cluster node). */
export function own(pid: number | undefined): void {
  if (pid !== undefined) started.add(pid);
}

/** A redis-server of the run's own; each pid it gets (after a restart too) is recorded. */
export async function ownRedis(): Promise<RedisProcess & { restart(): Promise<void> }> {
  const redis = await startRedis();
  started.add(redis.pid);
  return Object.assign(redis, {
    async restart() {
      await redis.start();
      started.add(redis.pid);
    },
  });
}

/** A node process of the run's own (an app), with IPC. */
export function ownNode(args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  if (child.pid !== undefined) started.add(child.pid);
  return child;
}

/** Sends SIGKILL to `child` and waits for its exit. */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** How many processes were started, and the pids of those still alive. */
export function leftBehind(): { started: number; alive: number[] } {
  return { started: started.size, alive: [...started].filter(alive) };
}
