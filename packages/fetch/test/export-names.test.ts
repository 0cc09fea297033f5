import { describeExportNames, entryOf } from '@sluice/test-kit';

// The package's names are a reviewed list (test/exports/index.txt): a name added to it, or
// to the core's user-facing names it re-exports, shows in review as a diff of that list.
describeExportNames({ '@sluice/fetch': entryOf('fetch', 'index.ts', 'index') });
