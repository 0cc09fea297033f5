import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { copiedVectorsPath, sharedVectorsPath } from '@sluice/test-kit';

const SHARED_VECTORS_PATH = sharedVectorsPath();
const COPIED_VECTORS_PATH = copiedVectorsPath();

/**
 * sha256 of the contract's shared/vectors/gcra.json: checked on every run, so a clone with
 * no shared/ beside it (CI) still fails when the committed copy is not the contract's file.
 * Update it only together with the copy, from the shared file.
 */
const SHARED_VECTORS_SHA256 = 'de5bb1b072ada5869d52a014b82646e08a23a50e1eb5721a7584994be10ba0a5';

// The committed copy must be the contract's file, byte for byte, wherever shared/ is present.
const withShared = existsSync(SHARED_VECTORS_PATH) ? it : it.skip;

describe('committed copy of shared/vectors/gcra.json', () => {
  it('has the sha256 of the shared file', () => {
    const digest = createHash('sha256').update(readFileSync(COPIED_VECTORS_PATH)).digest('hex');
    expect(digest).toBe(SHARED_VECTORS_SHA256);
  });

  withShared('is identical to the shared file', () => {
    expect(readFileSync(COPIED_VECTORS_PATH, 'utf8')).toBe(
      readFileSync(SHARED_VECTORS_PATH, 'utf8'),
    );
  });
});
