// Run by demo.test.ts in a child process (the OTLP exporter loads its transport with a
// dynamic import, which jest's VM does not run): the demo with metrics: true and the
// telemetry of `pnpm demo`, one limited request, then the last export on shutdown.
import { MemoryStore } from '@sluice/core';
import { startDemo } from '../src/demo.js';
import { startTelemetry } from '../src/telemetry.js';

const telemetry = startTelemetry();
const demo = await startDemo({
  port: 0,
  stores: { description: 'memory', storeFor: () => new MemoryStore(), close: async () => {} },
});
for (const url of Object.values(demo.urls)) {
  await fetch(`${url}/api/items`, { headers: { authorization: 'Bearer alice' } }).then((r) =>
    r.arrayBuffer(),
  );
}
await demo.close();
await telemetry.shutdown();
console.log(telemetry.description);
