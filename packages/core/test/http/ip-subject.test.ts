import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { checkedSubnet, ipSubject, subnetOf } from '../../src/http/request/keys.js';
import { keySegment } from '../../src/keys/key-segment.js';

// The IP part of every key. It was first computed with ipaddr.js; it is now parsed by the
// runtime's URL parser (no dependency in a bundle). Keys must not move: existing Redis,
// Postgres and SQLite state stays under the same keys. ipaddr.js is the oracle here.
function before(ip: string, subnet: number): string | undefined {
  if (!ipaddr.IPv6.isValid(ip)) return undefined; // hashed: compared by kind below
  const parsed = ipaddr.IPv6.parse(ip);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  if (subnet >= 128) return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${subnet}`).toString()}/${subnet}`;
}

/** Hextets biased to zeros and 0xffff, so runs of zeros, ties and mapped addresses occur. */
const hextet = fc.oneof(
  fc.constant(0),
  fc.constant(0),
  fc.constant(0xffff),
  fc.integer({ min: 0, max: 0xffff }),
);
const written = fc
  .tuple(fc.array(hextet, { minLength: 8, maxLength: 8 }), fc.integer({ min: 0, max: 3 }))
  .map(([h, style]) => {
    const parts = h.map((x) =>
      style === 0
        ? x.toString(16).padStart(4, '0')
        : style === 1
          ? x.toString(16).toUpperCase()
          : x.toString(16),
    );
    return style === 3 ? ipaddr.IPv6.parse(parts.join(':')).toString() : parts.join(':');
  });

describe('ipSubject: the same text ipaddr.js gave', () => {
  it('on 10,000 random IPv6 addresses at /48, /64, /127 and /128', () => {
    fc.assert(
      fc.property(written, fc.constantFrom(48, 64, 127, 128), (ip, subnet) => {
        expect(ipSubject(ip, subnet)).toBe(before(ip, subnet));
      }),
      { numRuns: 10_000 },
    );
  });

  it.each([
    ['::1', 64],
    ['::', 128],
    ['::ffff:1.2.3.4', 64],
    ['::ffff:0:0', 64],
    ['::1.2.3.4', 64],
    ['2001:DB8::A', 64],
    ['2001:db8:0:0:1:0:0:1', 128],
    ['0:0:ed05:29df:0:0:f27f:1ffc', 128],
    ['64:ff9b::1.2.3.4', 128],
    ['fe80::1%eth0', 64],
    ['fe80::1%eth0', 128],
  ])('%s at /%d', (ip, subnet) => {
    expect(ipSubject(ip, subnet)).toBe(before(ip, subnet));
  });

  it('refuses text that is not an IP address (a forwarded hop), naming ip; an empty IP is hashed', () => {
    for (const text of ['1:2:3:4:5:6:7:8:9', 'abc:', '[::1]', '::1/64', 'not-an-ip', '999.1.1.1']) {
      expect(() => ipSubject(text)).toThrow(expect.objectContaining({ option: 'ip' }));
    }
    expect(ipSubject('')).toBe(keySegment(''));
  });
});

describe('subnetOf: an ipv6Subnet function asked once per request view', () => {
  const view = () => ({ method: 'GET', route: '*', ip: '2001:db8::1', headers: {}, raw: {} });

  it('asks the function once per view and checks its answer', () => {
    let calls = 0;
    const fn = () => ++calls * 8 + 40; // 48 on the first call, 56 on the second
    const a = view();
    expect(subnetOf(a, fn)).toBe(48);
    expect(subnetOf(a, fn)).toBe(48);
    expect(subnetOf(view(), fn)).toBe(56);
    expect(calls).toBe(2);
    expect(subnetOf(a, 64)).toBe(64);
  });

  it('refuses an answer that is not an integer 1..128, naming ipv6Subnet, never the default', () => {
    for (const bad of [0, 129, 64.5, Number.NaN, Number.POSITIVE_INFINITY, '64', undefined]) {
      expect(() => subnetOf(view(), () => bad as never)).toThrow(
        expect.objectContaining({ option: 'ipv6Subnet' }),
      );
    }
    expect([1, 32, 128].map(checkedSubnet)).toEqual([1, 32, 128]);
  });
});
