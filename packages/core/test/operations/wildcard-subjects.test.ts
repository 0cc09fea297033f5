// Wildcard user and key subjects in operator entries, on MemoryStore (test-kit's shared cases).
import { describeWildcardSubjects } from '@sluice/test-kit';
import { MemoryStore } from '../../src/index.js';

describe('wildcard subjects, MemoryStore', () => {
  describeWildcardSubjects(() => new MemoryStore());
});
