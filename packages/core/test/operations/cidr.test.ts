// CIDR matching of allow / deny / ban lists: IPv4 and IPv6, nested networks, IPv4-mapped
// addresses, and a random cross-check against ipaddr.js's own `match`.
import ipaddr from 'ipaddr.js';
import { SluiceConfigError } from '../../src/index.js';
import { CidrSet, canonicalCidr } from '../../src/operations/cidr.js';

describe('canonicalCidr', () => {
  it('normalises networks and bare addresses; folds IPv4-mapped networks to IPv4', () => {
    expect(canonicalCidr('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(canonicalCidr('203.0.113.7')).toBe('203.0.113.7/32');
    expect(canonicalCidr('2001:DB8:0:0:1::/32')).toBe('2001:db8::/32');
    expect(canonicalCidr('::1')).toBe('::1/128');
    expect(canonicalCidr('::ffff:1.2.3.0/120')).toBe('1.2.3.0/24');
  });

  it.each(['', '10.0.0.0/33', '300.1.1.1/8', '2001:db8::/129', 'not-a-cidr', '1.2.3/24'])(
    'refuses %j with a SluiceConfigError naming the option',
    (text) => {
      expect(() => canonicalCidr(text, 'subject')).toThrow(SluiceConfigError);
      expect(() => canonicalCidr(text, 'subject')).toThrow(/"subject"/);
    },
  );
});

describe('CidrSet', () => {
  it('matches IPv4 and IPv6 networks, an IPv4-mapped address against IPv4 networks, nothing else', () => {
    const set = new CidrSet([
      ['1.2.3.0/24', 'a'],
      ['10.0.0.0/8', 'b'],
      ['10.1.0.0/16', 'inner'],
      ['2001:db8::/32', 'c'],
      ['2001:db8:1::/48', 'inner6'],
      ['::1/128', 'loop'],
    ]);
    expect(set.match('1.2.3.4')).toBe('a');
    expect(set.match('::ffff:1.2.3.4')).toBe('a');
    expect(set.match('::FFFF:0102:0304')).toBe('a');
    expect(set.match('1.2.4.1')).toBeUndefined();
    // nested: the outer network answers
    expect(set.match('10.1.2.3')).toBe('b');
    expect(set.match('2001:db8:1::5')).toBe('c');
    expect(set.match('2001:db8:ffff::1')).toBe('c');
    expect(set.match('2001:db9::1')).toBeUndefined();
    expect(set.match('::1')).toBe('loop');
    expect(set.match('::2')).toBeUndefined();
    expect(set.match('0.0.0.0')).toBeUndefined();
    expect(set.match('255.255.255.255')).toBeUndefined();
    expect(set.match('unix:/tmp/sock')).toBeUndefined();
    expect(set.match('')).toBeUndefined();
    expect(set.match('01.2.3.4')).toBeUndefined();
  });

  it('matches exactly as ipaddr.js does, on random networks of every prefix length', () => {
    let seed = 12345;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const v4 = () => Array.from({ length: 4 }, () => Math.floor(rand() * 256)).join('.');
    const v6 = () =>
      ipaddr
        .fromByteArray(
          Array.from({ length: 16 }, () => (rand() < 0.5 ? 0x20 : Math.floor(rand() * 256))),
        )
        .toString();
    const networks: [string, number][] = [];
    for (let i = 0; i < 400; i++) {
      const six = i % 2 === 1;
      const bits = Math.floor(rand() * (six ? 129 : 33));
      networks.push([
        canonicalCidr(`${six ? v6() : v4()}/${bits < (six ? 8 : 4) ? bits + 8 : bits}`),
        i,
      ]);
    }
    const set = new CidrSet(networks);
    const parsed = networks.map(([c]) => ipaddr.parseCIDR(c));
    for (let i = 0; i < 4000; i++) {
      // addresses near the networks as well as random ones
      const base = networks[Math.floor(rand() * networks.length)]![0].split('/')[0]!;
      const six = base.includes(':');
      const bytes = ipaddr.parse(base).toByteArray();
      for (let b = Math.floor(rand() * bytes.length); b < bytes.length; b++)
        bytes[b] = Math.floor(rand() * 256);
      const ip = i % 3 === 0 ? (six ? v6() : v4()) : ipaddr.fromByteArray(bytes).toString();
      const address = ipaddr.parse(ip);
      const expected = parsed.some(
        ([net, bits]) => net.kind() === address.kind() && address.match(net, bits),
      );
      expect([ip, set.match(ip) !== undefined]).toEqual([ip, expected]);
    }
  });
});
