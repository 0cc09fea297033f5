import {
  describeConfigRules,
  describeHttpBehaviours,
  describeOpsBehaviours,
  describeOutcomeRules,
  describePipelineRules,
} from '@sluice/test-kit';
import { nestHarness } from './harness.js';

for (const platform of ['express', 'fastify'] as const) {
  const harness = nestHarness(platform);
  describeHttpBehaviours(harness);
  describeOpsBehaviours(harness);
  describePipelineRules(harness);
  describeOutcomeRules(harness);
  // The proxy warnings (validate) and the user-id and .by() key rules, as on every adapter.
  describeConfigRules(harness);
}
