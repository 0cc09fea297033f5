// What the shared stores' OperationsSync share (store-sync.ts): option `operations` checked
// once, stored entries read without ever throwing, listeners kept per prefix.

import { SluiceConfigError } from '../../src/index.js';
import { entriesInForce, OperationListeners, parseOperationsOption } from '../../src/store-api.js';

describe('parseOperationsOption', () => {
  it('takes ms or a duration, and nothing', () => {
    expect(parseOperationsOption(undefined, 'S')).toBeUndefined();
    expect(parseOperationsOption({}, 'S')).toBeUndefined();
    expect(parseOperationsOption({ syncMs: 250 }, 'S')).toBe(250);
    expect(parseOperationsOption({ syncMs: '2s' }, 'S')).toBe(2000);
  });

  it('names the option it refuses', () => {
    expect(() => parseOperationsOption('1s', 'S')).toThrow(SluiceConfigError);
    expect(() => parseOperationsOption(null, 'S')).toThrow(/operations/);
    expect(() => parseOperationsOption({ syncMs: 0 }, 'S')).toThrow(/operations\.syncMs/);
    expect(() => parseOperationsOption({ syncMs: 1.5 }, 'S')).toThrow(/operations\.syncMs/);
    expect(() => parseOperationsOption({ sync: 1 }, 'PgStore')).toThrow(
      /sync.*PgStore\(\{ operations \}\)|PgStore\(\{ operations \}\).*sync/s,
    );
  });
});

describe('entriesInForce', () => {
  const entry = (id: string, until: number | null) => ({
    id,
    kind: 'ban',
    subject: { key: id },
    until,
    at: 0,
  });

  it('keeps entries with no end or an end after now, from JSON text or objects', () => {
    const got = entriesInForce(
      [JSON.stringify(entry('a', null)), entry('b', 2000), JSON.stringify(entry('c', 1000))],
      1000,
    );
    expect(got.map((e) => e.id)).toEqual(['a', 'b']);
  });

  it('skips what is not an entry instead of throwing', () => {
    const got = entriesInForce(['{not json', 'null', '42', { until: null }, entry('ok', null)], 0);
    expect(got.map((e) => e.id)).toEqual(['ok']);
  });
});

describe('OperationListeners', () => {
  it('tells the listeners of a prefix, says which was first and last', () => {
    const listeners = new OperationListeners();
    const heard: string[] = [];
    const one = listeners.add('sl', (v) => heard.push(`one ${v}`));
    const two = listeners.add('sl', (v) => heard.push(`two ${v}`));
    const other = listeners.add('api', (v) => heard.push(`other ${v}`));
    expect([one.first, two.first, other.first]).toEqual([true, false, true]);
    listeners.tell('sl', 3);
    listeners.tell('sl', Number.NaN);
    expect(heard).toEqual(['one 3', 'two 3']);
    expect(listeners.prefixes().sort()).toEqual(['api', 'sl']);
    expect(one.stop()).toBe(false);
    expect(two.stop()).toBe(true);
    expect(listeners.prefixes()).toEqual(['api']);
    listeners.clear();
    listeners.tell('api', 4);
    expect(heard).toHaveLength(2);
  });
});
