import { gcra, LimitOperations, MemoryStore, RateLimiter, type Store } from '@sluice/core';

/**
 * The requests waiting will never admit, on a route limited by `Limit.perMinute(10).cost(2)`
 * keyed `'t'`, each with the status it gets: a cost above the limit an operator override
 * set (429) and an operator's deny (403). Neither may carry a `Retry-After` (RFC 9110 has
 * no value for "never"), let alone a negative one. `[name, status, operate]`.
 */
export const NEVER_ADMITTED: readonly [
  string,
  number,
  (ops: LimitOperations) => Promise<unknown>,
][] = [
  [
    'a cost above the overridden limit',
    429,
    (ops) => ops.override({ key: 't' }, '1/min', { for: '1h' }),
  ],
  ['an operator deny', 403, (ops) => ops.deny({ key: 't' })],
];

/** A fresh `MemoryStore` with the entry of `operate` written on it (see {@link NEVER_ADMITTED}). */
export async function operatedStore(
  operate: (ops: LimitOperations) => Promise<unknown>,
): Promise<MemoryStore> {
  const store = new MemoryStore();
  await operate(new LimitOperations({ store }));
  return store;
}

/**
 * Decides 3 requests through a limiter on `store` (which is not ready: its table missing)
 * with `onStoreError: 'deny'`, and checks each is denied by the policy and the log got one
 * whole line (not cut off) containing `fix`.
 */
export async function expectOneNotReadyLine(store: Store, fix: string): Promise<void> {
  const lines: string[] = [];
  const limiter = new RateLimiter({
    algorithm: gcra({ rate: 2, period: '1m' }),
    store,
    onStoreError: 'deny',
    logger: { warn: (m) => lines.push(m) },
  });
  for (let i = 0; i < 3; i++) expect((await limiter.consume('a')).allowed).toBe(false);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(fix);
  expect(lines[0]).not.toContain('…');
  expect(lines[0]).not.toContain('\n');
}
