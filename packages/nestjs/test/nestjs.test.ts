import { describeAdapter } from '@sluice/test-kit';
import { nestHarness } from './harness.js';

/** Nest's binding has no `trustProxy` (issue 31): the `validate` proxy checks never run. */
const NO_TRUST_PROXY =
  "Nest's binding cannot tell what the platform trusts of proxies yet (no trustProxy), so the validate proxy warnings never run on Nest (issue 31)";

for (const platform of ['express', 'fastify'] as const) {
  describeAdapter(nestHarness(platform), {
    skip: {
      'warns once when a request has X-Forwarded-For and the framework trusts no proxy':
        NO_TRUST_PROXY,
      'warns once when the framework trusts every proxy hop (a client picks its IP)':
        NO_TRUST_PROXY,
    },
  });
}
