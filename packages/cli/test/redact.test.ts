// redact(): every line sluice prints passes through it with every URL it was given; what it
// must remove is the password of a Redis or PostgreSQL URL in every form a client reads or
// a library echoes it (raw, percent-decoded, in pg's query parameters).
import { endpointOf, redact } from '../src/redact.js';

const PW = 'Zq8/v+1 x@7';
const ENC = encodeURIComponent(PW);

describe('redact', () => {
  it.each([
    ['a Redis password', `redis://:${ENC}@h:6379`],
    ['a Redis user and password', `rediss://admin:${ENC}@h`],
    ['a PostgreSQL password', `postgres://app:${ENC}@db:5432/app`],
    ['a password in the query', `postgresql://app@db/app?sslmode=require&password=${ENC}`],
    ['a client key password in the query', `postgres://app@db/app?sslpassword=${ENC}`],
  ])('removes %s, raw and decoded, wherever it appears', (_, url) => {
    const text = `failed: ${url} (${PW}) [${ENC}]`;
    const out = redact(text, url);
    expect(out).not.toContain(PW);
    expect(out).not.toContain(ENC);
    expect(out).toContain('***');
    expect(out.startsWith('failed: ')).toBe(true);
  });

  it('removes the password of every URL given, a longer secret whole', () => {
    const a = 'postgres://u:short@h/d';
    const b = 'redis://:shortandlonger@h';
    expect(redact('x shortandlonger y short z', a, undefined, b, '')).toBe('x *** y *** z');
  });

  it('reads a password with an unencoded @ as WHATWG URL does (up to the last @)', () => {
    expect(redact('p@ss and p', 'postgres://u:p@ss@host/db')).toBe('*** and p');
  });

  it('leaves text alone when no URL has a secret', () => {
    const text = 'sluice: PostgreSQL at db:5432 failed: cannot connect: ECONNREFUSED';
    expect(redact(text, 'postgres://app@db/app', undefined, '/var/lib/app/limits.db')).toBe(text);
    expect(redact(text)).toBe(text);
  });

  it('a userinfo with no colon is taken for a password (redis://pw@host)', () => {
    expect(redact('got s3cret', 'redis://s3cret@h')).toBe('got ***');
  });
});

describe('endpointOf', () => {
  it('names host:port only, with the default port', () => {
    expect(endpointOf(`postgres://app:${ENC}@db.internal/app`, 5432)).toBe('db.internal:5432');
    expect(endpointOf(`redis://:${ENC}@10.0.0.1:6380`, 6379)).toBe('10.0.0.1:6380');
    expect(endpointOf('not a url', 6379)).toBe('(an unparsable URL)');
  });
});
