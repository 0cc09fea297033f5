// The one list of the behaviour table's tables (no jest import: runtimes without jest use it).
import { describeAdaptiveRules } from './http-adaptive-rules.js';
import { describeAppDataRules } from './http-appdata-rules.js';
import { describeHttpBehaviours } from './http-behaviours.js';
import { describeConfigRules } from './http-config-rules.js';
import type { AdapterHarness } from './http-harness.js';
import { describeInheritRules } from './http-inherit-rules.js';
import { describeOperatorRules } from './http-operator-rules.js';
import { describeOpsBehaviours } from './http-ops-behaviours.js';
import { describeOutcomeRules } from './http-outcome-rules.js';
import { describePipelineRules } from './http-pipeline-rules.js';
import { describeQueueRules } from './http-queue-rules.js';

/**
 * Every table of the shared HTTP behaviour table, in one list: an adapter's jest test runs them
 * all through `describeAdapter`, and the Bun, Deno and workerd runners (which bundle
 * `@sluice/test-kit/table`, no jest) loop over the same list, so a new table reaches every
 * adapter and runtime at once.
 */
export const BEHAVIOUR_TABLES: readonly ((harness: AdapterHarness) => void)[] = [
  describeHttpBehaviours,
  describeConfigRules,
  describeOpsBehaviours,
  describePipelineRules,
  describeInheritRules,
  describeAppDataRules,
  describeOutcomeRules,
  describeQueueRules,
  describeAdaptiveRules,
  describeOperatorRules,
];
