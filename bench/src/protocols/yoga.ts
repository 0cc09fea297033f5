/**
 * The plugin's cost on GraphQL Yoga's requests/s: the same server without and with
 * `useSluice` (memory store, a budget it never exhausts), each in its own process, measured
 * with autocannon in alternating rounds; the ratio of medians.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const QUERY = encodeURIComponent('{ viewer { items(first: 5) { nodes { id name } } } }');

async function start(variant: string) {
  const child = fork(fileURLToPath(new URL('./yoga-server.ts', import.meta.url)), [variant], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve) =>
    child.once('message', (m: { port: number }) => resolve(m.port)),
  );
  return { port, stop: () => child.kill() };
}

async function rps(port: number, seconds: number): Promise<number> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/graphql?query=${QUERY}`,
    connections: 50,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`bad answers: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchYoga(rounds: number, seconds: number) {
  const plain = await start('plain');
  const sluice = await start('sluice');
  try {
    await rps(plain.port, 1); // warm-up
    await rps(sluice.port, 1);
    const p: number[] = [];
    const s: number[] = [];
    for (let r = 0; r < rounds; r++) {
      p.push(await rps(plain.port, seconds));
      s.push(await rps(sluice.port, seconds));
    }
    return {
      plainRps: median(p),
      sluiceRps: median(s),
      ratio: median(s) / median(p),
      rounds: { plain: p, sluice: s },
    };
  } finally {
    plain.stop();
    sluice.stop();
  }
}
