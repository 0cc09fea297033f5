/**
 * `true` when `A` and `B` are the same type (not merely assignable either way), for the
 * packages' type tests (`test/types.check.ts`, checked by the root `tsc`):
 * `const exact: Equal<typeof req.rateLimit, Decision | undefined> = true;`.
 */
export type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
