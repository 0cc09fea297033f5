// useSluice's cost on Yoga: plain, empty-plugin and sluice servers in their own processes, autocannon in
// alternating rounds, new processes each round (ratios of medians, CPU per request), and CPU per
// request in process.
import autocannon from 'autocannon';
import { askCpu, spawnServer } from '../measure/common.js';
import { yogaQuery } from './cost.js';

async function start(variant: string, query: 'small' | 'wide') {
  const { child, port } = await spawnServer('../protocols/yoga-server.ts', [variant, query], {
    pinned: false,
  });
  return {
    port,
    query,
    cpu: (type: 'start' | 'stop' | 'inproc', n?: number) => askCpu(child, type, n),
    stop: () => child.kill(),
  };
}

/** Requests/s, and the server's CPU µs per request. */
async function rps(
  server: Awaited<ReturnType<typeof start>>,
  seconds: number,
): Promise<[number, number]> {
  const port = server.port;
  await server.cpu('start');
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/graphql?${yogaQuery(server.query)}`,
    connections: 50,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`bad answers: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const us = (await server.cpu('stop'))!;
  return [result.requests.average, us / result.requests.total];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchYoga(
  rounds: number,
  seconds: number,
  query: 'small' | 'wide' = 'small',
) {
  const variants = ['plain', 'noop', 'sluice'] as const;
  const throughput: number[][] = variants.map(() => []);
  const cpu: number[][] = variants.map(() => []);
  const inproc: number[][] = variants.map(() => []);
  // New server processes every round, each variant first in turn: one process can settle
  // a few % slower or faster than the next for its whole life (JIT and heap layout), a
  // bias that rounds inside the same processes cannot average out.
  for (let r = 0; r < rounds; r++) {
    const order = variants.map((_, i) => (i + r) % variants.length);
    const servers = await Promise.all(order.map((k) => start(variants[k]!, query)));
    try {
      for (const s of servers) await rps(s, 1); // warm-up
      for (let j = 0; j < servers.length; j++) {
        const [a, c] = await rps(servers[j]!, seconds);
        throughput[order[j]!]!.push(a);
        cpu[order[j]!]!.push(c);
      }
      for (let n = 0; n < 10; n++) {
        for (let j = 0; j < servers.length; j++) {
          inproc[order[j]!]!.push((await servers[j]!.cpu('inproc', 1000))!);
        }
      }
    } finally {
      for (const s of servers) s.stop();
    }
  }
  const [plain, noop, sluice] = variants.map((_, i) => ({
    rps: median(throughput[i]!),
    cpuUsPerRequest: median(cpu[i]!),
    inProcessCpuUsPerRequest: median(inproc[i]!),
  }));
  return {
    query,
    plain,
    noop,
    sluice,
    // requests/s with useSluice over without (1 = no cost), and over the empty plugin
    ratio: sluice!.rps / plain!.rps,
    cpuRatio: plain!.cpuUsPerRequest / sluice!.cpuUsPerRequest,
    cpuRatioOverNoop: noop!.cpuUsPerRequest / sluice!.cpuUsPerRequest,
    inProcessCpuRatio: plain!.inProcessCpuUsPerRequest / sluice!.inProcessCpuUsPerRequest,
    inProcessCpuRatioOverNoop: noop!.inProcessCpuUsPerRequest / sluice!.inProcessCpuUsPerRequest,
    rounds: { rps: throughput, cpu },
  };
}
