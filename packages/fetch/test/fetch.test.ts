import {
  describeAppDataRules,
  describeConfigRules,
  describeHttpBehaviours,
  describeOpsBehaviours,
  describeOutcomeRules,
  describePipelineRules,
  fetchHarness,
  serveOnNode,
} from '@sluice/test-kit';
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

describeHttpBehaviours(harness);
describeConfigRules(harness);
describeOpsBehaviours(harness);
describePipelineRules(harness);
describeAppDataRules(harness);
describeOutcomeRules(harness);
