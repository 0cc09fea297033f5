/**
 * A small `describe` / `it` / `expect` for running the shared behaviour table on runtimes
 * where jest does not run (Bun, Deno, workerd): the matchers the table uses, with jest's
 * meaning (`toEqual` ignores properties that are `undefined`), and a runner that runs every
 * test in order and counts. Nothing here imports a Node module.
 */

type Test = { name: string; fn: () => unknown };

const tests: Test[] = [];
const path: string[] = [];

/** Groups tests under `name` (collected at once, as jest does). */
export function describe(name: string, fn: () => void): void {
  path.push(name);
  try {
    fn();
  } finally {
    path.pop();
  }
}

/** A test: `fn` passes unless it throws or rejects. */
export function it(name: string, fn: () => unknown): void {
  tests.push({ name: [...path, name].join(' › '), fn });
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** jest's `toEqual`: recursive equality, properties whose value is `undefined` ignored. */
export function equals(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (kind(a) !== kind(b) || typeof a !== 'object' || a === null) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => equals(x, bb[i]));
  }
  if (a instanceof RegExp || b instanceof RegExp) return String(a) === String(b);
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!equals(ao[k], bo[k])) return false;
  return true;
}

/** jest's `toMatchObject`: every property of `expected` is in `actual`, recursively. */
function matchesObject(actual: unknown, expected: unknown): boolean {
  if (typeof expected !== 'object' || expected === null) return equals(actual, expected);
  if (typeof actual !== 'object' || actual === null) return false;
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => matchesObject(actual[i], e))
    );
  }
  return Object.entries(expected).every(([k, v]) =>
    matchesObject((actual as Record<string, unknown>)[k], v),
  );
}

const show = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

function matchers(actual: unknown, negate: boolean) {
  const check = (pass: boolean, what: string, ...expected: unknown[]) => {
    if (pass === negate) {
      const exp = expected.length > 0 ? ` ${show(expected[0])}` : '';
      throw new Error(`expected ${show(actual)} ${negate ? 'not ' : ''}${what}${exp}`);
    }
  };
  return {
    toBe: (e: unknown) => check(Object.is(actual, e), 'to be', e),
    toEqual: (e: unknown) => check(equals(actual, e), 'to equal', e),
    toMatchObject: (e: unknown) => check(matchesObject(actual, e), 'to match object', e),
    toBeUndefined: () => check(actual === undefined, 'to be undefined'),
    toBeGreaterThan: (e: number) => check((actual as number) > e, 'to be >', e),
    toBeGreaterThanOrEqual: (e: number) => check((actual as number) >= e, 'to be >=', e),
    toBeLessThan: (e: number) => check((actual as number) < e, 'to be <', e),
    toBeLessThanOrEqual: (e: number) => check((actual as number) <= e, 'to be <=', e),
    toBeInstanceOf: (e: abstract new (...a: never[]) => unknown) =>
      check(actual instanceof e, 'to be an instance of', e.name),
    toHaveLength: (e: number) =>
      check((actual as { length: number }).length === e, 'to have length', e),
    toContain: (e: unknown) =>
      check(
        typeof actual === 'string'
          ? actual.includes(e as string)
          : (actual as unknown[]).includes(e),
        'to contain',
        e,
      ),
    toMatch: (e: RegExp | string) =>
      check(
        typeof e === 'string' ? String(actual).includes(e) : e.test(String(actual)),
        'to match',
        String(e),
      ),
  };
}

/** jest's `expect`, with the matchers the table uses (and `.not`). */
export function expect(actual: unknown) {
  return Object.assign(matchers(actual, false), { not: matchers(actual, true) });
}

/** The outcome of a run: counts and each failure's test and message. */
export interface RunSummary {
  /** Tests collected (by the `describe` functions called). */
  collected: number;
  passed: number;
  failed: number;
  failures: { name: string; error: string }[];
}

/**
 * Runs every collected test in order, each within `timeoutMs`, and empties the list.
 * @param filter - runs only the tests whose full name it accepts.
 */
export async function runCollected(
  timeoutMs = 30_000,
  filter: (name: string) => boolean = () => true,
): Promise<RunSummary> {
  const summary: RunSummary = { collected: tests.length, passed: 0, failed: 0, failures: [] };
  for (const test of tests.splice(0)) {
    if (!filter(test.name)) continue;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        Promise.resolve().then(test.fn),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      summary.passed++;
    } catch (error) {
      summary.failed++;
      summary.failures.push({ name: test.name, error: String((error as Error)?.stack ?? error) });
    } finally {
      clearTimeout(timer);
    }
  }
  return summary;
}

/** Makes `describe`, `it` and `expect` globals, as the table's files expect them. */
export function installGlobals(): void {
  Object.assign(globalThis, { describe, it, expect });
}
