/**
 * Wildcard subjects of operator entries (`{ user: 'premium_*' }`, `{ key: 'tenant:*:bot' }`):
 * `*` matches any run of characters (none included), `\*` is a literal star, any other
 * character (a backslash before anything but a star too) is itself. Compiled once per
 * snapshot change into two radix trees: patterns by their literal prefix, and under each
 * prefix by their literal suffix, so a decision walks the subject once from each end
 * instead of testing every pattern (docs/guide/operations.md, "Wildcard subjects").
 */

/**
 * The literal segments of `text` between its unescaped stars, `\*` read as `*`: one segment
 * when `text` is not a pattern (its exact value), two or more when it is.
 *
 * @example
 * ```ts
 * segments('tenant:*:bot'); // ['tenant:', ':bot']
 * segments('a\\*b'); // ['a*b']: an exact subject with a star in it
 * ```
 */
export function segments(text: string): string[] {
  if (!text.includes('*')) return [text];
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && text[i + 1] === '*') {
      current += '*';
      i++;
    } else if (c === '*') {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}

/**
 * What is wrong with `text` as a subject pattern, or `undefined` when it is an exact subject
 * or a valid pattern: two stars in a row (write one), or no literal character at all (a
 * pattern matching every subject: change the configured limits instead).
 */
export function patternProblem(text: string): string | undefined {
  const parts = segments(text);
  if (parts.length === 1) return undefined;
  for (let i = 1; i < parts.length - 1; i++) {
    if (parts[i] === '') return 'a pattern with no two stars in a row (write one *)';
  }
  if (parts.every((p) => p === '')) {
    return 'a pattern with at least one literal character (a lone * would match every subject)';
  }
  return undefined;
}

/**
 * The exact subject `text` stands for, or `undefined` when it is a valid pattern. A text
 * `LimitOperations` would refuse as a pattern (written by an older version or another tool:
 * `'*'`, `'a**b'`) is taken as exact, as it was before patterns: never as a pattern
 * matching more than it says.
 */
export function exactOf(text: string): string | undefined {
  const parts = segments(text);
  if (parts.length === 1) return parts[0];
  return patternProblem(text) === undefined ? undefined : text;
}

/** One compiled pattern. */
interface Compiled<T> {
  readonly prefix: string;
  readonly mids: readonly string[];
  readonly suffix: string;
  /** Literal characters: more wins. */
  readonly literal: number;
  /** Its subject text, the last tie-break (the same order in every process). */
  readonly text: string;
  readonly value: T;
}

/** Whether `a` wins over `b`: more literal characters, then a longer prefix, then the text. */
function wins<T>(a: Compiled<T>, b: Compiled<T>): boolean {
  if (a.literal !== b.literal) return a.literal > b.literal;
  if (a.prefix.length !== b.prefix.length) return a.prefix.length > b.prefix.length;
  return a.text < b.text;
}

/** A radix tree node: the edge label into it, its children by first char code, its payload. */
interface Node<P> {
  label: string;
  children: Map<number, Node<P>> | undefined;
  payload: P | undefined;
}

const node = <P>(label: string): Node<P> => ({ label, children: undefined, payload: undefined });

/**
 * The node of `key` in the tree under `root`, made if absent. Keys of a suffix tree are
 * inserted reversed (labels then read from a subject's end).
 */
function insert<P>(root: Node<P>, key: string): Node<P> {
  let at = root;
  let i = 0;
  while (i < key.length) {
    const c = key.charCodeAt(i);
    const child = at.children?.get(c);
    if (child === undefined) {
      const leaf = node<P>(key.slice(i));
      at.children ??= new Map();
      at.children.set(c, leaf);
      return leaf;
    }
    const label = child.label;
    const max = Math.min(label.length, key.length - i);
    let k = 0;
    while (k < max && label.charCodeAt(k) === key.charCodeAt(i + k)) k++;
    if (k < label.length) {
      const mid = node<P>(label.slice(0, k));
      child.label = label.slice(k);
      mid.children = new Map([[child.label.charCodeAt(0), child]]);
      at.children!.set(c, mid);
      at = mid;
    } else at = child;
    i += k;
  }
  return at;
}

