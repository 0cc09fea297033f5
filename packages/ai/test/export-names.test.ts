import { describeExportNames, entryOf } from '@sluice/test-kit';

// The package's names are a reviewed list (test/exports/index.txt).
describeExportNames({ '@sluice/ai': entryOf('ai', 'index.ts', 'index') });
