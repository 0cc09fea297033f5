import { describeExportNames, entryOf } from '@sluice/test-kit';

// The package's names are a reviewed list (test/exports/index.txt): a name added to it
// shows in review as a diff of that list.
describeExportNames({ '@sluice/sqlite': entryOf('sqlite', 'index.ts', 'index') });
