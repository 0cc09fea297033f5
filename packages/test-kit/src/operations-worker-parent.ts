// The parent's side of an operations worker (process B of the operations-across-processes
// tests of @sluice/redis and @sluice/postgres): forks the package's worker module through the
// TypeScript worker, sends it its setup, and waits for its answer to flip.
import { type ChildProcess, fork } from 'node:child_process';
import { tsWorkerPath } from './store-conformance.js';

/** Process B, as its parent drives it. */
export interface OperationsWorker {
  child: ChildProcess;
  /** The next flip to `denied`, with the time B saw it. */
  flip(denied: boolean): Promise<number>;
  stop(): Promise<number>;
}

/**
 * Forks `module` (a worker that answers `ready`, `flip`, `stopped` and `error` messages) and
 * sends it `setup`; resolves once it decides.
 */
export function startOperationsWorker(
  module: string,
  setup: Record<string, unknown>,
): Promise<OperationsWorker> {
  const child = fork(tsWorkerPath(), [module], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let waiting: { denied: boolean; resolve: (at: number) => void } | undefined;
  let last: boolean | undefined;
  let lastAt = 0;
  let stopped: ((decisions: number) => void) | undefined;
  let failed: ((error: Error) => void) | undefined;
  return new Promise((resolveReady, rejectReady) => {
    failed = rejectReady;
    child.on(
      'message',
      (m: { type: string; denied?: boolean; at?: number; error?: string; decisions?: number }) => {
        if (m.type === 'error') return failed?.(new Error(`worker failed: ${m.error}`));
        if (m.type === 'stopped') return stopped?.(m.decisions!);
        if (m.type === 'flip') {
          last = m.denied!;
          lastAt = m.at!;
          if (waiting?.denied === last) {
            waiting.resolve(lastAt);
            waiting = undefined;
          }
          return;
        }
        if (m.type !== 'ready') return;
        resolveReady({
          child,
          flip: (denied) =>
            new Promise<number>((resolve, reject) => {
              failed = reject;
              // Already there (B heard it before A's call resolved).
              if (last === denied) return resolve(lastAt);
              waiting = { denied, resolve };
            }),
          stop: () =>
            new Promise<number>((resolve) => {
              stopped = (decisions) => {
                failed = undefined;
                child.kill();
                resolve(decisions);
              };
              child.send({ type: 'stop' });
            }),
        });
      },
    );
    child.on('exit', (code, signal) => failed?.(new Error(`worker exited (${code ?? signal})`)));
    child.send({ type: 'setup', ...setup });
  });
}
