import { SluiceConfigError } from '../common/errors.js';

/** A positive rational number `num / den` in lowest terms, both safe integers. */
export interface Fraction {
  num: number;
  den: number;
}

function gcd(a: number, b: number): number {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/**
 * How far (relative) {@link toFraction} may look from a number for a simpler fraction:
 * 2^-50, a few units in the last place of a double (one ulp is 2^-53 to 2^-52 of the value),
 * so the rounding of the expression that produced the number (`100 / 3600`, `0.1 + 0.2`,
 * `0.1 * 3`) is undone, and nothing a decimal or fraction written in code could mean is
 * skipped.
 */
export const FRACTION_TOLERANCE = 2 ** -50;

/**
 * The exact fraction a positive finite number stands for: the **simplest fraction** (the
 * one with the smallest denominator, then the smallest numerator) within
 * {@link FRACTION_TOLERANCE} (2^-50, relative) of the number's exact binary value. So
 *
 * - an integer is itself (`1e7`, `9007199254740991`);
 * - a short decimal is itself: `0.5` is 1/2, `33.25` is 133/4, `0.001` is 1/1000,
 *   `1234567.891` is 1234567891/1000;
 * - a fraction computed in floating point is the fraction, not its rounded binary value:
 *   `100 / 3600` is 1/36, `1 / 3` is 1/3, `2 / 3` is 2/3, `0.1 + 0.2` is 3/10;
 * - any other float (e.g. `Math.PI`) is the simplest fraction within 2^-50 of it (its
 *   denominator then has about 8 digits).
 *
 * Every fraction whose denominator is below about 3e7 / sqrt(value) is recovered exactly
 * from its double: two fractions with denominators up to q differ by at least 1/q², more
 * than the tolerance. The result is computed once, at configuration time (BigInt, exact);
 * only its integer terms reach the algorithms (and their Lua twins).
 *
 * @throws {@link SluiceConfigError} naming `option` when the fraction's numerator or
 *   denominator does not fit in 53 bits (e.g. `1e300`, `1e-300`).
 */
export function toFraction(option: string, value: number): Fraction {
  if (Number.isInteger(value)) return reduce(value, 1, option, value);
  // value = num / den exactly (doubling a finite double is exact until it is an integer).
  let scaled = value;
  let den = 1n;
  while (!Number.isInteger(scaled)) {
    scaled *= 2;
    den *= 2n;
  }
  const num = BigInt(scaled);
  const scale = 2n ** 50n;
  const [p, q] = simplestBetween(
    { n: num * (scale - 1n), d: den * scale },
    { n: num * (scale + 1n), d: den * scale },
    true,
    true,
  );
  if (p > BigInt(Number.MAX_SAFE_INTEGER) || q > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new SluiceConfigError(
      option,
      value,
      'a number > 0 whose fraction (within 2^-50) has a numerator and denominator that fit in 53 bits',
    );
  }
  return reduce(Number(p), Number(q), option, value);
}

/** A positive rational `n / d` (BigInt, not necessarily reduced). */
interface Big {
  n: bigint;
  d: bigint;
}

/**
 * The simplest fraction `[p, q]` in the interval from `lo` (> 0) to `hi` (> lo; `undefined`
 * = no upper end), each end included when its flag says so: the continued-fraction
 * recursion (the smallest integer in the interval if there is one, else
 * `n + 1 / (the simplest in the reciprocal interval)`).
 */
function simplestBetween(
  lo: Big,
  hi: Big | undefined,
  loIncluded: boolean,
  hiIncluded: boolean,
): [bigint, bigint] {
  const n = lo.n / lo.d; // floor: both positive
  const loIsInteger = lo.n % lo.d === 0n;
  const k = loIsInteger && loIncluded ? n : n + 1n;
  if (hi === undefined || k * hi.d < hi.n || (k * hi.d === hi.n && hiIncluded)) return [k, 1n];
  // No integer inside: the interval lies in [n, n + 1]; x = n + 1 / z, z from 1 / (hi - n)
  // to 1 / (lo - n) (no upper end when lo = n, which is then excluded).
  const zLo: Big = { n: hi.d, d: hi.n - n * hi.d };
  const zHi: Big | undefined = loIsInteger ? undefined : { n: lo.d, d: lo.n - n * lo.d };
  const [p, q] = simplestBetween(zLo, zHi, hiIncluded, loIncluded);
  return [n * p + q, p];
}

/** `a / b` as a reduced {@link Fraction}. */
export function divide(a: Fraction, b: Fraction, option: string, value: unknown): Fraction {
  const g1 = gcd(a.num, b.num);
  const g2 = gcd(b.den, a.den);
  return reduce((a.num / g1) * (b.den / g2), (a.den / g2) * (b.num / g1), option, value);
}

/** `num / den` (safe integers > 0) reduced; throws when either term is not a safe integer. */
export function reduce(num: number, den: number, option: string, value: unknown): Fraction {
  if (!Number.isSafeInteger(num) || !Number.isSafeInteger(den)) {
    throw new SluiceConfigError(option, value, 'a value whose exact fraction fits in 53 bits');
  }
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}
