import { SluiceConfigError } from './errors.js';

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
 * The exact fraction behind a positive decimal such as `0.5`, `1000` or `33.25` (at most
 * 9 decimals), so that emission intervals like 1000 ms / 3 are kept as 1000/3, not as a
 * rounded float.
 *
 * @throws {@link SluiceConfigError} naming `option` when the value has more than 9 decimals.
 */
export function toFraction(option: string, value: number): Fraction {
  for (let scale = 1; scale <= 1e9; scale *= 10) {
    const scaled = value * scale;
    const rounded = Math.round(scaled);
    if (Math.abs(scaled - rounded) <= 1e-9 * Math.max(1, scaled) && rounded > 0) {
      return reduce(rounded, scale, option, value);
    }
  }
  throw new SluiceConfigError(option, value, 'a number with at most 9 decimals');
}

/** `a / b` as a reduced {@link Fraction}. */
export function divide(a: Fraction, b: Fraction, option: string, value: unknown): Fraction {
  const g1 = gcd(a.num, b.num);
  const g2 = gcd(b.den, a.den);
  return reduce((a.num / g1) * (b.den / g2), (a.den / g2) * (b.num / g1), option, value);
}

function reduce(num: number, den: number, option: string, value: unknown): Fraction {
  if (!Number.isSafeInteger(num) || !Number.isSafeInteger(den)) {
    throw new SluiceConfigError(option, value, 'a value whose exact fraction fits in 53 bits');
  }
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}
