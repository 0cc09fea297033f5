import { describeAdapter } from '@sluice/test-kit';
import { nestHarness } from './harness.js';

for (const platform of ['express', 'fastify'] as const) {
  describeAdapter(nestHarness(platform));
}
