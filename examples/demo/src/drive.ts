/**
 * The traffic driver: sends real HTTP requests to the running demo (127.0.0.1 only, a
 * bounded number) from several users on each framework, and tallies per framework, route
 * and user how many got 200 and 429 and the rate-limit headers last seen.
 * `pnpm demo:drive` runs this through `bin/drive.ts`; the tests call {@link drive}.
 * `pnpm demo:drive --paced` sends the same traffic through `@sluice/client`'s `pacedFetch`:
 * it waits before the server would deny, and does not send what would wait longer than its
 * `maxWait` (counted as held).
 */
import { pacedFetch, WaitTooLongError } from '@sluice/client';
import type { Framework } from './demo.js';

/** One batch of identical requests, sent one after the other. */
export interface Step {
  method: 'GET' | 'POST';
  path: string;
  /** Sent as `Authorization: Bearer <user>`; `undefined`: anonymous (counted by IP). */
  user: string | undefined;
  count: number;
  /** Sent as `X-Password` (`POST /session`). */
  password?: string;
  /** Send the `count` requests at once instead of one after the other. */
  parallel?: boolean;
}

/**
 * The default traffic, per framework, in this order: the public route; 8 logins from one IP
 * (the 6th and later get 429); alice on `/api/items` past her 60 a minute; bob and carol
 * well within theirs (their own buckets); anonymous `/api` requests (keyed by IP); bob's
 * two reports at 10 units each; 3 good then 7 bad `POST /session` passwords (only failures
 * count: 5 × 401, then 429 blocked 15 min); erin's 3 exports at once (2 in flight allowed).
 */
export const DEFAULT_PLAN: readonly Step[] = [
  { method: 'GET', path: '/', user: undefined, count: 3 },
  { method: 'POST', path: '/login', user: undefined, count: 8 },
  { method: 'GET', path: '/api/items', user: 'alice', count: 65 },
  { method: 'GET', path: '/api/items', user: 'bob', count: 10 },
  { method: 'GET', path: '/api/me', user: 'carol', count: 3 },
  { method: 'GET', path: '/api/items', user: 'carol', count: 5 },
  { method: 'GET', path: '/api/items', user: undefined, count: 5 },
  { method: 'GET', path: '/api/report', user: 'bob', count: 2 },
  // Successful logins never count; 5 failures, then the IP is blocked (429, 15 min).
  { method: 'POST', path: '/session', user: 'dave', count: 3, password: 'demo' },
  { method: 'POST', path: '/session', user: undefined, count: 7, password: 'guess' },
  // 3 slow exports at once with 2 in flight allowed: 2 x 200, 1 x 429.
  { method: 'GET', path: '/api/export', user: 'erin', count: 3, parallel: true },
];

/** The response of one request, as the driver saw it. */
export interface Seen {
  status: number;
  limit: string | null;
  remaining: string | null;
  reset: string | null;
  retryAfter: string | null;
}

/** Counts for one framework, route and user. */
export interface Tally {
  framework: Framework;
  /** `METHOD path`, e.g. `POST /login`. */
  route: string;
  /** The user name, or `'(anonymous)'`. */
  user: string;
  ok: number;
  limited: number;
  /** Any other status. */
  other: number;
  /** Paced only: not sent, since the server's policy would have held it past `maxWait`. */
  held: number;
  /** Every response, in order. */
  responses: Seen[];
  /** The last value seen of each header (`null`: never seen). */
  last: Omit<Seen, 'status'>;
}

/** The demo does not answer at one of the URLs. */
export class DemoNotRunningError extends Error {
  constructor(
    readonly framework: Framework,
    readonly url: string,
    cause: unknown,
  ) {
    super(`the ${framework} demo does not answer at ${url}`, { cause });
    this.name = 'DemoNotRunningError';
  }
}

const ANONYMOUS = '(anonymous)';

function assertLocal(url: string): void {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') {
    throw new Error(`the driver only sends traffic to this machine, not to ${url}`);
  }
}

/** The status of a request held back by the paced client (not sent). */
export const HELD = 0;

/** How the driver sends: plain `fetch`, or paced (see {@link DriveOptions}). */
export interface DriveOptions {
  /** Send through `pacedFetch(fetch, { maxWait })` instead of plain `fetch`. */
  paced?: boolean;
  /** With `paced`: the longest a request waits for the server's policy, in ms (default 5 s). */
  maxWait?: number;
}

