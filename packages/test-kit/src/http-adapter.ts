/// <reference types="jest" />
import { BEHAVIOUR_TABLES } from './behaviour-tables.js';
import type { AdapterHarness } from './http-harness.js';

export { BEHAVIOUR_TABLES };

/** What {@link describeAdapter} takes besides the harness. */
export interface DescribeAdapterOptions {
  /**
   * Rows this adapter does not run, by their exact title, each with the reason (shown in
   * the skipped test's name). A title that names no row fails the run: a skip cannot
   * outlive its row, or hide a renamed one.
   */
  skip?: Readonly<Record<string, string>>;
}

type It = typeof it;

/**
 * Registers every table of the behaviour table ({@link BEHAVIOUR_TABLES}) for one adapter.
 * A row named in `skip` is registered as skipped (`it.skip`), its title followed by the
 * reason, so the run lists it; every other row runs.
 *
 * @throws Error at collection when a `skip` title matches no row of the tables.
 * @example
 * describeAdapter(koaHarness);
 * describeAdapter(nestHarness('fastify'), { skip: { 'some row title': 'why this adapter cannot' } });
 */
export function describeAdapter(
  harness: AdapterHarness,
  { skip = {} }: DescribeAdapterOptions = {},
): void {
  const unused = new Set(Object.keys(skip));
  const realIt = globalThis.it;
  // The tables call the global `it` while jest collects them (synchronously, inside each
  // `describe`): a row named in `skip` is registered as skipped instead, with its reason.
  const row = ((title: string, fn?: jest.ProvidesCallback, timeout?: number) => {
    if (Object.hasOwn(skip, title)) {
      unused.delete(title);
      return realIt.skip(`${title} [skipped on ${harness.name}: ${skip[title]}]`, fn);
    }
    return realIt(title, fn, timeout);
  }) as It;
  Object.assign(row, realIt);
  globalThis.it = row;
  try {
    for (const table of BEHAVIOUR_TABLES) table(harness);
  } finally {
    globalThis.it = realIt;
  }
  if (unused.size > 0) {
    throw new Error(
      `describeAdapter(${harness.name}): skip names no row: ${[...unused].map((t) => JSON.stringify(t)).join(', ')}`,
    );
  }
}
