// The workerd of the tests: the fixture Worker (fixtures/do-worker.ts) bundled as a user's
// Worker would be, and a Durable Object namespace for Node test processes that reaches the
// real objects in workerd through the Worker's /__do/<name> bridge.
import { join } from 'node:path';
import {
  bundleForWorker,
  startWorkerd,
  type WorkerdProcess,
  workspaceAliases,
} from '@sluice/test-kit';

const packages = join(__dirname, '..', '..');

/** The fixture Worker as one neutral ES module, the workspace's sources in it. */
export const FIXTURE_WORKER = join(__dirname, 'fixtures', 'do-worker.ts');

/** The getting-started page's Worker (Hono, the Durable Object store). */
export const DOCS_WORKER = join(packages, '..', 'docs', 'snippets', 'cloudflare', 'worker.ts');

/** `entry` bundled as a user's Worker would be: one neutral ES module, the workspace's sources in it. */
export async function bundleWorker(entry = FIXTURE_WORKER): Promise<string> {
  const { code } = await bundleForWorker(entry, {
    minify: false,
    external: ['cloudflare:*'],
    alias: workspaceAliases(['fetch', 'hono', 'cloudflare']),
  });
  return code;
}

/** workerd serving `entry`, SluiceDurableObject bound as SLUICE, without nodejs_compat. */
export async function startDoWorker(entry = FIXTURE_WORKER): Promise<WorkerdProcess> {
  return startWorkerd(await bundleWorker(entry), {
    compatibilityFlags: [],
    durableObjects: { SLUICE: 'SluiceDurableObject' },
  });
}
