// Wildcard subjects (patterns.ts): what a pattern matches, which pattern wins, bad patterns,
// and the compiled PatternSet against a reference (each pattern as a RegExp, tried in turn)
// on random patterns and subjects.
import fc from 'fast-check';
import { covers, PatternSet, patternProblem, segments } from '../../src/operations/patterns.js';

function set(...patterns: string[]): PatternSet<string> {
  const s = new PatternSet<string>();
  for (const p of patterns) s.add(p, p);
  s.freeze();
  return s;
}

/** The reference: each pattern as an anchored RegExp; the winner by the documented order. */
function reference(patterns: string[], subject: string): string | undefined {
  const literal = (p: string) => segments(p).join('').length;
  const prefix = (p: string) => segments(p)[0]!.length;
  const matching = patterns.filter((p) => {
    const source = segments(p)
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(`^${source}$`, 's').test(subject);
  });
  matching.sort(
    (a, b) => literal(b) - literal(a) || prefix(b) - prefix(a) || (a < b ? -1 : a > b ? 1 : 0),
  );
  return matching[0];
}

describe('subject patterns', () => {
  it.each([
    ['premium_*', 'premium_42', true],
    ['premium_*', 'premium_', true], // a run of no characters
    ['premium_*', 'xpremium_42', false],
    ['*_bot', 'tenant_bot', true],
    ['*_bot', 'tenant_bot2', false],
    ['tenant:*:bot', 'tenant:7:bot', true],
    ['tenant:*:bot', 'tenant::bot', true],
    ['tenant:*:bot', 'tenant:bot', false], // prefix and suffix may not overlap
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'acb', false],
    ['a\\*b', 'a*b', true], // an escaped star is literal
    ['a\\*b', 'axb', false],
    ['a\\*b*', 'a*bcd', true],
    ['a\\b*', 'a\\bc', true], // a backslash before anything else is itself
  ])('%s covers %s: %s', (pattern, subject, expected) => {
    expect(covers(pattern, subject)).toBe(expected);
    const parts = segments(pattern);
    if (parts.length > 1) expect(set(pattern).match(subject) !== undefined).toBe(expected);
  });

  it('the pattern with more literal characters wins, then the longer prefix, then the text', () => {
    const s = set('premium_*', 'premium_eu_*', '*_eu_42', 'p*42', 'pr*2');
    expect(s.match('premium_eu_42')).toBe('premium_eu_*'); // 11 literal characters
    expect(s.match('premium_us_42')).toBe('premium_*');
    expect(s.match('px_eu_42')).toBe('*_eu_42');
    expect(s.match('pxx42')).toBe('p*42'); // 'pr*2' needs an r
    // a tie on literal characters: the longer literal prefix, then the text
    expect(set('ab*x', 'a*bx').match('abbx')).toBe('ab*x');
    expect(set('b*a', 'a*b', 'x*y').match('a_b')).toBe('a*b');
    expect(set('*ab', 'ba*').match('baab')).toBe('ba*');
    expect(set('q*', 'z*').match('abc')).toBeUndefined();
  });

  it('refuses two stars in a row and a pattern with no literal character', () => {
    expect(patternProblem('premium_*')).toBeUndefined();
    expect(patternProblem('exact')).toBeUndefined();
    expect(patternProblem('a\\*\\*')).toBeUndefined(); // escaped: exact
    expect(patternProblem('a**b')).toMatch(/two stars/);
    expect(patternProblem('*')).toMatch(/literal character/);
    expect(patternProblem('**')).toMatch(/two stars|literal/);
  });

  it('matches as the reference does on random patterns and subjects', () => {
    // literal characters of a pattern ('\\*' a literal star), and a subject's characters
    const literalChar = fc.constantFrom('a', 'b', ':', '_', 'é', '😀', '\\*');
    const literalText = fc.array(literalChar, { maxLength: 4 }).map((c) => c.join(''));
    const pattern = fc
      .array(literalText, { minLength: 2, maxLength: 4 })
      .filter((parts) => parts.slice(1, -1).every((p) => p !== '') && parts.join('') !== '')
      .map((parts) => parts.join('*'));
    const char = fc.constantFrom('a', 'b', ':', '_', 'é', '😀', '*', '\\');
    const subject = fc.array(char, { maxLength: 10 }).map((c) => c.join(''));
    fc.assert(
      fc.property(
        fc.uniqueArray(pattern, { minLength: 1, maxLength: 30 }),
        fc.array(subject, { minLength: 1, maxLength: 20 }),
        (patterns, subjects) => {
          const s = set(...patterns);
          for (const subj of subjects) expect(s.match(subj)).toBe(reference(patterns, subj));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('entries a pattern check would refuse (written before patterns, or by another tool)', () => {
  it('are exact subjects: a lone * bans the key "*" only, never every key', async () => {
    const { MemoryOperationsSync } = await import('../../src/operations/memory-sync.js');
    const { OperationsSnapshot } = await import('../../src/operations/snapshot.js');
    const sync = new MemoryOperationsSync();
    const until = Date.now() + 60_000;
    await sync.put('sl', { id: 'ban:key:*', kind: 'ban', subject: { key: '*' }, until, at: 0 });
    await sync.put('sl', {
      id: 'ban:user:a**',
      kind: 'ban',
      subject: { user: 'a**' },
      until,
      at: 0,
    });
    const snapshot = new OperationsSnapshot(sync, 'sl');
    snapshot.live(Date.now());
    await snapshot.refresh();
    expect(snapshot.check(undefined, undefined, 'anything')).toBeUndefined();
    expect(snapshot.check(undefined, undefined, '*')?.kind).toBe('ban');
    expect(snapshot.check(undefined, 'a**', undefined)?.kind).toBe('ban');
    expect(snapshot.check(undefined, 'abc', undefined)).toBeUndefined();
    expect(covers('*', 'x')).toBe(false);
    expect(covers('*', '*')).toBe(true);
  });
});
