// An { ip } entry applies to the request's own group (issue 47; express-rate-limit #648: an
// ISP's /56 beside another's /64): the entry keeps the whole address, and a request grouped
// by /n (its limiter's ipv6Subnet, a number or a function of the request) matches it when
// its /n holds that address. Entries an earlier version wrote (the /64) still apply.
import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict } from '../../src/http/index.js';
import { Limit, LimitOperations, MemoryStore, type RequestView } from '../../src/index.js';
import { IpEntries } from '../../src/operations/ip-groups.js';
import { normaliseSubject } from '../../src/operations/subject.js';
import { ProtocolLimiter } from '../../src/protocol-api.js';
import type { OperationEntry } from '../../src/store-api.js';

const view = (ip: string): RequestView => ({
  method: 'GET',
  route: 'GET /a',
  ip,
  headers: {},
  raw: {},
});

describe('{ ip } subjects', () => {
  it('keep the whole address (IPv6 canonical, IPv4-mapped folded), not its /64', () => {
    expect(normaliseSubject({ ip: '2001:DB8:1:2:0:0:0:5' })).toEqual({ ip: '2001:db8:1:2::5' });
    expect(normaliseSubject({ ip: '::ffff:203.0.113.7' })).toEqual({ ip: '203.0.113.7' });
    expect(normaliseSubject({ ip: '203.0.113.7' })).toEqual({ ip: '203.0.113.7' });
  });
});

describe('IpEntries: one lookup per prefix length', () => {
  const entries = new IpEntries<string>();
  entries.add('2001:db8:a:1205::5', 'a');
  entries.add('203.0.113.7', 'v4');
  entries.add('2001:db8:b:1::/64', 'earlier');
  const at = (n: number) => () => n;

  it("matches a request whose own group holds the entry's address", () => {
    expect(entries.match('2001:db8:a:12ff::9', at(56))).toBe('a');
    expect(entries.match('2001:db8:a:12ff::9', at(64))).toBeUndefined();
    expect(entries.match('2001:db8:a:1205::77', at(64))).toBe('a');
    expect(entries.match('2001:db8:a:1205::77', at(128))).toBeUndefined();
    expect(entries.match('2001:db8:a:1205::5', at(128))).toBe('a');
    expect(entries.match('2001:db8:a:1300::1', at(56))).toBeUndefined();
  });

  it("an earlier version's /64 entry: the requests inside it at any length, and wider groups holding it", () => {
    expect(entries.match('2001:db8:b:1::9', at(128))).toBe('earlier');
    expect(entries.match('2001:db8:b:1::9', at(64))).toBe('earlier');
    expect(entries.match('2001:db8:b:2::9', at(56))).toBe('earlier');
    expect(entries.match('2001:db8:b:2::9', at(64))).toBeUndefined();
  });

  it('IPv4 (and IPv4-mapped) clients are their own group; the length is never asked', () => {
    const never = () => {
      throw new Error('asked');
    };
    expect(entries.match('203.0.113.7', never)).toBe('v4');
    expect(entries.match('::ffff:203.0.113.7', never)).toBe('v4');
    expect(entries.match('203.0.113.8', never)).toBeUndefined();
  });

  it('two entries in one group give the merged value', () => {
    const lists = new IpEntries<string[]>((a, b) => [...a, ...b]);
    lists.add('2001:db8::1', ['x']);
    lists.add('2001:db8::2', ['y']);
    expect(lists.match('2001:db8::9', at(64))).toEqual(['x', 'y']);
    expect(lists.match('2001:db8::2', at(128))).toEqual(['y']);
  });
});

describe('operator entries on each front door, by the request group its ipv6Subnet gives', () => {
  const subnet = (req: RequestView) => (req.ip.startsWith('2001:db8:a:') ? 56 : 64);

  it('HttpLimiter with ipv6Subnet as a function: a /56 and a /64 request group hit the same kind of ban', async () => {
    const store = new MemoryStore();
    const clock = () => EPOCH;
    const limiter = new HttpLimiter({
      store,
      clock,
      limit: Limit.perMinute(9),
      ipv6Subnet: subnet,
    });
    const ops = new LimitOperations({ store, clock });
    await ops.ban({ ip: '2001:db8:a:1205::5' }, { for: '1m' });
    await ops.ban({ ip: '2001:db8:b:1::5' }, { for: '1m' });
    const status = (ip: string) => (limiter.check(view(ip)) as HttpVerdict).statusCode;
    expect([
      status('2001:db8:a:12ff::9'),
      status('2001:db8:a:1300::9'),
      status('2001:db8:b:1::9'),
      status('2001:db8:b:2::5'),
    ]).toEqual([429, 200, 429, 200]);
  });

  it('ProtocolLimiter takes ipv6Subnet as a function too, for its keys and its entries', async () => {
    const store = new MemoryStore();
    const clock = () => EPOCH;
    const limiter = new ProtocolLimiter({
      limit: Limit.perMinute(1),
      channel: 'ws',
      store,
      clock,
      ipv6Subnet: subnet,
    });
    // keys: one /56 is one client
    expect((await limiter.check(view('2001:db8:a:1::1'))).allowed).toBe(true);
    expect((await limiter.check(view('2001:db8:a:2::1'))).allowed).toBe(false);
    expect((await limiter.check(view('2001:db8:b:1::1'))).allowed).toBe(true);
    expect((await limiter.check(view('2001:db8:b:2::1'))).allowed).toBe(true);
    const ops = new LimitOperations({ store, clock });
    await ops.deny({ ip: '2001:db8:a:3400::5' });
    expect((await limiter.check(view('2001:db8:a:34ff::1'))).decision.retryAfterMs).toBe(-1);
    expect(() => new ProtocolLimiter({ limit: '1/s', channel: 'ws', ipv6Subnet: 129 })).toThrow(
      expect.objectContaining({ option: 'ipv6Subnet' }),
    );
    const bad = new ProtocolLimiter({ limit: '1/s', channel: 'ws', ipv6Subnet: () => 0 });
    await expect(
      Promise.resolve().then(() => bad.check(view('2001:db8::1'))),
    ).rejects.toMatchObject({ option: 'ipv6Subnet' });
  });

  it("an earlier version's /64 entry still applies, unban lifts it, and inspect shows it", async () => {
    const store = new MemoryStore();
    const clock = () => EPOCH;
    const limiter = new HttpLimiter({ store, clock, limit: Limit.perMinute(9), ipv6Subnet: 128 });
    const ops = new LimitOperations({ store, clock });
    const earlier: OperationEntry = {
      id: 'ban:ip:2001:db8:1:2::/64',
      kind: 'ban',
      subject: { ip: '2001:db8:1:2::/64' },
      until: EPOCH + 60_000,
      at: EPOCH,
    };
    await store.operations!.put('sl', earlier);
    await ops.deny({ user: 'someone' }); // this process's snapshot reloads
    expect((limiter.check(view('2001:db8:1:2::77')) as HttpVerdict).statusCode).toBe(429);
    expect((await ops.inspect({ ip: '2001:db8:1:2::77' })).entries.map((e) => e.id)).toEqual([
      earlier.id,
    ]);
    await ops.unban({ ip: '2001:db8:1:2::77' });
    expect((limiter.check(view('2001:db8:1:2::77')) as HttpVerdict).statusCode).toBe(200);
  });
});
