/**
 * The plugin's cost on GraphQL Yoga's requests/s: the same server without and with
 * `useSluice` (memory store, a budget it never exhausts), each in its own process, measured
 * with autocannon in alternating rounds; the ratio of medians, and the server's CPU per
 * request (the steadier measure on a busy machine: requests/s moves with the load).
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
  const cpu = async (type: 'start' | 'stop') => {
    const reply =
      type === 'stop'
        ? new Promise<number>((r) => child.once('message', (m: { us: number }) => r(m.us)))
        : undefined;
    child.send({ type });
    return reply;
  };
  return { port, cpu, stop: () => child.kill() };
}

/** Requests/s, and the server's CPU µs per request. */
async function rps(
  server: Awaited<ReturnType<typeof start>>,
  seconds: number,
): Promise<[number, number]> {
  const port = server.port;
  await server.cpu('start');
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/graphql?query=${QUERY}`,
    connections: 50,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`bad answers: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const us = (await server.cpu('stop'))!;
  return [result.requests.average, us / result.requests.total];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchYoga(rounds: number, seconds: number) {
  const plain = await start('plain');
  const sluice = await start('sluice');
  try {
    await rps(plain, 1); // warm-up
    await rps(sluice, 1);
    const p: number[] = [];
    const s: number[] = [];
    const pc: number[] = [];
    const sc: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const [a, ac] = await rps(plain, seconds);
      const [b, bc] = await rps(sluice, seconds);
      p.push(a);
      pc.push(ac);
      s.push(b);
      sc.push(bc);
    }
    return {
      plainRps: median(p),
      sluiceRps: median(s),
      ratio: median(s) / median(p),
      plainCpuUsPerRequest: median(pc),
      sluiceCpuUsPerRequest: median(sc),
      cpuRatio: median(pc) / median(sc),
      rounds: { plain: p, sluice: s, plainCpu: pc, sluiceCpu: sc },
    };
  } finally {
    plain.stop();
    sluice.stop();
  }
}
