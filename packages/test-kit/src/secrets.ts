import { inspect } from 'node:util';

/** The secret {@link secretCarriers} carry: no error text may contain it. */
export const SECRET = 'hunter2-s3cr3t-pw';

/**
 * Values that carry {@link SECRET}, for the tests that no error text contains a secret from
 * the value it rejects: an object shaped like an ioredis client (as the core recognises one)
 * with the password in its options, a Redis URL, an object with a password field, an array,
 * a long string, a Map and an object keyed by the URL. `client` adds real clients (the Redis
 * package's tests pass ioredis ones).
 */
export function secretCarriers(...clients: unknown[]): [string, unknown][] {
  const url = `redis://:${SECRET}@127.0.0.1:1/0`;
  const clientLike = {
    options: { host: '127.0.0.1', password: SECRET },
    status: 'wait',
    evalsha: () => undefined,
    defineCommand: () => undefined,
  };
  return [
    ...clients.map((c, i): [string, unknown] => [`client ${i}`, c]),
    ['an ioredis-shaped client', clientLike],
    ['a Redis URL with a password', url],
    ['an object with a password', { host: '127.0.0.1', password: SECRET, url }],
    ['an array of them', [url, { password: SECRET }]],
    ['a long string', `${SECRET} `.repeat(10)],
    ['a Map', new Map([['password', SECRET]])],
    ['an object keyed by the URL', { [url]: SECRET }],
  ];
}

/** The error `build` throws, or undefined. */
export function thrownBy(build: () => unknown): Error | undefined {
  try {
    build();
  } catch (error) {
    return error as Error;
  }
  return undefined;
}

/** Fails unless `error`'s message, stack, `String()` and `util.inspect()` lack the secret. */
export function expectNoSecret(error: Error | undefined): void {
  if (error === undefined) return;
  for (const text of [error.message, String(error.stack), inspect(error), String(error)]) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('hunter2');
  }
}

/**
 * Tries every carrier as the value of every option of `valid` (valid options for `build`),
 * and as the whole argument; every error must lack the secret, and each option must reject
 * at least one carrier (so the test cannot pass by accepting everything).
 */
export function expectNoSecretInErrors(
  valid: Record<string, unknown>,
  build: (options: unknown) => unknown,
  clients: unknown[] = [],
): void {
  for (const option of [...Object.keys(valid), undefined]) {
    let thrown = 0;
    for (const [, value] of secretCarriers(...clients)) {
      const error = thrownBy(() =>
        build(option === undefined ? value : { ...valid, [option]: value }),
      );
      if (error !== undefined) thrown++;
      expectNoSecret(error);
    }
    expect([option, thrown > 0]).toEqual([option, true]);
  }
}
