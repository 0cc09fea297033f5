import { describeAdapter, fetchHarness, serveOnNode } from '@sluice/test-kit';
import { ip } from '../src/index.js';
import { buildHonoApp, buildHonoOutOfReach } from './hono-app.js';

// The shared behaviour table through @sluice/hono on Node (@hono/node-server).
const socket = ip.node();
const harness = fetchHarness(
  'hono on node',
  (spec) => buildHonoApp(spec, socket),
  serveOnNode,
  (spec, route) => buildHonoOutOfReach(spec, route, socket),
);

// Every table (BEHAVIOUR_TABLES), as on Bun, Deno and workerd.
describeAdapter(harness);
