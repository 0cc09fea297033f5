// RateLimiter.reserve under operator entries on MemoryStore (test-kit's shared cases).
import { describeReserveUnderOperations } from '@sluice/test-kit';
import { MemoryStore } from '../../src/index.js';

describe('RateLimiter.reserve under operator entries, MemoryStore', () => {
  describeReserveUnderOperations(() => new MemoryStore());
});
