import { describeExportNames, entryOf } from '@sluice/test-kit';

// The package's names are a reviewed list (test/exports/index.txt).
describeExportNames({ '@sluice/cloudflare': entryOf('cloudflare', 'index.ts', 'index') });
