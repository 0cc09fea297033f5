// One bench:http server process: one app of ../cases/http-apps.ts (argv `<framework> <variant> [redis
// port]`) on a free port; on IPC `start` / `stop` it reports the CPU used between them.
import { BUILDERS, type Framework, type Variant } from '../cases/http-apps.js';
import { NEST_BUILDERS, type NestFramework } from '../cases/nest-apps.js';

async function main(): Promise<void> {
  const [framework, variant, redisPort] = process.argv.slice(2) as [
    Framework | NestFramework,
    Variant,
    string?,
  ];
  const build = { ...BUILDERS, ...NEST_BUILDERS }[framework];
  if (build === undefined || process.send === undefined) {
    console.error(
      'usage: started by bench/src/http.ts with an IPC channel: <framework> <variant> [redis port]',
    );
    process.exit(2);
  }
  const built = await build(variant, redisPort === undefined ? undefined : Number(redisPort));
  const { port } = await built.listen();
  let start = process.cpuUsage();
  process.on('message', (msg: { type: string }) => {
    if (msg.type === 'start') start = process.cpuUsage();
    else if (msg.type === 'stop') {
      const d = process.cpuUsage(start);
      process.send!({ type: 'cpu', us: d.user + d.system });
    }
  });
  // The parent going away ends us too.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
  process.send({ type: 'ready', port });
}

await main();