/** `s` reversed by UTF-16 code unit (as labels are compared). */
const reverse = (s: string): string => s.split('').reverse().join('');

/** Whether `mids` occur in order, without overlap, in `s` between `from` and `to`. */
function midsIn(mids: readonly string[], s: string, from: number, to: number): boolean {
  let at = from;
  for (const m of mids) {
    const found = s.indexOf(m, at);
    if (found < 0 || found + m.length > to) return false;
    at = found + m.length;
  }
  return true;
}

/**
 * Subject patterns of one kind and type, each with a value (an entry, a list of overrides):
 * {@link PatternSet.match} answers the value of the winning pattern a subject matches (more
 * literal characters, then a longer literal prefix, then the pattern text), walking a radix
 * tree of prefixes from the subject's start and, at each prefix it holds, a radix tree of
 * suffixes from its end: a few map lookups per decision whatever the number of patterns.
 *
 * @example
 * ```ts
 * const set = new PatternSet<string>();
 * set.add('premium_*', 'p');
 * set.add('premium_eu_*', 'eu');
 * set.freeze();
 * set.match('premium_eu_42'); // 'eu'
 * ```
 */
export class PatternSet<T> {
  readonly #root = node<Node<Compiled<T>[]>>('');
  readonly #lists: Compiled<T>[][] = [];
  /** Patterns added. */
  size = 0;

  /** Adds the pattern `text` (see {@link segments}; two or more segments) with its value. */
  add(text: string, value: T): void {
    const parts = segments(text);
    const prefix = parts[0]!;
    const suffix = parts[parts.length - 1]!;
    const mids = parts.slice(1, -1).filter((m) => m !== '');
    const literal = parts.reduce((n, p) => n + p.length, 0);
    const byPrefix = insert(this.#root, prefix);
    byPrefix.payload ??= node('');
    const bySuffix = insert(byPrefix.payload, reverse(suffix));
    if (bySuffix.payload === undefined) {
      bySuffix.payload = [];
      this.#lists.push(bySuffix.payload);
    }
    bySuffix.payload.push({ prefix, mids, suffix, literal, text, value });
    this.size++;
  }

  /** Orders each bucket winner first; call once every pattern is added. */
  freeze(): void {
    for (const list of this.#lists) list.sort((a, b) => (wins(a, b) ? -1 : wins(b, a) ? 1 : 0));
  }

  /** The value of the winning pattern `s` matches, or `undefined`. */
  match(s: string): T | undefined {
    let best: Compiled<T> | undefined;
    let at = this.#root;
    let i = 0;
    for (;;) {
      if (at.payload !== undefined) best = this.#bySuffix(at.payload, s, i, best);
      if (i >= s.length) break;
      const child = at.children?.get(s.charCodeAt(i));
      if (child === undefined || !s.startsWith(child.label, i)) break;
      i += child.label.length;
      at = child;
    }
    return best?.value;
  }

  /** The winner among `best` and the patterns under `root` (one prefix, ending at `from`). */
  #bySuffix(
    root: Node<Compiled<T>[]>,
    s: string,
    from: number,
    best: Compiled<T> | undefined,
  ): Compiled<T> | undefined {
    let at = root;
    let end = s.length;
    for (;;) {
      const list = at.payload;
      if (list !== undefined) {
        for (const c of list) {
          if (best !== undefined && !wins(c, best)) break;
          if (midsIn(c.mids, s, from, end)) {
            best = c;
            break;
          }
        }
      }
      if (end <= from) break;
      const child = at.children?.get(s.charCodeAt(end - 1));
      if (child === undefined) break;
      const label = child.label; // reversed
      if (end - label.length < from) break;
      let k = 0;
      while (k < label.length && label.charCodeAt(k) === s.charCodeAt(end - 1 - k)) k++;
      if (k < label.length) break;
      end -= label.length;
      at = child;
    }
    return best;
  }
}

/**
 * Whether the subject text `pattern` (exact or a pattern) covers `value`: for `inspect()`,
 * off the hot path.
 */
export function covers(pattern: string, value: string): boolean {
  const exact = exactOf(pattern);
  if (exact !== undefined) return exact === value;
  const set = new PatternSet<true>();
  set.add(pattern, true);
  return set.match(value) === true;
}
