import {
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
}
