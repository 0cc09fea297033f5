// durationMs reads strings with a port of the `ms` package's parse (duration.ts): the same
// milliseconds as `ms` itself for every unit spelling, case, sign, fraction and malformed text.
import ms from 'ms';
import { msOf } from '../../src/common/duration.js';

// biome-ignore format: a table
const UNITS = [
  '',
  'ms', 'msec', 'msecs', 'millisecond', 'milliseconds',
  's', 'sec', 'secs', 'second', 'seconds',
  'm', 'min', 'mins', 'minute', 'minutes',
  'h', 'hr', 'hrs', 'hour', 'hours',
  'd', 'day', 'days', 'w', 'week', 'weeks', 'y', 'yr', 'yrs', 'year', 'years',
  'mss', 'sx', 'minutess', 'hs', 'wk', 'month', 'µs', 'M', 'MS', 'Hours', 'DAY', 'Y',
];
// biome-ignore format: a table
const NUMBERS = ['0', '1', '15', '1.5', '.5', '-1', '-.25', '0.1', '3.3333', '1e3', '01', '1.', '+1', '-', '.'];

describe('msOf equals the ms package', () => {
  it('on every number x unit x spacing', () => {
    const differ: string[] = [];
    for (const n of NUMBERS) {
      for (const unit of UNITS) {
        for (const space of ['', ' ', '   ', '\t']) {
          const text = `${n}${space}${unit}`;
          if (!Object.is(msOf(text), ms(text as ms.StringValue))) differ.push(text);
        }
      }
    }
    expect(differ).toEqual([]);
  });

  it('on random texts around the grammar, and past 100 characters', () => {
    const alphabet = '0123456789.- msecondiuthrdaywkyMSH';
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const differ: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      let text = '';
      const length = 1 + (next() % 12);
      for (let j = 0; j < length; j++) text += alphabet[next() % alphabet.length];
      if (!Object.is(msOf(text), ms(text as ms.StringValue))) differ.push(text);
    }
    for (const text of [`${'1'.repeat(99)}s`, `${'1'.repeat(100)}`, `${'1'.repeat(100)}s`]) {
      if (!Object.is(msOf(text), ms(text as ms.StringValue))) differ.push(text);
    }
    expect(differ).toEqual([]);
  });
});
