// What an override means for each kind of limit, on MemoryStore (test-kit's shared cases).
import { describeOverrideKinds } from '@sluice/test-kit';
import { MemoryStore } from '../../src/index.js';

describe('override kinds, MemoryStore', () => {
  describeOverrideKinds(() => new MemoryStore());
});
