import { describeExportNames, entryOf } from '@sluice/test-kit';

// @sluice/core for application authors, /store for store and algorithm authors, /http for
// adapter authors, /duration and /shared for @sluice/client: each entry's names are a reviewed list (test/exports/*.txt).
describeExportNames({
  '@sluice/core': entryOf('core', 'index.ts', 'index'),
  '@sluice/core/store': entryOf('core', 'store-api.ts', 'store'),
  '@sluice/core/http': entryOf('core', 'http/index.ts', 'http'),
  '@sluice/core/duration': entryOf('core', 'duration-api.ts', 'duration'),
  '@sluice/core/shared': entryOf('core', 'shared-api.ts', 'shared'),
});