async function send(base: string, step: Step, fetchFn: typeof fetch): Promise<Seen> {
  const headers: Record<string, string> = {};
  if (step.user !== undefined) headers.authorization = `Bearer ${step.user}`;
  if (step.password !== undefined) headers['x-password'] = step.password;
  let res: Response;
  try {
    res = await fetchFn(base + step.path, { method: step.method, headers });
  } catch (err) {
    if (!(err instanceof WaitTooLongError)) throw err;
    return { status: HELD, limit: null, remaining: null, reset: null, retryAfter: null };
  }
  await res.arrayBuffer(); // read the body so the connection can be reused
  return {
    status: res.status,
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
    retryAfter: res.headers.get('retry-after'),
  };
}

/**
 * Checks that every app answers `GET /`.
 * @throws {@link DemoNotRunningError} for the first one that does not.
 */
export async function checkRunning(urls: Record<Framework, string>): Promise<void> {
  for (const [framework, url] of Object.entries(urls) as [Framework, string][]) {
    assertLocal(url);
    try {
      const res = await fetch(`${url}/`, { signal: AbortSignal.timeout(3000) });
      await res.arrayBuffer();
    } catch (err) {
      throw new DemoNotRunningError(framework, url, err);
    }
  }
}

/**
 * Runs `plan` against each app in turn (requests one at a time) and returns one tally per
 * framework, route and user, in the order first met.
 */
export async function drive(
  urls: Record<Framework, string>,
  plan: readonly Step[] = DEFAULT_PLAN,
  options: DriveOptions = {},
): Promise<Tally[]> {
  await checkRunning(urls);
  const fetchFn: typeof fetch = options.paced
    ? pacedFetch(fetch, { maxWait: options.maxWait ?? 5000 })
    : fetch;
  const tallies = new Map<string, Tally>();
  for (const [framework, base] of Object.entries(urls) as [Framework, string][]) {
    for (const step of plan) {
      const route = `${step.method} ${step.path}`;
      const user = step.user ?? ANONYMOUS;
      const id = `${framework}\0${route}\0${user}`;
      let tally = tallies.get(id);
      if (tally === undefined) {
        tally = {
          framework,
          route,
          user,
          ok: 0,
          limited: 0,
          other: 0,
          held: 0,
          responses: [],
          last: { limit: null, remaining: null, reset: null, retryAfter: null },
        };
        tallies.set(id, tally);
      }
      const sent = step.parallel
        ? await Promise.all(Array.from({ length: step.count }, () => send(base, step, fetchFn)))
        : undefined;
      for (let i = 0; i < step.count; i++) {
        const seen = sent?.[i] ?? (await send(base, step, fetchFn));
        tally.responses.push(seen);
        if (seen.status === HELD) tally.held++;
        else if (seen.status === 200) tally.ok++;
        else if (seen.status === 429) tally.limited++;
        else tally.other++;
        for (const k of ['limit', 'remaining', 'reset', 'retryAfter'] as const) {
          if (seen[k] !== null) tally.last[k] = seen[k];
        }
      }
    }
  }
  return [...tallies.values()];
}

/** A plain-text table of `tallies` (`nowMs` turns `X-RateLimit-Reset` into "in N s"). */
export function formatReport(tallies: readonly Tally[], nowMs = Date.now()): string {
  const paced = tallies.some((t) => t.held > 0);
  const head = [
    'framework',
    'route',
    'user',
    'sent',
    '200',
    '429',
    'other',
    ...(paced ? ['held'] : []),
    'Limit',
    'Remaining',
    'Reset',
    'Retry-After',
  ];
  const dash = '-';
  const rows = tallies.map((t) => {
    const reset =
      t.last.reset === null
        ? dash
        : `${t.last.reset} (in ${Math.max(0, Number(t.last.reset) - Math.floor(nowMs / 1000))} s)`;
    return [
      t.framework,
      t.route,
      t.user,
      String(t.responses.length),
      String(t.ok),
      String(t.limited),
      String(t.other),
      ...(paced ? [String(t.held)] : []),
      t.last.limit ?? dash,
      t.last.remaining ?? dash,
      reset,
      t.last.retryAfter === null ? dash : `${t.last.retryAfter} s`,
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) =>
        i >= 3 && i <= (paced ? 7 : 6) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd();
  const out = [
    'Per framework, route and user: responses by status, and the last X-RateLimit-Limit,',
    'X-RateLimit-Remaining, X-RateLimit-Reset and Retry-After headers seen.',
    '',
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
  ];
  let previous: Framework | undefined;
  for (const [i, r] of rows.entries()) {
    if (previous !== undefined && tallies[i]!.framework !== previous) out.push('');
    previous = tallies[i]!.framework;
    out.push(line(r));
  }
  return out.join('\n');
}
