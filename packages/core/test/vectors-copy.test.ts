import { existsSync, readFileSync } from 'node:fs';
import { COPIED_VECTORS_PATH, SHARED_VECTORS_PATH } from './vectors.js';

// The committed copy must be the contract's file, byte for byte, wherever shared/ is present.
const withShared = existsSync(SHARED_VECTORS_PATH) ? it : it.skip;

describe('committed copy of shared/vectors/gcra.json', () => {
  withShared('is identical to the shared file', () => {
    expect(readFileSync(COPIED_VECTORS_PATH, 'utf8')).toBe(
      readFileSync(SHARED_VECTORS_PATH, 'utf8'),
    );
  });
});
