import { describeAdapter, fetchHarness, serveOnNode } from '@sluice/test-kit';
import { ip } from '../src/index.js';
import { buildFetchApp, buildOutOfReach } from './fetch-app.js';

// The shared behaviour table through @sluice/fetch on Node (@hono/node-server).
const socket = ip.node();
const harness = fetchHarness(
  'fetch on node',
  (spec) => buildFetchApp(spec, socket),
  serveOnNode,
  (spec, route) => buildOutOfReach(spec, route, socket),
);

// Every table (BEHAVIOUR_TABLES), as on Bun, Deno and workerd.
describeAdapter(harness);
